"""Dates written other ways: "Dec. 10" for "10 December", "2019-03-04" for "4 March 2019", "25 December 1066" for
"Christmas Day 1066".

The verifier compares a claim's words and numbers with its context's. A month's short name is its long name
(:func:`month_of`), and a month named in a date is also its number (:func:`date_month_numbers`), so a claim that
writes the date in digits finds the context's month: "2019-03-04" against "4 March 2019" finds 3.
"""

from __future__ import annotations

import re

__all__ = ["HOLIDAYS", "MONTHS", "WEEKDAYS", "CalendarDate", "calendar_dates", "date_month_numbers", "holiday_dates",
           "holidays_as_dates", "in_numeric_date", "month_number", "month_of", "unpinned_months"]

# The months and weekdays, lower-case, in order (every check that names them reads these).
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Short names that are not also common words ("mar", "may", "jun" and "jan" are words or names; "may" and "june"
# need no short form).
_SHORT = {"jan": "january", "feb": "february", "apr": "april", "jul": "july", "aug": "august", "sep": "september",
          "sept": "september", "oct": "october", "nov": "november", "dec": "december"}
_NUMBER_OF = {name: i + 1 for i, name in enumerate(MONTHS)} | {short: MONTHS.index(full) + 1
                                                               for short, full in _SHORT.items()}
# A month name next to a day or a year: "4 March 2019", "March 4", "Dec. 10, 1815", "March 2019". Bounded
# quantifiers only, so a crafted text cannot make it backtrack.
_IN_A_DATE = re.compile(
    r"(?:\b(\d{1,2})(?:st|nd|rd|th)?\s{1,3}(?:of\s{1,3})?)?\b([A-Z][a-z]{2,8})\b\.?(?:\s{0,3}(\d{1,4})(?:st|nd|rd|th)?\b)?")


def month_of(word: str) -> str | None:
    """The month a capitalised short name stands for ("Dec" -> "december"); None for anything else."""
    if not word[:1].isupper():
        return None
    return _SHORT.get(word.lower())


def month_number(word: str) -> float | None:
    """The number of the month ``word`` names, capitalised, long or short ("November", "Nov." -> 11.0); else None."""
    word = word.strip().rstrip(".")
    if not word[:1].isupper():
        return None
    number = _NUMBER_OF.get(word.lower())
    return None if number is None else float(number)


def date_month_numbers(text: str) -> set[float]:
    """The number of each month that ``text`` names next to a day or a year ("4 March 2019" -> {3.0})."""
    out = set()
    for m in _IN_A_DATE.finditer(text):
        number = _NUMBER_OF.get(m.group(2).lower())
        if number is not None and (m.group(1) or m.group(3)):
            out.add(float(number))
    return out


# A calendar date: a day and month with a year ("9 November 1989", "November 9, 1989", "1989-11-09"), or a month with
# a year ("November 1989"). Bounded quantifiers only (linear time on any text).
_DAY_MONTH_YEAR = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s{1,3}(?:of\s{1,3})?([A-Z][a-z]{2,8})\.?,?\s{1,3}(\d{4})\b")
_MONTH_DAY_YEAR = re.compile(r"\b([A-Z][a-z]{2,8})\.?\s{1,3}(\d{1,2})(?:st|nd|rd|th)?,?\s{1,3}(\d{4})\b")
_MONTH_YEAR = re.compile(r"\b([A-Z][a-z]{2,8})\.?,?\s{1,3}(\d{4})\b")
_ISO = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])")


CalendarDate = tuple[int, int, int]  # (year, month, day); day 0 for a month with a year, year 0 for a day and month


def calendar_dates(text: str, *, yearless: bool = False) -> list[tuple[int, int, CalendarDate]]:
    """The calendar dates ``text`` writes, as ``(start, end, (year, month, day))`` (day 0: "November 1989"), in text
    order. A date written with its day is not also read as its month and year. With ``yearless``, also a day and
    month without a year ("17 August last year", "on March 4"), as year 0. Linear in the text: the characters of the
    dates found are marked, so a later pattern's match is tested against its own characters only."""
    found = _Found(len(text))
    for m in _DAY_MONTH_YEAR.finditer(text):
        found.add(m, m.group(2), m.group(1), m.group(3))
    for m in _MONTH_DAY_YEAR.finditer(text):
        found.add(m, m.group(1), m.group(2), m.group(3))
    for m in _ISO.finditer(text):
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if 1 <= month <= 12 and 1 <= day <= 31:
            found.take(m.start(), m.end(), (year, month, day))
    for m in _MONTH_YEAR.finditer(text):
        found.add(m, m.group(1), "0", m.group(2))
    if yearless:
        for m in _IN_A_DATE.finditer(text):
            day = m.group(1) or m.group(3)
            if day and len(day) <= 2:
                found.add(m, m.group(2), day, "0")
    return sorted(found.dates)


# A day joined to another by a range or list word, before or after the date ("3-7 March", "between 3 and 7 March",
# "March 3 to 7", "3 March to 7 April", "on 16 or 17 October"): the text dates its month on other days too, which it
# does not write as dates. Read on a few characters beside each date, so linear in the text.
_RANGE_BEFORE = re.compile(r"\d(?:st|nd|rd|th)?\s{0,3}(?:-|–|—|&|,|to|and|or|until|till|through|thru)\s{0,3}$")
_RANGE_AFTER = re.compile(
    r",?\s{0,3}(?:-|–|—|&|,|to|and|or|until|till|through|thru)\s{0,3}(?:[A-Z][a-z]{2,8}\.?\s{1,3})?\d")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]{2,8}\b")


def unpinned_months(text: str) -> frozenset[int]:
    """The months ``text`` names other than as single days: alone ("in November", "November 2026", "mid-November"),
    or in a range of days ("3-7 March"). A day of such a month that the text does not write may still be one it
    dates; a day of any other month it dates is one it writes (:func:`calendar_dates`)."""
    covered = bytearray(len(text))
    months = set()
    for start, end, (_, month, day) in calendar_dates(text, yearless=True):
        covered[start:end] = b"\x01" * (end - start)
        if not day or _RANGE_BEFORE.search(text[max(0, start - 16):start]) or _RANGE_AFTER.match(text, end, end + 24):
            months.add(month)
    for m in _CAPITALISED.finditer(text):
        month = _NUMBER_OF.get(m.group().lower())
        if month is not None and not covered[m.start()]:
            months.add(month)
    return frozenset(months)


class _Found:
    """The dates found so far, and which characters of the text they cover."""

    def __init__(self, size: int) -> None:
        self.covered = bytearray(size)
        self.dates: list[tuple[int, int, CalendarDate]] = []

    def add(self, m: re.Match[str], month_word: str, day: str, year: str) -> None:
        """The match as a date, unless its words are no month and day or it overlaps a date found already."""
        month = _NUMBER_OF.get(month_word.lower())
        if month is None or not 0 <= int(day) <= 31 or any(self.covered[m.start():m.end()]):
            return
        self.take(m.start(), m.end(), (int(year), month, int(day)))

    def take(self, start: int, end: int, date: CalendarDate) -> None:
        self.covered[start:end] = b"\x01" * (end - start)
        self.dates.append((start, end, date))


# Holidays on a fixed day of the Gregorian calendar, by the name a text gives them: (month, day). Hand-typed general
# English (the holidays' own definitions); moveable feasts (Easter, Thanksgiving) and days whose date depends on the
# country ("Independence Day", "Labour Day") are left out: they name no one date.
HOLIDAYS: dict[str, tuple[int, int]] = {
    "new year's day": (1, 1), "valentine's day": (2, 14), "st patrick's day": (3, 17), "may day": (5, 1),
    "bastille day": (7, 14), "halloween": (10, 31), "all saints' day": (11, 1), "guy fawkes night": (11, 5),
    "armistice day": (11, 11), "christmas eve": (12, 24), "christmas day": (12, 25), "boxing day": (12, 26),
    "new year's eve": (12, 31),
}
# A holiday's name as a name (capitalised), with an optional year after it ("Christmas Day 1066", "on New Year's Eve,
# 1999"). One alternation of fixed words and bounded gaps: linear on any text.
_HOLIDAY = re.compile(
    r"\b(New Year['’]s (?:Day|Eve)|Valentine['’]s Day|St\.? Patrick['’]s Day|May Day|Bastille Day|Hallowe['’]?en"
    r"|All Saints['’] Day|Guy Fawkes Night|Armistice Day|Christmas (?:Eve|Day)|Boxing Day)(?:,?\s{1,3}(\d{4})\b)?")


def _holiday_key(name: str) -> str:
    key = name.lower().replace("’", "'").replace("st. ", "st ")
    return "halloween" if key.startswith("hallowe") else key


def holiday_dates(text: str) -> list[tuple[int, int, CalendarDate]]:
    """The fixed-date holidays ``text`` names, as ``(start, end, (year, month, day))`` (year 0 where no year follows
    the name): "Christmas Day 1066" is 25 December 1066 (:data:`HOLIDAYS`)."""
    out = []
    for m in _HOLIDAY.finditer(text):
        month, day = HOLIDAYS[_holiday_key(m.group(1))]
        out.append((m.start(), m.end(), (int(m.group(2) or 0), month, day)))
    return out


def holidays_as_dates(text: str) -> str:
    """The dates of the holidays ``text`` names, written out ("25 December 1066. 24 December."), or ``""``: what a
    passage that says "Christmas Day 1066" says of the day, the month and the year, in words a claim uses."""
    return " ".join(f"{day} {MONTHS[month - 1].capitalize()}{f' {year}' if year else ''}."
                    for _, _, (year, month, day) in holiday_dates(text))


def in_numeric_date(text: str, start: int, end: int) -> bool:
    """Whether the number at ``start:end`` of ``text`` is part of a date written in digits ("2019-03-04",
    "04/03/2019"), where a month is written as its number."""
    return (text[start - 1:start] in ("-", "/", ".") and text[start - 2:start - 1].isdigit()) or (
        text[end:end + 1] in ("-", "/", ".") and text[end + 1:end + 2].isdigit())
