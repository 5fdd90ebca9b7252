"""Whether an evidence frame can be a claim frame's event (:mod:`.matching`): the same predicate, and every other
core argument both have the same; or another event of the same participants (what the claim's thing did, or had done
to it, in the passage).
"""

from __future__ import annotations

from collections.abc import Sequence

from halguard.grounding.roles.arguments import compare
from halguard.grounding.roles.converse import same_stem
from halguard.grounding.roles.frames import Argument, Frame

__all__ = ["CORE_ROLES", "in_another_event", "lone_participant_moved", "same_event", "same_predicate"]

CORE_ROLES = ("agent", "patient", "recipient", "attr")


def same_predicate(claim: Frame, evidence: Frame) -> bool:
    """Whether two frames' predicates are one: the same lemma or stem, or one licensed by the other (WordNet)."""
    if claim.predicate == evidence.predicate or claim.stem == evidence.stem:
        return True
    return same_stem(claim.stem, evidence.stem)


def in_another_event(claim: Frame, role: str, arg: Argument, frames: Sequence[Frame]) -> bool:
    """Whether ``arg``, by its own noun, holds ``role`` in an evidence frame of another predicate that shares another
    core argument of the claim frame: what the claim's thing did (or had done to it) in the passage is another event
    of the same things."""
    rest = [(r, a) for r, a in claim.slots if a is not arg and r in CORE_ROLES]

    def itself(o: Argument) -> bool:  # by its own noun; a name however introduced ("the collector Ida Hahn")
        return (o.head == arg.head or (arg.head_is_name and o.head_is_name)) and compare(arg, o, role) == "same"

    return any(not same_predicate(claim, frame) and any(itself(o) for o in frame.get(role))
               and any(compare(a, o, r) == "same" for r, a in rest for o in frame.get(r)) for frame in frames)


def same_event(claim: Frame, evidence: Frame, differing: set[int]) -> bool:
    """Whether the evidence frame can be the claim frame's event, but for the ``differing`` arguments: every other
    core argument (agent, patient, recipient, attribute) that both frames have is the same. "Northwind acquired
    Palmera's parent company in 2015" is not the event of "Northwind bought the trucking division in March 2022":
    its year is no conflict. (That the frames agree on something at all is the alignment's score.)"""
    for role in CORE_ROLES:
        ours = [a for a in claim.get(role) if id(a) not in differing]
        theirs = evidence.get(role)
        if ours and theirs and not all(any(_may_be(a, b, role) for b in theirs) for a in ours):
            return False
    return True


def _may_be(ours: Argument, theirs: Argument, role: str) -> bool:
    """Whether the evidence argument can be the claim's: the same, or a description or pronoun with no name of its
    own ("The company" for "Halvorsen Marine"). A named one that is not the same is another thing ("Palmera's
    parent company" is not "the trucking division")."""
    result = compare(ours, theirs, role)
    return result == "same" or (result == "unknown" and not theirs.identity and not theirs.numbers)


def lone_participant_moved(claim: Frame, evidence: Frame, differing: list[tuple[str, Argument, Argument]],
                           frames: Sequence[Frame]) -> bool:
    """Whether two frames of one predicate, each with one participant, two names that differ, are the claim's event
    told of another person: the claim's person is a participant of another frame of the evidence ("Victor Hale was
    acquitted" against "Judge Santos sentenced Victor Hale ...; his accountant, Leo Park, was acquitted"; "Marta
    Silva finished 41st" against "Marta Silva ... won the marathon; her husband, Rui, finished 41st"). Two people's
    births are two events; a claim's person the evidence gives another part is the one moved. A doer alone needs
    the same verb, taking no clause: "saying ...", "helping to ...", "went on to win" say what they say in the
    clause (three faithful RAGTruth claims read so, 2026-11-29)."""
    ours = [a for r, a in claim.slots if r in CORE_ROLES]
    theirs = [a for r, a in evidence.slots if r in CORE_ROLES]
    if not (len(ours) == len(theirs) == len(differing) == 1 and differing[0][0] in ("patient", "agent")
            and differing[0][1] is ours[0] and differing[0][2] is theirs[0] and ours[0].head_is_name
            and theirs[0].head_is_name and not claim.nominal and not evidence.nominal):
        return False
    if differing[0][0] == "agent" and (claim.predicate != evidence.predicate or claim.clausal or evidence.clausal):
        return False
    # nothing else of the claim's is another's: "Italy finished second in 42.31" is not "France finished fourth"
    if not all(any(compare(a, o, r) == "same" for o in evidence.get(r)) for r, a in claim.slots if r not in CORE_ROLES):
        return False
    return any(frame is not evidence and any(r in CORE_ROLES and compare(ours[0], o, r) == "same"
                                             for r, o in frame.slots) for frame in frames)
