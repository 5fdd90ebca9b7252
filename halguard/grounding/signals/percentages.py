"""Percentages of a claim whose number the passages write, but never as a percentage (issue 44).

"about 11% of whom hold Silver or Gold status" where the passage says "roughly 9%" and "11 points per euro for Gold":
the 11 stands in the passage, so the missing-number check finds nothing; the passages' 11 counts points, not a share.
A share the passages compute another way ("70 of the 100 seats": 70%; :mod:`halguard.text.derived`) or write as
percentage points is theirs.
"""

from __future__ import annotations

import re

from halguard.grounding.signals.scope import Scope
from halguard.text.derived import derived
from halguard.text.quantities import MAX_CANDIDATES, MAX_CLAIM_QUANTITIES, quantities, said_as

__all__ = ["percentages_otherwise"]

Span = tuple[int, int]

# A percentage written as one: a sign or the word, after digits or number words ("11%", "eleven per cent"); a
# fraction's share ("half", "a third") is the share checks' (text.shares, derived).
_WRITTEN_PERCENT = re.compile(r"(?:%|\bper\s{0,3}cent\b|\bpercent\b)\s*$", re.IGNORECASE)
_PERCENTAGE_POINTS = re.compile(r"\bpercentage[\s-]{1,3}points?\b", re.IGNORECASE)


def percentages_otherwise(text: str, scope: Scope) -> list[Span]:
    """The claim's written percentages whose number the passages give, never as a percentage nor as percentage
    points, where they give percentages of other numbers (so they speak in shares and this is not one of theirs)."""
    percents = scope.quantities.of_dimension("percent")
    if not percents or len(percents) >= MAX_CANDIDATES:
        return []  # none to compare with, or more than the index holds (the claim's may be one left out)
    found = []
    for q in quantities(text, limit=MAX_CLAIM_QUANTITIES):
        if q.dimension != "percent" or not _WRITTEN_PERCENT.search(text[q.start:q.end]):
            continue
        value = round(q.value, 6)
        if value not in scope.numbers or scope.quantities.with_number(q):
            continue
        sources = [src.text for src in scope.sources]
        if any(_PERCENTAGE_POINTS.search(source) for source in sources):
            continue
        if not said_as(q, scope.quantities) and not derived(text, q, sources):
            found.append((q.start, q.end))
    return found
