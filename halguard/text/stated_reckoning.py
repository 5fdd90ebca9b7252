"""Numbers a claim reckons from its own numbers, as its words say: a multiple ("£4.70 for a single, half the £9.40
adult fare"), a change between two of them ("the hut at 2,418 m, so the trail from 1,562 m involves a climb of
856 m"; "totals €412.6m, up €18.9m from €393.7m") and the total of a breakdown it gives in brackets ("918 received
the drug (460 on 10 mg and 458 on 20 mg)").

The claim reckons such a number itself (its words give the other numbers and how they combine), so it is not a
number to find in the passages (:func:`halguard.grounding.signals.measure`'s own reckoning, beside
:func:`halguard.text.derived.own_reckoning`'s consequences and totals): the other numbers and the words are checked
as the claim's other numbers and words are. A wrong one ("£5.70, half the £9.40 fare"; "a climb of 900 m") is not
reckoned, so its number stays a number the passages lack.

- **a multiple**: the number, a few words, a comma, dash or bracket and a factor word ("half", "a third", "twice",
  "double", "three times") before the other number; or the factor and the other number, then the number after a
  comma and a restating word ("half the £9.40 adult fare, or £4.70");
- **a change**: a change's cue right before the number ("up", "down", "a climb of", "an increase of", "saves")
  and the number is the difference of two others of the claim;
- **a breakdown**: a bracket opening within a few words after the number, two or all of whose numbers add up to it;
- **a consequence**: a consequence's cue or a total's a few words before the number ("so", "effectively", "which
  makes", "brings ... to", "comes to") and the number is a percentage of the claim's of another of its numbers, that
  number less or plus it ("30% comes off, so a full plot would cost you £47.60" of £68), the product or quotient of
  two others, not both prices ("£390 for ten hours, effectively £39 an hour"); or, for one number of the claim, the
  sum of all its other numbers of the kind (prices with prices) or the difference of the only two, none reckoned
  itself ("adds £6, so you'd pay £55 a month instead of £49"; "adding the £6 drop-off and the £8 pick-up to the £38
  core day brings a full day to £52"; not "totals €412.6m, up €18.9m from €393.7m", whose change is reckoned).

Bounded on any input: at most :data:`MAX_NUMBERS` numbers of a claim are read, each against a window of
:data:`WINDOW` characters, and a breakdown of at most :data:`MAX_BREAKDOWN` numbers.
"""

from __future__ import annotations

import math
import re
from itertools import combinations

from halguard.text.currency import currency_of
from halguard.text.lexical import NumberMention, number_mentions

__all__ = ["FACTORS", "MAX_BREAKDOWN", "MAX_NUMBERS", "MAX_SUMMED", "TOLERANCE", "WINDOW", "stated_reckoning"]

# The factor words and their values. Hand-listed general English.
FACTORS = {"half": 0.5, "a third": 1 / 3, "one third": 1 / 3, "a quarter": 0.25, "one quarter": 0.25,
           "twice": 2.0, "double": 2.0, "triple": 3.0, "three times": 3.0, "four times": 4.0}
MAX_NUMBERS = 12
MAX_BREAKDOWN = 6
# The most numbers a consequence's total adds up (a claim's own breakdown is short).
MAX_SUMMED = 4
WINDOW = 60
# A reckoned number is the reckoning to within this share (a price halved to the penny, a rounded third).
TOLERANCE = 0.01

_FACTOR = r"(half|a\s+third|one\s+third|a\s+quarter|one\s+quarter|twice|double|triple|three\s+times|four\s+times)"
# After the number: a few words (no number, no sentence end), a comma, dash or bracket, an optional restating word,
# the factor, "of" / "the" / a few words, up to the other number (matched at the window's start: the number's end).
_FACTOR_AFTER = re.compile(
    rf"[^.;:!?\d]{{0,25}}?[,(—–]\s*(?:or\s+|i\.e\.\s*|which\s+is\s+|that\s+is\s+|exactly\s+|just\s+)?{_FACTOR}"
    r"\s+(?:of\s+)?(?:the\s+|that\s+|its\s+|their\s+|an?\s+)?[^.;:!?\d]{0,25}?[$£€¥]?(?=\d)", re.IGNORECASE)
# Before it: the factor, the other number, a few words, a comma or dash and a restating word (matched at the
# window's end: the number's start).
_FACTOR_BEFORE = re.compile(
    rf"\b{_FACTOR}\s+(?:of\s+)?(?:the\s+|that\s+|its\s+|their\s+|an?\s+)?[^.;:!?\d]{{0,25}}?[$£€¥]?(\d[\d,.]*)"
    r"[^.;:!?\d]{0,25}?[,(—–]\s*(?:or|i\.e\.|which\s+is|that\s+is|so|making|giving)\s+[$£€¥]?$", re.IGNORECASE)
# A change's cue right before the number: "up €18.9m", "a climb of 856 m", "an increase of €6.4m", "saves an adult
# £3" (two words may follow "saves": whom it saves).
_CHANGE_BEFORE = re.compile(
    r"\b(?:up|down|(?:increase|rise|drop|fall|decrease|cut|climb|ascent|descent|gain|loss|saving|difference)\s+of"
    r"|(?:saves?|saving)(?:\s+[^\W\d_]+){0,2})\s+(?:about\s+|around\s+|roughly\s+|nearly\s+|almost\s+|some\s+|just\s+)?[$£€¥]?$",
    re.IGNORECASE)
# A breakdown's bracket: opened within a few words after the number, closed within WINDOW characters.
_BREAKDOWN = re.compile(r"[^.;:!?()\d]{0,40}?\(([^()]{1,%d})\)" % WINDOW)
# A consequence's cue a few words before the number (no number between but a share: "so with 50% off you'd pay £23"):
# "30% comes off, so a full plot would cost you £47.60"; "£390 for ten hours, effectively £39 an hour".
_CONSEQUENCE_BEFORE = re.compile(
    r"\b(?:so|therefore|thus|hence|making|meaning|i\.e\.|effectively|brings?|bringing"
    r"|(?:comes?|came|coming|adds?\s+up)\s+to|which\s+(?:makes|means|works\s+out))"
    r"\b(?:[^.;:!?\d]|\d{1,3}(?:\.\d{1,2})?\s?%){0,56}$", re.IGNORECASE)


def stated_reckoning(text: str) -> set[float]:
    """The numbers of ``text`` that it reckons from its own numbers as its words say (see the module's docstring),
    to within :data:`TOLERANCE`."""
    read = number_mentions(text)[:MAX_NUMBERS]
    mentions = [m for m in read if not m.is_percent]
    # a fraction word's percentage is its alt ("half": 0.5, alt 50)
    percents = [(m.alt if m.alt is not None else m.value) / 100 for m in read if m.is_percent and m.value]
    # each number read once: a consequence's cue before it, and whether it is an amount of money
    cued = {m.start for m in mentions if _CONSEQUENCE_BEFORE.search(text[max(0, m.start - WINDOW):m.start])}
    priced = {m.start: currency_of(text, m) is not None for m in mentions} if cued else {}
    reckoned = {round(m.value, 6) for m in mentions
                if _multiple(text, m, mentions) or _change(text, m, mentions) or _breakdown(text, m)
                or (m.start in cued and _consequence(m, mentions, percents, priced))}
    # a sum, once, of numbers reckoned no other way: "up €18.9m from €393.7m" reckons the change, so the "€412.6m" it
    # totals stays a number to find (else each of two changed numbers would vouch for the other)
    summed = [m for m in mentions if m.start in cued and round(m.value, 6) not in reckoned
              and _summed(m, mentions, reckoned, priced)]
    return reckoned | ({round(summed[0].value, 6)} if len(summed) == 1 else set())


def _multiple(text: str, m: NumberMention, mentions: list[NumberMention]) -> bool:
    after = _FACTOR_AFTER.match(text[m.end:m.end + WINDOW])
    if after is not None:
        other = next((o for o in mentions if o.start == m.end + after.end()), None)
        if other is not None and _close(m.value, _factor(after.group(1)) * other.value) and other.value != m.value:
            return True
    window_start = max(0, m.start - WINDOW)
    before = _FACTOR_BEFORE.search(text[window_start:m.start])
    if before is None:
        return False
    other = next((o for o in mentions if o.start == window_start + before.start(2)), None)
    return other is not None and other.value != m.value and _close(m.value, _factor(before.group(1)) * other.value)


def _change(text: str, m: NumberMention, mentions: list[NumberMention]) -> bool:
    if _CHANGE_BEFORE.search(text[max(0, m.start - WINDOW):m.start]) is None:
        return False
    others = [o.value for o in mentions if o is not m and o.value != m.value]
    return any(_close(m.value, abs(a - b)) for a, b in combinations(others, 2))


def _consequence(m: NumberMention, mentions: list[NumberMention], percents: list[float], priced: dict[int, bool]
                 ) -> bool:
    """After a consequence's cue, a share of another number, that number less or plus the share, or one number
    divided or multiplied by another (a count; ``priced``: whether each mention, by its start, is money)."""
    read = [(o.value, priced[o.start]) for o in mentions if o is not m and o.value != m.value]
    others = [value for value, _ in read]
    shares = (reckoned for a in others for p in percents for reckoned in (a * p, a * (1 - p), a * (1 + p)))
    # a product takes a count: two prices multiply to nothing ("£6 and £8 ... comes to £48")
    products = (reckoned for (a, priced), (b, too) in combinations(read, 2) if not (priced and too)
                for reckoned in (a * b, a / b if b else 0.0, b / a if a else 0.0))
    return any(_close(m.value, reckoned) for reckoned in (*shares, *products))


def _summed(m: NumberMention, mentions: list[NumberMention], reckoned: set[float], priced: dict[int, bool]) -> bool:
    """After a consequence's cue, the sum of all the claim's other numbers of its kind ("£6 and £8 to the £38 core
    day brings a full day to £52"), or the difference of the only two ("adds £6, so you'd pay £55 a month instead of
    £49"), none of them reckoned itself."""
    # like to like, all of them: prices to a price ("the 8am drop-off (£6)" adds £6, not 8), and "£6 and £8 to the
    # £38 core day brings a full day to £46" leaves one out
    alike = [o.value for o in mentions if o is not m and o.value != m.value and priced[o.start] == priced[m.start]]
    if not 2 <= len(alike) <= MAX_SUMMED or reckoned.intersection(round(v, 6) for v in alike):
        return False
    return _close(m.value, sum(alike)) or (len(alike) == 2 and _close(m.value, abs(alike[0] - alike[1])))


def _breakdown(text: str, m: NumberMention) -> bool:
    bracket = _BREAKDOWN.match(text, m.end, min(len(text), m.end + 2 * WINDOW))
    if bracket is None:
        return False
    parts = [p.value for p in number_mentions(bracket.group(1))[:MAX_BREAKDOWN] if not p.is_percent]
    # two of them, or all: three of six fit too many totals by chance ("460 on 10 mg and 448 on 20 mg" makes 918)
    return _close(m.value, sum(parts)) or any(_close(m.value, a + b) for a, b in combinations(parts, 2))


def _factor(word: str) -> float:
    return FACTORS[" ".join(word.lower().split())]


def _close(value: float, reckoned: float) -> bool:
    return value != 0 and math.isclose(value, reckoned, rel_tol=TOLERANCE)
