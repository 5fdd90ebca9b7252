"""A comparison its own numbers deny: "The pass rate was 61%, slightly below the national average of 48%", "Thefts
totalled 19 bikes, more than the 30 the council had budgeted for".

Such a claim copies both numbers from the passages and changes only the word that compares them, so every word and
number check passes it; yet it cannot be right whatever the passages say, as "rose to 12 million from 15 million"
cannot (:func:`halguard.grounding.signals.direction.direction_errors`). It is reported with the arithmetic errors
(:func:`halguard.grounding.signals.arithmetic.check_arithmetic`: a weighted signal, not a block, see
:mod:`halguard.grounding.blocking`).

Read narrowly, so that a comparison is one: a number, at most :data:`_UNIT_WORDS` words of what it counts, a comma, an
optional degree word ("slightly", "well"), the comparison ("more than", "below", "up from" ...), then at most
:data:`_REACH_WORDS` words without a number ("the national average of"; at least one, but after "up from" or "down
from") before the other number. The words after the comparison keep a bound from reading as one: "300 members, more
than 200 of whom are juniors" bounds the second number and compares nothing. A multiple ("more than twice the ..."),
a percentage against a plain number, two units of different dimensions or rates of different periods ("£6 a month,
more than the £60 a year"), a year, an ordinal or a number with a scale the reader did not apply ("4bn") compare
nothing here. Bounded: one anchored match between each pair of neighbouring numbers of the claim (at most
:data:`_MAX_BETWEEN` characters apart), at most :data:`MAX_PAIRS` pairs.
"""

from __future__ import annotations

import re

from halguard.text.lexical import NumberMention, number_mentions
from halguard.text.quantities import YEAR_RANGE, Quantity, quantities
from halguard.text.rates import rates

__all__ = ["MAX_PAIRS", "comparison_errors"]

# Neighbouring number pairs read per claim (a crafted claim of thousands of numbers is read for its first few).
MAX_PAIRS = 40
# Words of what the first number counts before the comma ("19 bikes", "61% of learners").
_UNIT_WORDS = 3
# Words between the comparison and the second number ("the national average of").
_REACH_WORDS = 6
# The comparison words that say the first number is the greater one (the others say it is the smaller).
_GREATER = frozenset("more higher greater larger bigger above exceeding up".split())
_COMPARED = re.compile(
    rf"\s*(?:%|percent\b)?(?:\s+[^\W\d_][\w'’-]*){{0,{_UNIT_WORDS}}}\s*,\s*"
    r"(?:(?:slightly|well|just|far|much|considerably|significantly|substantially|comfortably|somewhat|still|even)\s+)?"
    r"(?P<cmp>(?:more|higher|greater|larger|bigger|less|lower|fewer|smaller)\s+than|above|below|exceeding|beneath"
    r"|(?:up|down)\s+from)"
    rf"(?P<words>(?:\s+[^\W\d_][\w'’-]*){{0,{_REACH_WORDS}}})\s+[$£€]?$",
    re.IGNORECASE)
# The most characters read between two numbers (a comparison's words are few; the match is anchored at both ends).
_MAX_BETWEEN = 160
# Words after the comparison that make it a multiple or a share of the other number, not the number itself.
_MULTIPLES = frozenset("double twice triple treble half third quarter times fold thrice".split())


def comparison_errors(text: str) -> list[tuple[int, int, str]]:
    """The comparisons of ``text`` between two of its own numbers that the numbers deny, as ``(start, end,
    explanation)`` spans of ``text`` (the comparison's words)."""
    mentions = sorted(number_mentions(text), key=lambda m: m.start)
    if len(mentions) < 2:
        return []
    by_start = {q.start: q for q in quantities(text)}
    periods: dict[int, set[str]] = {}  # "£6 a month, more than the £60 a year" compares rates of two periods
    for rate in rates(text):
        periods.setdefault(rate.start, set()).add(rate.period)
    found = []
    for first, second in list(zip(mentions, mentions[1:]))[:MAX_PAIRS]:
        between = text[first.end:second.start]
        m = _COMPARED.match(between) if len(between) <= _MAX_BETWEEN else None
        if m is None:
            continue
        words = {w.lower() for w in m.group("words").split()}
        if _MULTIPLES & words:
            continue
        word = m.group("cmp").split()[0].lower()
        if not words and word not in ("up", "down"):
            continue  # "more than 200 of whom": a bound of the second number ("up from 39" bounds nothing)
        values = _comparable(text, first, second, by_start)
        if values is None or periods.get(first.start) != periods.get(second.start):
            continue
        greater = values[0] > values[1]
        if values[0] == values[1] or greater != (word in _GREATER):
            start = first.end + m.start("cmp")
            found.append((start, first.end + m.end("cmp"),
                          f"{text[first.start:first.end]} is not {m.group('cmp')} {text[second.start:second.end]}"))
    return found


def _comparable(text: str, first: NumberMention, second: NumberMention, by_start: dict[int, Quantity]
                ) -> tuple[float, float] | None:
    """The two numbers' values in one unit, or None where they are not two of one kind."""
    for m in (first, second):
        if m.end < len(text) and text[m.end].isalpha() and text[m.end - 1].isdigit():
            return None  # "3rd", "4bn": an ordinal, or a scale not applied
        if text[max(0, m.start - 1):m.start] == ":" or text[m.end:m.end + 1] == ":":
            return None  # a time of day
    if first.is_percent != second.is_percent:
        return None
    one, two = by_start.get(first.start), by_start.get(second.start)
    dims = (one.dimension if one else None, two.dimension if two else None)
    if dims[0] and dims[1] and dims[0] != "percent":
        if dims[0] != dims[1]:
            return None
        return one.base, two.base
    for m, q in ((first, one), (second, two)):
        written = text[m.start:m.end]
        if (q is None or q.dimension is None) and written.isdigit() and YEAR_RANGE[0] <= m.value <= YEAR_RANGE[1]:
            return None  # a year: "in 2019, below the 2021 ..." dates, it does not count
    return first.value, second.value
