"""A count of working days said as days, or the reverse: "You'll have to wait at least 10 days before you can retake
the test" against "If you fail, you must wait at least 10 working days before retaking".

The claim's number and its unit are the passage's, so neither the number nor the unit checks see anything: what
changed is the kind of day ("working", "business", "school", "clear": ten working days are two weeks, ten days are
ten). Reported as a role conflict, weighted, never a CONTRADICTION: its precision on real text is unmeasured.
A claim's count of days is read so where the passages give that number of qualified days and never that number of
plain days (or the reverse: "within 14 working days" where they say "within 14 days" only).

Bounded: at most :data:`MAX_COUNTS` counts of days read from a claim, and each passage's first
:data:`.bounds.PASSAGE_HEAD_CHARS` characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from halguard.grounding.signals.bounds import PASSAGE_HEAD_CHARS
from halguard.text.lexical import number_mentions

__all__ = ["MAX_COUNTS", "days_requalified"]

MAX_COUNTS = 4

_QUALIFIERS = "working|business|school|clear|calendar"
_SAME_KIND = {"business": "working"}
# The words after a number that make it a count of days, with their qualifier: "10 working days", "ten days".
_DAYS_AFTER = re.compile(r"[ \t]{1,3}(?:(working|business|school|clear|calendar)[ \t]{1,3})?days?\b", re.IGNORECASE)
# The most numbers of a passage read for counts of days.
_NUMBERS_READ = 256


def _counts(text: str) -> list[tuple[int, int, float, str]]:
    """The counts of days of ``text``: start, end, number, qualifier ("" for plain days; "business" read as
    "working")."""
    out = []
    for n in islice(number_mentions(text), _NUMBERS_READ):
        m = _DAYS_AFTER.match(text, n.end)
        if m is not None:
            qualifier = (m.group(1) or "").lower()
            out.append((n.start, m.end(), n.value, _SAME_KIND.get(qualifier, qualifier)))
    return out


def days_requalified(text: str, sources: Sequence[str]) -> list[tuple[int, int, str]]:
    """The claim's counts of days (offsets in ``text``) whose kind of day the passages give otherwise for the same
    number, with the reason in words (see the module)."""
    ours = list(islice(_counts(text), MAX_COUNTS))
    if not ours:
        return []
    theirs: dict[float, set[str]] = {}
    for source in sources:
        for _, _, value, qualifier in _counts(source[:PASSAGE_HEAD_CHARS]):
            theirs.setdefault(value, set()).add(qualifier)
    out = []
    for start, end, value, qualifier in ours:
        kinds = theirs.get(value)
        if kinds and qualifier not in kinds:
            said = f"{value:g} {sorted(kinds)[0]} days".replace("  ", " ")
            out.append((start, end, f"{text[start:end]} where the passage has {said}"))
    return out
