"""The user's own number, from the question, that a passage's rule takes in: "so 20 minutes late costs you nothing"
to "If I bring the car back 20 minutes late, will I be charged?" of "Cars returned up to 29 minutes late are not
charged"; "As a 23-year-old you'd pay the young-driver surcharge" to "I'm 23" of "Drivers aged 21 to 24 pay a
young-driver surcharge".

A number of the question is never evidence of a fact (a premise the passages must confirm), and a number inside a
passage's bound is no fact they state ("fewer than 30 people died" says nothing of 20). An answer that applies a
passage's rule to the user's own case is neither: the number is the user's, and the rule says what holds for it. So a
claim's number the passages lack is no missing number where the question writes it and a passage's range ("21 to 24",
"between 5 and 11", "21-24") or bound ("up to 29 minutes", "under 12", "at least 18", "a maximum of 2", "65 or over")
takes it in, counting what it counts: the same unit word after both numbers (or no unit after the passage's and none,
or an age's "year", after the claim's) and a word around both ("late" of "20 minutes late" and "up to 29 minutes
late"). "Yes, you can bring 3 dogs" against "a maximum of 2 dogs per pitch", and "as a 26-year-old" against "aged 21
to 24", stay numbers the passages lack; money is never read (a price is a fact, not the user's case).

Bounded on any input: the sentences the caller reads (the verifier passes
:func:`halguard.grounding.signals.closest.source_sentences`: a passage's first 20,000 characters, split once and
kept), at most :data:`MAX_BOUNDS` bounds of a passage, each read by one linear pattern, once per claim and only for a
number the question writes.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from itertools import islice

from halguard.text.lexical import content_terms, number_values, stem
from halguard.text.segment import clause_end, clause_start

__all__ = ["MAX_BOUNDS", "AskedWithin"]

MAX_BOUNDS = 24
_NUMBER = r"(?<![\d.,$£€¥])(\d{1,6}(?:\.\d{1,2})?)(?![\d£$€¥%])"
_UNIT = r"(?:[ \t]{1,3}|-)([^\W\d_]{2,20})"
# A range: "21 to 24", "21-24", "between 5 and 11", "from 10 to 20".
_RANGE = re.compile(rf"{_NUMBER}(?:{_UNIT})?[ \t]{{0,3}}(?:to|-|–)[ \t]{{0,3}}{_NUMBER}(?:{_UNIT})?"
                    rf"|\bbetween[ \t]{{1,3}}{_NUMBER}(?:{_UNIT})?[ \t]{{1,3}}and[ \t]{{1,3}}{_NUMBER}(?:{_UNIT})?",
                    re.IGNORECASE)
# A bound before its number; the strict ones leave the number itself out ("under 12" is not 12).
_BOUND_BEFORE = re.compile(
    rf"\b(?:(up[ \t]{{1,3}}to|no[ \t]{{1,3}}more[ \t]{{1,3}}than|at[ \t]{{1,3}}most|(?:a[ \t]{{1,3}})?maximum"
    rf"(?:[ \t]{{1,3}}of)?|within)|(under|below|less[ \t]{{1,3}}than|fewer[ \t]{{1,3}}than)"
    rf"|(at[ \t]{{1,3}}least|(?:a[ \t]{{1,3}})?minimum(?:[ \t]{{1,3}}of)?)|(over|above|more[ \t]{{1,3}}than))"
    rf"[ \t]{{1,3}}{_NUMBER}(?:{_UNIT})?", re.IGNORECASE)
# A bound after its number, with it: "65 or over", "18 and above", "12 or under", "18+".
_BOUND_AFTER = re.compile(
    rf"{_NUMBER}(?:{_UNIT})?(?:[ \t]{{1,3}}(?:or|and)[ \t]{{1,3}}(?:(over|older|above|more|upwards)"
    rf"|(under|younger|below|less|fewer))\b|(\+))", re.IGNORECASE)
# The unit words a number's thing is read by: a claim's "20 minutes" is within "up to 29 minutes", not "up to 29 days".
_UNITS = frozenset(stem(w) for w in "second minute min hour hr day night week fortnight month year mile kilometre km "
                   "metre meter kilogram kg gram litre".split())
_AGE = stem("year")
_STRICT = 1e-9
_MONEY = frozenset("$£€¥")


class AskedWithin:
    """Whether numbers of a claim are the user's own, from the question, within a passage's bound (see the module).
    ``sources`` holds each passage's sentences with their stems; read once, on the first number of the question
    asked about."""

    def __init__(self, text: str, question: str | None, sources: Iterable[Sequence[tuple[str, Collection[str]]]]
                 ) -> None:
        self._text = text
        self._asked = number_values(question) if question else set()
        self._sources = sources
        self._bounds: list[_Bound] | None = None

    def __call__(self, start: int, end: int) -> bool:
        """Whether the claim's number at ``start:end`` is the question's, within a passage's bound."""
        values = number_values(self._text[start:end])
        if len(values) != 1 or not values <= self._asked or self._text[max(0, start - 1):start] in _MONEY:
            return False
        value = next(iter(values))
        if self._bounds is None:
            self._bounds = _bounds(self._sources)
        unit, around = _unit_after(self._text, end), _around(self._text, start, end)
        return any(low <= value <= high and _same_unit(unit, theirs) and not around.isdisjoint(words)
                   for low, high, theirs, words in self._bounds)


_UNIT_AFTER = re.compile(_UNIT)


def _unit_after(text: str, end: int) -> str:
    found = _UNIT_AFTER.match(text, end)
    return stem(found.group(1).lower()) if found else ""


def _same_unit(claim_unit: str, passage_unit: str) -> bool:
    """The claim's number counts what the passage's does: one unit, or none on the passage's side and none (or an
    age's "year": "a 23-year-old" of "aged 21 to 24") on the claim's."""
    if passage_unit in _UNITS:
        return claim_unit == passage_unit
    return claim_unit not in _UNITS or claim_unit == _AGE


# The words around a number that say what it counts: a few content words either side, within its clause (read within
# _AROUND_REACH characters either side).
_AROUND_WORDS = 4
_AROUND_REACH = 200
_CLAUSE_EDGE = re.compile(r"[.;:!?]")


def _around(text: str, start: int, end: int) -> set[str]:
    """The stems of the content words around the number at ``start:end`` of ``text`` (:data:`_AROUND_WORDS` either
    side, within its clause), but units: "late" of "20 minutes late", "driver", "pay" of "aged 21 to 24 pay"."""
    before = content_terms(text[clause_start(text, start, _CLAUSE_EDGE, _AROUND_REACH):start])[-_AROUND_WORDS:]
    following = content_terms(text[end:clause_end(text, end, _CLAUSE_EDGE, _AROUND_REACH)])[:_AROUND_WORDS]
    return {st for _, _, st in before + following} - _UNITS


_Bound = tuple[float, float, str, set[str]]  # low, high, the unit's stem, the words around it


def _bounds(sources: Iterable[Sequence[tuple[str, Collection[str]]]]) -> list[_Bound]:
    """The ranges and bounds of each passage's sentences (at most :data:`MAX_BOUNDS` a passage): low, high, the
    stem of the unit word after the number ("" for none) and the words around it (:func:`_around`)."""
    out: list[_Bound] = []
    for sentences in sources:
        out.extend(islice((bound for sentence, _ in sentences for bound in _read(sentence)), MAX_BOUNDS))
    return out


def _read(sentence: str) -> Iterable[_Bound]:
    for m in _RANGE.finditer(sentence):
        low, low_unit, high, high_unit = m.groups()[:4] if m.group(1) else m.groups()[4:]
        yield float(low), float(high), stem((high_unit or low_unit or "").lower()), _around(sentence, *m.span())
    for m in _BOUND_BEFORE.finditer(sentence):
        upto, under, least, over, number, unit = m.groups()
        value, unit, around = float(number), stem((unit or "").lower()), _around(sentence, *m.span())
        if upto or under:
            yield -float("inf"), value - (_STRICT if under else 0.0), unit, around
        else:
            yield value + (_STRICT if over else 0.0), float("inf"), unit, around
    for m in _BOUND_AFTER.finditer(sentence):
        number, unit, more, less, plus = m.groups()
        value, unit, around = float(number), stem((unit or "").lower()), _around(sentence, *m.span())
        yield (-float("inf"), value, unit, around) if less else (value, float("inf"), unit, around)
