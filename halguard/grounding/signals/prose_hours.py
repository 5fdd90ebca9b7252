"""Opening hours a passage writes day by day, and a claim that gives a day another day's hours: "On Fridays the
practice opens at 8am and closes at 6pm" against "The practice opens 8am to 6pm Monday to Thursday, 8am to 4pm on
Fridays, and 9am to 1pm on the first Saturday of each month".

Each time of such a claim stands in the passage, in the very sentence it restates, so no number or time check sees
anything: the 6pm is Monday to Thursday's. A passage sentence that pairs each of its time ranges with a group of days
(read as :mod:`.hours` reads a claim: "8am to 4pm on Fridays", "Monday to Friday from 9 to 5") is a week of hours for
the days it names, and no other: a day it does not name is unknown, not closed (a record's week lists every day it
opens; prose leaves days out). A claim about opening hours that restates such a sentence (at least
:data:`.closest.RESTATED_OVERLAP` of its words) and gives one of its days an opening or closing time other than the
sentence's, with times whose half of the day is written ("4pm", not "4"), is reported; where it restates several
such sentences, only if it contradicts each. So are hours said of every day ("open every day from 7am to 7pm") where
the sentences it restates give hours for some days only ("open weekdays 7am-7pm"). Reported as a role conflict,
weighted, never a CONTRADICTION: its precision on real text is unmeasured (the dev rows' hours are in records,
:mod:`.hours`).

Bounded: :mod:`.hours` reads at most its item count of a text; at most :data:`MAX_SENTENCES` sentences with times a
claim is compared with.
"""

from __future__ import annotations

from collections.abc import Sequence

from halguard.grounding.signals.closest import restates, source_sentences
from halguard.grounding.signals.hours import (
    CLOSED,
    OPENING,
    TIME_RANGE,
    HoursTable,
    clock_text,
    paired_hours,
    same_time,
)
from halguard.text.dates import WEEKDAYS
from halguard.text.lexical import content_terms

__all__ = ["MAX_SENTENCES", "hours_agreed", "prose_hours_moved"]

MAX_SENTENCES = 16


def _week(sentence: str) -> HoursTable | None:
    """The days a sentence gives hours for, each with its opening and closing time (minutes after midnight); None
    where it pairs no range with days, or a time's half of the day is not written."""
    paired = paired_hours(sentence)
    if paired is None:
        return None
    table: HoursTable = {}
    for said, group in paired[0]:
        assert said.times is not None
        opens, closes = said.times
        if len(opens) != 1 or len(closes) != 1:
            return None  # "9 to 5": either half of the day, no week to read
        for day in group.days:
            if table.setdefault(day, (opens[0], closes[0])) != (opens[0], closes[0]):
                return None  # a day given two ranges ("9 to 12 and 2 to 5"): not read
    return table or None


def _weeks(text: str, sources: Sequence[str]) -> tuple[list, set[int], list[HoursTable]]:
    """The claim's time ranges paired with days, the days of its groups left over, and the weeks of the passage
    sentences it restates that name one of its days (none for a claim not about opening hours)."""
    if CLOSED.search(text) or not OPENING.search(text):
        return [], set(), []
    paired = paired_hours(text)
    if paired is None:
        return [], set(), []
    pairs, exceptions = paired
    claim_terms = {st for _, _, st in content_terms(text)}
    days = {day for _, group in pairs for day in group.days}
    weeks, read = [], 0
    for source in sources:
        for sentence, terms in source_sentences(source):
            if read >= MAX_SENTENCES:
                return pairs, exceptions, weeks
            if not TIME_RANGE.search(sentence) or not restates(claim_terms, set(terms)):
                continue
            read += 1
            week = _week(sentence)
            if week is not None and not days.isdisjoint(week):
                weeks.append(week)
    return pairs, exceptions, weeks


def prose_hours_moved(text: str, sources: Sequence[str]) -> list[tuple[int, int, str]]:
    """The claim's time ranges or closing times (offsets in ``text``) that give a day hours other than those a
    passage sentence it restates gives that day, with the reason in words (see the module)."""
    pairs, exceptions, weeks = _weeks(text, sources)
    found = [_against(text, pairs, exceptions, week) for week in weeks]
    return found[0] if found and all(found) else _every_day(text, pairs, weeks)


def _every_day(text: str, pairs: list, weeks: list[HoursTable]) -> list[tuple[int, int, str]]:
    """The claim's hours said of every day ("every day", "daily", "seven days a week") where the passage sentences
    it restates give hours for some days only: "open every day from 7am to 7pm" of "open weekdays 7am-7pm"."""
    named = {day for week in weeks for day in week}
    if not named or len(named) == len(WEEKDAYS):
        return []
    days = ", ".join(WEEKDAYS[day].title() for day in sorted(named))
    return [(said.start, said.end, f"{text[said.start:said.end]} every day where the passage gives hours for {days}")
            for said, group in pairs if len(set(group.days)) == len(WEEKDAYS) and not group.loose][:1]


def hours_agreed(text: str, sources: Sequence[str]) -> bool:
    """Whether a passage sentence the claim restates gives each day the claim names the hours the claim gives it:
    "The practice is open 8am to 4pm on Fridays" of "8am to 6pm Monday to Thursday, 8am to 4pm on Fridays", where
    the 4pm is no time moved from the 6pm (:mod:`.times_moved`)."""
    pairs, exceptions, weeks = _weeks(text, sources)
    return any(not _against(text, pairs, exceptions, week) for week in weeks)


def _against(text: str, pairs: list, exceptions: set[int], week: HoursTable) -> list[tuple[int, int, str]]:
    """The claim's ranges that give a day of ``week`` other hours (days the week does not name are not read)."""
    out = []
    for said, group in pairs:
        assert said.times is not None
        opens, closes = said.times
        for day in dict.fromkeys(group.days):
            if day in exceptions or day not in week:
                continue
            listed_open, listed_close = week[day]
            if ((opens and not same_time(opens, listed_open, False))
                    or (closes and not same_time(closes, listed_close, False))):
                out.append((said.start, said.end, f"{text[said.start:said.end]} on {WEEKDAYS[day].title()} where "
                            f"the passage gives it {clock_text(listed_open)}-{clock_text(listed_close)}"))
                break
    return out
