"""A claim's verb said with another verb: the same participants, a verb WordNet puts one step away.

"Skylark Air flew 18.4m passengers in 2023" against "Skylark Air carried 18.4 million passengers in 2023": "flew"
is a word the context never uses, so the word checks count it novel. Its frame says otherwise: the same agent, the
same patient, the same year, and "fly" a kind of "carry". A claim verb is *said by* an evidence frame when

- their predicates are related in WordNet, in any sense (the same synset, one directly above the other, or one verb
  group; never antonyms: :func:`halguard.text.wordnet.related_verbs`), and neither side is negated where the other
  is not;
- at least :data:`MIN_SAME_ARGUMENTS` of the claim's arguments are the evidence frame's (:func:`.arguments.compare`);
- every participant the claim names (agent, patient, recipient, attribute) is the evidence frame's own: a claim that
  adds or changes who is involved is not the same event; and no argument of the claim differs from the evidence's
  in the same role.

The arguments say which sense of the verbs is meant, which WordNet's word-level table cannot (it keeps to common
senses: "carry" in "carried passengers" is not the "acquit" it relates in a rare sense). Verbs WordNet puts side by
side under one parent ("walk" / "run", "direct" / "produce", "acquit" / "convict") are not related, nor opposites
("hire" / "fire"): a verb changed for another of its kind is what a fabricated event looks like.

This only ever clears a novel verb (a word the other checks still read in the claim's other words); it never makes
a claim supported by itself. Measured in docs/evaluation.md ("Counts and verbs said by their frames").
"""

from __future__ import annotations

from collections.abc import Sequence

from halguard.grounding.roles.arguments import compare
from halguard.grounding.roles.converse import converse_frame
from halguard.grounding.roles.frames import Frame
from halguard.text.wordnet import related_verbs

__all__ = ["MIN_SAME_ARGUMENTS", "VerbSaid", "verbs_said"]

# Arguments a claim frame must share with the evidence frame (the verb's agent and patient, or one of them and a
# time or phrase): one shared argument is any sentence about the same thing. Hand-set, not fitted.
MIN_SAME_ARGUMENTS = 2
_PARTICIPANTS = ("agent", "patient", "recipient", "attr")

VerbSaid = tuple[int, int, str]  # the claim verb's offsets in the claim, and the evidence verb that says it


def _says(claim: Frame, evidence: Frame) -> bool:
    """Whether ``evidence`` states ``claim``'s event with a related verb (see the module's docstring)."""
    if evidence.nominal or evidence.negated != claim.negated or evidence.stem == claim.stem:
        return False
    if evidence.stem not in related_verbs(claim.stem):
        return False
    same = 0
    for role, arg in claim.slots:
        # Stricter than the role check: numbers that share nothing differ even where names agree ("18.4m passengers"
        # and "12m passengers" where a parse reads the scale as a name); the verb is cleared only on agreement.
        results = ["differ" if arg.numbers and other.numbers and not arg.numbers & other.numbers
                   else compare(arg, other, role) for other in evidence.get(role)]
        if "differ" in results:
            return False
        if "same" in results:
            same += 1
        elif role in _PARTICIPANTS and not (arg.pronoun and any(
                other.pronoun and other.text.lower() == arg.text.lower() for other in evidence.get(role))):
            # a participant the evidence frame does not name, or names otherwise; the same pronoun on both sides
            # ("it retained" / "it kept") says nothing either way and is no agreement
            return False
    return same >= MIN_SAME_ARGUMENTS


def _said_conversely(claim: Frame, evidence: Frame) -> bool:
    """Whether ``evidence`` states ``claim``'s relation from its other side with the same two people ("Paul is the
    father of Ann" for "Ann is the daughter of Paul": roles.converse)."""
    read = converse_frame(claim, evidence)
    if read is None or read.negated != claim.negated:
        return False
    return all(any(compare(arg, other, role) == "same" for other in read.get(role))
               for role in ("agent", "patient") for arg in claim.get(role)) and bool(claim.get("patient"))


def verbs_said(claim_frames: Sequence[Frame], evidence: Sequence[Frame]) -> list[VerbSaid]:
    """The claim's verbs (one-word predicates, with their offsets) that an evidence frame says with a related verb or
    from the other side, and its relation nouns that an evidence frame says from the other side."""
    found = []
    for frame in claim_frames:
        if frame.nominal and frame.at[0] >= 0:  # a copula's relation (frames._relation_frame)
            said_by = next((e.predicate for e in evidence if _said_conversely(frame, e)), None)
            if said_by is not None:
                found.append((frame.at[0], frame.at[1], said_by))
            continue
        if frame.nominal or frame.at[0] < 0 or " " in frame.predicate:
            continue  # an event noun, a gapped frame (its verb is another frame's), a phrasal verb ("make up")
        # (or from the other side: "Brightway bought the hospital" for "the county's sale of the hospital to Brightway")
        said_by = next((e.predicate for e in evidence if _says(frame, e) or _said_conversely(frame, e)), None)
        if said_by is not None:
            found.append((frame.at[0], frame.at[1], said_by))
    return found
