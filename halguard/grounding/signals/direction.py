"""A movement and its own numbers: "revenue rose to 310 million from 270 million" says the rise twice.

A claim that moves a quantity "from" one number "to" another states its direction in the numbers too. Two things
follow, both without reading the passage's verb:

- **the direction word is said by the numbers** (:func:`directions_shown`): "rose" / "climbed" / "grew" where the
  passage writes "310 million, up from 270 million" is what the passage says, provided the passage gives the same
  starting point ("from 270 million"): then the verb is no novel word. A passage that moves the other way ("fell to
  270 million from 310 million") has the claim's numbers in the other order and clears nothing;
- **a direction its own numbers contradict is wrong** (:func:`direction_errors`): "profit rose to 12 million from 15
  million" cannot be right whatever the passage says; nor is a movement the passages make the other way
  (:func:`directions_reversed`: "fell to 270 million from 310 million" where a passage goes "from 270 million" and
  none from 310 million). Both are reported with the arithmetic errors (a weighted signal, not a block).

Years are no quantities here ("sales fell from 2019 to 2021" is a period). Bounded: one pass of a regular
expression per claim, each movement read within :data:`_REACH` characters of its verb.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from halguard.text.lexical import number_mentions

__all__ = ["Movement", "direction_errors", "directions_reversed", "directions_shown", "movements"]

_UP = ("rise rises rising rose risen increase increases increased increasing grow grows growing grew grown climb "
       "climbs climbed climbing jump jumps jumped jumping soar soars soared soaring gain gains gained gaining surge "
       "surges surged surging")
_DOWN = ("fall falls falling fell fallen decrease decreases decreased decreasing decline declines declined declining "
         "drop drops dropped dropping shrink shrinks shrank shrunk shrinking slump slumps slumped slumping plunge "
         "plunges plunged plunging sink sinks sank sunk sinking")
_UP_WORDS = frozenset(_UP.split())
_VERB = re.compile(r"\b(" + "|".join(sorted((_UP + " " + _DOWN).split(), key=len, reverse=True)) + r")\b",
                   re.IGNORECASE)
# How far after its verb a movement's "from" and "to" numbers are read (a clause, not the next sentence).
_REACH = 80
_CLAUSE_END = re.compile(r"[.;:!?\n]")
_FROM_OR_TO = re.compile(r"\b(from|to)\s+(?:about\s+|around\s+|roughly\s+|nearly\s+|almost\s+)?[$€£]?\s*$",
                         re.IGNORECASE)
_YEAR = re.compile(r"\d{4}")
# The most movements read per claim.
_MAX_MOVEMENTS = 8


@dataclass(frozen=True)
class Movement:
    """A direction verb (its span), whether it says up, and the numbers it moves from and to."""

    start: int
    end: int
    up: bool
    before: float
    after: float


def _marked_numbers(text: str, start: int, end: int) -> dict[str, float]:
    """The first number after "from" and the first after "to" in ``text[start:end]``."""
    found: dict[str, float] = {}
    for m in number_mentions(text[start:end]):
        number = text[start + m.start:start + m.end]
        if _YEAR.fullmatch(number) and 1000 <= m.value <= 2100:
            continue
        marker = _FROM_OR_TO.search(text, max(start, start + m.start - 16), start + m.start)
        if marker is not None:
            found.setdefault(marker.group(1).lower(), m.value)
    return found


def movements(text: str) -> list[Movement]:
    """The movements of ``text``: a direction verb followed, within its clause, by "from" X and "to" Y."""
    out = []
    for m in _VERB.finditer(text):
        if len(out) >= _MAX_MOVEMENTS:
            break
        end = _CLAUSE_END.search(text, m.end(), min(len(text), m.end() + _REACH))
        stop = end.start() if end else min(len(text), m.end() + _REACH)
        numbers = _marked_numbers(text, m.end(), stop)
        if "from" in numbers and "to" in numbers and numbers["from"] != numbers["to"]:
            out.append(Movement(m.start(), m.end(), m.group(1).lower() in _UP_WORDS, numbers["from"], numbers["to"]))
    return out


def direction_errors(text: str) -> list[tuple[int, int, str]]:
    """Movements whose direction their own numbers contradict: ``(start, end, why)``."""
    out = []
    for mv in movements(text):
        if mv.up != (mv.after > mv.before):
            word = text[mv.start:mv.end]
            out.append((mv.start, mv.end,
                        f"{word} from {mv.before:g} to {mv.after:g}: that is a {'fall' if mv.up else 'rise'}"))
    return out


def directions_reversed(text: str, sources: Sequence[str]) -> list[tuple[int, int, str]]:
    """Movements the passages make the other way: a source starts from the claim's end point and none from its
    starting point ("fell to 270 million from 310 million" where the passage has "310 million, up from 270
    million"): ``(start, end, why)``."""
    out = []
    starts = set().union(*(_start_values(source) for source in sources)) if sources else set()
    for mv in movements(text):
        if mv.up == (mv.after > mv.before) and mv.after in starts and mv.before not in starts:
            word = text[mv.start:mv.end]
            out.append((mv.start, mv.end, f"{word} from {mv.before:g} to {mv.after:g}: the passages go from "
                                          f"{mv.after:g}"))
    return out


def directions_shown(text: str, sources: Sequence[str]) -> list[tuple[int, int]]:
    """Spans of the direction verbs of ``text`` that its own numbers show, where a source starts from the same
    number ("from 270 million"): the passage moves the same way, in other words."""
    moves = [mv for mv in movements(text) if mv.up == (mv.after > mv.before)]
    if not moves:
        return []
    starts = set().union(*(_start_values(source) for source in sources)) if sources else set()
    return [(mv.start, mv.end) for mv in moves if mv.before in starts]


_FROM = re.compile(r"\bfrom\s+(?:about\s+|around\s+)?[$€£]?\s*(?=\d)", re.IGNORECASE)
# The "from" numbers read per source, at most.
_MAX_STARTS = 500


def _start_values(source: str) -> set[float]:
    """The values that follow "from" in ``source`` (at most :data:`_MAX_STARTS`)."""
    values: set[float] = set()
    for i, m in enumerate(_FROM.finditer(source)):
        if i >= _MAX_STARTS:
            break
        found = number_mentions(source[m.end():m.end() + 32])
        if found and found[0].start == 0:
            values.add(found[0].value)
    return values
