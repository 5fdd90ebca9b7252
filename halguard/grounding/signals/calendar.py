"""Calendar dates of a claim that the passages write otherwise: each of a date's numbers may stand somewhere in the
passages ("9", "October", "1989"), so the missing numbers find none of them; the date as a whole is theirs or not."""

from __future__ import annotations

from halguard.grounding.signals.scope import Scope
from halguard.text.dates import MONTHS, calendar_dates
from halguard.text.lexical import stem
from halguard.text.relative_dates import date_by_offset

__all__ = ["changed_dates"]

Span = tuple[int, int]


def changed_dates(text: str, scope: Scope) -> list[Span]:
    """Calendar dates of the claim that the passages write otherwise: the passages date something in the same year,
    never in the claim's month ("9 October 1989" where they write "9 November 1989" and name October elsewhere),
    or in the claim's month only on other days and never the month alone. Each of the date's numbers may stand
    somewhere in the passages, so :func:`.words.missing_numbers` finds none of them; the date as a whole is theirs or
    not.
    A year the passages date nothing in decides nothing (a bare "1989"), unless they give the claim's day and month in
    another year only ("14 March 2025" where they write "14 March 2023"); nor does a day and month they write without
    a year ("17 August last year" may be the claim's "August 2022").
    A day and month the claim writes without a year ("a November 11 hailstorm") is theirs unless they date things,
    never in its month, and never name the month, or they date its month on other days only and name it nowhere
    else ("of record on November 15" where they write "November 28" and "December 15"): a month they name alone or
    in a range of days ("between 3 and 7 March", read as its last day) may hold the claim's day."""
    found = []
    yearless = scope.dates.get(0, {})
    for start, end, (year, month, day) in calendar_dates(text, yearless=True):
        if not year:
            if day and (_month_unsaid(month, scope) or _other_days_only(month, day, scope)) and not date_by_offset(
                    (0, month, day), (src.text for src in scope.sources)):
                found.append((start, end))
            continue
        if month in yearless and (not day or day in yearless[month]):
            continue
        same_year = scope.dates.get(year)
        if not same_year:
            found += [(start, end)] * any(day and y and y != year and day in days.get(month, ())
                                          for y, days in scope.dates.items())
            continue
        days = same_year.get(month)
        if (not days or (day and 0 not in days and day not in days)) and not (
                day and date_by_offset((year, month, day), (src.text for src in scope.sources))):
            found.append((start, end))  # "9 April 2027" is theirs where they give it as "two days earlier" than 11
    return found


def _month_unsaid(month: int, scope: Scope) -> bool:
    """Whether the passages date things (with a day) and none in ``month``, and never name the month."""
    dated = any(d - {0} for days in scope.dates.values() for d in days.values())
    return dated and all(month not in days for days in scope.dates.values()) and (
        stem(MONTHS[month - 1]) not in scope.context_terms)


def _other_days_only(month: int, day: int, scope: Scope) -> bool:
    """Whether the passages date ``month`` with days, never on ``day``, and name it nowhere else: not alone, not in a
    range of days (:attr:`.scope.Scope.unpinned_months`)."""
    days = [d for months in scope.dates.values() for d in months.get(month, ())]
    return bool(days) and 0 not in days and day not in days and month not in scope.unpinned_months
