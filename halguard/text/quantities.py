"""Quantities said another way: "0.5 g" is "500 mg", "within three days" is "within 72 hours", "more than two
thousand ibex" is what "around 2,700 ibex" says, "fewer than a million inhabitants" what "780,000 inhabitants" says.

A claim's number that the passages never write is a missing number (:func:`halguard.grounding.signals.words.
missing_numbers`), unless a passage gives the same quantity:

- **in another unit**: both numbers carry a unit of one dimension (length, mass, time, volume, area by its own
  units) and agree once converted, within the precision the claim writes ("2.5 kilometres" is "2,528 metres");
- **as a bound**: the claim bounds the number ("more than", "over", "at least", "less than", "fewer than", "under",
  "up to", "within", "nearly", "almost") and a passage's quantity of the same thing lies within the bound;
- **approximately**: the claim says "about", "around", "roughly", "approximately", "some" and a passage's quantity
  of the same thing is within 5% (or within the claim's own rounding: "about 30%" is 33%).

"The same thing": the same unit dimension, or for a bare count or a percentage, a content word shared by the few
words around the two numbers ("ibex", "inhabitants", "fewer queens"), so a bound is not met by any number of the
passage (a year, another count). An exact conversion needs no shared word: a converted value that lands on the
passage's own is no coincidence. A passage's own bound is kept: "fewer than 100 animals" says nothing about "more
than 50 animals".

What is left out, on purpose: conversions between currencies, temperatures, rates ("km/h") and compound units;
differences and ratios of two passage numbers ("seven points ahead" of 46% and 39%: :mod:`halguard.text.derived`
reads those the claim's words ask for; the arithmetic check reads calculations the claim writes out). Every scan is
linear in the text (regular expressions anchored on a short window, no backtracking over the text).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice

from halguard.text.lexical import STOPWORDS, number_mentions, stem
from halguard.text.measure_phrases import and_a_half, fraction_unit, joined_durations

__all__ = ["MAX_CANDIDATES", "MAX_CLAIM_QUANTITIES", "MAX_QUANTITIES_PER_TEXT", "UNITS", "Quantity",
           "QuantityIndex", "bound_spans", "claim_quantities_said", "measured_by_unit", "placed_durations",
           "quantities", "said_as", "saying"]

# Units by the word that writes them: (dimension, size in the dimension's base unit). Hand-typed from the SI brochure
# and the US customary units (the international foot, pound and US liquid gallon); time's month and year are their
# Gregorian means. Ambiguous one-letter symbols ("m" for metres or million, "s", "t", "h") are left out: a number
# followed by them is read as a bare count.
_UNIT_TABLE: tuple[tuple[str, float, str], ...] = (
    ("length", 1e-3, "mm millimetre millimetres millimeter millimeters"),
    ("length", 1e-2, "cm centimetre centimetres centimeter centimeters"),
    ("length", 1.0, "metre metres meter meters"),
    ("length", 1e3, "km kilometre kilometres kilometer kilometers kms"),
    ("length", 0.0254, "inch inches"),
    ("length", 0.3048, "ft foot feet"),
    ("length", 0.9144, "yard yards yd yds"),
    ("length", 1609.344, "mile miles mi"),
    ("mass", 1e-6, "mcg µg microgram micrograms"),
    ("mass", 1e-3, "mg milligram milligrams"),
    ("mass", 1.0, "g gram grams gramme grammes"),
    ("mass", 1e3, "kg kilogram kilograms kilo kilos kgs"),
    ("mass", 1e6, "tonne tonnes"),
    ("mass", 28.349523125, "oz ounce ounces"),
    ("mass", 453.59237, "lb lbs pound pounds"),
    ("time", 1.0, "second seconds sec secs"),
    ("time", 60.0, "minute minutes min mins"),
    ("time", 3600.0, "hour hours hr hrs"),
    ("time", 86400.0, "day days"),
    ("time", 604800.0, "week weeks"),
    ("time", 1209600.0, "fortnight fortnights"),
    ("time", 2629746.0, "month months"),
    ("time", 31556952.0, "year years"),
    ("time", 315569520.0, "decade decades"),
    ("time", 3155695200.0, "century centuries"),
    ("volume", 1e-3, "ml millilitre millilitres milliliter milliliters"),
    ("volume", 1e-2, "cl centilitre centilitres"),
    ("volume", 1.0, "litre litres liter liters"),
    ("volume", 0.473176473, "pint pints"),
    ("volume", 3.785411784, "gallon gallons"),
    ("area", 1e4, "hectare hectares ha"),
    ("area", 4046.8564224, "acre acres"),
)
UNITS: dict[str, tuple[str, float]] = {w: (dim, size) for dim, size, words in _UNIT_TABLE for w in words.split()}

# The nouns that name what a dimension's units measure: "its area" is what "25,000 square kilometres" gives, "its
# weight" what "80 kg" gives. Length is left out: its nouns are several ("height", "width", "depth", "distance") and
# a length unit does not say which one it measures.
_DIMENSION_NOUNS = {"area": ("area", "surface"), "mass": ("weight", "mass"), "volume": ("volume", "capacity"),
                    "time": ("duration",)}


@lru_cache(maxsize=1)
def _unit_stems() -> tuple[dict[str, str], dict[str, frozenset[str]]]:
    """Each dimension noun's stem with its dimension, and each dimension's unit stems (words of two letters or more;
    an area is also a "square" length unit)."""
    nouns = {stem(noun): dimension for dimension, words in _DIMENSION_NOUNS.items() for noun in words}
    units: dict[str, set[str]] = {}
    for word, (dimension, _) in UNITS.items():
        if len(word) > 1:
            units.setdefault(dimension, set()).add(stem(word))
    return nouns, {dimension: frozenset(stems) for dimension, stems in units.items()}


def measured_by_unit(word_stem: str, evidence_stems: Collection[str]) -> bool:
    """Whether ``word_stem`` names a dimension ("area", "weight", "volume", "duration") that a unit among
    ``evidence_stems`` measures ("square kilometres", "hectares"; "kg"; "litres"; "hours"): the claim's "lost
    nine-tenths of its area" says of the passage's square kilometres what they are."""
    nouns, units = _unit_stems()
    dimension = nouns.get(word_stem)
    if dimension is None:
        return False
    if dimension == "area" and "squar" in evidence_stems and any(s in evidence_stems for s in units["length"]):
        return True
    return any(s in evidence_stems for s in units.get(dimension, ()))


# Words that bound the number they stand before. "gt": the quantity is more (at least) than the number; "lt": less
# (at most); "near": a little less ("nearly 2,000": 1,800 to 2,000); "about": close to it. "Up to" and "at most" are
# not here: "spins at up to 1,600 rpm" states the maximum, and a passage's 1,400 is another one.
_BOUNDS: tuple[tuple[str, str], ...] = (
    ("gt", r"more than|over|above|exceeding|in excess of|upwards of|at least|no fewer than|no less than|not less than"
           r"|older than|longer than"),
    ("lt", r"less than|fewer than|under|below|no more than|not more than|within|just under|younger than|shorter than"),
    ("near", r"nearly|almost|close to|just short of"),
    ("about", r"about|around|roughly|approximately|approx\.|some|an estimated|circa|c\.|~"),
)
_BOUND_BEFORE = [(kind, re.compile(rf"(?:^|\W)(?:{words})\s*(an?\s+)?$", re.IGNORECASE))
                 for kind, words in _BOUNDS]
# How far before a number a bound word is looked for (the longest phrase, "not less than", with spaces).
_BOUND_WINDOW = 24
# An "about" number matches a passage's within this share of it (or within the claim's own rounding, if wider).
ABOUT_TOLERANCE = 0.05
# "nearly X" / "almost X": the passage's quantity is below X but not by more than this share of it.
NEAR_TOLERANCE = 0.2
# A converted value agrees when within this share of the passage's (on top of the claim's rounding): unit sizes
# are exact, but a passage may round its own conversion ("1 mile (1.6 km)").
CONVERSION_TOLERANCE = 0.005
# A month is 28 to 31 days: "a month before" says "30 days before" (and "four weeks"), a month being the calendar's
# (one or two of UNITS' mean months, on one side only); "29 days" is still no "30 days". Hand-set: 30.44 / 28 - 1.
CALENDAR_MONTH_TOLERANCE = 0.09
# Words around a number read as what it counts: this many content words before it and after its unit.
_CONTEXT_WORDS = 3
# ... looked for within this many characters either side (a word run of crafted text is not scanned whole).
_CONTEXT_CHARS = 80
# A passage's quantities read per text, at most (a document of tables is not read past it: what is not read only
# leaves a claim's number missing, as before).
MAX_QUANTITIES_PER_TEXT = 2000

_WORD = re.compile(r"[^\W\d_][^\W_]*|[µ°]\w*|~")
_UNIT_AFTER = re.compile(r"[ \t]*-?[ \t]*([^\W\d_]+\.?|µg)", re.UNICODE)
_SENTENCE_EDGE = re.compile(r"[.;:!?\n]")
# A number joined to another by a date's, a time's or a score's separator.
_IN_A_STAMP = re.compile(r"[-/:.]\d")
_STAMP_BEFORE = re.compile(r"\d[-/:]$")
# Four digits in this range without a unit are a year, not a quantity ("2,000" and "two thousand" are counts).
YEAR_RANGE = (1000, 2100)
_FOUR_DIGITS = re.compile(r"\d{4}")
# One of a unit: "a decade" (ten years), "a fortnight", "fortnightly" (every two weeks: "collected fortnightly" is
# "every two weeks"), and "one" before any unit ("one hour and 15 minutes").
_ONE_UNIT = re.compile(r"\b(?:(?:a|one)\s+(decade|century|fortnight)|one\s+([^\W\d_]+)|(fortnight)ly)\b",
                       re.IGNORECASE)
# One unit said with an article after a bound: "just under an hour", "more than a day before" (a bare "an hour" is a
# rate's or a duration's noun, "£7.50 an hour", no quantity of its own) ...
_BOUNDED_ARTICLE_UNIT = re.compile(r"\ban?\s+(minute|hour|day|week|month|year)\b", re.IGNORECASE)
# ... or placed from an event, a duration too: "a week before your next payment", "a day's notice" (placed_durations).
_PLACED_AFTER = re.compile(r"\s{1,3}(?:before|after|earlier|later|ahead|beforehand|prior)\b|['’]s\s{1,3}notice\b",
                           re.IGNORECASE)


@dataclass(frozen=True)
class Quantity:
    """A number of a text with its unit, its bound and the words around it."""

    start: int
    end: int  # the number's end, or its unit's where it has one
    value: float  # as written (a percentage's number: "37" of "37%")
    dimension: str | None  # "length", "mass", ... ; "percent"; None for a bare count
    base: float  # the value in the dimension's base unit (the value itself for a count or a percentage)
    bound: str | None  # "gt", "lt", "near", "about" or None
    context: frozenset[str]  # content-word stems around it: what it counts
    unit_span: tuple[int, int] | None  # where its unit word is
    rounding: float  # half a step of its last written digit, in base units ("2.5 km": 50 m)


def _rounding(text: str) -> float:
    """Half a step of the last decimal written ("2.5": 0.05); 0 for a whole number, which is read as exact ("3 days"
    is not "60 hours", "2,000" not "1,600": a rounded whole number says "about" when it means it)."""
    digits = text.replace(",", "").strip()
    if "." in digits and digits.split(".", 1)[1][:1].isdigit():
        decimals = len(re.match(r"\d*", digits.split(".", 1)[1]).group(0))
        return 0.5 * 10.0 ** -decimals
    return 0.0


def _context(text: str, start: int, end: int) -> frozenset[str]:
    """Content stems of up to ``_CONTEXT_WORDS`` words before ``start`` and after ``end``, within the sentence."""
    window = max(0, start - _CONTEXT_CHARS)
    left_edge = max((m.end() for m in _SENTENCE_EDGE.finditer(text, window, start)), default=window)
    right = _SENTENCE_EDGE.search(text, end, min(len(text), end + _CONTEXT_CHARS))
    right_edge = right.start() if right else min(len(text), end + _CONTEXT_CHARS)
    before = [w for w in _WORD.findall(text[left_edge:start]) if w.lower() not in STOPWORDS][-_CONTEXT_WORDS:]
    after = [w for w in _WORD.findall(text[end:right_edge]) if w.lower() not in STOPWORDS][:_CONTEXT_WORDS]
    return frozenset(stem(w.lower()) for w in before + after if w.lower() not in _ALL_BOUND_WORDS)


_ALL_BOUND_WORDS = frozenset(w for _, words in _BOUNDS for w in re.split(r"[|\s]+", words.replace("\\", "")) if w)


def bound_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the bound words standing before the numbers of ``text`` ("fewer than", "roughly", "more than"):
    they qualify a number, which is checked as a number; they are no words of a fact to look up."""
    spans = []
    for m in number_mentions(text):
        if (found := _bound_match(text, m.start)) is not None:  # without the non-word character before the words
            spans.append((found[1].start() + (0 if found[1].group(0)[0].isalnum() else 1), m.start))
    return spans


def _bound_match(text: str, start: int) -> tuple[str, re.Match[str]] | None:
    """The bound before the number at ``start`` and its words. An article bounds a number in words only: "under a
    million" is a bound, "under a 20-year agreement" a preposition before a modifier."""
    for kind, pattern in _BOUND_BEFORE:
        found = pattern.search(text, max(0, start - _BOUND_WINDOW), start)
        if found and not (found.group(1) and text[start:start + 1].isdigit()):
            return kind, found
    return None


def _bound(text: str, start: int) -> str | None:
    return found[0] if (found := _bound_match(text, start)) else None


def _unit_at(text: str, end: int) -> tuple[str, int] | None:
    """The unit word right after a number ending at ``end`` (lower-cased, with where it starts), or None."""
    u = _UNIT_AFTER.match(text, end)
    word = u.group(1).lower().rstrip(".") if u else ""
    if word in UNITS or word in ("square", "sq", "cubic"):
        return word, u.start(1)
    return None


def quantities(text: str, *, limit: int = MAX_QUANTITIES_PER_TEXT) -> list[Quantity]:
    """The numbers of ``text`` read as quantities, in order (at most ``limit``). A claim's (a short text) are read
    once and kept: its checks ask for them several times."""
    return list(_short_quantities(text, limit)) if len(text) <= _MEMO_CHARS else _quantities(text, limit)


# A claim's quantities (a text up to _MEMO_CHARS long) are kept in a memo of _MEMO_ENTRIES texts (~1 MiB of keys).
_MEMO_CHARS = 2000
_MEMO_ENTRIES = 512


@lru_cache(maxsize=_MEMO_ENTRIES)
def _short_quantities(text: str, limit: int) -> tuple[Quantity, ...]:
    return tuple(_quantities(text, limit))


def _quantities(text: str, limit: int) -> list[Quantity]:
    out: list[Quantity] = []
    for m in number_mentions(text):
        if len(out) >= limit:
            break
        if m.alt is not None and not m.is_percent:
            continue  # a time of day ("5 pm"), not a quantity
        if _IN_A_STAMP.match(text, m.end) or _STAMP_BEFORE.search(text, max(0, m.start - 2), m.start):
            continue  # a part of a date, a time or a code ("2021-08-07 20:14:06", "4-3"), not a quantity
        if _FOUR_DIGITS.fullmatch(text, m.start, m.end) and YEAR_RANGE[0] <= m.value <= YEAR_RANGE[1] and _unit_at(
                text, m.end) is None:
            continue  # a year: dated, not counted (a bound is never met by "2019")
        unit = fraction_unit(text, m.start, m.end, UNITS) if m.is_percent else _unit_at(text, m.end)
        value = m.alt if (m.is_percent and m.alt is not None and unit is None) else m.value
        end, unit_span, dimension, size = m.end, None, None, 1.0
        if m.is_percent and unit is None:
            dimension = "percent"
        elif unit is not None:
            word, unit_start = unit
            if word in ("square", "sq", "cubic"):
                dimension = "compound"  # "25,000 square kilometres" is an area, never a length
            else:
                dimension, size = UNITS[word]
                unit_span = (unit_start, unit_start + len(word))
                end = unit_span[1]
        out.append(Quantity(m.start, end, value, dimension, value * size, _bound(text, m.start),
                            _context(text, m.start, end), unit_span, _rounding(text[m.start:m.end]) * size))
    for m in _ONE_UNIT.finditer(text):
        group = next(g for g in (1, 2, 3) if m.group(g))
        if len(out) >= limit:
            break
        if m.group(group).lower() not in UNITS:
            continue  # "one of them": no unit
        dimension, size = UNITS[m.group(group).lower()]
        out.append(Quantity(m.start(), m.end(), 1.0, dimension, size, _bound(text, m.start()),
                            _context(text, m.start(), m.end()), m.span(group), 0.0))
    for m in _BOUNDED_ARTICLE_UNIT.finditer(text):
        if len(out) >= limit:
            break
        if (bound := _bound(text, m.start())) is not None:
            dimension, size = UNITS[m.group(1).lower()]
            out.append(Quantity(m.start(), m.end(), 1.0, dimension, size, bound, _context(text, m.start(), m.end()),
                                m.span(1), 0.0))
    return (out := and_a_half(text, out, UNITS, _bound)) + joined_durations(text, out)[:max(0, limit - len(out))]


def placed_durations(text: str) -> list[Quantity]:
    """One unit said with an article and placed from an event ("a week before your next payment", "a day's notice"):
    a duration, read apart from :func:`quantities` (whose checks read a written number: "a day" writes no 1) for
    the unit words it covers where the passages say it another way ("a week before" of "7 days before":
    :func:`halguard.grounding.signals.words.novel_terms`)."""
    out = []
    for m in islice(_BOUNDED_ARTICLE_UNIT.finditer(text), MAX_CLAIM_QUANTITIES):
        if _bound(text, m.start()) is None and _PLACED_AFTER.match(text, m.end()):
            dimension, size = UNITS[m.group(1).lower()]
            out.append(Quantity(m.start(), m.end(), 1.0, dimension, size, None, _context(text, m.start(), m.end()),
                                m.span(1), 0.0))
    return out


_MONTH = UNITS["month"][1]


def _in_months(q: Quantity) -> bool:
    """Whether a time quantity is one or two months ("a month", "2 months"; a year is 365 days to the conversion's
    tolerance, and "12 months" no "50 weeks")."""
    return q.dimension == "time" and any(abs(q.base - k * _MONTH) < 1e-6 for k in (1, 2))


def _within(claim: Quantity, theirs: Quantity) -> bool:
    """Whether the passage's quantity ``theirs`` is what ``claim`` says of it, by value and bound. A bound is read
    strictly (the claim's rounding widens an equality or an "about", never a "more than")."""
    x, y = claim.base, theirs.base
    calendar = _in_months(claim) != _in_months(theirs)
    converting = (CALENDAR_MONTH_TOLERANCE if calendar else CONVERSION_TOLERANCE) * abs(y)
    if theirs.bound in ("gt", "lt"):
        # A bounded passage number: only the same bound, at the same number ("within 72 hours" is "within three
        # days"; "less than 1,600" is not what "less than 1,400" says, though it follows).
        return claim.bound == theirs.bound and abs(y - x) <= claim.rounding + converting
    if claim.bound == "gt":
        return y > x - converting
    if claim.bound == "lt":
        return y < x + converting
    if claim.bound == "near":
        return x * (1 - NEAR_TOLERANCE) <= y <= x + converting
    if claim.bound == "about":
        return abs(y - x) <= max(claim.rounding + converting, ABOUT_TOLERANCE * abs(x))
    return abs(y - x) <= claim.rounding + converting


class QuantityIndex:
    """The passages' quantities, indexed for :func:`said_as`: by dimension (a conversion needs no shared word) and by
    dimension and word around them (a bound or an "about" needs one), each list cut at :data:`MAX_CANDIDATES`, so a
    claim's number is compared with a bounded number of the passages' however many they hold."""

    def __init__(self, found: Iterable[Quantity]) -> None:
        by_dimension: dict[str | None, list[Quantity]] = {}
        by_word: dict[tuple[str | None, str], list[Quantity]] = {}
        count = 0
        for q in found:
            count += 1
            if q.dimension == "compound":
                continue
            group = by_dimension.setdefault(q.dimension, [])
            if len(group) < MAX_CANDIDATES:
                group.append(q)
            for word in q.context:
                near = by_word.setdefault((q.dimension, word), [])
                if len(near) < MAX_CANDIDATES:
                    near.append(q)
        self._by_dimension = {k: tuple(v) for k, v in by_dimension.items()}
        self._by_word = {k: tuple(v) for k, v in by_word.items()}
        self._count = count

    def __len__(self) -> int:
        return self._count

    def of_dimension(self, dimension: str | None) -> tuple[Quantity, ...]:
        """The passages' quantities of one dimension (at most :data:`MAX_CANDIDATES`)."""
        return self._by_dimension.get(dimension, ())

    def with_number(self, claim: Quantity) -> list[Quantity]:
        """The passages' quantities of the claim quantity's dimension that have its number (with any unit or
        bound)."""
        return [t for t in self._by_dimension.get(claim.dimension, ())
                if abs(t.value - claim.value) <= 1e-9 * max(1.0, abs(claim.value))]

    def candidates(self, claim: Quantity) -> list[Quantity]:
        """The passages' quantities that can say ``claim``: the same dimension, and a shared word where it needs one."""
        if claim.unit_span is not None and claim.bound is None:
            return list(self._by_dimension.get(claim.dimension, ()))
        seen: dict[int, Quantity] = {}
        for word in sorted(claim.context):
            for q in self._by_word.get((claim.dimension, word), ()):
                seen.setdefault(id(q), q)
        return list(seen.values())


# The passages' quantities one claim number is compared with, at most, per dimension or per shared word.
MAX_CANDIDATES = 256


def said_as(claim: Quantity, passage: Iterable[Quantity] | QuantityIndex) -> bool:
    """Whether some quantity of ``passage`` (a :class:`QuantityIndex`, or any iterable of quantities) says the
    claim's quantity in another unit, within its bound or about it (see the module's docstring). A claim number with
    no unit, no bound and no "about" is never said otherwise here: the passages must write its value
    (:func:`halguard.text.lexical.number_values`)."""
    return next(saying(claim, passage), None) is not None


def saying(claim: Quantity, passage: Iterable[Quantity] | QuantityIndex) -> Iterator[Quantity]:
    """The quantities of ``passage`` that say the claim's quantity another way (:func:`said_as`), in order."""
    if claim.dimension == "compound":
        return
    for theirs in passage.candidates(claim) if isinstance(passage, QuantityIndex) else passage:
        if theirs.dimension != claim.dimension or theirs.dimension == "compound":
            continue
        # another unit, or the value in its unit spelled otherwise ("400-gram" for "400 g")
        converted = claim.unit_span is not None and theirs.unit_span is not None and (
            claim.base == theirs.base or not math.isclose(claim.base * theirs.value, theirs.base * claim.value))
        if claim.bound is None and not converted:
            continue  # the same unit and no bound: the value itself must be the passage's
        if not (converted and claim.bound is None) and not (claim.context & theirs.context):
            continue  # a bound or an "about" needs the same thing counted, not any number of the passage
        if _within(claim, theirs):
            yield theirs


def claim_quantities_said(text: str, passage: Sequence[Quantity] | QuantityIndex) -> list[Quantity]:
    """The quantities of ``text`` (a claim) that ``passage`` says another way (at most :data:`MAX_CLAIM_QUANTITIES`
    of them read: a claim of ten thousand numbers is not)."""
    return [q for q in quantities(text, limit=MAX_CLAIM_QUANTITIES) if said_as(q, passage)]


# A claim's quantities read for :func:`claim_quantities_said`, at most.
MAX_CLAIM_QUANTITIES = 64
