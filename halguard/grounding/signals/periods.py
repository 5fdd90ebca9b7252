"""Rates said per another period or thing: "three times a week" where the passages say "three times a day", "$10 per
withdrawal" where they say "$2.50 per withdrawal" and "$10 per statement cycle" (:mod:`halguard.text.rates` reads the
rates). Read as a changed quantity (:func:`halguard.grounding.signals.words.changed_units`)."""

from __future__ import annotations

from halguard.grounding.signals.scope import Scope
from halguard.text.quantities import MAX_CLAIM_QUANTITIES
from halguard.text.rates import Rate, days_of_period, every_period_said, rates

__all__ = ["changed_periods"]

Span = tuple[int, int]


def changed_periods(text: str, scope: Scope) -> list[Span]:
    """The claim's rates whose number the passages say per another period, and never per the claim's; those per a
    thing whose number the passages say per other things, and whose thing they give another number
    (:func:`_thing_moved`); and those written "once" / "twice" / "thrice" (no number the other checks read) whose
    period the passages give only other numbers ("twice a day" where they say "once a day"; a price "per stay" is no
    frequency of a stay)."""
    if not scope.rates:
        return []
    periods: dict[float, set[str]] = {}  # of a period or a unit
    things: dict[float, set[str]] = {}  # of any "per" ("per withdrawal")
    for value, period, per_thing in scope.rates:
        things.setdefault(value, set()).add(period)
        if not per_thing:
            periods.setdefault(value, set()).add(period)
    their_periods = {period for _, period, per_thing in scope.rates if not per_thing}  # "$40 per stay": no frequency
    return [(r.start, r.end) for r in rates(text, limit=MAX_CLAIM_QUANTITIES)
            if (not r.per_thing and r.value in periods and r.period not in periods[r.value])
            or (r.per_thing and _thing_moved(r, things))
            or (r.times_word and r.value not in periods and r.period in their_periods
                and r.value not in scope.numbers and not _every_period(r, scope))]


def _every_period(rate: Rate, scope: Scope) -> bool:
    """Whether the passages say the claim's "once a month" with "each month" or "every month" (a price "£6 a month" is
    the period's rate, not its frequency)."""
    days = days_of_period(rate.period)
    return rate.value == 1 and days > 0 and every_period_said(days, [src.text for src in scope.sources])


def _thing_moved(rate: Rate, things: dict[float, set[str]]) -> bool:
    """Whether a claim's number per a thing ("$10 per withdrawal") is one the passages say per other things only, and
    its thing one they give another number per ("$2.50 per withdrawal"): the thing moved from one number to
    another. A thing the passages never price ("per visit") leaves the rate to the words' checks."""
    return (rate.value in things and rate.period not in things[rate.value]
            and any(rate.period in theirs for value, theirs in things.items() if value != rate.value))
