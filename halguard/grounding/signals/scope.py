"""What a claim's words are looked up in: the whole context (and the question), or only the sources it cites."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from halguard.grounding.signals.direction import change_directions, start_values
from halguard.grounding.signals.hours import HoursTable
from halguard.grounding.signals.records import (
    absent_features,
    opening_hours,
    present_features,
    stated_feature_words,
    unknown_features,
)
from halguard.text.clock import ClockTime, clock_times, covering
from halguard.text.contexts import Source
from halguard.text.counts import CountIndex, counts
from halguard.text.currency import cent_values, currency_amounts, currency_of, currency_words
from halguard.text.dates import (
    CalendarDate,
    calendar_dates,
    date_month_numbers,
    holiday_dates,
    holidays_as_dates,
    unpinned_months,
)
from halguard.text.lexical import number_mentions, number_values, term_set
from halguard.text.measure_phrases import duration_parts
from halguard.text.phrasal import phrasals_in
from halguard.text.quantities import Quantity, QuantityIndex, quantities
from halguard.text.rates import rates
from halguard.text.scales import scale_currency_words, scaled_values
from halguard.text.shares import equal_shares
from halguard.util.cache_budgets import (
    SOURCE_NUMBERS_BYTES,
    SOURCE_QUANTITIES_BYTES,
    SOURCE_TERMS_BYTES,
    WORD_STRINGS_BYTES,
)
from halguard.util.memo import deep_entry_size, memoize_text

__all__ = ["Scope", "scope_of", "word_string"]


# Per-source memos, bounded by bytes (a megabyte passage is a megabyte of key; budgets in util.cache_budgets), so
# passages a process sees again are not re-read.
@memoize_text(SOURCE_TERMS_BYTES)
def _source_terms(text: str) -> frozenset[str]:
    # "$2.6 million" says "dollars" ("2.6 million dollars" is the passage's amount)
    # "(all figures in £ thousands)" says pounds too (halguard.text.scales)
    return frozenset(term_set(text) | term_set(stated_feature_words(text)) | term_set(holidays_as_dates(text))
                     | term_set(currency_words(text)) | term_set(scale_currency_words(text)))


@memoize_text(SOURCE_NUMBERS_BYTES, sizer=deep_entry_size)
def _source_numbers(text: str) -> tuple[frozenset[float], frozenset[float]]:
    """A source's numbers, and those of them it gives only as the month of a date ("20 March 2027" has 3, no count
    of anything)."""
    # "Christmas Day" is the 25th (of 12); "50,000 pounds ... shared equally between the author and her translator"
    # gives each 25,000; a table "(all figures in £ thousands)" writes 7,680 for 7,680,000
    values, months = number_values(text), date_month_numbers(text)
    numbers = (values | months | _numbers(holidays_as_dates(text)) | equal_shares(text) | cent_values(text)
               | scaled_values(text, values))
    return frozenset(numbers), frozenset(months - values)


@dataclass(frozen=True)
class _Readings:
    """What a source says of quantities and movements, read once: its quantities, the numbers it moves "from", its
    percentage changes by direction, the phrasal verbs it uses, its counts (number and counted thing), its rates
    (number, period and whether the period is a thing), its amounts of money (number and currency), its times of day,
    its dates."""

    quantities: tuple[Quantity, ...]
    starts: frozenset[float]
    changes: Mapping[float, frozenset[bool]]
    phrasals: frozenset[str]
    counts: frozenset[tuple[float, tuple[str, ...]]]
    rates: frozenset[tuple[float, str, bool]]  # number, period or thing, whether a thing ("per withdrawal")
    amounts: frozenset[tuple[float, str]]  # amounts of money with their currency ("€90 million": (9e7, "euro"))
    clocks: frozenset[int]  # the minutes after midnight its times of day may mean (halguard.text.clock)
    dates: frozenset[CalendarDate]  # its calendar dates (year 0: a day and month without a year) and holidays'


# Counted every level down: its quantities and counts are records in tuples, which one level does not see.
@memoize_text(SOURCE_QUANTITIES_BYTES, sizer=deep_entry_size)
def _source_readings(text: str) -> _Readings:
    found = tuple(quantities(text))
    return _Readings(found, frozenset(start_values(text)), change_directions(text), phrasals_in(text),
                     frozenset((c.value, c.thing) for c in counts(text, bounded=True)),
                     frozenset((r.value, r.period, r.per_thing) for r in rates(text)),
                     frozenset((value, currency) for _, _, value, currency in currency_amounts(text)),
                     frozenset().union(*(t.minutes for t in clock_times(text))),
                     frozenset(date for _, _, date in calendar_dates(text, yearless=True) + holiday_dates(text)))


# Read only for a claim whose time of day no passage time means (signals.times_of_day), so a passage is not scanned for
# bare hours on every answer: another pass over its numbers (a 1 MB passage of dates: +25% on reading it).
@memoize_text(SOURCE_NUMBERS_BYTES)
def _source_hours(text: str) -> frozenset[float]:
    return _bare_hours(text, clock_times(text), [(start, end) for start, end, _ in calendar_dates(text, yearless=True)],
                       _source_readings(text).quantities)


# Read only for a claim's day and month without a year that the passages date on other days (calendar.changed_dates).
@memoize_text(SOURCE_NUMBERS_BYTES)
def _source_unpinned_months(text: str) -> frozenset[int]:
    return unpinned_months(text)


def _bare_hours(text: str, times: list[ClockTime], dates: list[tuple[int, int]], found: tuple[Quantity, ...]
                ) -> frozenset[float]:
    """The numbers the source writes where they may be an hour of the day written bare ("opens at 9", "from 9 to 5"):
    a number from 0 to 24 that is no part of a time of day ("9pm"), a date ("9 October"), a percentage, an amount of
    money or a quantity with a unit ("9 km")."""
    # the spans no bare hour stands in, merged and in order, swept once beside the numbers (linear in the text)
    spans = sorted(dates + [(q.start, q.end) for q in found if q.dimension is not None])
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    hours, i = set(), 0
    for m in number_mentions(text):
        while i < len(merged) and merged[i][1] < m.end:
            i += 1
        inside = i < len(merged) and merged[i][0] <= m.start
        if inside or not 0 <= m.value <= 24 or m.is_percent or covering(times, m.start, m.end) is not None:
            continue
        if currency_of(text, m) is None:
            hours.add(round(m.value, 6))
    return frozenset(hours)


def _by_year(dates: frozenset[CalendarDate]) -> dict[int, dict[int, frozenset[int]]]:
    days: dict[int, dict[int, set[int]]] = {}
    for year, month, day in dates:
        days.setdefault(year, {}).setdefault(month, set()).add(day)
    return {year: {month: frozenset(d) for month, d in months.items()} for year, months in days.items()}


def _numbers(text: str) -> set[float]:
    """The text's numbers, and the number of each month it names in a date ("4 March 2019" has 3)."""
    return number_values(text) | date_month_numbers(text)


_WORDS = re.compile(r"[^\W_]+")


@memoize_text(WORD_STRINGS_BYTES)
def word_string(text: str) -> str:
    """The text's words, lower-cased and joined by single spaces, padded: for word-for-word matching."""
    return " " + " ".join(m.lower() for m in _WORDS.findall(text)) + " "


@dataclass(frozen=True)
class Scope:
    """The stems, numbers and record-absent features of some sources (and the question), and the sources."""

    terms: frozenset[str]
    numbers: frozenset[float]
    absent: frozenset[str]  # features a JSON record in these sources marks as absent
    sources: tuple[Source, ...]
    # The sources' own stems and numbers, without the question's: names and numbers are looked up here, since a
    # question can carry a false premise ("Does it support 100 W charging?") that an answer echoes.
    context_terms: frozenset[str] = frozenset()
    context_numbers: frozenset[float] = frozenset()
    unknown: frozenset[str] = frozenset()  # features a JSON record in these sources leaves unknown ("None")
    hours: tuple[HoursTable, ...] = ()  # the week of each JSON record in these sources that lists one
    # The calendar dates the sources write (not the question's), by year, then month, to the days (0: the month
    # alone; year 0: a day and month written without a year). calendar.changed_dates looks a claim's dates up here.
    dates: Mapping[int, Mapping[int, frozenset[int]]] = field(default_factory=dict)
    # The question itself, where one was asked: the choice check reads the options it offers ("A or B?").
    question: str | None = None
    # The sources' quantities (not the question's): a claim's number the passages write in another unit, or within a
    # bound the claim gives ("more than two thousand" for "around 2,700"), is theirs (words.missing_numbers).
    quantities: QuantityIndex = field(default_factory=lambda: QuantityIndex(()))
    # The numbers the sources move "from", their percentage changes by direction and the phrasal verbs they use (the
    # direction and phrasal-verb checks: signals.direction, text.phrasal).
    starts: frozenset[float] = frozenset()
    changes: Mapping[float, frozenset[bool]] = field(default_factory=dict)
    phrasals: frozenset[str] = frozenset()
    # The sources' counts: which numbers they give to which things ("two USB-C ports"; words.missing_numbers reads a
    # claim's count given to something else, text.counts).
    counts: CountIndex = field(default_factory=lambda: CountIndex(()))
    # The numbers the sources say per period, with the period ("three times a day": (3.0, "day")): a claim's rate with
    # another period is a changed quantity (words.changed_units).
    rates: frozenset[tuple[float, str]] = frozenset()
    # Features a JSON record in these sources marks as there (and none marks absent): a claim that denies one
    # conflicts with the record (records.denied_feature_mentions).
    present: frozenset[str] = frozenset()
    # The sources' amounts of money with their currency: a claim's amount they give only in another currency is a
    # currency changed ("€90 million" where they write "£90 million": measure._currencies_lacked).
    amounts: frozenset[tuple[float, str]] = frozenset()
    # The numbers that the sources give only as the month of a date ("20 March 2027": 3): a claim's "three letters"
    # is no month (words.missing_numbers), a numeric date's "2027-03-20" is; the question may write the number.
    month_numbers: frozenset[float] = frozenset()
    # The minutes after midnight the sources' times of day may mean ("9 p.m.": 1260; halguard.text.clock).
    clocks: frozenset[int] = frozenset()

    @cached_property
    def hour_numbers(self) -> frozenset[float]:
        """The numbers the sources write where they may be an hour written bare ("at 9", not "9pm", "9 October" nor
        "9%"): a claim's "9 p.m." whose numbers are none of those is a changed time, not a found 9
        (signals.times_of_day). Read on first use, once per scope."""
        return frozenset().union(*(_source_hours(src.text) for src in self.sources))

    @cached_property
    def unpinned_months(self) -> frozenset[int]:
        """The months the sources name other than as single days (alone, "in November", or in a range of days:
        :func:`halguard.text.dates.unpinned_months`): a claim's day of such a month may be one they date without
        writing it (calendar.changed_dates). Read on first use, once per scope."""
        return frozenset().union(*(_source_unpinned_months(src.text) for src in self.sources))

    @cached_property
    def duration_parts(self) -> frozenset[Quantity]:
        """The sources' quantities that are a part of a duration they write in two units ("6 hours" of "6 hours 30
        minutes": :func:`halguard.text.measure_phrases.duration_parts`), read source by source (offsets are each
        source's own) on first use, once per scope."""
        return frozenset().union(*(duration_parts(_source_readings(src.text).quantities) for src in self.sources))

    def stands_in_a_source(self, phrase: str) -> bool:
        """Whether a source writes ``phrase`` word for word (punctuation and case aside)."""
        words = word_string(phrase)
        return words.strip() != "" and any(words in word_string(src.text) for src in self.sources)

    def without_question(self) -> Scope:
        """This scope with the question left out (for names and numbers)."""
        return replace(self, terms=self.context_terms, numbers=self.context_numbers, question=None)


def scope_of(sources: Sequence[Source], question: str | None) -> Scope:
    """The scope of ``sources`` plus the question (a claim may repeat what the question says).

    The question's words count as support for a claim's ordinary words ("Yes, it opened then."), never for its
    names and numbers (see :meth:`Scope.without_question`).
    """
    terms: set[str] = set()
    numbers: set[float] = set()
    months: set[float] = set()
    plain: set[float] = set()
    readings = [_source_readings(src.text) for src in sources]
    for src, r in zip(sources, readings):
        terms |= _source_terms(src.text)
        source_numbers, source_months = _source_numbers(src.text)
        numbers |= source_numbers
        months |= source_months
        plain |= source_numbers - source_months
    months -= plain  # a month-only number of one source may be another's plain number
    context_terms, context_numbers = frozenset(terms), frozenset(numbers)
    if question:
        terms |= term_set(question)
        numbers |= _numbers(question)
    absent = frozenset().union(*(absent_features(src.text) for src in sources))
    unknown = frozenset().union(*(unknown_features(src.text) for src in sources)) - absent
    present = frozenset().union(*(present_features(src.text) for src in sources)) - absent - unknown
    hours = tuple(table for table in (opening_hours(src.text) for src in sources) if table is not None)
    dates = _by_year(frozenset().union(*(r.dates for r in readings)))
    changes: dict[float, frozenset[bool]] = {}
    for r in readings:
        for value, ups in r.changes.items():
            changes[value] = changes.get(value, frozenset()) | ups
    return Scope(frozenset(terms), frozenset(numbers), absent, tuple(sources), context_terms, context_numbers, unknown,
                 hours, dates, question, QuantityIndex(q for r in readings for q in r.quantities),
                 frozenset().union(*(r.starts for r in readings)), changes,
                 frozenset().union(*(r.phrasals for r in readings)), CountIndex(c for r in readings for c in r.counts),
                 frozenset().union(*(r.rates for r in readings)), present,
                 frozenset().union(*(r.amounts for r in readings)), frozenset(months),
                 frozenset().union(*(r.clocks for r in readings)))
