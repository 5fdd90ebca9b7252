"""A vote said unanimous where the passages count votes against it: "The council unanimously approved the upgrade"
against "the council voted 7 to 2 to approve". Every word but "unanimously" is the passage's, so the word checks
read one novel adverb, the weakest of signals; the passages' count says the claim is wrong. Read without a parse: a
claim word of unanimity (:data:`_UNANIMOUS`), and a passage's vote of two counts, the second above zero ("voted 7 to
2", "by a vote of 7-2", "passed 9–3"), with no word of unanimity in the passages. Bounded: one search of each
source's first :data:`VOTES_SCANNED_CHARS` characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["VOTES_SCANNED_CHARS", "unanimity_changed"]

VOTES_SCANNED_CHARS = 200_000
_UNANIMOUS = re.compile(r"\b(?:unanimous(?:ly)?|without\s+(?:any\s+)?(?:opposition|dissent)|with\s+no\s+"
                        r"(?:opposition|dissent|votes?\s+against))\b", re.IGNORECASE)
# "voted 7 to 2", "a vote of 7-2", "passed 9–3", "by 7 votes to 2": a count for, then a count against
_VOTE = re.compile(r"\b(?:vot(?:e|ed|es|ing)|passed|approved|rejected|adopted|elected|backed)\b[^.;]{0,30}?\b(\d{1,3})"
                   r"\s*(?:votes?\s+)?(?:to|-|–|—)\s*(\d{1,3})\b", re.IGNORECASE)


def unanimity_changed(text: str, sources: Iterable[str]) -> list[tuple[int, int]]:
    """The spans of ``text``'s words of unanimity where a passage counts votes against (and none says unanimous)."""
    found = [m.span() for m in _UNANIMOUS.finditer(text)]
    if not found:
        return []
    split = False
    for source in sources:
        head = source[:VOTES_SCANNED_CHARS]
        if _UNANIMOUS.search(head):
            return []
        split = split or any(int(m.group(2)) > 0 for m in _VOTE.finditer(head))
    return found if split else []
