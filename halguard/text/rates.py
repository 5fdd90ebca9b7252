"""Rates: a number said per period or per unit ("three times a day", "€5.40 per litre"), or per any thing ("$2.50 per
withdrawal"). A claim's rate whose number the passages say per another period or unit, or per another thing where they
give its thing another number, is a changed quantity (:func:`halguard.grounding.signals.periods.changed_periods`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from halguard.text.lexical import STOPWORDS, number_mentions, stem
from halguard.text.quantities import MAX_QUANTITIES_PER_TEXT

__all__ = ["FREQUENCY_READ_CHARS", "RATE_PERIOD", "Rate", "frequency_said", "rates"]


@dataclass(frozen=True)
class Rate:
    """A number said per period or per unit: "three times a day", "twice a week", "5 million passengers a year",
    "€5.40 per litre": from the number to the period's end, the number's value and the period's unit ("day",
    "litre")."""

    start: int
    end: int
    value: float
    period: str
    # The number is a word of frequency ("once", "twice", "thrice"): no number the other checks read.
    times_word: bool = False
    # Said per a thing of no listed unit ("$2.50 per withdrawal", "$10 per statement cycle"): its period is the
    # thing's head noun, a stem.
    per_thing: bool = False


# A price's or a dose's unit read as its rate's "period" ("€5.40 per litre" / "€5.40 a kilogram" differ as "a day"
# and "a week" do), each written one way ("liter" / "litre", "kg" / "kilo" / "kilogram").
_PER_UNIT_OF = {"litre": "litre", "liter": "litre", "kilogram": "kilogram", "kilo": "kilogram", "kg": "kilogram",
                "gram": "gram", "tonne": "tonne", "ton": "tonne", "pound": "pound", "lb": "pound", "ounce": "ounce",
                "gallon": "gallon", "metre": "metre", "meter": "metre", "kilometre": "kilometre",
                "kilometer": "kilometre", "km": "kilometre", "mile": "mile", "person": "person", "head": "person",
                "night": "night", "share": "share", "passenger": "passenger", "guest": "guest"}
_PER_UNITS = "|".join(sorted(_PER_UNIT_OF, key=len, reverse=True))
# The period of a rate: "a/an/per/each/every" and a time unit, or the unit's adverb ("daily", "annually").
# "a year earlier", "a day later", "a week ago", "a year on," place a time, not a rate ("four flights a week on Airbus
# A220 aircraft" is one).
_PERIOD_UNITS = "second|minute|hour|day|week|fortnight|month|year"
_PERIOD_ADVERBS = "hourly|daily|weekly|fortnightly|monthly|yearly|annually"
# The period of a rate as a pattern of no groups, for other patterns to hold ("four times a week": derived).
RATE_PERIOD = rf"(?:(?:a|an|per|each|every)\s{{1,3}}(?:{_PERIOD_UNITS})|{_PERIOD_ADVERBS})"
_PERIOD = re.compile(rf"\b(?:(?:a|an|per|each|every)\s{{1,3}}({_PERIOD_UNITS})|({_PERIOD_ADVERBS})"
                     rf"|(?:a|an|per)\s{{1,3}}({_PER_UNITS}))\b"
                     r"(?!\s{1,3}(?:(?:ago|earlier|later|before|after|since|from|old|into)\b|on\s{0,3}(?:[,.;:!?]|$)))",
                     re.IGNORECASE)
# "per" and a thing of no listed unit, one or two words ("per withdrawal", "per statement cycle"); "per cent", "per
# capita", "per se" are no rates.
_PER_THING = re.compile(r"\bper\s{1,3}([a-z][a-z-]{2,20})(?:\s{1,3}([a-z][a-z-]{2,20}))?\b", re.IGNORECASE)
_NOT_A_THING = frozenset("cent cents centum capita annum diem se".split())
_PERIOD_OF_ADVERB = {"hourly": "hour", "daily": "day", "weekly": "week", "fortnightly": "fortnight",
                     "monthly": "month", "yearly": "year", "annually": "year"}
_TIMES_WORDS = {"once": 1.0, "twice": 2.0, "thrice": 3.0}
# A rate's number stands at most this many words before its period ("three *times* a day", "2 *tablets* per day",
# "3 million *tonnes of cargo* a year").
_RATE_REACH_WORDS = 3
_RATE_WINDOW_CHARS = 40
_RATE_WORD = re.compile(r"[^\W_][\w,.'’-]*")
_RATE_EDGE = re.compile(r"[.;:!?,()](?=\s)")


def rates(text: str, *, limit: int = MAX_QUANTITIES_PER_TEXT) -> list[Rate]:
    """The numbers ``text`` says per period (at most ``limit``), in order. A period with no number within
    :data:`_RATE_REACH_WORDS` words before it ("costs 70 dollars a year" has one; "opens every day" has none) is no
    rate. Each period reads a window of :data:`_RATE_WINDOW_CHARS` characters: linear in the text."""
    out: list[Rate] = []
    for m in _PERIOD.finditer(text):
        if len(out) >= limit:
            break
        period = (m.group(1).lower() if m.group(1) else _PERIOD_OF_ADVERB[m.group(2).lower()] if m.group(2)
                  else _PER_UNIT_OF[m.group(3).lower()])
        found = _rate_number(text, m.start())
        # a number is the rate of its first period and of those chained to it ("2 hours per day per person"), not of a
        # later one: "health checks twice a year and monthly flea treatment" says nothing twice a month
        if found is not None and not (out and out[-1].start == found[0] and text[out[-1].end:m.start()].strip()):
            out.append(Rate(found[0], m.end(), found[1], period, found[2]))
    return sorted(out + _per_things(text, limit - len(out)), key=lambda r: r.start)


def _a_head_noun(word: str) -> bool:
    """Whether the second word after "per" is the thing's head noun ("per statement *cycle*"), not the next phrase's
    ("per withdrawal *charged* by", "per household *per* year"): a guess without a parse."""
    return bool(word) and word not in STOPWORDS and word != "per" and not word.endswith(("ed", "ing", "ly"))


def _per_things(text: str, limit: int) -> list[Rate]:
    """The numbers ``text`` says per a thing of no listed unit (:data:`_PER_THING`; a period or a unit is a rate of
    :data:`_PERIOD`), at most ``limit``."""
    out: list[Rate] = []
    for m in _PER_THING.finditer(text):
        if len(out) >= limit:
            break
        first, second = m.group(1).lower(), (m.group(2) or "").lower()
        if first in _NOT_A_THING or _PERIOD.match(text, m.start()):
            continue
        head, end = (second, m.end(2)) if _a_head_noun(second) else (first, m.end(1))
        found = _rate_number(text, m.start())
        if found is not None:
            out.append(Rate(found[0], end, found[1], stem(head), found[2], per_thing=True))
    return out


def _rate_number(text: str, period_start: int) -> tuple[int, float, bool] | None:
    """Where the number of a rate whose period starts at ``period_start`` starts, its value, and whether it is a word
    of frequency ("twice"); None if there is none."""
    left = max(0, period_start - _RATE_WINDOW_CHARS)
    window = text[left:period_start]
    edge = max((m.end() for m in _RATE_EDGE.finditer(window)), default=0)  # the rate's own sentence and clause only
    window, left = window[edge:], left + edge
    words = list(_RATE_WORD.finditer(window))[-(_RATE_REACH_WORDS + 1):]
    if not words:
        return None
    for w in reversed(words):
        times = _TIMES_WORDS.get(w.group(0).lower())
        if times is not None:
            return left + w.start(), times, True
    for n in reversed(number_mentions(window)):
        if n.end > words[0].start() and not n.is_percent:  # "3 million" ends in reach
            return left + n.start, n.value, False
    return None


# A frequency adverb said by a passage as "every two weeks", "every other week", "once a fortnight"
# (frequency_said): the adverbs' periods in days, and the units' (a month as a twelfth of a year).
_DAYS_OF_ADVERB = {"hourly": 1 / 24, "daily": 1.0, "nightly": 1.0, "weekly": 7.0, "fortnightly": 14.0,
                   "monthly": 365.25 / 12, "quarterly": 365.25 / 4, "yearly": 365.25, "annually": 365.25}
_DAYS_OF_UNIT = {"hour": 1 / 24, "day": 1.0, "night": 1.0, "week": 7.0, "fortnight": 14.0, "month": 365.25 / 12,
                 "year": 365.25}
_EVERY = re.compile(r"\b(?:every|each|once\s+(?:a|an|per|every))\s+(?:(other)\s+|(\d{1,2}|[a-z]+)\s+)?"
                    r"(hour|day|night|week|fortnight|month|year)s?\b", re.IGNORECASE)
# The characters of each passage read for such a phrase.
FREQUENCY_READ_CHARS = 100_000


def days_of_period(period: str) -> float:
    """The days of a rate's period ("month": 30.44); 0 for a unit that is no period ("litre")."""
    return _DAYS_OF_UNIT.get(period, 0.0)


def frequency_said(word: str, sources: list[str]) -> bool:
    """Whether ``word`` is a frequency adverb ("fortnightly") whose period a passage gives as a period of other words:
    "every two weeks", "every other week", "once a fortnight" (a claim's "monthly rather than fortnightly" of "every
    two weeks from March to November, reducing to once a month")."""
    days = _DAYS_OF_ADVERB.get(word.lower())
    return days is not None and every_period_said(days, sources)


def every_period_said(days: float, sources: list[str]) -> bool:
    """Whether a passage says a period of ``days`` days with "every" or "each" ("every two weeks", "on the first
    Thursday of each month", "once a fortnight"): what a claim's "once a month" or "fortnightly" says."""
    for source in sources:
        for m in _EVERY.finditer(source, 0, FREQUENCY_READ_CHARS):
            count = 2 if m.group(1) else 1 if m.group(2) is None else _count(m.group(2))
            if count and abs(count * _DAYS_OF_UNIT[m.group(3).lower()] - days) < 1e-6:
                return True
    return False


def _count(word: str) -> int:
    """The count of a period's number ("2", "two"); 0 where it is none ("every single week" is read as no count)."""
    if word.isdigit():
        return int(word)
    found = [n.value for n in number_mentions(word)]
    return int(found[0]) if len(found) == 1 and found[0].is_integer() else 0
