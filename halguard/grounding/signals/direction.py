"""A movement and its own numbers: "revenue rose to 310 million from 270 million" says the rise twice.

A claim that moves a quantity "from" one number "to" another states its direction in the numbers too. Two things
follow, both without reading the passage's verb:

- **the direction word is said by the numbers** (:func:`directions_shown`): "rose" / "climbed" / "grew" where the
  passage writes "310 million, up from 270 million" is what the passage says, provided the passage gives the same
  starting point ("from 270 million"): then the verb is no novel word. A passage that moves the other way ("fell to
  270 million from 310 million") has the claim's numbers in the other order and clears nothing; a verb that says
  by how much ("doubled from 125,000 to 250,000") is said by its numbers where the passages write both;
- the same for a **percentage change** ("a 9% increase" for "up 9%": :func:`changes_shown`), and one the passages
  give the other way only ("down 9%" where they say "up 9%": :func:`changes_reversed`) is wrong;
- **a direction its own numbers contradict is wrong** (:func:`direction_errors`): "profit rose to 12 million from 15
  million" cannot be right whatever the passage says; nor is a movement the passages make the other way
  (:func:`directions_reversed`: "fell to 270 million from 310 million" where a passage goes "from 270 million" and
  none from 310 million). Both are reported with the arithmetic errors (a weighted signal, not a block).

Years are no quantities here ("sales fell from 2019 to 2021" is a period). Bounded: one pass of a regular
expression per claim, each movement read within :data:`_REACH` characters of its verb.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache

from halguard.text.lexical import number_mentions

__all__ = ["Movement", "change_directions", "changes_reversed", "changes_shown", "direction_errors",
           "directions_reversed", "directions_shown", "has_direction", "movements", "percent_changes", "reversals",
           "shown", "start_values"]

_UP = ("rise rises rising rose risen increase increases increased increasing grow grows growing grew grown climb "
       "climbs climbed climbing jump jumps jumped jumping soar soars soared soaring gain gains gained gaining surge "
       "surges surged surging")
_DOWN = ("fall falls falling fell fallen decrease decreases decreased decreasing decline declines declined declining "
         "drop drops dropped dropping shrink shrinks shrank shrunk shrinking slump slumps slumped slumping plunge "
         "plunges plunged plunging sink sinks sank sunk sinking slip slips slipped slipping dip dips dipped dipping "
         "tumble tumbles tumbled tumbling")
_UP_WORDS = frozenset(_UP.split())
# Verbs that say by how much: "tripled from 10 to 30" is a rise of three times (a rise to 20 is no tripling).
_FACTORS = {form: factor for base, factor in (("double", 2.0), ("triple", 3.0), ("quadruple", 4.0), ("halve", 0.5))
            for form in (base, base + "s", base + "d", base[:-1] + "ing")}
_VERB = re.compile(r"\b(" + "|".join(sorted((_UP + " " + _DOWN).split() + list(_FACTORS), key=len, reverse=True))
                   + r")\b", re.IGNORECASE)
# A stated factor holds within this share (the numbers may be rounded: "doubled from 1.4 to 2.9 million").
FACTOR_TOLERANCE = 0.05
# How far after its verb a movement's "from" and "to" numbers are read (a clause, not the next sentence).
_REACH = 80
# A movement's clause ends at a sentence mark, or where a contrasting clause begins ("a 6% increase, though operating
# profit slipped from 35 million to 31 million": the "from" and "to" are the slip's, not the increase's).
# A decimal point or a clock's colon ends nothing ("rose to 7.4 mg/L, up from 6.1 mg/L").
_CLAUSE_END = re.compile(r"[;!?\n]|[.:](?!\d)|,\s*(?:though|although|but|while|whereas|yet)\b", re.IGNORECASE)
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
    factor: float | None = None  # what the verb multiplies by ("tripled": 3), if it says

    def holds(self) -> bool:
        """Whether the numbers go the verb's way, and by its factor where it states one."""
        if self.factor is not None:
            return math.isclose(self.after, self.before * self.factor, rel_tol=FACTOR_TOLERANCE)
        return self.up == (self.after > self.before)


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
    """The movements of ``text``: a direction verb followed, within its clause, by "from" X and "to" Y. A claim's (a
    short text) are read once and kept: its checks ask for them several times."""
    if len(text) <= _MEMO_CHARS:
        return list(_short_movements(text))
    return _movements(text)


# Texts up to this long (a claim) have their movements kept in a small memo of _MEMO_ENTRIES texts.
_MEMO_CHARS = 2000
_MEMO_ENTRIES = 512


@lru_cache(maxsize=_MEMO_ENTRIES)
def _short_movements(text: str) -> tuple[Movement, ...]:
    return tuple(_movements(text))


def _movements(text: str) -> list[Movement]:
    out = []
    for m in _VERB.finditer(text):
        if len(out) >= _MAX_MOVEMENTS:
            break
        reach = min(len(text), m.end() + _REACH)
        end = _CLAUSE_END.search(text, m.end(), reach)
        stop = end.start() if end else reach
        following = _VERB.search(text, m.end(), stop)  # another movement's numbers are its own
        stop = following.start() if following else stop
        numbers = _marked_numbers(text, m.end(), stop)
        if "from" in numbers and "to" in numbers and numbers["from"] != numbers["to"]:
            word = m.group(1).lower()
            factor = _FACTORS.get(word)
            out.append(Movement(m.start(), m.end(), word in _UP_WORDS or (factor or 0) > 1, numbers["from"],
                                numbers["to"], factor))
    return out


def direction_errors(text: str) -> list[tuple[int, int, str]]:
    """Movements whose direction their own numbers contradict: ``(start, end, why)``."""
    out = []
    for mv in movements(text):
        if not mv.holds():
            word = text[mv.start:mv.end]
            wrong = (f"that is a {'fall' if mv.up else 'rise'}" if mv.up != (mv.after > mv.before) or not mv.before
                     else f"that is {mv.after / mv.before:.3g} times")
            out.append((mv.start, mv.end, f"{word} from {mv.before:g} to {mv.after:g}: {wrong}"))
    return out


def directions_reversed(text: str, starts: Collection[float]) -> list[tuple[int, int, str]]:
    """Movements the passages make the other way: a source starts from the claim's end point and none from its
    starting point ("fell to 270 million from 310 million" where the passage has "310 million, up from 270
    million"; ``starts``: the passages' :func:`start_values`): ``(start, end, why)``."""
    out = []
    for mv in movements(text):
        if mv.holds() and mv.after in starts and mv.before not in starts:
            word = text[mv.start:mv.end]
            out.append((mv.start, mv.end, f"{word} from {mv.before:g} to {mv.after:g}: the passages go from "
                                          f"{mv.after:g}"))
    return out


def directions_shown(text: str, starts: Collection[float], numbers: Collection[float] = ()) -> list[tuple[int, int]]:
    """Spans of the direction verbs of ``text`` that its own numbers show, where a source starts from the same
    number ("from 270 million"; ``starts``: the passages' :func:`start_values`): the passage moves the same way, in
    other words. A verb that says by how much ("doubled from 125,000 to 250,000") is shown by its numbers alone
    where the passages write both (``numbers``: "250,000 units in 2025, twice the 125,000 sold in 2024") and none
    starts from its end point."""
    return [(mv.start, mv.end) for mv in movements(text) if mv.holds() and (mv.before in starts or (
        mv.factor is not None and mv.before in numbers and mv.after in numbers and mv.after not in starts))]


# A percentage change and its direction: "up 9%", "down by 3 percent", "a 9% increase", "9% higher", "rose 9%",
# "fell by 3.5 per cent", "a rise of 22%". The direction word is group "word"; the number group "n".
# (read from the start of a digit run only: tried at every digit of a 200 KB run of digits, the alternation below was
# quadratic, and a fuzzed check took minutes)
_PCT = r"(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s*(?:%|percent\b|per cent\b)"
_UP_OR_DOWN = "|".join(sorted((_UP + " " + _DOWN + " up down higher lower more less fewer increase decrease growth "
                               "gain loss").split(), key=len, reverse=True))
_PERCENT_CHANGE = re.compile(
    rf"\b(?P<word>{_UP_OR_DOWN})\s+(?:by\s+|of\s+)?(?:about\s+|around\s+|nearly\s+|almost\s+|some\s+)?{_PCT}"
    rf"|{_PCT.replace('?P<n>', '?P<n2>')}(?:\s+(?:a\s+year|year[\s-]on[\s-]year|annually))?\s+"
    rf"(?P<word2>{_UP_OR_DOWN})\b",
    re.IGNORECASE)
_LAST_WORD = re.compile(r"([A-Za-z]+)\s+$")
_PARTICLE_VERBS = frozenset("make makes made making set sets setting break breaks broke broken breaking round rounds "
                            "rounded split splits account accounts".split())
_UP_SIDE = frozenset((_UP + " up higher more increase growth gain").split())
# The percentage changes read per text, at most.
_MAX_CHANGES = 64


def percent_changes(text: str) -> list[tuple[int, int, float, bool]]:
    """``(word start, word end, percentage, up)`` for each percentage change of ``text`` with its direction word."""
    out = []
    for m in _PERCENT_CHANGE.finditer(text):
        if len(out) >= _MAX_CHANGES:
            break
        group = "word" if m.group("word") else "word2"
        number = m.group("n") if group == "word" else m.group("n2")
        before = _LAST_WORD.search(text, max(0, m.start(group) - 24), m.start(group))
        if before is not None and before.group(1).lower() in _PARTICLE_VERBS:
            continue  # "make up 22%", "broken down": a phrasal verb, not a change
        out.append((m.start(group), m.end(group), float(number), m.group(group).lower() in _UP_SIDE))
    return out


def change_directions(source: str) -> dict[float, frozenset[bool]]:
    """The percentage changes of ``source``, by percentage: the directions it gives each (True: up)."""
    seen: dict[float, set[bool]] = {}
    for *_, value, up in percent_changes(source):
        seen.setdefault(value, set()).add(up)
    return {value: frozenset(ups) for value, ups in seen.items()}


def changes_reversed(text: str, changes: Mapping[float, Collection[bool]]) -> list[tuple[int, int, str]]:
    """Percentage changes the passages give the other way only ("down 9%" where they say "up 9%"; ``changes``: the
    passages' :func:`change_directions`)."""
    return [(s, e, f"{text[s:e]} {value:g}%: the passages give a {value:g}% {'fall' if up else 'rise'}")
            for s, e, value, up in percent_changes(text) if set(changes.get(value, ())) == {not up}]


def changes_shown(text: str, changes: Mapping[float, Collection[bool]]) -> list[tuple[int, int]]:
    """Direction words of the claim's percentage changes that the passages give the same way ("a 9% increase" for
    "up 9%")."""
    return [(s, e) for s, e, value, up in percent_changes(text) if set(changes.get(value, ())) == {up}]


_FROM = re.compile(r"\bfrom\s+(?:about\s+|around\s+)?[$€£]?\s*(?=\d)", re.IGNORECASE)
# The "from" numbers read per source, at most.
_MAX_STARTS = 500


def start_values(source: str) -> set[float]:
    """The values that follow "from" in ``source`` (at most :data:`_MAX_STARTS`)."""
    values: set[float] = set()
    for i, m in enumerate(_FROM.finditer(source)):
        if i >= _MAX_STARTS:
            break
        found = number_mentions(source[m.end():m.end() + 32])
        if found and found[0].start == 0:
            values.add(found[0].value)
    return values


def reversals(text: str, starts: Collection[float], changes: Mapping[float, Collection[bool]]
              ) -> list[tuple[int, int, str]]:
    """The claim's movements and percentage changes the passages give the other way (:func:`directions_reversed`,
    :func:`changes_reversed`)."""
    return directions_reversed(text, starts) + changes_reversed(text, changes)


def shown(text: str, starts: Collection[float], changes: Mapping[float, Collection[bool]],
          numbers: Collection[float] = ()) -> list[tuple[int, int]]:
    """The claim's direction words the passages' numbers say the same way (:func:`directions_shown`,
    :func:`changes_shown`; ``numbers``: the passages')."""
    return directions_shown(text, starts, numbers) + changes_shown(text, changes)


def has_direction(text: str) -> bool:
    """Whether ``text`` has a direction word at all (a cheap test before reading its movements)."""
    return _VERB.search(text) is not None or _PERCENT_CHANGE.search(text) is not None

