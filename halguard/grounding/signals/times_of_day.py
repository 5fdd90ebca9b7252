"""A claim's times of day against the passages': found in another writing, or changed (issue 44 / 45).

The number check reads digits one by one, so "stays open until 21:00" was two missing numbers ("21", "00") where the
passage says "9 p.m.", and "begins at 3 a.m." was a found "3" where it says "3pm". Here each time of the claim
(:func:`halguard.text.clock.clock_times`) is compared by the minutes after midnight it may mean with the passages'
times (:attr:`Scope.clocks`):

- **said**: a passage's time means what the claim's may ("21:00" / "9 p.m.", "half past seven" / "7:30 a.m.",
  "3:00" / "3pm"), or is a passage's time moved by a duration of an hour or less they give and the claim says ("arrive
  by 4:15pm, since last entry is 45 minutes before closing" where they say "open to 17:00" and "last entry is 45
  minutes before closing"): its numbers and words ("past", "afternoon") are the time's, found;
- **changed**: no passage time means it, and none of its numbers stands in the passages where it may be an hour
  written bare ("at 3", "from 9 to 5"; :attr:`Scope.hour_numbers`): "3 a.m." where the only 3 is "3pm"'s, "half past
  seven" where the 7 is "7:15 a.m."'s, "9:00 p.m." where the 9 is "9 October"'s: a time changed, whatever digit is
  shared;
- anything else is left to the number check as before (a passage that writes its hour bare, "at 3", holds no time to
  compare with), except a whole hour's "00", which is never a number of its own.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import cached_property

from halguard.grounding.signals.scope import Scope
from halguard.text.clock import ClockTime, clock_times, covering
from halguard.text.lexical import NumberMention, number_mentions

__all__ = ["TimesRead", "times_read"]

Span = tuple[int, int]


# The words of opening hours beside a time ("closes at 6pm", "shuts at one o'clock", "the half past five closing
# time"), read for at most MAX_TIMES_WORDED times of a claim, within _WORDS_REACH characters before one.
_HOURS_WORDS = r"(?:clos(?:es|ing)|shut(?:s|ting)?|open(?:s|ing)?)(?:[ \t]{1,3}times?)?"
_HOURS_WORDS_BEFORE = re.compile(rf"\b({_HOURS_WORDS})[ \t]{{1,3}}(?:at|from|until|till|by)[ \t]{{1,3}}$",
                                 re.IGNORECASE)
_HOURS_WORDS_AFTER = re.compile(rf"[ \t]{{1,3}}({_HOURS_WORDS})\b", re.IGNORECASE)
_WORDS_REACH = 30
MAX_TIMES_WORDED = 8


@dataclass(frozen=True)
class TimesRead:
    """The spans of a claim's times of day the passages give (``said``) and of those they give otherwise
    (``changed``), and the spans of whole hours' "00" (``zero_minutes``)."""

    said: tuple[Span, ...] = ()
    changed: tuple[Span, ...] = ()
    zero_minutes: tuple[Span, ...] = ()

    @cached_property
    def _spans(self) -> list[Span]:
        return sorted((*self.said, *self.changed, *self.zero_minutes))  # none overlaps another

    def worded(self, text: str) -> list[Span]:
        """The said times' spans and those of the words of opening hours right before or after each in ``text``
        ("closes at", "shuts at", "opening time"): "shuts at one o'clock on Fridays" where a passage gives Fridays
        8.30am to 1pm says its closing time, which the hours checks compare by day (:mod:`.prose_hours`)."""
        words = [(m.start(1), m.end(1)) for a, b in self.said[:MAX_TIMES_WORDED]
                 for m in (_HOURS_WORDS_BEFORE.search(text, max(0, a - _WORDS_REACH), a),
                           _HOURS_WORDS_AFTER.match(text, b)) if m]
        return [*self.said, *words]

    def covers(self, start: int, end: int) -> bool:
        """Whether the number at ``start:end`` is read here (a said or changed time's, or a whole hour's "00")."""
        i = bisect.bisect_right(self._spans, (start, float("inf")))
        return bool(i) and self._spans[i - 1][0] <= start and end <= self._spans[i - 1][1]


def times_read(text: str, scope: Scope) -> TimesRead:
    """The claim ``text``'s times of day read against ``scope``'s (see the module's docstring)."""
    times = clock_times(text)
    if not times:
        return TimesRead()
    said, changed, zeros = [], [], []
    numbers: dict[ClockTime, list[NumberMention]] = {}
    mentions = number_mentions(text)
    claim_values = {round(m.value, 6) for m in mentions}
    for m in mentions:
        if (time := covering(times, m.start, m.end)) is not None:
            numbers.setdefault(time, []).append(m)
    for time in times:
        inside = numbers.get(time, [])
        if time.minutes & scope.clocks or _reckoned(time.minutes, scope, claim_values):
            said.append((time.start, time.end))
        elif _anchored(text, inside, scope):
            changed.append((time.start, time.end))
        else:
            zeros += [(m.start, m.end) for m in inside if text[m.start:m.end] == "00"]
    return TimesRead(tuple(said), tuple(changed), tuple(zeros))


# The passages' durations read to reckon a time from theirs (a crafted passage of a thousand durations: its first).
MAX_RECKONED_DURATIONS = 32
_DAY_MINUTES = 24 * 60


def _reckoned(minutes: frozenset[int], scope: Scope, claim_values: set[float]) -> bool:
    """Whether a claim's time is a passage's time moved by a duration the passages give, of an hour or less, that the
    claim says too (``claim_values``: its numbers): "arrive by 4:15pm, since last entry is 45 minutes before closing"
    where they say "open 10:00 to 17:00" and "last entry is 45 minutes before closing". A time that only happens to
    lie a passage's duration from a passage's time is no reckoning ("opens at 9:30" where they say "10:00" and a
    "30-minute tour")."""
    if not scope.clocks:
        return False
    durations = {round(q.base / 60) for q in scope.quantities.of_dimension("time")[:MAX_RECKONED_DURATIONS]
                 if 60 <= q.base <= 3600 and q.base % 60 == 0 and round(q.value, 6) in claim_values}
    return any((m + sign * d) % _DAY_MINUTES in scope.clocks for m in minutes for d in durations for sign in (1, -1))


def _anchored(text: str, inside: list[NumberMention], scope: Scope) -> bool:
    """Whether a claim's time whose meaning no passage time has writes none of its numbers (``inside``) where the
    passages may write a bare hour ("at 9"): they are the passages' only inside their times, dates, percentages,
    amounts or measures ("9 p.m." where the 9 is "9 October"'s), or not theirs at all."""
    values = [round(v, 6) for m in inside if text[m.start:m.end] != "00"
              for v in (m.value, m.alt) if v is not None]  # "8 pm" is also 20: a record's "10:0-20:0"
    return bool(values) and not any(v in scope.hour_numbers for v in values)
