"""A description the passage gives one named thing, put on another: "Harlow Robotics, a maker of lidar units based in
Dunmore, agreed to buy Finch Sensors" against "Harlow Robotics agreed to acquire Finch Sensors, a maker of lidar
units based in Dunmore"; "Martin Ekdahl, formerly chief operating officer at Northgate Power, is the new chief
executive" where the passage says that of Priya Raman, whom it hired to replace him. Every word of such a claim is the
passage's, and its frames may agree (Harlow did buy Finch): what moved is who the apposition describes.

A claim's named argument with a description of at least :data:`MIN_DESCRIPTION_WORDS` content words (its apposition,
title or the words around its name) conflicts when an evidence argument that names another entity has all those
words, and no evidence argument naming the claim's entity shares any of them (a passage that describes both alike,
or the claim's entity so elsewhere, moved nothing). Bounded: each claim argument against each evidence argument once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from halguard.grounding.roles.arguments import compare
from halguard.grounding.roles.frame_types import Argument, Frame
from halguard.grounding.roles.matching import RoleConflict
from halguard.text.lexical import stem

__all__ = ["DOER_VERBS", "MIN_DESCRIPTION_WORDS", "descriptions_moved", "doer_nouns", "doers_described_otherwise"]

# The least content words of a claim's description for it to be read as one the passage gives a single entity: one
# word ("a company", "the striker") describes many things alike. Hand-set (general English), not fitted.
MIN_DESCRIPTION_WORDS = 2


def descriptions_moved(claim_frames: Sequence[Frame], evidence_frames: Sequence[Frame]) -> list[RoleConflict]:
    """The claim's named arguments whose description the evidence gives another named entity, as conflicts (offsets
    in the claim's text), each argument once."""
    theirs = _distinct(a for f in evidence_frames for _, a in f.slots if a.identity and not a.pronoun)
    found: list[RoleConflict] = []
    for ours in _distinct(a for f in claim_frames for _, a in f.slots):
        description = ours.described_by
        if not (ours.head_is_name and ours.identity) or len(description) < MIN_DESCRIPTION_WORDS or ours.numbers:
            continue
        ours_there = [b for b in theirs if b.identity & ours.identity]
        if not ours_there or any(description & b.described_by for b in ours_there):
            continue  # the passage does not name it, or describes it alike itself
        other = next((b for b in theirs if b.head_is_name and description <= b.described_by
                      and compare(ours, b, "agent") == "differ"), None)
        if other is not None:
            found.append(RoleConflict(ours.start, ours.end,
                                      f"{ours.text} where the passage describes another: {other.text}"))
    return found


def _distinct(args: Iterable[Argument]) -> list[Argument]:
    """Arguments without repeats (one argument fills a role in several frames: a shared subject)."""
    out: list[Argument] = []
    seen: set[tuple[int, int, str]] = set()
    for a in args:
        key = (a.start, a.end, a.text)
        if key not in seen:
            seen.add(key)
            out.append(a)
    return out


def doers_described_otherwise(claim_frames: Sequence[Frame], evidence_frames: Sequence[Frame]) -> list[RoleConflict]:
    """The claim's named doers of a verb whose doer's noun the passage gives another named entity, and never them:
    "Mateo Ruiz will conduct the orchestra" where the passage names "its chief conductor, Yuki Tanabe" and Ruiz only as
    its soloist; "Lena Park founded the firm" against "founder Omar Said". A passage that also calls the claim's doer
    so, or says the claim's doer does it, moved nothing. Offsets in the claim's text."""
    theirs = _distinct(a for f in evidence_frames for _, a in f.slots if a.identity and not a.pronoun)
    found: list[RoleConflict] = []
    for frame in claim_frames:
        nouns = doer_nouns(frame.predicate)
        if frame.negated or frame.nominal or not nouns:
            continue
        for ours in frame.get("agent"):
            if not (ours.head_is_name and ours.identity) or ours.pronoun or ours.reported:
                continue
            if any(b.identity & ours.identity and b.described_by & nouns.keys() for b in theirs) or any(
                    f.predicate == frame.predicate and any(a.identity & ours.identity for a in f.get("agent"))
                    for f in evidence_frames):
                continue  # the passage calls them so, or has them do it
            other = next((b for b in theirs if b.head_is_name and b.described_by & nouns.keys()
                          and compare(ours, b, "agent") == "differ"), None)
            if other is not None:
                noun = nouns[min(other.described_by & nouns.keys())]
                who, whom = ours.core_text or ours.text, other.core_text or other.text
                found.append(RoleConflict(ours.start, ours.end, f"{who} as the {noun} where the passage's {noun} is "
                                                                f"{whom}"))
    return found


# Verbs whose doer's noun names one role in a passage's event (the conductor, the founder, the coach): a named doer of
# the verb who is never so called, while another named entity is, is a swap. Verbs whose doers are many alike (play,
# work, write, speak, use, visit) are not among them. Hand-listed general English, not fitted; the nouns are the
# regular -er/-or forms (_SPECIAL where they are not regular), and the verb itself for a few (_ZERO_DERIVED).
DOER_VERBS = frozenset(
    "conduct direct found coach manage lead teach train own invent design compose produce edit create host chair "
    "captain judge pilot referee umpire govern command preside administer supervise".split())
_ZERO_DERIVED = frozenset("coach host chair captain judge pilot referee umpire".split())
_SPECIAL = {"lead": "leader", "preside": "president", "govern": "governor", "command": "commander",
            "administer": "administrator", "supervise": "supervisor", "invent": "inventor", "edit": "editor",
            "create": "creator", "conduct": "conductor", "direct": "director", "found": "founder"}


def doer_nouns(predicate: str) -> dict[str, str]:
    """The nouns for the doer of ``predicate`` (a verb's lemma of :data:`DOER_VERBS`) by their stems: "conductor" of
    "conduct", "coach" of "coach"; empty for any other verb."""
    if predicate not in DOER_VERBS:
        return {}
    nouns = [_SPECIAL.get(predicate) or (predicate + ("r" if predicate.endswith("e") else "er"))]
    if predicate in _ZERO_DERIVED:
        nouns.append(predicate)
    return {stem(n): n for n in nouns}
