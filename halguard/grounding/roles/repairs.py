"""Repairs of misparses by spaCy's small English model, for the role frames (:mod:`halguard.grounding.roles.frames`):
of "VERB the DESCRIPTION NAME", the object split in two and a past-tense verb read as a modifier of its object's
description; a reduced passive relative read as a clause of its own ("confirmed the planet first spotted by ...");
the phrases after a participle set off by commas read as the participle's ("returned the head, looted from Benin
City, to the government"); a name after its description read as the description's object ("by engineer Ana
Costa"), or an object's apposition as the verb's modifier ("arrested the driver, Sam Ortiz, after ..."); a passive's
agent hung on the noun of its "under licence" phrase; and a dialogue's speaker label read as the subject. Each looks
at a few tokens: bounded by the sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["CHAIN_LIMIT", "agents_under_commission", "apposition_of_object", "misread_object", "name_after_description",
           "object_it_modifies", "reduced_relative", "set_off_tail", "speaker_label", "subject_read_as_conjunct"]

# Upper bound on the links followed up a parse: a noun's compounds, a conj chain, a clause's subject (a parse of
# crafted text can chain every token). The role frames' one bound (phrases and frames read it from here).
CHAIN_LIMIT = 8


def misread_object(verb: Any, is_name: Callable[[Any], bool]) -> tuple[Any, Any] | None:
    """``(name, misread token)`` where the parser split the verb's object in two: "acquired the robotics startup
    Kestrel Dynamics" read as "acquired the robotics" and a verb "startup" of its own, with no subject, right after
    the object, whose object is the name. The name is the verb's object; the misread token's phrases ("in June
    2021") are the verb's."""
    obj = next((c for c in verb.children if c.dep_ in ("dobj", "obj") and not is_name(c)), None)
    if obj is None:
        return None
    after = obj.right_edge.i + 1
    split = next((c for c in verb.children if c.i == after and c.dep_ in ("ccomp", "xcomp", "conj")
                  and c.pos_ == "VERB"), None)
    if split is None or any(c.dep_ in ("nsubj", "nsubjpass", "csubj", "aux", "mark") for c in split.children):
        return None
    name = next((c for c in split.children if c.dep_ in ("dobj", "obj") and is_name(c)), None)
    return (name, split) if name is not None else None


def object_it_modifies(verb: Any) -> Any | None:
    """The noun a finite verb the parser read as its modifier is the object of: "Riverside FC signed striker Tomas
    Varga" read as a verb "signed" with its subject, modifying "striker" in the name "striker Tomas Varga". A
    past-tense verb with a subject of its own is no modifier; the name it sits in is its object."""
    if verb.dep_ != "amod" or verb.tag_ != "VBD" or not any(c.dep_ == "nsubj" for c in verb.children):
        return None
    noun = verb.head
    for _ in range(CHAIN_LIMIT):
        if noun.dep_ != "compound" or noun.head.i == noun.i:
            break
        noun = noun.head
    return noun if noun.i > verb.i else None


def reduced_relative(verb: Any) -> Any | None:
    """The noun a past participle modifies where the parser read the two as a clause of their own: "The TESS satellite
    confirmed the planet first spotted by astronomers" parsed with "planet" the active subject of a complement
    "spotted". A participle with a "by" agent and no auxiliary or subordinator is a passive: the noun is what was
    spotted, and the object of the verb the clause hangs on. Returns None when not."""
    if verb.tag_ != "VBN" or verb.dep_ not in ("ccomp", "xcomp") or verb.head.i == verb.i:
        return None
    children = list(verb.children)
    if not any(c.dep_ == "agent" for c in children) or any(
            c.dep_ in ("aux", "auxpass", "mark", "nsubjpass", "dobj", "obj") for c in children):
        return None
    subjects = [c for c in children if c.dep_ == "nsubj"]
    if len(subjects) != 1 or subjects[0].pos_ not in ("NOUN", "PROPN") or subjects[0].i > verb.i:
        return None
    return subjects[0]


def name_after_description(obj: Any, is_name: Callable[[Any], bool]) -> Any | None:
    """The name a preposition's object describes where the parser read the description as a verb of the name: "by
    engineer Ana Costa" parsed with "engineer" a complement whose object is "Costa". None when not."""
    if obj.dep_ != "pcomp" or obj.pos_ != "NOUN":
        return None
    return next((c for c in obj.children if c.dep_ in ("dobj", "obj") and c.i > obj.i and is_name(c)), None)


def apposition_of_object(verb: Any, is_name: Callable[[Any], bool]) -> dict[int, Any]:
    """The verb's objects (by token index) whose apposition the parser hung on the verb as a modifier: "Police
    arrested the driver, Sam Ortiz, after the crash" with "Ortiz" an adverbial noun of "arrested". The name right
    after the object and its comma is the object's (an apposition names its head)."""
    found = {}
    for obj in verb.children:
        if obj.dep_ not in ("dobj", "obj"):
            continue
        after = obj.right_edge.i + 2
        name = next((c for c in verb.children if c.dep_ == "npadvmod" and c.left_edge.i == after and is_name(c)),
                    None)
        if name is not None and obj.doc[after - 1].text == ",":
            found[obj.i] = name
    return found


def set_off_tail(participle: Any) -> list[Any]:
    """The prepositional phrases after the closing comma of a participle set off by commas, which the parser hangs on
    the participle: "The museum returned the bronze head, looted from Benin City in 1897, to the Nigerian government"
    (the government is whom the museum returned it to, not where it was looted to). Empty where there are none."""
    if participle.dep_ != "acl" or participle.tag_ != "VBN" or participle.i == 0 \
            or participle.doc[participle.i - 1].text != ",":
        return []
    comma = next((c for c in participle.children if c.dep_ == "punct" and c.text == "," and c.i > participle.i),
                 None)
    if comma is None:
        return []
    return [c for c in participle.children if c.dep_ == "prep" and c.i > comma.i]


def subject_read_as_conjunct(verb: Any) -> Any | None:
    """The subject of a coordinated verb that the parser read as a conjunct of the first clause's object: "Ilse Koch
    became chair and her predecessor, Peter Lang, joined the board" parsed as "chair and her predecessor" with
    "joined" Koch's. A conjunct noun whose phrase ends right where a coordinated verb with no subject of its own
    begins (or after the apposition's closing comma) is that verb's subject: a second verb of the first subject comes
    after its own "and" or comma ("bought apples and pears, and sold them"). None when not."""
    if verb.dep_ != "conj" or verb.pos_ != "VERB" or verb.i == 0 or any(
            c.dep_ in ("nsubj", "nsubjpass", "csubj", "csubjpass", "expl") for c in verb.children):
        return None
    last = verb.i - 1
    if verb.doc[last].text == "," and verb.doc[last].head.i == verb.head.i:
        last -= 1  # the apposition's closing comma, hung on the first verb: "his rival, Eva Lund, joined"
    noun = verb.doc[last]
    for _ in range(CHAIN_LIMIT):  # from the phrase's last word up to its head
        if noun.dep_ == "conj" and noun.pos_ in ("NOUN", "PROPN") and noun.right_edge.i == last:
            break
        if noun.i == noun.head.i or noun.head.i > verb.i:
            return None
        noun = noun.head
    else:
        return None
    if not (noun.dep_ == "conj" and noun.right_edge.i == last) or any(c.dep_ == "cc" for c in noun.children):
        return None
    if last < verb.i - 1 and not any(c.dep_ == "appos" for c in noun.children):
        return None  # a comma of the first clause's own: "bought apples and pears, sold them" (a second verb)
    first = noun
    for _ in range(CHAIN_LIMIT):
        if first.dep_ != "conj":
            break
        first = first.head
    # the coordination is an argument of the verb the second one is coordinated with ("became chair and ...")
    return noun if first.dep_ != "conj" and first.head.i == verb.head.i and first.i < noun.i else None


def speaker_label(tok: Any) -> bool:
    """Whether ``tok`` (a subject) is a transcript's speaker label: the words that open the sentence, followed by a
    colon ("Ann: Darling, buy some butter." parsed with Ann the subject of "buy"; who buys is whom Ann speaks to)."""
    after = tok.i + 1
    return tok.left_edge.i == tok.sent.start and after < len(tok.doc) and tok.doc[after].text == ":"


# The nouns of a phrase that says on whose terms something is done, whose "by" phrase the parser hangs on the noun:
# "is manufactured under licence by Sentara Pharma" (the doer is Sentara Pharma). Hand-listed general English.
_COMMISSION_NOUNS = frozenset({"licence", "license", "contract", "commission", "franchise"})


def agents_under_commission(verb: Any) -> list[Any]:
    """The agents of a passive ``verb`` with no "by" phrase of its own that the parser hung on the noun of its
    "under licence" / "under contract" phrase: "manufactured under licence by Sentara Pharma" gives Sentara Pharma's
    head token. Empty where there is none."""
    if any(c.dep_ == "agent" for c in verb.children):
        return []
    return [obj for c in verb.children if c.dep_ == "prep" for noun in c.children
            if noun.dep_ == "pobj" and noun.lemma_.lower() in _COMMISSION_NOUNS for by in noun.children
            if by.dep_ == "prep" and by.lower_ == "by" for obj in by.children if obj.dep_ == "pobj"]
