"""Who does what to whom: the frames of a dependency parse.

A :class:`Frame` is a predicate (a verb's lemma, with its particle: "make up"; or an event noun: "purchase") and its
arguments by role: ``agent``, ``patient``, ``recipient``, ``attr`` (what a copula says the subject is),
``advmod`` (an adverb with its own words: "22 kilometres across", "up from 44%"), ``time`` (a preposition whose
object holds a year, a month or a weekday: "in 1066", "on 4 March 1890") and ``prep:<preposition>`` for the other
prepositional arguments. The same event gets the same frame however it is written:

- passive and active: "Palmera was bought by Northwind" and "Northwind bought Palmera" are both
  ``buy(agent=Northwind, patient=Palmera)``; a passive participle modifying a noun ("the tent left behind by
  Amundsen") makes the noun its patient;
- relative clauses: the relative pronoun is the noun it stands for ("the museum, which opened in 1901");
- coordination: conjoined verbs share their subject ("arrived ... and found the tent"), conjoined arguments are one
  argument each ("Phobos and Deimos");
- appositions and possessives stay in the argument ("the top seed, Chen Yuting"; "William's forces"), so the
  argument carries their names; an event noun with a possessor and an "of" object is a frame of its own
  ("Northwind's purchase of Palmera": ``purchase(agent=Northwind, patient=Palmera)``);
- a pronoun subject of a reported clause is the reporting verb's subject ("Kovar said that it had been bought").

Every walk here is iterative and bounded by the sentence's tokens: the parse of a crafted text cannot make it
recurse or loop.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from halguard.grounding.roles.frame_types import Argument, Frame
from halguard.grounding.roles.headlines import headline_tokens
from halguard.grounding.roles.phrases import (
    PERSONAL,
    RELATIVE,
    TIME_WORDS,
    argument,
    argument_tokens,
    conjuncts,
    is_name,
    is_named,
)
from halguard.grounding.roles.repairs import (
    CHAIN_LIMIT,
    agents_under_commission,
    apposition_of_object,
    misread_object,
    name_after_description,
    object_it_modifies,
    reduced_relative,
    set_off_tail,
    speaker_label,
    subject_read_as_conjunct,
)
from halguard.text.lexical import stem

__all__ = ["Argument", "Frame", "frames_of"]

_TIME_PREPOSITIONS = frozenset({"in", "on", "at", "during", "since", "until", "till", "before", "after", "from",
                                "by"})
# Verbs of holding a post whose "as" phrase says what their subject is: "Demir stayed on as chief executive" is read
# as "Demir remained chief executive" has it (an attribute). Hand-listed general English.
_AS_ATTRIBUTE_VERBS = frozenset({"stay", "remain", "serve", "continue", "work", "act", "return"})
_YEAR = re.compile(r"\d{4}")
# Verbs whose object does what their complement says ("ordered the town to pay"), hand-listed; any other verb's
# complement is its subject's ("promised the town to pay"; "left Conway to fish", a purpose the parser reads so).
_OBJECT_CONTROL = frozenset(
    "order tell ask force require allow permit persuade urge encourage invite instruct compel direct advise enable "
    "help want expect need remind warn oblige forbid authorize authorise beg command convince pressure push "
    "call appoint elect hire sentence prompt lead cause get".split())


def _is_time(toks: list[Any]) -> bool:
    return any(_YEAR.fullmatch(t.text) or t.lower_ in TIME_WORDS for t in toks)


def _is_passive(verb: Any) -> bool:
    if any(c.dep_ in ("nsubjpass", "auxpass", "csubjpass") for c in verb.children):
        return True
    if _bare_participle(verb):
        return True
    return (verb.dep_ == "acl" and verb.tag_ == "VBN") or reduced_relative(verb) is not None


# Prepositions whose gerund is done by its clause's subject ("studied before winning", "was fined after failing");
# not "of", "for", "from", whose gerund may be the object's ("accused him of interfering", "stopped them from
# leaving"). Hand-listed general English.
_ADJUNCT_GERUND_PREPOSITIONS = frozenset({"before", "after", "while", "since", "by", "without", "upon", "despite"})


def _bare_participle(verb: Any) -> bool:
    """Whether ``verb`` is a past participle's clause with no auxiliary, subject or object of its own: "Released on 19
    September, TernDB 5.0 adds ...", a passive whose subject is the clause's it hangs on."""
    return verb.dep_ == "advcl" and verb.tag_ == "VBN" and not any(
        c.dep_ in ("aux", "auxpass", "nsubj", "nsubjpass", "mark", "dobj", "obj") for c in verb.children)


def _subject(verb: Any) -> tuple[Any, bool] | None:
    """The subject token of ``verb`` and whether it is a passive subject, inherited from the verb it is
    coordinated with, or complements, or whose "before" / "after" phrase it is ("before winning"), where it has none
    of its own; the complement of a verb of object control (:data:`_OBJECT_CONTROL`) is its object's ("ordered the
    town to pay")."""
    tok, controlled = verb, False
    for _ in range(CHAIN_LIMIT):
        subjects = [c for c in tok.children if c.dep_ in ("nsubj", "csubj", "nsubjpass", "csubjpass")
                    and not speaker_label(c)]
        if subjects:
            # "The utility Northgrid agreed" parsed as two subjects, "utility" and "Northgrid": the name says who
            c = next((c for c in subjects if is_name(c)), subjects[0]) if len(subjects) > 1 else subjects[0]
            # a controlled verb has its own voice: "Harlow was ordered to pay" (Harlow pays); so has a coordinated
            # verb in a tense of its own or with its own auxiliary: "was born in Szeged and died in Vienna" (she died),
            # "coached the Harps and was replaced by Walsh" (she was replaced)
            own_voice = controlled or (tok is not verb and (verb.tag_ in ("VBD", "VBZ", "VBP") or any(
                c.dep_ in ("aux", "auxpass") for c in verb.children) or _bare_participle(verb)))
            if tok is verb and reduced_relative(verb) is not None:
                return c, True  # "the planet first spotted by astronomers": what was spotted
            return c, _is_passive(verb) if own_voice else c.dep_ in ("nsubjpass", "csubjpass")
        if tok is verb and (subject := subject_read_as_conjunct(verb)) is not None:
            return subject, _is_passive(verb)  # "became chair and her predecessor, Peter Lang, joined the board"
        if tok.dep_ == "pcomp" and tok.tag_ == "VBG" and tok.head.lower_ in _ADJUNCT_GERUND_PREPOSITIONS \
                and tok.head.dep_ == "prep" and tok.head.head.pos_ in ("VERB", "AUX"):
            # "studied in Vienna before winning the competition": the gerund's doer is its clause's subject, in its
            # own (active) voice ("was fined after failing to pay": he failed)
            tok, controlled = tok.head.head, True
            continue
        if tok.dep_ == "xcomp" and tok.head.i != tok.i:
            controlled = True
            obj = next((c for c in tok.head.children if c.dep_ in ("dobj", "obj")), None)
            if obj is not None and tok.head.lemma_.lower() in _OBJECT_CONTROL:
                return obj, _is_passive(verb)  # "ordered the town to pay": the town pays (object control)
        if tok.dep_ in ("conj", "xcomp", "advcl") and tok.head.i != tok.i:
            tok = tok.head
            if verb.dep_ == "conj" and tok.pos_ not in ("VERB", "AUX"):
                # a verb the parser coordinates with a noun of the clause before ("designed by engineer Lena Holm and
                # built by ..." hangs "built" on "engineer"): the subject is that clause's verb's
                tok = _governing_verb(tok)
                if tok is None:
                    return None
            continue
        return None
    return None


def _governing_verb(tok: Any) -> Any | None:
    """The nearest verb above ``tok`` in the parse (within :data:`CHAIN_LIMIT` steps), or None."""
    for _ in range(CHAIN_LIMIT):
        if tok.head.i == tok.i:
            return None
        tok = tok.head
        if tok.pos_ in ("VERB", "AUX"):
            return tok
    return None


def _resolve(tok: Any) -> Any:
    """The noun a relative pronoun or a reported clause's pronoun subject stands for; else ``tok``."""
    low = tok.lower_
    if low in RELATIVE and tok.head.dep_ in ("relcl",) and tok.head.head.i != tok.head.i:
        return tok.head.head
    if low in ("it", "he", "she", "they") and tok.dep_ in ("nsubj", "nsubjpass"):
        clause = tok.head
        if clause.dep_ == "ccomp":
            reporter = next((c for c in clause.head.children if c.dep_ == "nsubj"), None)
            if reporter is not None and reporter.pos_ in ("PROPN", "NOUN"):
                return reporter
    return tok


def _prepositional(prep: Any) -> Iterator[tuple[str, Any, Any]]:
    """``(preposition, object, span_from)`` for each object: the first object's argument is the preposition's
    words ("48 seconds behind Faith Wanjiru"), a coordinated object's its own ("..., Japan and the EU")."""
    for obj in prep.children:
        if obj.dep_ in ("pobj", "pcomp"):
            obj = name_after_description(obj, is_name) or obj  # "by engineer Ana Costa" parsed as a verb "engineer"
            for i, arg in enumerate(conjuncts(obj)):
                yield prep.lower_, arg, (prep if i == 0 else arg)


def _verb_frame(verb: Any) -> Frame | None:
    passive = _is_passive(verb)
    slots: list[tuple[str, Argument]] = []
    particle = ""
    negated = False

    def add(role: str, head: Any) -> None:
        for arg_head in conjuncts(head):
            slots.append((role, argument(arg_head, _resolve(arg_head))))

    misread = misread_object(verb, is_name)
    modified = object_it_modifies(verb)
    if modified is not None:
        phrases = [c for c in modified.children if c.dep_ == "prep"]
        slots.append(("patient", argument(modified, exclude=[verb, *phrases])))

    gapped = _gapped_conjuncts(verb)
    subject = _subject(verb)
    stranded = _done_to_role(verb) if passive else "patient"
    if subject is not None:
        tok, subject_passive = subject
        # a passive with an object of its own gives its subject the thing: "Weber was awarded the prize"
        given_to = subject_passive and any(c.dep_ in ("dobj", "obj") for c in verb.children) and misread is None
        add("recipient" if given_to else stranded if subject_passive else "agent", tok)
    elif verb.dep_ == "acl" and verb.head.i != verb.i:  # "the tent left behind by Amundsen", "a company making"
        add(stranded if passive else "agent", verb.head)
    for doer in agents_under_commission(verb) if passive else ():
        add("agent", doer)
    lent = set_off_tail(verb)
    named_objects = apposition_of_object(verb, is_name)
    for c in [*verb.children, *_borrowed_phrases(verb, misread, modified)]:
        if c in lent:
            continue
        dep = c.dep_
        if dep in ("dobj", "obj") and misread is not None:
            add("patient", misread[0])
        elif dep in ("dobj", "obj"):  # "the tent that Amundsen left": the relative pronoun, read as "the tent"
            add("patient", named_objects.get(c.i, c))
        elif dep == "ccomp" and (modified_noun := reduced_relative(c)) is not None:
            add("patient", modified_noun)  # "confirmed the planet first spotted by ...": the planet was confirmed
        elif dep == "dative":
            # (a "to" the tagger calls a particle still has its object: "awarded the Golden Reel to 'Salt Roads'")
            if c.pos_ == "ADP" or any(o.dep_ in ("pobj", "pcomp") for o in c.children):
                for _, obj, _ in _prepositional(c):
                    slots.append(("recipient", argument(obj, _resolve(obj))))
            else:
                add("recipient", c)
        elif dep in ("attr", "acomp", "oprd"):
            add("attr", c)
        elif dep == "agent":
            for _, obj, _ in _prepositional(c):
                slots.append(("agent", argument(obj, _resolve(obj))))
        elif dep == "prep":
            if gapped and c.i > gapped[0].i:
                continue  # a gapped conjunct's own phrase ("born in 1930 and Sandra Gulland in 1944"): its frame's
            for prep, obj, words in _prepositional(c):
                arg = argument(obj, _resolve(obj), span_from=words)
                timed = prep in _TIME_PREPOSITIONS and _is_time(argument_tokens(obj))
                post = prep == "as" and verb.lemma_.lower() in _AS_ATTRIBUTE_VERBS
                slots.append(("time" if timed else "attr" if post else f"prep:{prep}", arg))
        elif dep in ("advmod", "npadvmod") and (c.n_lefts or c.n_rights) and c not in named_objects.values():
            slots.append(("advmod", argument(c)))
        elif dep == "prt":
            particle = " " + c.lower_
        elif dep == "neg":
            negated = True
    if not slots:
        return None
    return Frame(verb.lemma_.lower() + particle, stem(verb.lemma_.lower()), negated, False, tuple(slots),
                 (verb.idx, verb.idx + len(verb)), any(c.dep_ in ("ccomp", "xcomp") for c in verb.children))


def _done_to_role(verb: Any) -> str:
    """The role of a passive verb's subject: the patient, or the object of its stranded preposition ("the hall, paid
    for by the Berger Foundation" was paid for; "the complaint was dealt with by the council")."""
    return next((f"prep:{c.lower_}" for c in verb.children if c.dep_ == "prep" and c.pos_ == "ADP" and c.is_alpha
                 and c.i > verb.i and not any(o.dep_ in ("pobj", "pcomp") for o in c.children)), "patient")


def _borrowed_phrases(verb: Any, misread: tuple[Any, Any] | None, modified: Any | None) -> list[Any]:
    """The prepositional phrases the parser hangs elsewhere that are ``verb``'s: those of a misread token of "VERB the
    DESCRIPTION NAME" (:func:`.repairs.misread_object`, :func:`.repairs.object_it_modifies`; spaCy's small model), and
    those after the closing comma of a participle set off by commas in its object (:func:`.repairs.set_off_tail`)."""
    misread_token = misread[1] if misread is not None else modified
    borrowed = [c for c in misread_token.children if c.dep_ == "prep"] if misread_token is not None else []
    return borrowed + [p for obj in verb.children if obj.dep_ in ("dobj", "obj") for c in obj.children
                       for p in set_off_tail(c)]


def _gapped_conjuncts(verb: Any) -> list[Any]:
    """The conjunct nouns the parser hangs on a verb in a gapped coordination, in text order."""
    return [c for c in verb.children if c.dep_ == "conj" and c.pos_ in ("NOUN", "PROPN", "NUM")]


def _gapped_frames(verb: Any, frame: Frame) -> Iterator[Frame]:
    """The frames of a gapped coordination: "won the Nobel Prize in Physics in 1903 and the Nobel Prize in
    Chemistry in 1911", where the parser hangs the second object on the verb as a conjunct noun. Each such noun is
    the object of a frame of its own, with the verb's subject and the noun's own time and prepositional phrases
    (its "in 1911" is the second event's time, not the first's). The parser may also hang the conjunct's phrase on
    the verb ("Hansberry was born in 1930 and Sandra Gulland in 1944"): a phrase of the verb's after the conjunct is
    the conjunct's (and of a passive verb, the conjunct is its subject: Gulland was born)."""
    agents = [("agent", a) for a in frame.get("agent")] if not _is_passive(verb) else []
    gapped = _gapped_conjuncts(verb)
    for k, c in enumerate(gapped):
        slots: list[tuple[str, Argument]] = list(agents)
        timed: list[Any] = []
        for prep in c.children:
            if prep.dep_ == "prep" and _is_time(argument_tokens(prep)):
                timed.append(prep)
        upto = gapped[k + 1].i if k + 1 < len(gapped) else len(verb.doc)
        hung = [p for p in verb.children if p.dep_ == "prep" and c.i < p.i < upto and _is_time(argument_tokens(p))]
        slots.append(("patient", argument(c, exclude=timed)))
        for prep in timed + hung:
            for name, obj, words in _prepositional(prep):
                slots.append(("time" if name in _TIME_PREPOSITIONS else f"prep:{name}",
                              argument(obj, span_from=words)))
        yield Frame(frame.predicate, frame.stem, frame.negated, False, tuple(slots))


# The phrases an event noun's "of" object carries that are the event's: from whom and to whom ("the purchase of the
# depot from Westline", "the sale of the unit to Palmera").
_EVENT_NOUN_PHRASES = frozenset({"from", "to"})


def _noun_frame(noun: Any) -> Frame | None:
    """An event noun with a possessor or a "by" object and an "of" object ("Northwind's purchase of Palmera",
    "the purchase of Palmera by Northwind"), or a noun with a "by" / "from" object ("an article by Menabrea",
    "a header from Okafor")."""
    slots: list[tuple[str, Argument]] = []
    possessor = next((c for c in noun.children if c.dep_ == "poss" and c.lower_ not in PERSONAL), None)
    preps = {}
    for c in noun.children:
        if c.dep_ == "prep" and c.lower_ in ("of", "by", "from"):
            preps.setdefault(c.lower_, c)
    if not preps:
        return None
    event = "of" in preps and (possessor is not None or "by" in preps) and not _describes_a_name(noun)
    if event:
        if possessor is not None:
            slots.append(("agent", argument(possessor)))
        # the event's "from" / "to" phrases, on the noun or hung by the parser on its object ("the city's purchase of
        # the depot from Westline", "the county's sale of the hospital to Brightway")
        phrases = [c for c in noun.children if c.dep_ == "prep" and c.lower_ in _EVENT_NOUN_PHRASES]
        for _, obj, _ in _prepositional(preps["of"]):
            moved = [c for c in obj.children if c.dep_ == "prep" and c.lower_ in _EVENT_NOUN_PHRASES]
            slots.append(("patient", argument(obj, exclude=moved)))
            phrases += moved
        for phrase in phrases:
            slots.extend((f"prep:{p}", argument(o, span_from=words)) for p, o, words in _prepositional(phrase))
        if "by" in preps:
            for _, obj, _ in _prepositional(preps["by"]):
                slots.append(("agent", argument(obj)))
    else:
        for name in ("by", "from"):
            if name in preps:
                for prep, obj, words in _prepositional(preps[name]):
                    slots.append((f"prep:{prep}", argument(obj, span_from=words)))
    if not slots:
        return None
    return Frame(noun.lemma_.lower(), stem(noun.lemma_.lower()), False, True, tuple(slots))


def _describes_a_name(noun: Any) -> bool:
    """Whether a noun is said of a name, as its apposition or the attribute of its copula: a person or a thing, not
    an event ("Grace Tolman will become Pellucid's head of digital strategy": Pellucid is not the one who heads)."""
    if noun.dep_ == "appos":
        return is_named(noun.head)
    if noun.dep_ in ("attr", "oprd"):  # "Arcline's chief executive, Grace Tolman, will become ..."
        return any(c.dep_ in ("nsubj", "nsubjpass") and is_named(c) for c in noun.head.children)
    return False


def _relation_frame(copula: Any, frame: Frame) -> Frame | None:
    """A copula that says one named person or place is a relation of another as the relation's frame: the noun, who
    is the relation its agent, whose it is its patient. "Samir Haddad is the uncle of the singer Lina Haddad" (the
    subject; the "of" object), "Lina Haddad is Samir Haddad's niece" (the subject; the possessor) and "Samir Haddad's
    niece is Lina Haddad" (the attribute; the possessor); so "Lina Haddad is the uncle of Samir Haddad" reads as the
    two trading places."""
    attr = next((c for c in copula.children if c.dep_ == "attr"), None)
    subject = next((c for c in copula.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if attr is None or subject is None:
        return None
    noun, whose, who = attr, None, subject
    if attr.pos_ == "NOUN":
        of = next((c for c in attr.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        poss = next((c for c in attr.children if c.dep_ == "poss" and c.lower_ not in PERSONAL), None)
        whose = [obj for _, obj, _ in _prepositional(of)] if of is not None else [poss] if poss is not None else None
    if whose is None and subject.pos_ == "NOUN":  # "Samir Haddad's niece is (the singer) Lina Haddad"
        poss = next((c for c in subject.children if c.dep_ == "poss" and c.lower_ not in PERSONAL), None)
        noun, whose, who = subject, [poss] if poss is not None else None, attr
    if not whose:
        return None
    agent, patients = argument(who, _resolve(who)), [argument(w) for w in whose]
    if not agent.names or not any(p.names for p in patients):
        return None
    lemma = noun.lemma_.lower()
    return Frame(lemma, stem(lemma), frame.negated, True, (("agent", agent), *(("patient", p) for p in patients)),
                 (noun.idx, noun.idx + len(noun)))


# Verbs of giving whose thing may come in a "with" phrase, the one given it their object: "presented Kamau with the
# prize" is "presented the prize to Kamau". Hand-listed general English (the with-alternation of giving verbs).
_GIVEN_WITH = frozenset({"present", "provide", "supply", "furnish", "reward", "honour", "honor", "credit", "entrust"})


def _given_with(frame: Frame) -> Frame:
    """``frame`` with its "with" phrase read as the thing given and its patient as whom it went to, for a giving verb
    that takes one ("Kamau was presented with the prize by Brandt": Brandt presented the prize to Kamau)."""
    if frame.predicate not in _GIVEN_WITH or not frame.get("prep:with") or frame.get("recipient") \
            or frame.get("prep:to"):
        return frame
    roles = {"patient": "recipient", "prep:with": "patient"}
    return replace(frame, slots=tuple((roles.get(r, r), a) for r, a in frame.slots))


# Verbs whose subject, with no object, is what the verb happens to ("the exhibition opens at the museum" is "the museum
# opens the exhibition"; "the tour starts in Seoul"): that subject is their patient. Hand-listed general English.
# Not "finish": "Rui finished 41st" is a runner's doing.
_ERGATIVE = frozenset("open close reopen start begin end stop resume launch debut premiere increase decrease grow "
                      "shrink expand change improve".split())


def _ergative(frame: Frame) -> Frame:
    """``frame`` with an ergative verb's lone subject read as its patient (:data:`_ERGATIVE`)."""
    if frame.predicate not in _ERGATIVE or frame.nominal or frame.clausal or frame.get("patient") \
            or not frame.get("agent"):
        return frame
    return replace(frame, slots=tuple(("patient" if r == "agent" else r, a) for r, a in frame.slots))


def frames_of(doc: Any) -> Iterator[Frame]:
    """The frames of a parsed text (a spaCy ``Doc``), in text order. A headline ("Dollar General Sued for Firing
    Pregnant Worker") gives none: its grammar drops the words that say who acted ("was"), so its parse reads a
    passive as active."""
    headline = headline_tokens(doc)
    for tok in doc:
        if tok.i in headline:
            continue
        frame = None
        copula = tok.pos_ == "AUX" and tok.dep_ not in ("aux", "auxpass") and any(
            c.dep_ in ("attr", "acomp", "advmod", "prep", "oprd") for c in tok.children)
        if tok.pos_ == "VERB" or copula:
            if tok.dep_ in ("ccomp", "xcomp", "conj") and (split := misread_object(tok.head, is_name)) is not None \
                    and split[1].i == tok.i:
                continue  # half of its verb's object, read in that verb's frame
            frame = _verb_frame(tok)
            if frame is not None:
                frame = _ergative(_given_with(frame))
                yield frame
                yield from _gapped_frames(tok, frame)
                if copula and (relation := _relation_frame(tok, frame)) is not None:
                    yield relation
            continue
        if tok.pos_ == "NOUN":
            frame = _noun_frame(tok)
        if frame is not None:
            yield frame
