"""Who did what to whom: an explicit check of a claim's roles against its evidence (issue 37).

The rules find a claim's words in the passages; they cannot see that the words are attached to the wrong things:
"Palmera Freight bought Northwind" against "Northwind acquired Palmera Freight", "Harold II defeated William"
against "William defeated Harold II", a percentage taken from the other side effect, a year from another building
of the same passage. This check parses the claim and its best evidence chunks with spaCy's small English pipeline
(:mod:`.parse`), reads each sentence's frames (:mod:`.frames`: predicate, agent, patient, recipient, time and
prepositional arguments, with the names and numbers of each) and compares them (:mod:`.matching`). What it finds
is a :class:`RoleConflict` with a reason in words ("roles swapped: Palmera Freight / Northwind Logistics ..."),
which the verifier reads as a contradiction (:attr:`halguard.grounding.signals.ClaimMeasurements.role_conflicts`).

It only ever adds a finding. A claim it cannot read (no pipeline installed, a text too long to parse, no frame
that matches) is judged by the other signals alone, as before; it never makes a claim supported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from halguard.grounding.roles.descriptions import descriptions_moved, doers_described_otherwise
from halguard.grounding.roles.frames import Argument, Frame
from halguard.grounding.roles.gapped import in_gapped_conjunct
from halguard.grounding.roles.matching import SYMMETRIC_PREDICATES, RoleConflict, conflicts
from halguard.grounding.roles.parse import MAX_PARSE_CHARS, available, parsed_frames
from halguard.text.lexical import STOPWORDS, number_mentions

__all__ = ["MAX_EVIDENCE_TEXTS", "MAX_PARSE_CHARS", "SYMMETRIC_PREDICATES", "Argument", "Frame", "RoleConflict",
           "available", "role_conflicts"]

# Evidence chunks parsed per claim: its best ones that name one of its names or numbers. The verifier keeps its 3
# best chunks per claim (top_k), so 4 leaves room for a larger top_k without letting one claim parse a context.
MAX_EVIDENCE_TEXTS = 4
# A claim with one name or number is parsed when it is a sentence of at least this many words: one name can be moved
# between two events of the passage ("The ship was built in Newfoundland." where it was built in Belfast and sank off
# Newfoundland; "Tran introduced the measure." where a councilmember did and Tran did not vote). A short answer
# ("Lancashire", "It was Paris.") has no roles to confuse. Was 5 until 2026-11-30: at 4 no claim of the dev files or
# the older hand-written files changed.
MIN_ONE_ANCHOR_WORDS = 4


_CAPITALISED = re.compile(r"[A-Z][\w'’-]*")


def _anchors(text: str) -> list[str]:
    """The claim's capitalised words (names, at the start of a sentence too) and numbers as written: what an
    evidence text must mention to be worth parsing."""
    names = [m.group(0).split("'")[0].split("’")[0] for m in _CAPITALISED.finditer(text)
             if m.group(0).lower() not in STOPWORDS]
    return names + [text[m.start:m.end] for m in number_mentions(text)]


def role_conflicts(claim: str, evidence: Sequence[str], elsewhere: Callable[[Argument], bool]) -> list[RoleConflict]:
    """The role conflicts of ``claim`` (a sentence) with its ``evidence`` texts (best first), as offsets in
    ``claim``.

    A claim with fewer than two names or numbers has no roles to confuse and is not parsed (a short answer, most
    questions' answers); nor is an evidence text that mentions none of them.

    Args:
        claim: The claim's text.
        evidence: Its evidence chunks' texts, best first.
        elsewhere: Whether an argument's names or numbers are in the passage (:func:`.matching.conflicts`).
    """
    anchors = _anchors(claim)
    if len(anchors) < 2 and not (anchors and len(claim.split()) >= MIN_ONE_ANCHOR_WORDS):
        return []
    claim_frames = parsed_frames(claim)
    if not claim_frames:
        return []
    lowered = [a.lower() for a in anchors]
    chosen: list[str] = []
    for text in evidence:
        low = text.lower()
        if text not in chosen and any(a in low for a in lowered):
            chosen.append(text)
        if len(chosen) == MAX_EVIDENCE_TEXTS:
            break
    evidence_frames: list[Frame] = []
    for text in chosen:
        evidence_frames.extend(parsed_frames(text) or ())
    if not evidence_frames:
        return []
    # a number or time the passage gives the same phrase in a conjunct whose verb it leaves out is no moved one
    found = [c for c in conflicts(claim_frames, evidence_frames, elsewhere) if " where the passage has " not in c.reason
             or not in_gapped_conjunct(claim[c.start:c.end], claim, chosen)]
    for moved in (descriptions_moved(claim_frames, evidence_frames),
                  doers_described_otherwise(claim_frames, evidence_frames)):
        found += [c for c in moved if not any(f.start < c.end and c.start < f.end for f in found)]
    return found
