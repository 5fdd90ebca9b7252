"""A date the passages give relative to another one: "Tickets go on general sale on 11 April, with a fan presale two
days earlier" gives the presale 9 April, which an answer writes as "a presale on April 9th".

A claim's day of a date that no passage writes is a missing number (:func:`halguard.grounding.signals.words.
missing_numbers`) unless, here, a passage sentence writes a date and an offset from it ("N days" or "N weeks", then
"earlier", "later", "before", "after" or "prior"), and the date the offset gives is the claim's (its year too, where
both write one). The offset counts from each date of its sentence: the sentence says which date it
is relative to, and a claim's date that none of them gives stays missing.

Bounded: the passages are scanned for offsets only for such a day (a claim's number that nothing else found), at most
:data:`MAX_OFFSETS` offsets per passage, each read with the :data:`SENTENCE_REACH` characters around it.
"""

from __future__ import annotations

import bisect
import datetime
import re
from collections.abc import Iterable
from itertools import islice

from halguard.text.dates import CalendarDate, calendar_dates
from halguard.text.lexical import number_values
from halguard.text.segment import MENTION_SENTENCE_END

__all__ = ["MAX_OFFSETS", "SENTENCE_REACH", "DaysByOffset", "date_by_offset", "dated_by_offset"]

# Offsets read per passage, and characters read either side of one for its sentence's dates.
MAX_OFFSETS = 32
SENTENCE_REACH = 300

_OFFSET = re.compile(
    r"\b(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|thirty)\s{1,3}"
    r"(days?|weeks?)\s{1,3}(earlier|later|before|after|prior|beforehand|afterwards)\b", re.IGNORECASE)
_BACKWARD = frozenset({"earlier", "before", "prior", "beforehand"})
_LEAP_YEAR = 2000  # a yearless date is read in a leap year, so that 29 February exists


def _day_of(dates: list[tuple[int, int, CalendarDate]], text: str, start: int, end: int) -> CalendarDate | None:
    """The date of ``dates`` (``text``'s, in order) whose day is the number at ``start:end`` ("April 9th": 9), or
    None (a bisection: a claim of a thousand numbers reads its dates once)."""
    i = bisect.bisect_right(dates, start, key=lambda d: d[0])
    if not i:
        return None
    s, e, date = dates[i - 1]
    return date if s <= start and end <= e and date[2] and str(date[2]) in text[start:end] else None


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` holding ``start:end``, read within :data:`SENTENCE_REACH` characters either side."""
    lo, hi = max(0, start - SENTENCE_REACH), min(len(text), end + SENTENCE_REACH)
    before = [m.end() for m in MENTION_SENTENCE_END.finditer(text, lo, start)]
    after = MENTION_SENTENCE_END.search(text, end, hi)
    return text[before[-1] if before else lo:after.end() if after else hi]


def _shifted(date: CalendarDate, days: int) -> CalendarDate | None:
    year, month, day = date
    try:
        moved = datetime.date(year or _LEAP_YEAR, month, day) + datetime.timedelta(days=days)
    except (ValueError, OverflowError):
        return None
    return (moved.year if year else 0, moved.month, moved.day)


def _offsets(source: str) -> Iterable[tuple[str, int]]:
    """Each offset of ``source`` as its sentence and the days it moves (negative: earlier)."""
    for m in islice(_OFFSET.finditer(source), MAX_OFFSETS):
        amount = m.group(1).lower()
        count = 1.0 if amount in ("a", "an") else next(iter(number_values(amount)), None)
        if count is None:
            continue
        days = int(count) * (7 if m.group(2).lower().startswith("week") else 1)
        yield _sentence_around(source, m.start(), m.end()), -days if m.group(3).lower() in _BACKWARD else days


class DaysByOffset:
    """Whether numbers of a claim are days of dates a passage gives as an offset from another date of its sentence
    (see the module): the claim's dates and the passages' offsets are read once, on the first number asked about, so
    a claim of a thousand missing numbers reads each once (it read the claim's dates per number: quadratic, 2.1 s
    for 1,000 numbers). ``sources`` is iterated once, on that first number, so a generator serves."""

    def __init__(self, text: str, sources: Iterable[str]) -> None:
        self._text = text
        self._sources = sources
        self._dates: list[tuple[int, int, CalendarDate]] | None = None
        self._given: list[CalendarDate] | None = None

    def __call__(self, start: int, end: int) -> bool:
        """Whether the claim's number at ``start:end`` is such a day."""
        if self._dates is None:
            self._dates = calendar_dates(self._text, yearless=True)
        claimed = _day_of(self._dates, self._text, start, end)
        if claimed is None:
            return False
        if self._given is None:
            self._given = _offset_dates(self._sources)
        return any(_same_date(given, claimed) for given in self._given)


def dated_by_offset(text: str, start: int, end: int, sources: Iterable[str]) -> bool:
    """Whether the claim's number at ``start:end`` of ``text`` is the day of a date a passage gives as an offset from
    another date of its sentence (see the module)."""
    return DaysByOffset(text, sources)(start, end)


def date_by_offset(claimed: CalendarDate, sources: Iterable[str]) -> bool:
    """Whether a passage gives the date ``claimed`` (year 0: any year) as an offset from another date of its
    sentence."""
    return any(_same_date(given, claimed) for given in _offset_dates(sources))


def _offset_dates(sources: Iterable[str]) -> list[CalendarDate]:
    """The dates the passages give as offsets from another date of the offset's sentence."""
    found = []
    for source in sources:
        for sentence, days in _offsets(source):
            for _, _, date in calendar_dates(sentence, yearless=True):
                shifted = _shifted(date, days) if date[2] else None
                if shifted is not None:
                    found.append(shifted)
    return found


def _same_date(given: CalendarDate, claimed: CalendarDate) -> bool:
    return given[1:] == claimed[1:] and (not given[0] or not claimed[0] or given[0] == claimed[0])
