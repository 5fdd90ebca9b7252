"""Days and months a claim names that the passages name by the calendar rather than by name: a holiday whose day and
month they write ("Boxing Day" where they say "closed on 25 and 26 December"), a weekday of their "weekdays" or a day
of their "weekends" ("the free guest perk only applies Monday to Friday" where they say "on weekdays only"), and a
month inside a range of months they write ("in November the last departure is at 2pm" where they say "From October to
March the 18:45 sailing does not run"). Each is a name the missing-name check would otherwise report as the passages'
nowhere: what the claim says of it is the other checks' to read (the hours', the negations', the roles'), and a claim
that gives a figure keeps such a name missing (on a held-out file, "Saturday" read as the passages' "weekends" passed
a claim giving Saturday the weekday hours), but for "Monday to Friday" and "Saturday and Sunday" (the whole of the
passages' "weekdays" or "weekends": their figures are the claim's), and a day inside a range of days the passages
write ("Wednesday" of "Monday to Thursday") in a claim whose figures are all times of day (:mod:`.prose_hours` reads
them); and a day the claim denies something of that lies outside every range of days the passages write ("so they
don't apply on Sundays" of "Monday to Friday")."""

from __future__ import annotations

import re
from itertools import islice

from halguard.grounding.signals.bounds import PASSAGE_HEAD_CHARS
from halguard.grounding.signals.scope import Scope
from halguard.text.clock import clock_times
from halguard.text.dates import MONTHS, WEEKDAYS, holiday_dates, month_number
from halguard.text.lexical import number_mentions, stem
from halguard.text.segment import clause_start

__all__ = ["named_by_the_calendar", "outside_day_ranges"]

# The part of the week each weekday belongs to, by the stem of the word the passages write for it.
_WEEK_PART = {**{day: stem("weekdays") for day in WEEKDAYS[:5]}, **{day: stem("weekends") for day in WEEKDAYS[5:]}}
_MONTH_NAMES = "|".join(m[:3] + r"[a-z]{0,6}\.?" for m in MONTHS)
# A range of months: "from October to March", "April-September", "October through March" (a day between is a range
# of dates, the date checks').
_MONTH_RANGE = re.compile(rf"\b({_MONTH_NAMES})[ \t]*(?:to|until|till|through|thru|-|–|—)[ \t]*({_MONTH_NAMES})\b",
                          re.IGNORECASE)
# The whole of a week's part named by its days: "Monday to Friday", "Saturdays and Sundays".
_WHOLE_PART = re.compile(r"\bMondays?[ \t]*(?:to|through|thru|until|till|-|–|—)[ \t]*Fridays?\b"
                         r"|\bSaturdays?[ \t]+(?:and|&)[ \t]+Sundays?\b", re.IGNORECASE)
# The most month ranges read per source (a crafted page of ranges is not read whole).
_RANGES_READ = 16


def named_by_the_calendar(name: str, claim: str, scope: Scope) -> bool:
    """Whether the passages name the day, holiday or month ``name`` of ``claim`` by the calendar (see the module). A
    weekday or a month is read so only in a claim that gives no figure: a figure said of "Saturday" may be the one the
    passages give weekdays ("breakfast is served from 7am on Saturday" where they say "7am on weekdays, 8am at
    weekends"), and the figures of a week's parts or of a range of months are not read day by day."""
    word = name.strip()
    if not word or _holiday_dated(word, scope):
        return bool(word)
    part = _WEEK_PART.get(word.lower().removesuffix("s"))
    day = WEEKDAYS.index(word.lower().removesuffix("s")) if part is not None else -1
    if part is not None and _denied_outside(day, word, claim, scope):
        return True  # "so they don't apply on Sundays" of the passages' "Monday to Friday"
    if part is not None and _WHOLE_PART.search(claim):
        return part in scope.terms  # "Monday to Friday" is the passages' "weekdays", whatever figure it is given
    if part is not None and _times_only(claim) and _in_a_day_range(day, scope):
        return True  # a day of their "Monday to Thursday": its times are the hours' to read (.prose_hours)
    if number_mentions(claim):
        return False
    if part is not None:
        return part in scope.terms
    month = month_number(word)
    return month is not None and _in_a_range(int(month), scope)


def _holiday_dated(name: str, scope: Scope) -> bool:
    days = holiday_dates(name)
    return bool(days) and all(day in scope.numbers and stem(MONTHS[month - 1]) in scope.terms
                              for _, _, (_, month, day) in days)


def _in_a_range(month: int, scope: Scope) -> bool:
    """Whether a range of months the passages write holds ``month`` (one running over the new year included)."""
    for src in scope.sources:
        for count, m in enumerate(_MONTH_RANGE.finditer(src.text[:PASSAGE_HEAD_CHARS])):
            if count >= _RANGES_READ:
                break
            first, last = month_number(m.group(1).title()), month_number(m.group(2).title())
            if first is None or last is None or first == last:
                continue
            a, b = int(first), int(last)
            if (a < b and a < month < b) or (a > b and (month > a or month < b)):
                return True
    return False


# A range of weekdays: "Monday to Thursday", "Tuesday-Saturday".
_DAY_NAMES = "|".join(WEEKDAYS)
_DAY_RANGE = re.compile(rf"\b({_DAY_NAMES})s?[ \t]*(?:to|until|till|through|thru|-|–|—)[ \t]*({_DAY_NAMES})s?\b",
                        re.IGNORECASE)


def _times_only(claim: str) -> bool:
    """Whether every figure of the claim is part of a time of day ("from 8am to 6pm"), or it has none."""
    times = clock_times(claim)
    return all(any(t.start <= n.start < t.end for t in times) for n in number_mentions(claim))


def _day_ranges(text: str) -> list[tuple[int, int]]:
    """The ranges of weekdays ``text`` writes in its head (first and last day, 0 for Monday; at most
    :data:`_RANGES_READ`)."""
    return [(WEEKDAYS.index(m.group(1).lower()), WEEKDAYS.index(m.group(2).lower()))
            for m in islice(_DAY_RANGE.finditer(text[:PASSAGE_HEAD_CHARS]), _RANGES_READ)]


def _in_a_day_range(day: int, scope: Scope) -> bool:
    """Whether a range of weekdays the passages write holds ``day`` between its ends (one over the week's end too)."""
    return any(a != b and 0 < (day - a) % 7 < (b - a) % 7 for src in scope.sources for a, b in _day_ranges(src.text))


# Where the statement that holds a day's name begins: a clause's edge, or a word that opens a consequence.
_STATEMENT_EDGE = re.compile(r"[,;:.!?()]|\b(?:so|but|while|whereas|although|though|because)\b", re.IGNORECASE)
_NEGATOR = re.compile(r"\b(?:not|never|no|nor|neither)\b|n['’]t\b|\bcannot\b", re.IGNORECASE)


def _denied_outside(day: int, name: str, claim: str, scope: Scope) -> bool:
    """Whether the claim denies something of the day ``name`` (a negator in its statement before the name: "so they
    don't apply on Saturdays or Sundays") that lies outside every range of weekdays the passages write, and they
    write one: the passages' "Monday to Friday" says "not on Sundays"."""
    at = claim.find(name)
    if at < 0:
        return False
    if not _NEGATOR.search(claim, clause_start(claim, at, _STATEMENT_EDGE), at):
        return False
    return outside_day_ranges(day, [src.text for src in scope.sources])


def outside_day_ranges(day: int, texts: list[str]) -> bool:
    """Whether ``texts`` write a range of weekdays ("Tuesday to Sunday"), and none holds ``day`` (0 for Monday)."""
    ranges = [pair for text in texts for pair in _day_ranges(text)][:_RANGES_READ]
    return bool(ranges) and all(a != b and (day - a) % 7 > (b - a) % 7 for a, b in ranges)
