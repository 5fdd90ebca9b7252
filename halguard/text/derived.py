"""Numbers a claim computes from two of one passage sentence: "seven percentage points ahead" of "46% ... with 39%",
"lost more than nine-tenths of its area" of "25,000 square kilometres ... less than 2,000 square kilometres", "three
times as many" of 900 and 300, "for twelve years" of "from 1990 to 2002".

A claim's number that no passage writes is a missing number (:func:`halguard.grounding.signals.words.
missing_numbers`) unless a passage gives it another way (:mod:`halguard.text.quantities`) or, here, it is what two
numbers of one passage sentence give by a subtraction or a division the claim's own words ask for:

- **a difference**: the claim's number counts "percentage points" or "points", or stands after "by", "a gap of",
  "a margin of", "a lead of", "an advantage of", "a difference of", a change ("up", "down", "an increase of", "a
  fall of"), "all but" ("all but six of the 85" of 85 and 79), or before a comparative ("3 years older", "ahead",
  "behind", "more", "fewer") or "off" ("shaving 2.6 seconds off"); the two passage numbers are of the claim's kind
  (both percentages for "percentage points", one dimension for a unit), or two years for a claim's years ("twelve
  years later" of 1990 and 2002);
- **a share**: the claim's number is a percentage or a fraction ("nine-tenths", "a third") and the two passage numbers
  are of one dimension, not percentages: what the smaller is of the larger ("a third of the seats": "of" after it),
  what was lost ("lost 92% of its area", "fell by 92%") or gained ("rose 25%": a change word in the claim); not a
  level ("fell to 5%");
- **days between dates**: "17 days later" (days or weeks, with a difference's cue) of "on 2 November 2026 ... on 19
  November" (a date without a year takes its sentence's year); **minutes between times of day**: "45 minutes after"
  (minutes or hours, with a difference's cue) of "starts at 7:30 am ... at 8:15 am";
- **a ratio**: "-fold" or "times as", "times more", ... follows the claim's number ("scored 3 times" counts events);
- **an age**: "at the age of 85", "aged 85", "85 years old" of two years of one sentence ("born in 1902 ... died in
  1987": 85, or 84 where the birthday had not come yet);
- **a total**: a cue of a total before or after the claim's number ("comes to €30 in total", "a total of 30") of two
  numbers of one dimension of one sentence ("Parking costs €18 per night, and breakfast is an extra €12").

The claim's bound is read as :mod:`halguard.text.quantities` reads it ("more than", "nearly", "about"); without one
the computed value must round to the claim's number (a fraction word is read to within
:data:`FRACTION_WORD_TOLERANCE`). The passage sentence must share words with the claim (:data:`MIN_SHARED_WORDS`),
so a pair of numbers from another story computes nothing. The claim's own reckoning (:func:`own_reckoning`) is a
difference or sum of two of its numbers after a cue ("so 46 failed"), or a percentage that makes 100 with another
of its own after "the remaining" or "the other" ("58% ... the remaining 42%"). What is left out: a sum or a
difference of two sentences' numbers, a number times a share ("a third of 300 seats is 100").

Bounded on any input: a source's sentences are read once (memoised by bytes), at most :data:`MAX_SENTENCES` per source
with at most :data:`MAX_NUMBERS_PER_SENTENCE` numbers each, and a claim number is compared with the pairs of at most
:data:`MAX_SENTENCES_COMPARED` sentences that share its words.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from halguard.text.clock import clock_times
from halguard.text.dates import calendar_dates
from halguard.text.lexical import STOPWORDS, NumberMention, number_mentions, stem
from halguard.text.quantities import ABOUT_TOLERANCE, NEAR_TOLERANCE, YEAR_RANGE, Quantity, quantities
from halguard.text.rates import RATE_PERIOD
from halguard.text.segment import MENTION_SENTENCE_END
from halguard.util.cache_budgets import DERIVED_SENTENCES_BYTES
from halguard.util.memo import deep_entry_size, memoize_text

__all__ = ["MAX_NUMBERS_PER_SENTENCE", "MAX_OWN_NUMBERS", "MAX_SENTENCES", "MAX_SENTENCES_COMPARED", "derived",
           "own_reckoning", "reckoning_spans"]

# A source's sentences with two numbers or more read, at most (what is not read computes nothing: the claim's number
# stays missing, as before), and the numbers of each read, at most (the pairs of one sentence: 28 at most).
MAX_SENTENCES = 400
MAX_NUMBERS_PER_SENTENCE = 8
# A claim number is compared with the pairs of this many sentences sharing its words, at most.
MAX_SENTENCES_COMPARED = 64
# The content words the claim and the passage sentence must share (or half the claim's, if it has fewer than three:
# "Turnout rose by eight points" shares "turnout" with "Turnout was 52%, up from 44%").
MIN_SHARED_WORDS = 2
# A fraction word ("nine-tenths", "two-thirds") is a rounded share: the computed share is within this many
# percentage points of it.
FRACTION_WORD_TOLERANCE = 2.5

_WORD = re.compile(r"[^\W\d_][^\W_]*")
# What follows a claim's number and asks for a difference: "percentage points", "points", a comparative, "off"
# ("shaving 2.6 seconds off" a start-up time that fell from 4.2 to 1.6).
_DIFFERENCE_AFTER = re.compile(
    r"\s*(?:-\s*)?(?:(?:a|an|per|each|every)\s+[^\W\d_]+\s+|[^\W\d_]+\s+)??"
    r"(?:percentage[\s-]+points?|points?|pp\b|ahead|behind|more|fewer|less|higher"
    r"|lower|larger|smaller|bigger|greater|older|younger|longer|shorter|later|earlier|cheaper|dearer|pricier|costlier"
    r"|heavier|lighter|faster|slower|warmer|hotter|colder|cooler|taller|deeper|shallower|wider|narrower|apart|off)\b",
    re.IGNORECASE)  # "£10 cheaper", "two degrees warmer", "£36 a week less"
# What stands before it: "by", "a gap of", "a margin of", ... (a bound word may come between: "by more than").
_DIFFERENCE_BEFORE = re.compile(
    r"\b(?:by|up|down|(?:gap|margin|lead|advantage|edge|difference|increase|rise|drop|fall|decrease|cut)\s+of|all\s+but)"
    r"\s+(?:more\s+than\s+|less\s+than\s+|nearly\s+|almost\s+|about\s+|around\s+|roughly\s+|some\s+|over\s+"
    r"|under\s+)?[£€¥]?$",
    re.IGNORECASE)  # "by £47 million"
# An age: "at the age of 85", "aged 85", "85 years old", "an 85-year-old": of a birth year and a later year of one
# sentence ("born in 1902 ... died in 1987"), one less where the birthday had not come yet.
_AGE_BEFORE = re.compile(r"\b(?:at\s+the\s+(age)\s+of|(aged?))\s+$", re.IGNORECASE)
_AGE_AFTER = re.compile(r"\s*-?\s*(years?)\s*-?\s*(old)\b", re.IGNORECASE)
# A share's cues: "of" after it ("nine-tenths of its area": a part, or what was lost of it), a change word in the
# claim ("fell by 92%", "a 25% rise": what was lost or gained); "to" or "at" before it makes it a level, not a share.
_OF_AFTER = re.compile(r"\s+of\b", re.IGNORECASE)
_CHANGE_WORD = re.compile(
    r"\b(?:lost|lose|loses|losing|fell|fall|falls|falling|shrank|shrunk|shrinks|shrinking|dropped|drop|drops|declined"
    r"|decline|declines|decreased|decrease|decreases|cut|cuts|reduced|reduction|rose|rise|rises|rising|grew|grow|grows"
    r"|growth|increased|increase|increases|gained|gain|gains|jumped|jump|climbed|climb|up|down)\b", re.IGNORECASE)
_LEVEL_BEFORE = re.compile(r"\b(?:to|at)\s+(?:about\s+|around\s+|roughly\s+|nearly\s+|almost\s+|over\s+|under\s+)?$",
                           re.IGNORECASE)
_POINTS = re.compile(r"\s*(percentage[\s-]+)?(?:points?|pp)\b", re.IGNORECASE)
# "three times as many", "a 3-fold rise", "four times larger", "3 times fewer" (not "scored 3 times": a count of
# events): the words after "times" that make it a ratio, read alike by the ratio test and as the number's own words.
_RATIO_WORDS = r"(?:as|more|less|fewer|larger|bigger|higher|greater|smaller|longer|the|that|what|over)"
_RATIO_AFTER = re.compile(rf"\s*(?:-\s*)?(?:fold\b|times\s+{_RATIO_WORDS}\b)", re.IGNORECASE)
_YEAR_UNITS = {"year": 1.0, "years": 1.0, "decade": 10.0, "decades": 10.0}
# "17 days later" of "on 2 November 2026 ... on 19 November": the days between two dates of one sentence.
_DAY_UNITS = {"day": 1.0, "days": 1.0, "week": 7.0, "weeks": 7.0}
# "45 minutes after" of "7:30 am ... 8:15 am": the minutes between two times of day of one sentence.
_MINUTE_UNITS = {"minute": 1.0, "minutes": 1.0, "min": 1.0, "mins": 1.0, "hour": 60.0, "hours": 60.0}
_NO_YEAR = 2001  # a date without a year, where its sentence gives none: any year that is no leap year
# The words after a number that say how it was reckoned ("percentage points", "times as"): the number's, like a unit.
# "Points" alone only where the passages give percentages (a difference of two is "eight points"): "scored 30 points"
# where they say "30 goals" is a word to look up.
# "times" before a period is a frequency's ("four times a week": the rate is read as one, quantities.rates)
_RECKONING = re.compile(
    rf"[ \t]*-?[ \t]*(percentage[ \t-]+points?|pp|fold|times(?=[ \t]+(?:{_RATIO_WORDS}|{RATE_PERIOD})\b))\b",
    re.IGNORECASE)
_DAY_PLACED = re.compile(r"[ \t]+(?:after|before)\b", re.IGNORECASE)  # "14 days after the report": a gap too
# a time a thing lasts: "run for three hours from 6pm" of "from 6pm to 9pm", a gap between times of day
_LASTS_BEFORE = re.compile(r"\b(?:for|lasts?|lasting|takes?|taking)\s+(?:about\s+|around\s+|roughly\s+)?$", re.I)
_DAYS_AFTER = re.compile(r"[ \t]*-?[ \t]*(days?|weeks?)[ \t]+(?:later|earlier|apart|after|before)\b", re.IGNORECASE)
_BARE_POINTS = re.compile(r"[ \t]*-?[ \t]*(points?)\b", re.IGNORECASE)
_FOUR_DIGITS = re.compile(r"\d{4}")
_LOOK = 40  # characters read after or before a claim's number for its cue words


@dataclass(frozen=True)
class _Number:
    """A passage quantity as the interval its bound allows, in base units ("less than 2,000": 0 to 2,000)."""

    dimension: str | None
    low: float
    high: float
    nominal: float


@dataclass(frozen=True)
class _Sentence:
    """A passage sentence's content stems, its quantities (no years), its years, its dates' days (ordinals) and its
    times of day (the minutes after midnight each may mean)."""

    stems: frozenset[str]
    numbers: tuple[_Number, ...]
    years: tuple[float, ...]
    days: tuple[int, ...] = ()
    times: tuple[frozenset[int], ...] = ()


def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(w.lower()) for w in _WORD.findall(text) if w.lower() not in STOPWORDS and len(w) > 1)


def _number(q: Quantity) -> _Number:
    x = abs(q.base)
    low, high = {"gt": (x, math.inf), "lt": (0.0, x), "near": (x * (1 - NEAR_TOLERANCE), x),
                 "about": (x * (1 - ABOUT_TOLERANCE), x * (1 + ABOUT_TOLERANCE))}.get(q.bound or "", (x, x))
    return _Number(q.dimension, low, high, x)


@memoize_text(DERIVED_SENTENCES_BYTES, sizer=deep_entry_size)
def _sentences(text: str) -> tuple[_Sentence, ...]:
    """The sentences of a source with two numbers or more (at most :data:`MAX_SENTENCES`)."""
    out: list[_Sentence] = []
    start = 0
    for end in [m.end() for m in MENTION_SENTENCE_END.finditer(text)] + [len(text)]:
        if len(out) >= MAX_SENTENCES:
            break
        piece, start = text[start:end], end
        mentions = number_mentions(piece)
        if len(mentions) < 2:
            continue
        years = tuple(m.value for m in mentions[:MAX_NUMBERS_PER_SENTENCE]
                      if _FOUR_DIGITS.fullmatch(piece, m.start, m.end) and YEAR_RANGE[0] <= m.value <= YEAR_RANGE[1])
        # a day of a date is no quantity: "40% of the total" is not 4 of the 10 in "Tuesday 10 November"
        dates = calendar_dates(piece, yearless=True)[:MAX_NUMBERS_PER_SENTENCE]
        found = tuple(_number(q) for q in quantities(piece, limit=MAX_NUMBERS_PER_SENTENCE)
                      if not any(a <= q.start and q.end <= b for a, b, _ in dates))
        days = _day_numbers([date for _, _, date in dates])
        times = tuple(t.minutes for t in clock_times(piece)[:MAX_NUMBERS_PER_SENTENCE])
        if len(found) >= 2 or len(years) >= 2 or len(days) >= 2 or len(times) >= 2:
            out.append(_Sentence(_stems(piece), found, years, days, times))
    return tuple(out)


def _agrees(low: float, high: float, claim: Quantity, fraction_word: bool) -> bool:
    """Whether every value a computation can take (``low`` to ``high``: the passage's bounds carried through) is what
    the claim's number says, by its bound or its rounding."""
    x = claim.value
    if claim.bound == "gt":
        return low > x
    if claim.bound == "lt":
        return high < x
    if claim.bound == "near":
        return x * (1 - NEAR_TOLERANCE) <= low and high <= x
    # a whole number is the computed value rounded (7 of 7.1); a decimal one to its last digit ("1.5 times": 1.45-1.55;
    # the rounding is kept in base units, "2.8 days": 0.05 days, not 4,320)
    slack = FRACTION_WORD_TOLERANCE if fraction_word else (claim.rounding / _unit_scale(claim) or 0.5)
    if claim.bound == "about":
        slack = max(slack, ABOUT_TOLERANCE * abs(x))
    return x - slack <= low and high <= x + slack


Interval = tuple[float, float]


def _pairs(numbers: tuple[_Number, ...], dimension: str | None) -> Iterable[tuple[_Number, _Number]]:
    """Pairs of one dimension, the smaller (by the numbers written) first."""
    same = [n for n in numbers if n.dimension == dimension]
    for i, a in enumerate(same):
        for b in same[i + 1:]:
            yield (a, b) if a.nominal <= b.nominal else (b, a)


def _day_numbers(dates: list[tuple[int, int, int]]) -> tuple[int, ...]:
    """The day ordinals of the dates that have a day; a date without a year takes its sentence's first year."""
    year = next((y for y, _, _ in dates if y), _NO_YEAR)
    out = []
    for y, month, day in dates:
        if not (day and month):
            continue  # "November 1989": no day
        try:
            out.append(datetime.date(y or year, month, day).toordinal())
        except ValueError:
            continue  # "30 February": no day
    return tuple(out)


def _gaps(values: Sequence[float]) -> Iterable[float]:
    """The distance between each two of ``values`` (a sentence's years, or its dates' day ordinals)."""
    return (abs(a - b) for i, a in enumerate(values) for b in values[i + 1:])


def _unit_scale(claim: Quantity) -> float:
    """The size of the claim's unit in its dimension's base unit (1 for a bare count): passage values, in base units,
    are divided by it to be read in the claim's unit."""
    return claim.base / claim.value if claim.value else 1.0


def _differences(claim: Quantity, sentence: _Sentence, kinds: set[str | None], years_each: float,
                 days_each: float, minutes_each: float = 0.0) -> Iterable[Interval]:
    """Differences of two years (``years_each``: the years one of the claim's units is, 0 for no span of years), of
    two dates (``days_each``: the days of one of its units), of two times of day (``minutes_each``: the minutes of one
    of its units; a time either half of the day may hold gives both) and of two numbers of the ``kinds``
    (dimensions), in the claim's unit."""
    if years_each:
        yield from ((gap / years_each,) * 2 for gap in _gaps(sentence.years))
    if days_each:
        yield from ((gap / days_each,) * 2 for gap in _gaps(sentence.days))
    if minutes_each:  # in whole or half units: 45 minutes is no "1 hour" rounded
        gaps = (abs(a - b) / minutes_each for i, first in enumerate(sentence.times)
                for second in sentence.times[i + 1:] for a in first for b in second)
        yield from ((gap, gap) for gap in gaps if (2 * gap).is_integer())
    scale = _unit_scale(claim)
    for small, large in (pair for kind in kinds for pair in _pairs(sentence.numbers, kind)):
        yield max(0.0, large.low - small.high) / scale, (large.high - small.low) / scale


def _shares(sentence: _Sentence, part: bool, change: bool) -> Iterable[Interval]:
    """Percentages two numbers of one dimension give: the smaller of the larger (a ``part``), what was lost (a part or
    a ``change``), what was gained (a ``change``)."""
    for dimension in {n.dimension for n in sentence.numbers} - {"percent"}:
        for small, large in _pairs(sentence.numbers, dimension):
            if large.low <= 0 or small.high <= 0:
                continue
            low, high = small.low / large.high, min(1.0, small.high / large.low)
            if part:
                yield 100 * low, 100 * high
            yield 100 * (1 - high), 100 * (1 - low)
            if change:
                yield 100 * (1 / high - 1), (100 * (1 / low - 1) if low > 0 else math.inf)


def _ratios(sentence: _Sentence) -> Iterable[Interval]:
    for dimension in {n.dimension for n in sentence.numbers}:
        for small, large in _pairs(sentence.numbers, dimension):
            if small.low > 0:
                yield large.low / small.high, large.high / small.low


# A number the claim reckons from two of its own numbers: their difference after a cue of consequence ("142 riders
# started but only 96 finished, so 46 failed", "leaving 46"), their sum beside a cue of a total ("a total of 238",
# "comes to 110", "110 kroner altogether").
# Without a cue a number that equals a difference of two others is a fact to find ("rose from 10 to 30 million, and
# profit was 20 million"). At most MAX_OWN_NUMBERS numbers of a claim are read.
MAX_OWN_NUMBERS = 12
_REMAINDER_BEFORE = re.compile(r"\b(so|leaving|meaning|i\.e\.|which\s+leaves|the\s+remaining)\s+[$£€¥]?$",
                                 re.IGNORECASE)  # "the remaining €1.4 million"
# "the remaining 42%", "the other 42 percent": what is left of a whole of 100% (_complements)
_COMPLEMENT_BEFORE = re.compile(r"\bthe\s+(remaining|other)\s+$", re.IGNORECASE)
_TOTAL_BEFORE = re.compile(r"\b(total\s+of|totalling|totaling|in\s+all|altogether|combined|together|(?:come|comes"
                           r"|came|coming|add|adds|added|adding)\s+(?:up\s+)?to)\s+[$£€¥]?$", re.IGNORECASE)
# ... or after it and its unit: "110 kroner altogether", "£45 in total"
_TOTAL_AFTER = re.compile(r"[ \t]*(?:[^\W\d_]+[ \t]+)?(altogether|in\s+total|in\s+all|all\s+told|combined)\b",
                          re.IGNORECASE)
# A gap the claim states between two of its own numbers: "$48.2 million, $2.8 million less than the $51 million"
# (48.2 = 51 - 2.8), "$4.5 million more than the $8 million" (a third number of the claim is 12.5); the word says
# which way.
_GAP_THAN = re.compile(r"[ \t]*(?:[^\W\d_]+[ \t]+)?(?:(more|higher|larger|bigger|greater|longer|older|later|dearer"
                       r"|pricier|costlier|heavier|warmer|hotter|taller|deeper|wider)|(less|fewer|lower|smaller|cheaper"
                       r"|shorter|younger|earlier|lighter|colder|cooler|shallower|narrower))[ \t]+than[ \t]+"
                       r"(?:the[ \t]+)?", re.IGNORECASE)
# The operators of a reckoning written in words: "90 kroner for the ticket plus 20 for the bike".
_OPERATOR_WORDS = re.compile(r"\b(?:plus|minus)\b", re.IGNORECASE)


def own_reckoning(text: str) -> set[float]:
    """The numbers of ``text`` that are the difference or the sum of two of its other numbers, as a cue beside them
    asks (see above): the claim's own reckoning, not a number to find in the passages."""
    return {value for value, _ in _reckoned(text)}


def _reckoned(text: str) -> list[tuple[float, list[tuple[int, int]]]]:
    """:func:`own_reckoning`'s numbers, each with the span of its consequence's cue ("leaving"), if it has one."""
    every = number_mentions(text)[:MAX_OWN_NUMBERS]
    mentions = [m for m in every if not m.is_percent]
    found = _complements([m for m in every if m.is_percent], text)
    for m in mentions:
        if _states_gap(m, mentions, text):
            found.append((round(m.value, 6), []))
            continue
        offset = max(0, m.start - _LOOK)
        difference = _REMAINDER_BEFORE.search(text[offset:m.start])
        if not (difference or _total_cue_spans(text, m.start, m.end)):
            continue
        others = [o.value for o in mentions if o is not m and o.value != m.value]
        pairs = [(a, b) for i, a in enumerate(others) for b in others[i + 1:]]
        if any(math.isclose(m.value, abs(a - b) if difference else a + b) for a, b in pairs):
            # a consequence's cue ("leaving") is the reckoning's word; a total's are read by _total_cues
            found.append((round(m.value, 6), [(offset + difference.start(1), offset + difference.end(1))]
                          if difference else []))
    return found


def _complements(percents: list[NumberMention], text: str) -> list[tuple[float, list[tuple[int, int]]]]:
    """The percentages of ``text`` after "the remaining" or "the other" that make 100 with another of its percentages
    ("58% ... and the remaining 42%"), each with its cue's span."""
    found = []
    for m in percents:
        cue = _COMPLEMENT_BEFORE.search(text, max(0, m.start - _LOOK), m.start)
        if cue is not None and any(abs(o.value + m.value - 100) < 0.01 for o in percents if o is not m):
            found.append((round(m.value, 6), [cue.span(1)]))
    return found


def _states_gap(m: NumberMention, mentions: list[NumberMention], text: str) -> bool:
    """Whether the number ``m`` is the gap the claim states between its next number and a third of its numbers
    (:data:`_GAP_THAN`): "48.2 ..., 2.8 less than the 51"."""
    gap = _GAP_THAN.match(text, m.end)
    than = next((o for o in mentions if gap is not None and o.start == gap.end()), None)
    if than is None:
        return False
    stated = than.value + (m.value if gap.group(1) else -m.value)
    return any(math.isclose(o.value, stated) for o in mentions if o is not m and o is not than)


def reckoning_spans(text: str, *, percentages: bool = False) -> list[tuple[int, int]]:
    """The spans of the words right after the numbers of ``text`` that say how each was reckoned ("seven percentage
    points", "three times as", "a 2-fold"; "eight points" where the passages give ``percentages``), and of an age's
    words ("at the age of 85", "85 years old"): they belong to the number, which is checked as one, and are no words
    of a fact to look up (and "days" of "17 days later")."""
    spans = []
    for m in number_mentions(text):
        found = _RECKONING.match(text, m.end) or (_BARE_POINTS.match(text, m.end) if percentages else None)
        if found:
            spans.append((found.start(1), found.end(1)))
        days = _DAYS_AFTER.match(text, m.end)  # "17 days later": the gap's unit, reckoned from two dates
        if days:
            spans.append(days.span(1))
        # an age's words ("at the age of 85", "aged 85", "85 years old") are the number's too
        for age in (_AGE_AFTER.match(text, m.end), _AGE_BEFORE.search(text, max(0, m.start - _LOOK), m.start)):
            spans.extend(age.span(g) for g in (1, 2) if age is not None and age.group(g))
    spans.extend(span for _, cue_spans in _reckoned(text) for span in cue_spans)  # "so 46 failed"
    spans.extend(_total_cues(text))  # "110 kroner altogether: 90 ... plus 20"
    return spans


def _total_cues(text: str) -> list[tuple[int, int]]:
    """The spans of the cues of a total beside the numbers of ``text`` ("comes to €30 in total") and, where there is
    one, of its "plus" and "minus": a total's words, read with the number (:func:`derived`, :func:`own_reckoning`)."""
    spans = [span for m in number_mentions(text)[:MAX_OWN_NUMBERS] for span in _total_cue_spans(text, m.start, m.end)]
    return spans + [o.span() for o in _OPERATOR_WORDS.finditer(text)] if spans else []


def _total_cue_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of the cues of a total before and after the number at ``start:end`` of ``text`` ("comes to", "in
    total"), none if it has none."""
    cues = (_TOTAL_BEFORE.search(text, max(0, start - _LOOK), start), _TOTAL_AFTER.match(text, end))
    return [cue.span(1) for cue in cues if cue is not None]


def derived(text: str, claim: Quantity, sources: Iterable[str]) -> bool:
    """Whether the claim's number ``claim`` (a quantity of the claim ``text``) is a difference, a share or a ratio of
    two numbers of one sentence of ``sources`` that shares the claim's words, as the claim's own words ask for it
    (see the module's docstring)."""
    after, before = text[claim.end:claim.end + _LOOK], text[max(0, claim.start - _LOOK):claim.start]
    unit = text[claim.unit_span[0]:claim.unit_span[1]].lower() if claim.unit_span else ""
    years_each = _YEAR_UNITS.get(unit, 0.0)  # "for twelve years" of "from 1990 to 2002": needs no other cue
    # a unit placed from an event ("14 days after the report"): days are a difference, as "17 days later" and "by two
    # weeks"; minutes ("45 minutes after the full marathon") are a gap between times of day only
    from_event = claim.unit_span is not None and bool(_DAY_PLACED.match(text, claim.unit_span[1]))
    placed = unit in _DAY_UNITS and from_event
    difference = bool(years_each or placed or _DIFFERENCE_AFTER.match(after) or _DIFFERENCE_BEFORE.search(before))
    days_each = _DAY_UNITS.get(unit, 0.0) if difference else 0.0
    timed = unit in _MINUTE_UNITS and (from_event or bool(_LASTS_BEFORE.search(before)))
    minutes_each = _MINUTE_UNITS.get(unit, 0.0) if difference or timed else 0.0
    ratio = bool(_RATIO_AFTER.match(after))
    part = _OF_AFTER.match(after) is not None
    change = _CHANGE_WORD.search(text) is not None
    share = claim.dimension == "percent" and (part or change) and not _LEVEL_BEFORE.search(before)
    age = claim.dimension is None and bool(_AGE_BEFORE.search(before) or _AGE_AFTER.match(after))
    total = claim.dimension != "percent" and bool(_total_cue_spans(text, claim.start, claim.end))
    if not (difference or timed or ratio or share or age or total):
        return False
    points = _POINTS.match(after)
    # "percentage points" are of percentages; "points" of percentages or of bare scores
    kinds = ({"percent"} if points.group(1) else {"percent", claim.dimension}) if points else {claim.dimension}
    fraction_word = share and not any(ch.isdigit() for ch in text[claim.start:claim.end])
    # "points" of "eight points" is the number's here, not a word of the fact to find in the passage sentence
    reckoned = _RECKONING.match(text, claim.end)
    words_from = reckoned.end() if reckoned else claim.end + points.end() if points else claim.end
    words = _stems(text[:claim.start] + " " + text[words_from:])
    needed = max(1, min(MIN_SHARED_WORDS, (len(words) + 1) // 2))
    compared = 0
    for source in sources:
        for sentence in _sentences(source):
            if len(words & sentence.stems) < needed:
                continue
            compared += 1
            if compared > MAX_SENTENCES_COMPARED:
                return False
            computed: list[Iterable[Interval]] = []
            if (difference or timed) and not share:
                computed.append(_differences(claim, sentence, kinds if difference else set(), years_each, days_each,
                                             minutes_each))
            if share:
                computed.append(_shares(sentence, part, change))
            if ratio:
                computed.append(_ratios(sentence))
            if age:
                computed.append((age_then, age_then) for gap in _gaps(sentence.years) for age_then in (gap, gap - 1))
            if total:
                scale = _unit_scale(claim)
                computed.append(((a.low + b.low) / scale, (a.high + b.high) / scale)
                                for a, b in _pairs(sentence.numbers, claim.dimension))
            if any(_agrees(low, high, claim, fraction_word) for group in computed for low, high in group):
                return True
    return False
