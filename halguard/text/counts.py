"""Counts bound to the things they count: "two USB-C ports and one HDMI port".

Every number of "The laptop has one USB-C port and two HDMI ports." stands somewhere in a passage that says "It has
two USB-C ports and one HDMI port", and every word too: the word and number checks find nothing wrong. What is
wrong is which number goes with which thing. A *count* here is a number and the words right after it that say what
it counts (up to :data:`MAX_THING_WORDS` content words, by stem, in order: "USB-C ports" is ``("usb", "c",
"port")``; "12-megapixel sensor" is ``("megapixel", "sensor")``); "one" counts too where a content word follows
("one HDMI port", never "one of").

A claim's count is *given otherwise* (:func:`moved_counts`) when the passages count the same thing (the same
words) only with other numbers, and

- the thing is named by two words or more ("six consecutive Wimbledon titles" where they write "five consecutive
  Wimbledon titles", its 6 standing in a score "6-4": so specific a thing is this thing), or
- they give the claim's number to a thing of the same kind (the same last word: "two HDMI ports" against "two USB-C
  ports and one HDMI port"), or
- the claim itself gives the passages' number to the thing they give its number to (the two numbers trade places: "a
  12-megapixel sensor, and the front camera has 50 megapixels" against "a 50-megapixel sensor, and the front camera
  has 12 megapixels").

A thing of one word counted otherwise with none of these is not read: "12 people were injured" against "five people
were killed and 12 injured" (a thing the passage leaves unsaid). A passage's bounded count is its count all the
same ("less than 2,000 square kilometres"); a claim's is checked as a bound (:mod:`halguard.text.quantities`).

What is not read, on purpose: a count the claim bounds or rounds ("more than two ports"), a year or a percentage, a
count whose thing the passages never count with a number (a thing written in other words is no other thing), and a
passage whose counts are ambiguous for the claim's thing (the claim's own pair stands somewhere in the passages:
another entity of the same passages may have it). A number the passages lack is the missing-number check's anyway.
Every scan is linear: one pass over the numbers, a bounded window after each.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from halguard.text.lexical import NEGATION_CUES, STOPWORDS, NumberMention, is_enumerator, number_mentions, stem
from halguard.text.quantities import YEAR_RANGE, bound_spans

__all__ = ["MAX_COUNTS_PER_TEXT", "MAX_THING_WORDS", "Count", "CountIndex", "answered_counts", "counted_as_said",
           "counts", "moved_counts"]

# Content words after a number that say what it counts: "two USB-C ports" needs three ("usb", "c", "port"). More would
# tie the thing to adjectives the passages phrase otherwise; the comparison is of exact word tuples, so a longer
# thing only ever finds less.
MAX_THING_WORDS = 3
# Counts read per text: a passage of more numbers than this is read up to here (the claim's are a few).
MAX_COUNTS_PER_TEXT = 2000
# Characters after a number read for its thing (three words and their separators fit).
_THING_CHARS = 60
_THING_WORD = re.compile(r"\s*-?\s*([^\W\d_][^\W_]*(?:-[^\W_]+)*)", re.UNICODE)
_PART = re.compile(r"[^\W_]+", re.UNICODE)
_ONE = re.compile(r"\b(?:one|One|ONE)\b")
# Calendar words: a "3 March" is a date (the date check's), not three of something.
_CALENDAR = frozenset(stem(w) for w in (
    "january february march april may june july august september october november december jan feb mar apr jun "
    "jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday").split())
# Characters before a number read for the name it may belong to.
_NAME_REACH = 40


@dataclass(frozen=True)
class Count:
    """A number (``start``/``end`` in its text) and the stems of the words that say what it counts."""

    start: int
    end: int
    value: float
    thing: tuple[str, ...]


def _thing(text: str, end: int) -> tuple[str, ...]:
    """The stems of the content words right after ``end``, up to :data:`MAX_THING_WORDS`, stopping at a stop word,
    a number or punctuation."""
    window = text[end:end + _THING_CHARS]
    stems: list[str] = []
    at = 0
    for _ in range(MAX_THING_WORDS):
        m = _THING_WORD.match(window, at)
        if m is None:
            break
        word = m.group(1)
        if word.lower() in STOPWORDS or word.lower() in NEGATION_CUES:
            break
        stems.extend(stem(part) for part in _PART.findall(word))  # "USB-C": "usb", "c"
        at = m.end()
    return tuple(stems)


def _after_a_name(text: str, start: int) -> bool:
    """Whether the number at ``start`` follows a capitalised word mid-sentence: part of a name ("the Corvin 14
    laptop", "Windows 11 users"), not a count. A capital opening the text or a sentence is no sign of a name."""
    before = text[max(0, start - _NAME_REACH):start]
    if not before.endswith((" ", "\t")):
        return False
    words = before.rstrip(" \t").rsplit(None, 1)
    if not words or not words[-1][:1].isupper():
        return False
    if len(words) == 1:  # the word opens the window: the text's first word, or one too far back to tell
        return start - len(before) > 0
    return words[0].rstrip()[-1:] not in ".!?:"


def counts(text: str, *, limit: int = MAX_COUNTS_PER_TEXT, bounded: bool = False) -> list[Count]:
    """The counts of ``text`` in order (at most ``limit``): numbers (not years, percentages, list markers, nor bounded
    ones unless ``bounded``: a passage's are kept, a claim's are the bound check's) and "one", each with a thing. A
    claim's (a short text) are read once and kept: its checks ask for them more than once (moved and said counts),
    as :func:`halguard.text.quantities.quantities` keeps its quantities."""
    if len(text) <= _MEMO_CHARS:
        return list(_short_counts(text, limit, bounded))
    return _counts(text, limit, bounded)


# Texts up to this long (a claim) have their counts kept in a small memo of _MEMO_ENTRIES texts (at most ~1 MiB of
# keys), as the claim's quantities are.
_MEMO_CHARS = 2000
_MEMO_ENTRIES = 512


@lru_cache(maxsize=_MEMO_ENTRIES)
def _short_counts(text: str, limit: int, bounded: bool) -> tuple[Count, ...]:
    return tuple(_counts(text, limit, bounded))


def _counts(text: str, limit: int, bounded: bool) -> list[Count]:
    found: list[Count] = []
    # Up to twice the limit of numbers read (years and percentages are skipped), their bounds read up to the last
    mentions = number_mentions(text)[:2 * limit]
    within = set() if bounded or not mentions else {e for _, e in bound_spans(text[:mentions[-1].end])}
    by_start = {m.start: m for m in mentions}
    for m in mentions:
        if len(found) >= limit:
            return found
        if m.is_percent or m.start in within or is_enumerator(text, m.start, m.end):
            continue
        if (m.value == int(m.value) and YEAR_RANGE[0] <= m.value < YEAR_RANGE[1]) or _after_a_name(text, m.start):
            continue
        thing = _thing(text, m.end) or _thing_of_the_whole(text, m.end, by_start)
        if thing and not _CALENDAR.intersection(thing):
            found.append(Count(m.start, m.end, m.value, thing))
    read = {m.start for m in mentions}  # "one hundred" is the number's
    for m in _ONE.finditer(text):
        if len(found) >= limit:
            break
        if m.start() in read or m.start() in within:
            continue
        thing = _thing(text, m.end())
        if thing and not _CALENDAR.intersection(thing):
            found.append(Count(m.start(), m.end(), 1.0, thing))
    return sorted(found, key=lambda c: c.start)


# "4 of the 320 vaccinated dogs", "19 of 52 sampling days": the part counts the whole's thing too.
_OF_THE = re.compile(r"\s{1,3}of\s{1,3}(?:(?:the|these|those|its|their|all)\s{1,3})?", re.IGNORECASE)


def _thing_of_the_whole(text: str, end: int, by_start: Mapping[int, NumberMention]) -> tuple[str, ...]:
    """The thing of the number a part is "of" ("4 of the 320 vaccinated dogs": "vaccinated dogs"), () for none."""
    of = _OF_THE.match(text, end)
    whole = by_start.get(of.end()) if of else None
    return _thing(text, whole.end) if whole is not None else ()


class CountIndex:
    """The passages' counts: for each thing, the numbers given to it, and for each number, the things it counts."""

    def __init__(self, pairs: Iterable[tuple[float, tuple[str, ...]]]) -> None:
        values: dict[tuple[str, ...], set[float]] = {}
        things: dict[float, set[tuple[str, ...]]] = {}
        for value, thing in pairs:
            values.setdefault(thing, set()).add(value)
            things.setdefault(value, set()).add(thing)
        self.values: Mapping[tuple[str, ...], frozenset[float]] = {k: frozenset(v) for k, v in values.items()}
        self.things: Mapping[float, frozenset[tuple[str, ...]]] = {k: frozenset(v) for k, v in things.items()}

    def __bool__(self) -> bool:
        return bool(self.values)


def moved_counts(text: str, index: CountIndex) -> list[tuple[int, int]]:
    """The spans of the numbers of ``text`` that the passages (``index``) give to something else (see the module's
    docstring)."""
    if not index:
        return []
    claimed = counts(text, limit=64)
    pairs = {(c.value, c.thing) for c in claimed}
    return [(c.start, c.end) for c in claimed if _given_otherwise(c.value, c.thing, index, pairs)]


def counted_as_said(text: str, index: CountIndex) -> list[tuple[int, int]]:
    """The spans of the numbers of ``text`` whose count the passages give as it is: "1 HDMI port" where they write
    "one HDMI port" (a number the passages write only as "one" is no number of theirs otherwise)."""
    if not index:
        return []
    return [(c.start, c.end) for c in counts(text, limit=64) if c.value in index.values.get(c.thing, ())]


_HOW_MANY = re.compile(r"\bhow\s{1,3}many\s{1,3}", re.IGNORECASE)


def answered_counts(answer: str, question: str, index: CountIndex) -> list[tuple[int, int]]:
    """The spans of the numbers of a short ``answer`` to a "how many" ``question`` that the passages give otherwise
    for the thing asked about: "Two." to "How many HDMI ports does it have?" where they write "one HDMI port" (the
    answer's number is the question's count: :func:`moved_counts` reads it as if the answer said "two HDMI ports")."""
    asked = _HOW_MANY.search(question[:_QUESTION_CHARS])
    if asked is None or not index:
        return []
    thing = _thing(question, asked.end())
    if not thing:
        return []
    numbers = [(m.start, m.end, m.value) for m in number_mentions(answer) if not m.is_percent]
    numbers += [(m.start(), m.end(), 1.0) for m in _ONE.finditer(answer) if not _thing(answer, m.end())]
    pairs = {(value, thing) for _, _, value in numbers}
    return [(s, e) for s, e, value in numbers if _given_otherwise(value, thing, index, pairs)]


# Characters of a question read for its "how many": a question is a sentence.
_QUESTION_CHARS = 2000


def _given_otherwise(value: float, thing: tuple[str, ...], index: CountIndex,
                     pairs: set[tuple[float, tuple[str, ...]]]) -> bool:
    """Whether the passages give the count ``value`` of ``thing`` otherwise (the module's docstring); ``pairs``: all
    the claim's counts, for numbers that trade places."""
    theirs = index.values.get(thing)
    if not theirs or value in theirs:
        return False  # a thing the passages never count, or count with this number too
    elsewhere = index.things.get(value, frozenset()) - {thing}
    same_kind = any(other[-1] == thing[-1] for other in elsewhere)
    traded = any((v, other) in pairs for other in elsewhere for v in theirs)
    return len(thing) >= 2 or same_kind or traded
