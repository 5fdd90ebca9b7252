"""Times of day, read as the minutes after midnight they may mean: "9 p.m.", "21:00", "half past seven".

A time is written many ways ("9 p.m.", "9pm", "21:00", "nine in the evening"), and a number check that reads its
digits one by one finds "21" and "00" missing where a passage says "9 p.m.", and "3" found where the claim says "3
a.m." and the passage "3pm". :func:`clock_times` reads each time of a text as a :class:`ClockTime`: its span and the
minutes after midnight it may mean, one value where the writing says which ("21:00", "9 p.m.", "seven in the
morning") and two where it does not ("3:00", "seven o'clock": 3 a.m. or 3 p.m.). Two times agree where they share a
value. An hour written bare before a range's other end ("2-4 p.m.", "from 9 to 5.30 p.m.") is a time of both halves
of the day.

Only the writing is read, never the sense: "3:30" of a marathon's finishing time is read as a time of day too (two
such times agree where they are written alike, which is what the number check asked of them). Every pattern is a
bounded alternation read once over the text (no nested repetition).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["MAX_TIMES_PER_TEXT", "ClockTime", "clock_times", "covering"]

# The times read per text, at most (a passage of a hundred thousand "12:00" is not read past it: what is not read is
# left to the number check, as before).
MAX_TIMES_PER_TEXT = 2000

_WORD_HOURS = {w: i + 1 for i, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve".split())}
_HOUR = r"(\d{1,2}|" + "|".join(sorted(_WORD_HOURS, key=len, reverse=True)) + r")"
_MERIDIEM = r"([ap])\.?\s?m\b\.?"
# The part of the day said in words after a time: "seven in the evening", "3:00 in the afternoon".
_PART_OF_DAY = r"in\s+the\s+(?:morning|afternoon|evening)|at\s+night"
_DAY_PART = r"(?:\s+(?:o'clock\s+)?(" + _PART_OF_DAY + r"|tonight))?"
_DAY_PARTS = {"morning": "a", "afternoon": "p", "evening": "p", "night": "p", "tonight": "p"}

# "9 p.m.", "9pm", "9:30 a.m.", "9.30pm", "nine p.m."
_WITH_MERIDIEM = re.compile(r"\b" + _HOUR + r"(?:[:.](\d{2}))?\s?" + _MERIDIEM, re.IGNORECASE)
# "21:00", "02:00", "3:00" (and a day part: "3:00 in the afternoon")
_COLON = re.compile(r"(?<![\d:.])\b(\d{1,2}):(\d{2})\b(?![:.]?\d)" + _DAY_PART, re.IGNORECASE)
# "half past seven", "quarter to nine", "a quarter past 8"
_PAST_TO = re.compile(r"\b(?:(half)|(?:a\s+)?(quarter))\s+(past|to)\s+" + _HOUR + r"\b" + _DAY_PART, re.IGNORECASE)
# "seven o'clock", "7 o'clock", "seven in the evening"
_OCLOCK = re.compile(r"\b" + _HOUR + r"(?:\s+o'clock\b" + _DAY_PART + r"|\s+(" + _PART_OF_DAY + r"))", re.IGNORECASE)
_NAMED = re.compile(r"\b(noon|midday|midnight)\b", re.IGNORECASE)
_NAMED_MINUTES = {"noon": 720, "midday": 720, "midnight": 0}
# A bare hour before a range's other end: "2-4 p.m.", "from 9 to 5:30", "between 2 and 4 p.m."
_RANGE_START = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*(?:-|–|—|\bto\b|\buntil\b|\btill\b|\band\b)\s*$",
                          re.IGNORECASE)
_RANGE_LOOKBACK = 16  # characters before a time where its range's first hour may stand


@dataclass(frozen=True)
class ClockTime:
    """A time of day in a text: its span and the minutes after midnight it may mean (one value, or an a.m. and a
    p.m. reading where the text does not say which)."""

    start: int
    end: int
    minutes: frozenset[int]


def _hour(word: str) -> int:
    return _WORD_HOURS.get(word.lower(), 0) if not word.isdigit() else int(word)


def _in_half(hour: int, minute: int, half: str | None) -> frozenset[int]:
    """The minutes of a 12-hour clock's ``hour``:``minute`` in the half of the day ``half`` ("a"/"p"), or in both
    where ``half`` is None; empty where the hour is no 12-hour clock's."""
    if not 1 <= hour <= 12 or not 0 <= minute < 60:
        return frozenset()
    morning = (hour % 12) * 60 + minute
    if half is None:
        return frozenset({morning, morning + 720})
    return frozenset({morning if half == "a" else morning + 720})


def _day_half(part: str | None) -> str | None:
    return None if not part else _DAY_PARTS[part.lower().split()[-1]]


def _colon(m: re.Match[str]) -> ClockTime | None:
    hour, minute, half = int(m.group(1)), int(m.group(2)), _day_half(m.group(3))
    if minute >= 60 or hour > 24:
        return None
    if hour > 12 or hour == 0 or m.group(1).startswith("0") or hour == 24:
        # a 24-hour clock's time says its half of the day ("21:00", "02:00")
        return ClockTime(m.start(), m.end(), frozenset({(hour % 24) * 60 + minute}))
    return ClockTime(m.start(), m.end(), _in_half(hour, minute, half))


def _past_to(m: re.Match[str]) -> ClockTime:
    quarter = 30 if m.group(1) else 15
    hour, half = _hour(m.group(4)), _day_half(m.group(5))
    if m.group(3).lower() == "past":
        return ClockTime(m.start(), m.end(), _in_half(hour, quarter, half))
    before = _in_half(hour, 0, half)
    return ClockTime(m.start(), m.end(), frozenset((v - 15) % 1440 for v in before))


def _read(text: str) -> Iterator[ClockTime | None]:
    """Every time each pattern reads, pattern by pattern (a time with its a.m. or p.m., then a 24-hour or colon time,
    then one said in words)."""
    for m in _WITH_MERIDIEM.finditer(text):
        yield ClockTime(m.start(), m.end(), _in_half(_hour(m.group(1)), int(m.group(2) or 0), m.group(3).lower()))
    for m in _COLON.finditer(text):
        yield _colon(m)
    for m in _PAST_TO.finditer(text):
        yield _past_to(m)
    for m in _OCLOCK.finditer(text):
        yield ClockTime(m.start(), m.end(), _in_half(_hour(m.group(1)), 0, _day_half(m.group(2) or m.group(3))))
    for m in _NAMED.finditer(text):
        yield ClockTime(m.start(), m.end(), frozenset({_NAMED_MINUTES[m.group(1).lower()]}))


def clock_times(text: str) -> list[ClockTime]:
    """The times of day written in ``text`` (at most :data:`MAX_TIMES_PER_TEXT`), in order, none overlapping another
    (the first pattern to read a span keeps it)."""
    found: list[ClockTime] = []
    starts: list[int] = []  # the kept times' starts, sorted, and their ends by start
    ends: dict[int, int] = {}

    def add(time: ClockTime | None) -> None:
        if time is None or not time.minutes or len(found) >= MAX_TIMES_PER_TEXT:
            return
        i = bisect.bisect_left(starts, time.end)  # the kept times starting before this one ends
        if i and ends[starts[i - 1]] > time.start:
            return  # kept spans do not overlap one another, so the last of them is the only one that may reach it
        found.append(time)
        bisect.insort(starts, time.start)
        ends[time.start] = time.end

    for time in _read(text):
        if len(found) >= MAX_TIMES_PER_TEXT:
            break
        add(time)
    for time in list(found):
        # the range's first end, written bare: "2" of "2-4 p.m." is 2 a.m. or 2 p.m. as far as the writing says
        before = text[max(0, time.start - _RANGE_LOOKBACK):time.start]
        r = _RANGE_START.search(before)
        if r is not None:
            offset = time.start - len(before)
            add(ClockTime(offset + r.start(1), offset + (r.end(2) if r.group(2) else r.end(1)),
                          _in_half(int(r.group(1)), int(r.group(2) or 0), None)))
    return sorted(found, key=lambda t: t.start)


def covering(times: list[ClockTime], start: int, end: int) -> ClockTime | None:
    """The time of ``times`` (in order, none overlapping) whose span holds ``start:end``, if any (a bisection)."""
    i = bisect.bisect_right(times, start, key=lambda t: t.start)
    return times[i - 1] if i and times[i - 1].end >= end else None
