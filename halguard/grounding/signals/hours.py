"""Opening hours: compare the hours a claim states with the hours a JSON record lists, day by day.

A business listing gives its week as ``"hours": {"Monday": "17:30-23:0", ...}``; an answer says "open Monday to
Saturday from 5:00 PM to 9:00 PM and on Sunday from 9:00 to 14:00". The sentence embedding reads both as text about
opening hours, and every number of the claim is somewhere in the record, so no other check sees a wrong hour or a
day the business is closed. This module pairs each time range of a claim with the days it is said for, and reports
the ranges the record contradicts: another time on one of those days, or a day the record does not list (closed).
A claim without times is read for the days it says the business is open ("open seven days a week") and for hours it
says vary, against a week that lists the same hours every day.

It reads conservatively, because a finding that blocks must be right (issue 44): a claim that says "closed" is left
alone (listings mark unknown days like closed ones), a day mentioned without a time is an exception to the other
days ("..., with extended hours on Saturday"), "weekdays" leaves Friday out (Friday evenings read as the weekend in
listings' prose), a time without am/pm may be either half of the day, an hour past midnight may be said as the
same hour "pm", and a claim whose times cannot all be paired with days is not judged. Every pattern is bounded
(no unbounded repeat next to another), so crafted text costs linear time.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from halguard.text.dates import WEEKDAYS

__all__ = ["CLOSED", "OPENING", "TIME_RANGE", "HoursTable", "clock_text", "hours_conflicts", "hours_table",
           "paired_hours", "same_time"]

# A record's week: day index (Monday 0) -> (opening, closing) in minutes after midnight.
HoursTable = dict[int, tuple[int, int]]

DAY_NAMES = WEEKDAYS
_TITLED = tuple(name.title() for name in DAY_NAMES)
_DAY = r"(?:mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:r|rs|rsday)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)s?"
# A time: "9", "9:30", "9am", "9.30am" (a full stop before the minutes only where "am" or "pm" follows, as British
# English writes it: "4.0 to 5.0 stars" holds no time), "noon", "midnight".
_TIME = (r"(?:\d{1,2}(?::\d{1,2}|\.\d{2}(?=[ \t]{0,2}[ap]\.?[ \t]?m\b))?[ \t]{0,2}(?:[ap]\.[ \t]?m\.|[ap][ \t]?m\b)?"
         r"|noon|midnight)")
_TO = r"[ \t]{0,3}(?:-|–|—|to|until|till)[ \t]{0,3}"
# A time range not inside a number ("4.0 to 5.0 stars", "$15 to $25") and not one end of "9 or 10 PM".
TIME_RANGE = re.compile(rf"(?<![\d.,$])\b({_TIME}){_TO}({_TIME})(?![\w:]|\.\d)"
                         rf"(?![ \t]{{0,3}}(?:or|-|–)[ \t]{{0,3}}\d)", re.IGNORECASE)
# A closing time alone ("open until 10 PM from Monday to Saturday"), read only in a claim about opening hours
# (:data:`OPENING`): "happy hour until 6 pm" is no statement of when the business closes.
_CLOSING_TIME = re.compile(rf"(?<![\d.,$:])\b(?:until|till|closes[ \t]at|closing[ \t]at|shuts?[ \t]at)"
                           rf"[ \t]{{1,3}}({_TIME})"
                           rf"(?![\w:]|\.\d)(?![ \t]{{0,3}}(?:or|-|–)[ \t]{{0,3}}\d)", re.IGNORECASE)
# An opening time alone ("opens at 8.30am on Fridays"), read as a closing time alone is.
_OPENING_TIME = re.compile(rf"(?<![\d.,$:])\b(?:opens[ \t]at|opening[ \t]at|opens[ \t]its[ \t]doors[ \t]at)"
                           rf"[ \t]{{1,3}}({_TIME})(?![\w:]|\.\d)(?![ \t]{{0,3}}(?:or|-|–)[ \t]{{0,3}}\d)",
                           re.IGNORECASE)
_DAY_SPEC = re.compile(rf"\b(?:({_DAY})[ \t]{{0,3}}(?:-|–|—|to|through|thru|until)[ \t]{{0,3}}({_DAY})|(weekdays|"
                       rf"weekends|daily|every[ \t]day|seven[ \t]days[ \t]a[ \t]week|7[ \t]days[ \t]a[ \t]week|"
                       rf"all[ \t]week)|({_DAY}))\b", re.IGNORECASE)
CLOSED = re.compile(r"\bclosed?\b", re.IGNORECASE)
# Days joined by these are one group ("Friday and Saturday from ...").
_JOINED = re.compile(r"[\s,&/]{0,6}(?:(?:and|or|as[ \t]well[ \t]as)[\s,]{0,4})?")
_CLOCK = re.compile(r"(\d{1,2})(?::(\d{1,2}))?(am|pm)?")
_MINUTES_AFTER_STOP = re.compile(r"(\d)\.(\d{2})")  # "8.30am" is "8:30am"
# The keys a record's week may stand under are any: the table is recognised by its day-name keys and time values.
_MAX_FIELDS = 10_000  # groups (dicts) of one record looked at for its week (a record is bounded: records.py)
# A claim with more time ranges and day groups than this is no statement of a week's hours (a week has seven days,
# a day rarely more than two ranges): it is not judged, which also bounds the work on crafted text.
_MAX_ITEMS = 32
_DAY_MINUTES = 24 * 60
_HALF_DAY = 12 * 60
# "Weekdays" in listings' prose: Monday to Thursday for sure; Friday is not checked (often read as the weekend).
_STRICT_WEEKDAYS = frozenset({0, 1, 2, 3})


def _day_index(word: str) -> int | None:
    w = word.lower()[:3]
    return next((i for i, name in enumerate(DAY_NAMES) if name.startswith(w)), None)


def _clock_times(text: str) -> tuple[int, ...] | None:
    """A written time's possible minutes after midnight: "5 pm" one, "5:00" two (either half of the day)."""
    t = _MINUTES_AFTER_STOP.sub(r"\1:\2", text.lower()).replace(".", "").replace(" ", "").replace("\t", "")
    if t == "noon":
        return (_HALF_DAY,)
    if t == "midnight":
        return (0,)
    m = _CLOCK.fullmatch(t)
    if m is None:
        return None
    hour, minute, half = int(m.group(1)), int(m.group(2) or 0), m.group(3)
    if hour > 24 or minute > 59:
        return None
    if half == "am":
        hour = 0 if hour == 12 else hour
    elif half == "pm" and hour < 12:
        hour += 12
    elif half is None and 0 < hour <= 12:  # no am/pm: either half
        return (hour * 60 + minute, (hour + 12) % 24 * 60 + minute)
    return (hour * 60 + minute,)


def hours_table(groups: Iterable[dict]) -> HoursTable | None:
    """A record's week among its ``groups`` (every dict of the parsed record: records.py walks it): the one whose
    keys are all day names and whose values are all time ranges (``"17:30-23:0"``, ``"9:00 AM - 5:00 PM"``); None
    where there is none, or more than one (which week would a claim mean?)."""
    found: list[HoursTable] = []
    for seen, value in enumerate(groups):
        if seen >= _MAX_FIELDS:
            break
        table = _week(value)
        if table is not None:
            found.append(table)
    return found[0] if len(found) == 1 else None


def _week(value: dict) -> HoursTable | None:
    if not value or len(value) > 7:
        return None
    table: HoursTable = {}
    for key, span in value.items():
        day = _day_index(str(key)) if str(key).lower().rstrip("s") in _DAY_KEYS else None
        if day is None or not isinstance(span, str) or span.count("-") != 1:
            return None
        opens, closes = (_clock_times(part.strip()) for part in span.split("-"))
        if not opens or not closes:
            return None
        table[day] = (opens[0], closes[0])
    return table


_DAY_KEYS = frozenset(DAY_NAMES) | frozenset(d[:3] for d in DAY_NAMES)


class _Said(NamedTuple):
    """A time range or a group of days in a claim, by offsets."""

    start: int
    end: int
    days: tuple[int, ...] = ()  # a group of days (empty for a time range)
    loose: bool = False  # "weekdays": Friday is not checked
    # a time range's possible minutes, its opening's and its closing's (one of them empty for a time alone)
    times: tuple[tuple[int, ...], tuple[int, ...]] | None = None


# What joins an opening time to the closing time that ends its range: "opens at 8am and closes at 6pm".
_TIMES_JOINED = re.compile(r"[ \t,]{0,3}(?:and|but|then)?[ \t,]{0,3}", re.IGNORECASE)


def _joined_times(claim: str, items: list[_Said]) -> list[_Said]:
    """``items`` (in order) with each opening time alone that a closing time alone follows, joined
    (:data:`_TIMES_JOINED`), made one range."""
    out: list[_Said] = []
    for item in items:
        last = out[-1] if out else None
        if (last is not None and last.times and item.times and not last.times[1] and not item.times[0]
                and _TIMES_JOINED.fullmatch(claim, last.end, item.start)):
            out[-1] = _Said(last.start, item.end, times=(last.times[0], item.times[1]))
        else:
            out.append(item)
    return out


def _said(claim: str) -> list[_Said] | None:
    """The claim's time ranges and day groups in order (days joined by "and" or commas are one group); None
    where a time range cannot be read."""
    items: list[_Said] = []
    for m in TIME_RANGE.finditer(claim):
        opens, closes = _clock_times(m.group(1)), _clock_times(m.group(2))
        if opens is None or closes is None or len(items) >= _MAX_ITEMS:
            return None
        items.append(_Said(m.start(), m.end(), times=(opens, closes)))
    if OPENING.search(claim) and not _OTHER_HOURS.search(claim):
        ranges = [(item.start, item.end) for item in items]
        for m, closing in [(m, True) for m in _CLOSING_TIME.finditer(claim)] + [
                (m, False) for m in _OPENING_TIME.finditer(claim)]:
            time = _clock_times(m.group(1))
            if any(a <= m.start() < b for a, b in ranges):
                continue  # the end of a range read above ("from 9 until 5")
            if time is None or len(items) >= _MAX_ITEMS:
                return None
            items.append(_Said(m.start(), m.end(), times=((), time) if closing else (time, ())))
        items.sort()
        items = _joined_times(claim, items)
    starts = [item.start for item in items]
    for m in _DAY_SPEC.finditer(claim):
        if m.group(4) and m.group(4)[0].islower() and "day" not in m.group(4).lower():
            continue  # "we sat outside", "the sun": a lower-case abbreviation alone is no day ("Mon-Fri" is)
        i = bisect.bisect_right(starts, m.start()) - 1  # the time range it may stand in ("5 to 9" is no day)
        if i < 0 or not items[i].start <= m.start() < items[i].end:
            if len(items) >= _MAX_ITEMS:
                return None
            items.append(_Said(m.start(), m.end(), _days(m), loose=(m.group(3) or "").lower() == "weekdays"))
    items.sort()
    grouped: list[_Said] = []
    for item in items:
        last = grouped[-1] if grouped else None
        if (last is not None and item.times is None and last.times is None
                and _JOINED.fullmatch(claim, last.end, item.start)):
            grouped[-1] = _Said(last.start, item.end, last.days + item.days, last.loose and item.loose)
        else:
            grouped.append(item)
    return grouped


def _days(m: re.Match) -> tuple[int, ...]:
    first, last, named, single = m.group(1), m.group(2), m.group(3), m.group(4)
    if first:
        a, b = _day_index(first), _day_index(last)
        assert a is not None and b is not None  # the pattern only matches day names
        return tuple((a + i) % 7 for i in range((b - a) % 7 + 1))
    if named:
        word = named.lower()
        return (0, 1, 2, 3, 4) if word == "weekdays" else (5, 6) if word == "weekends" else tuple(range(7))
    day = _day_index(single)
    assert day is not None
    return (day,)


def _paired(items: list[_Said]) -> tuple[list[tuple[_Said, _Said]], set[int]] | None:
    """Each time range with its day group: the group just before every range ("Monday to Friday from 9 to 5") or
    just after it ("from 9 to 5 on weekdays"), whichever reading pairs every range with less text between; and the
    days of the groups left over (exceptions). None where neither reading pairs every range."""
    best: tuple[int, list[tuple[_Said, _Said]], set[int]] | None = None
    for step in (-1, 1):
        pairs, used, gap = [], set(), 0
        for i, item in enumerate(items):
            if item.times is None:
                continue
            j = i + step
            if not (0 <= j < len(items)) or items[j].times is not None or j in used:
                break
            used.add(j)
            pairs.append((item, items[j]))
            gap += item.start - items[j].end if step < 0 else items[j].start - item.end
        else:
            if best is None or gap < best[0]:
                best = (gap, pairs, used)
    if best is None:
        return None
    _, pairs, used = best
    leftover = {d for j, item in enumerate(items) if item.times is None and j not in used and len(set(item.days)) < 7
                for d in item.days}
    return pairs, leftover


def same_time(said: tuple[int, ...], listed: int, past_midnight: bool) -> bool:
    options = set(said)
    if past_midnight:  # "11:30 am to 2:00 pm" for "11:30-2:0": the hour is right, the half of the day slipped
        options |= {(t + _HALF_DAY) % _DAY_MINUTES for t in said}
    return listed % _DAY_MINUTES in {t % _DAY_MINUTES for t in options}


def _table_conflicts(pairs: list[tuple[_Said, _Said]], exceptions: set[int], table: HoursTable
                     ) -> list[tuple[int, int, str]]:
    out = []
    # A day said in a smaller group too is that group's ("from 11 to 8 every day, until 9 on Fridays"): the wider
    # statement is not checked on it.
    narrowest: dict[int, int] = {}
    for _, group in pairs:
        for day in group.days:
            narrowest[day] = min(narrowest.get(day, 7), len(set(group.days)))
    for said, group in pairs:
        assert said.times is not None
        opens, closes = said.times
        for day in dict.fromkeys(group.days):
            if (day in exceptions or (group.loose and day not in _STRICT_WEEKDAYS)
                    or len(set(group.days)) > narrowest[day]):
                continue
            if day not in table:
                out.append((said.start, said.end, f"the record lists no hours on {_TITLED[day]}"))
                break
            listed_open, listed_close = table[day]
            if listed_open == listed_close:  # "0:0-0:0": open all day, or not known: not checked
                continue
            past_midnight = listed_close < listed_open
            if not ((not opens or same_time(opens, listed_open, False))
                    and (not closes or same_time(closes, listed_close, past_midnight))):
                out.append((said.start, said.end, f"the record lists {_TITLED[day]} as "
                            f"{clock_text(listed_open)}-{clock_text(listed_close)}"))
                break
    return out


def clock_text(minutes: int) -> str:
    return f"{minutes // 60}:{minutes % 60:02d}"


def hours_conflicts(claim: str, tables: Sequence[HoursTable]) -> list[tuple[int, int, str]]:
    """The parts of ``claim`` that contradict the listed week, with the reason in words, offsets in the claim;
    none unless the claim contradicts every table in ``tables`` (one per record in the context: a claim may be
    about any of them).

    A claim with time ranges is read range by range (:func:`_table_conflicts`); one without says when the business
    is open at most: days it is open ("open seven days a week") the week does not list, or hours that vary where
    the week lists the same hours every day (:func:`_day_conflicts`). A claim that says "closed", or whose time
    ranges cannot all be paired with the days they are said for, is not judged (see the module docstring).
    """
    if not tables or CLOSED.search(claim):
        return []
    if not TIME_RANGE.search(claim) and not _CLOSING_TIME.search(claim):
        found = [_day_conflicts(claim, table) for table in tables]
        return found[0] if all(found) else []
    paired = paired_hours(claim)
    if paired is None:
        return []
    pairs, exceptions = paired
    found = [_table_conflicts(pairs, exceptions, table) for table in tables]
    return found[0] if all(found) else []


def paired_hours(text: str) -> tuple[list[tuple[_Said, _Said]], set[int]] | None:
    """The time ranges of ``text`` each with its day group, and the days of the groups left over (:func:`_paired`);
    None where a range cannot be read, no days are named, or a range pairs with none."""
    items = _said(text)
    if not items or not any(item.days for item in items):
        return None
    return _paired(items)


# A claim about when a business opens (not "the open kitchen" alone: it must also name days or varying hours).
OPENING = re.compile(r"\b(?:open|opens|operates|operating|operation|hours|closes|closing|shuts)\b", re.IGNORECASE)
# Hours of something else than the business's opening ("happy hour until 6 pm", "the kitchen closes at 9").
_OTHER_HOURS = re.compile(r"\b(?:happy[ \t]hours?|kitchen|brunch|breakfast|lunch|dinner|delivery|bar)\b", re.IGNORECASE)
# Days named after these are left out ("open every day except Monday"): such a claim is not read.
_EXCEPT = re.compile(r"\b(?:except|but|apart\s{1,3}from|other\s{1,3}than|besides)\b", re.IGNORECASE)
_VARYING = re.compile(r"\b(?:vary|varies|varying|varied|different)\b", re.IGNORECASE)


def _day_conflicts(claim: str, table: HoursTable) -> list[tuple[int, int, str]]:
    """A claim without times against one week: days it says the business is open that the week does not list,
    and hours it says vary where every listed day has the same hours. Measured on the dev records' claims without
    times (2026-11-28): right on all 4 claims it fired on, of 29 that say when a business opens."""
    if not OPENING.search(claim) or _EXCEPT.search(claim):
        return []
    items = _said(claim)
    if items is None:
        return []
    for item in items:
        missing = [d for d in dict.fromkeys(item.days) if d not in table]
        if missing:
            return [(item.start, item.end, f"the record lists no hours on {_TITLED[missing[0]]}")]
    varying = _VARYING.search(claim)
    if varying and len(table) >= 2 and len(set(table.values())) == 1:
        opens, closes = next(iter(table.values()))
        return [(varying.start(), varying.end(),
                 f"the record lists the same hours on every day it lists ({clock_text(opens)}-{clock_text(closes)})")]
    return []

