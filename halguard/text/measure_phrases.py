"""Measures written in words that a number-then-unit reading misses: a duration in two units ("two hours and 41
minutes", "3 years, 2 months"), a fraction of one unit ("half a year", "a quarter of an hour") and a unit and a half
("an hour and a half", "two days and a half").

A claim's "more than two and a half hours" or "161 minutes" is what a passage's "a final lasting two hours and 41
minutes" says; read unit by unit the passage gives 2 hours and 41 minutes, neither of which meets the claim. Here each
time quantity whose unit is larger than the next one's, joined to it by "and", a comma or a space only, gives one
more quantity: their sum, spanning both (the two stay, so "two hours" of the claim still finds its own number).
"Roughly half a year" is the passage's "about six months": a fraction written in words before "a" or "an" (and "of")
and a unit is that share of the unit, not a percentage.
"An hour and a half" is the passage's "90 minutes": the "a half" after a unit (with "a", "an", "one" or a number
before it) is half of that unit, added to it, and no share of its own (read alone it would be 50%, which no passage
states).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Iterable
from typing import Protocol, TypeVar

__all__ = ["and_a_half", "duration_parts", "fraction_unit", "joined_durations"]


class _Measure(Protocol):
    """What is read of :class:`halguard.text.quantities.Quantity` here (which imports this module, so not it)."""

    start: int
    end: int
    value: float
    dimension: str | None
    base: float
    bound: str | None
    unit_span: tuple[int, int] | None
    context: frozenset[str]


QuantityT = TypeVar("QuantityT", bound=_Measure)

# What may stand between the two parts: "2 hours and 41 minutes", "2 hours, 41 minutes", "2 hours 41 minutes".
_JOINER = re.compile(r"\s*(?:,\s*)?(?:and\s+)?", re.IGNORECASE)
# A unit after a fraction word: "half a year", "a quarter of an hour", or joined to it: "a half-hour appointment".
_A_UNIT = re.compile(r"(?:[ \t]+(?:of[ \t]+)?an?[ \t]+|-)([^\W\d_]+)", re.IGNORECASE)
# The half after a unit: "two hours and a half" (and "one hour and a half": "one hour" is a quantity); and one unit
# said with an article before it, no quantity of its own: "an hour and a half".
_AND_A_HALF = re.compile(r"[ \t]+and[ \t]+(a[ \t]+half)\b", re.IGNORECASE)
_A_UNIT_AND_A_HALF = re.compile(r"\ban?[ \t]+([^\W\d_]+)[ \t]+and[ \t]+(a[ \t]+half)\b", re.IGNORECASE)


def fraction_unit(text: str, start: int, end: int, units: Collection[str]) -> tuple[str, int] | None:
    """The unit word (one of ``units``, lower-cased) and where it starts, after the fraction written in words at
    ``start:end`` of ``text`` and "a" or "an" ("half a year"); None if there is none or the fraction has digits or
    a percent sign's words ("50% a year", "six percent a year" are rates)."""
    found = _A_UNIT.match(text, end)
    if found is None or any(ch.isdigit() for ch in text[start:end]) or text[start:end].lower().endswith("cent") \
            or found.group(1).lower() not in units:
        return None
    return found.group(1).lower(), found.start(1)


def joined_durations(text: str, found: list[QuantityT]) -> list[QuantityT]:
    """The sums of the adjacent time quantities of ``found`` (quantities of ``text``, in order) that write one
    duration in two units, the larger first (see the module docstring)."""
    out, ordered = [], sorted(found, key=lambda q: q.start)  # digits and number words are found apart
    for first, second in zip(ordered, ordered[1:]):
        if not (first.dimension == second.dimension == "time" and first.unit_span and second.unit_span):
            continue
        if first.value <= 0 or second.value <= 0 or second.bound is not None:
            continue  # "2 hours and about 40 minutes" is read apart
        unit = first.base / first.value
        if unit <= second.base / second.value:
            continue  # "2 minutes and 3 hours" is no one duration
        joiner = _JOINER.match(text, first.end)
        if joiner is None or joiner.end() != second.start:
            continue
        base = first.base + second.base
        out.append(dataclasses.replace(first, end=second.end, value=base / unit, base=base,
                                       context=first.context | second.context, rounding=second.rounding))
    return out


def duration_parts(found: Iterable[QuantityT]) -> set[QuantityT]:
    """The quantities of ``found`` (those of one text) that are one of the two parts of a duration written in two
    units (a sum of :func:`joined_durations`, starting or ending where it does, its words among the sum's): "6 hours"
    of "a time limit of 6 hours 30 minutes" writes the duration's number, not its value. Linear in ``found``."""
    times = [q for q in found if q.dimension == "time"]
    by_start: dict[int, list[QuantityT]] = {}
    by_end: dict[int, list[QuantityT]] = {}
    for q in times:
        by_start.setdefault(q.start, []).append(q)
        by_end.setdefault(q.end, []).append(q)
    return {q for q in times
            if any(whole.end > q.end and q.context <= whole.context for whole in by_start[q.start])
            or any(whole.start < q.start and q.context <= whole.context for whole in by_end[q.end])}


def and_a_half(text: str, found: list[QuantityT], units: dict[str, tuple[str, float]],
               bound_at: Callable[[str, int], str | None]) -> list[QuantityT]:
    """``found`` (the quantities of ``text``) with each unit and a half read as one quantity: a unit quantity
    followed by "and a half" grows by half its unit, and "an hour and a half" (no quantity of its own: "an hour"
    alone is not read) becomes 1.5 of its unit; the "a half" they take in is dropped. ``units`` maps a unit word to
    its dimension and size, ``bound_at`` reads the bound before a start ("about an hour and a half")."""
    halves = {q.start: q for q in found if q.unit_span is None}  # "a half" read alone (a share)
    taken: set[int] = set()
    out: list[QuantityT] = []
    for q in found:
        half = _AND_A_HALF.match(text, q.end) if q.unit_span is not None and q.value > 0 else None
        if half is None or half.start(1) not in halves:
            out.append(q)
            continue
        unit = q.base / q.value
        taken.add(half.start(1))
        out.append(dataclasses.replace(q, end=half.end(), value=q.value + 0.5, base=q.base + unit / 2))
    for m in _A_UNIT_AND_A_HALF.finditer(text):
        word = m.group(1).lower()
        if word not in units or m.start(2) not in halves or m.start(2) in taken:
            continue
        dimension, size = units[word]
        taken.add(m.start(2))
        out.append(dataclasses.replace(halves[m.start(2)], start=m.start(), end=m.end(), value=1.5,
                                       dimension=dimension, base=1.5 * size, bound=bound_at(text, m.start()),
                                       unit_span=m.span(1), rounding=0.0))
    return sorted((q for q in out if q.unit_span is not None or q.start not in taken), key=lambda q: q.start)
