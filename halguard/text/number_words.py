"""Numbers written in words: "eight", "two thousand", "a dozen", "twenty-five", "nine-tenths", "a third", "twice".

A grounded answer writes "seven million" where its context has "7 million", "more than nine-tenths" for "over
90%". The verifier compares numbers by value, so words must become values: :func:`word_numbers` finds each run
of number words in a text, in one pass over its words (no backtracking), and gives its value. A fraction also
gives its value as a percentage ("a third": 0.333 and 33), since contexts write shares both ways.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["WordNumber", "is_number_word", "ratio_numbers", "word_numbers"]

_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_UNITS_AND_TENS = frozenset(_UNITS) | frozenset(_TENS)  # what may follow "and" in a number ("a hundred and five")
_HUNDRED = {"hundred": 100}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_DOZEN = {"dozen": 12}
_DENOMINATORS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4,
                 "fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7,
                 "eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10}
_ARTICLES = ("a", "an")
# The denominators that are only fractions, never ranks ("the third quarter" aside, "a quarter" is a share)
_FRACTION_NOUNS = ("half", "halves", "quarter", "quarters")
# How many times, said in one word: "scored twice" is two goals' count ("scored two goals"); never part of a longer
# number, and not a multiplier ("twice the prior-year level", "twice as many": the words after say which).
_TIMES = {"twice": 2, "thrice": 3}
# Nouns "half" names a thing with, not a share of it: "half board" (a meal plan), "a half marathon", "half term".
# Hand-listed general English.
_HALF_COMPOUNDS = frozenset("board marathon marathons term terms time back backs brother brothers sister sisters life "
                            "moon volley pipe court mast nelson".split())
_MULTIPLIED = frozenset("the that this these those its their his her our your what than".split())
# "twice as many", "twice as large": "as" and a word that is no clause's start ("scored twice as Lund beat
# Helsingborg", "twice as she did" count)
_CLAUSE_STARTS = frozenset("the a an his her its their our my your he she it they we i you this that".split())
# Words only the parser reads as numbers. Ordinals like "third" and "fifth" double as ranks ("the third
# quarter"), so a denominator alone counts only after a numerator ("two thirds", "a quarter"); "half" is a
# fraction on its own.
_NUMBER_WORDS = (frozenset(_UNITS) | frozenset(_TENS) | frozenset(_HUNDRED) | frozenset(_SCALES) | frozenset(_DOZEN)
                 | frozenset(_TIMES))
_WORD = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class WordNumber:
    """A run of number words: its span, value, and the value as a percentage for a fraction (else None)."""

    start: int
    end: int
    value: float
    percent: float | None = None


def is_number_word(word: str) -> bool:
    """Whether ``word`` is a number word ("eight", "thousand", "dozen", "half", "tenths")."""
    w = word.lower()
    return w in _NUMBER_WORDS or w in _DENOMINATORS


def _joined(text: str, end: int, start: int) -> bool:
    """Whether the words ending at ``end`` and starting at ``start`` belong to one number: only spaces, one
    hyphen or " and " between them ("twenty-five", "a hundred and five")."""
    gap = text[end:start]
    return gap.strip(" ") in ("", "-") or gap.strip(" ").lower() == "and"


def word_numbers(text: str) -> list[WordNumber]:
    """Every run of number words in ``text`` with its value (see the module docstring). "one" alone is not a
    number ("one of the largest"); "one hundred" is."""
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
    out: list[WordNumber] = []
    i = 0
    while i < len(words):
        found = _read_run(text, words, i)
        if found is None:
            i += 1
            continue
        number, i = found
        out.append(number)
    return out


# After "a"/"an" an ordinal is a share only where a share reads: "a third of", "a fifth fewer", "a third." ("a
# third term", "a fifth-generation jet" are ranks).
_SHARE_FOLLOWERS = frozenset("of more less fewer lower higher larger smaller bigger cheaper faster slower".split())


def _is_share(text: str, words: list[tuple[int, int, str]], j: int, first: str, numerator: float) -> bool:
    _, end, word = words[j]
    if word == "half" and j + 1 < len(words) and words[j + 1][2] in _HALF_COMPOUNDS \
            and text[end:words[j + 1][0]] in (" ", "-"):
        return False  # "half board" is a meal plan, no 50%
    if word not in _FRACTION_NOUNS and (
            text[end:end + 1] == "-" or (numerator > 1 and not word.endswith("s"))):
        # an ordinal, not a share: "three hundred and ten ninth-graders", "a third-party app" ("two thirds" is one)
        return False
    if first not in _ARTICLES or word in _FRACTION_NOUNS:
        return True
    if text[end:end + 1] == "-":
        return False
    if j + 1 < len(words) and text[end:words[j + 1][0]].strip() == "":
        return words[j + 1][2] in _SHARE_FOLLOWERS
    return True


def _mixed_fraction(text: str, words: list[tuple[int, int, str]], k: int) -> bool:
    """Whether words ``k`` and ``k + 1`` are the share of a mixed number ("two and *three-quarter*", "one and
    *two thirds*"): a numerator below its denominator, and a denominator that is only a share ("quarter", "thirds";
    not the ordinal of "three hundred and ten *ninth*-graders")."""
    numerator, denominator = words[k][2], words[k + 1][2]
    return (numerator in _UNITS and denominator in _DENOMINATORS and 0 < _UNITS[numerator] < _DENOMINATORS[denominator]
            and (denominator in _FRACTION_NOUNS or denominator.endswith("s"))
            and text[words[k + 1][1]:words[k + 1][1] + 1] != "-" and _joined(text, words[k][1], words[k + 1][0])
            and words[k - 2][2] not in _HUNDRED and words[k - 2][2] not in _SCALES)


def _multiplier(text: str, words: list[tuple[int, int, str]], i: int) -> bool:
    """Whether the "twice" at word ``i`` multiplies what follows ("twice the level", "twice as many") rather than
    counting times."""
    if i + 1 >= len(words) or not _joined(text, words[i][1], words[i + 1][0]):
        return False
    after = words[i + 1][2]
    if after != "as":
        return after in _MULTIPLIED
    return i + 2 < len(words) and text[words[i + 2][0]].islower() and words[i + 2][2] not in _CLAUSE_STARTS


def _of_a_scale(text: str, words: list[tuple[int, int, str]], j: int) -> float | None:
    """The scale that "of a" after the share at word ``j`` names ("a quarter of a million": 1e6), if any."""
    if j + 3 >= len(words) or words[j + 1][2] != "of" or words[j + 2][2] not in _ARTICLES:
        return None
    whole = _SCALES.get(words[j + 3][2]) or _HUNDRED.get(words[j + 3][2]) or _DOZEN.get(words[j + 3][2])
    if whole is None or not all(text[words[k][1]:words[k + 1][0]] == " " for k in (j, j + 1, j + 2)):
        return None
    return float(whole)


def _half_of(text: str, words: list[tuple[int, int, str]], j: int) -> tuple[WordNumber, int] | None:
    """The number "half a dozen" or "half a million" at word ``j`` ("half") gives, and the index after it (None if
    no article and dozen or scale follow)."""
    if j + 2 >= len(words) or words[j + 1][2] not in _ARTICLES:
        return None
    whole = _DOZEN.get(words[j + 2][2]) or _SCALES.get(words[j + 2][2]) or _HUNDRED.get(words[j + 2][2])
    if whole is None or not (_joined(text, words[j][1], words[j + 1][0])
                             and _joined(text, words[j + 1][1], words[j + 2][0])):
        return None
    return WordNumber(words[j][0], words[j + 2][1], whole / 2), j + 3


def _read_run(text: str, words: list[tuple[int, int, str]], i: int) -> tuple[WordNumber, int] | None:
    """The number starting at word ``i`` and the index after it, or None if no number starts there."""
    start, _, first = words[i]
    if first in _TIMES:
        return None if _multiplier(text, words, i) else (WordNumber(start, words[i][1], float(_TIMES[first])), i + 1)
    total, current, count, j = 0.0, 0.0, 0, i
    if first in _ARTICLES:
        # "a thousand", "a dozen", "a third": the article is the number one.
        if i + 1 >= len(words) or not _joined(text, words[i][1], words[i + 1][0]):
            return None
        following = words[i + 1][2]
        if following not in _HUNDRED and following not in _SCALES and following not in _DOZEN \
                and following not in _DENOMINATORS:
            return None
        current, count, j = 1.0, 1, i + 1
    end = words[i][1]
    while j < len(words):
        s, e, w = words[j]
        if count and not _joined(text, end, s):
            break
        if w == "and" and count and j + 1 < len(words) and words[j + 1][2] in _UNITS_AND_TENS:
            if j + 2 < len(words) and _mixed_fraction(text, words, j + 1):
                # "two and three-quarter hours" is 2.75, a whole and a share ("two and three" is no one number)
                value = total + current + _UNITS[words[j + 1][2]] / _DENOMINATORS[words[j + 2][2]]
                return WordNumber(start, words[j + 2][1], round(value, 6)), j + 3
            if words[j - 1][2] not in _HUNDRED and words[j - 1][2] not in _SCALES:
                break  # "one hundred and five", "a thousand and one"; not "two and three"
            j += 1
            continue
        if w in _UNITS or w in _TENS:
            current += _UNITS.get(w, 0) + _TENS.get(w, 0)
        elif w in _HUNDRED and count:
            current *= 100
        elif w in _SCALES and count:
            total += current * _SCALES[w]
            current = 0.0
        elif w in _DOZEN:
            current = (current or 1.0) * 12
        elif w == "half" and not count and (whole := _half_of(text, words, j)) is not None:
            return whole  # "half a dozen" is 6, "half a million" 500,000: no share
        elif w in _DENOMINATORS and (count or w == "half") and _is_share(text, words, j, first, current):
            share = (current or 1.0) / _DENOMINATORS[w]
            whole = _of_a_scale(text, words, j)  # "a quarter of a million" is 250,000, no share
            if whole is not None:
                return WordNumber(start, words[j + 3][1], round(share * whole, 6)), j + 4
            return WordNumber(start, e, round(share, 6), round(share * 100, 1)), j + 1
        else:
            break
        count, end, j = count + 1, e, j + 1
    if count == 0 or (first in _ARTICLES and count == 1):
        return None
    value = total + current
    # "three and a half" is 3.5, one number ("a half" on its own would be 0.5, a number no passage states), and so
    # is "one and a half" (1.5), though "one" alone is no number.
    if j + 2 < len(words) and words[j][2] == "and" and words[j + 1][2] in _ARTICLES \
            and words[j + 2][2] in ("half", "quarter", "third") and _joined(text, end, words[j][0]) \
            and _joined(text, words[j][1], words[j + 1][0]) and _joined(text, words[j + 1][1], words[j + 2][0]):
        value += 1 / _DENOMINATORS[words[j + 2][2]]
        end, j = words[j + 2][1], j + 3
    elif count == 1 and first == "one":
        return None
    return WordNumber(start, end, round(value, 6)), j


# "one in five", "1 in 4": a share said as a count of a count (the number of a percentage: "one in five" is the
# passages' "20%"). Not before a time unit ("scored 2 in 10 minutes" counts goals), nor over a year ("5 in 2025"); the
# numerator is a small count below the denominator. "Out of" is left out: "4 out of 5 stars" is a rating on its
# scale, "7 out of 19 districts" a count the passages write as such.
_RATIO_NUMERATOR = r"(\d{1,3}|" + "|".join(sorted((w for w in _UNITS if _UNITS[w]), key=len, reverse=True)) + r")"
_RATIO_DENOMINATOR = (r"(\d{1,3}(?:,\d{3})?|\d{4,6}|a\s+hundred|a\s+thousand|"
                      + "|".join(sorted(list(_UNITS) + list(_TENS), key=len, reverse=True)) + r")")
_RATIO = re.compile(r"\b" + _RATIO_NUMERATOR + r"\s+in\s+" + _RATIO_DENOMINATOR
                    + r"\b(?![.,]?\d)(?!\s+(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b)", re.IGNORECASE)


def _count(words: str) -> float:
    """A ratio's count: digits, or one number word ("five", "twenty", "a hundred", "a thousand")."""
    w = words.lower().replace(",", "")
    if w.isdigit():
        return float(w)
    last = w.split()[-1]
    return float(_UNITS.get(last) or _TENS.get(last) or _HUNDRED.get(last) or _SCALES.get(last, 0))


def ratio_numbers(text: str) -> list[WordNumber]:
    """The shares ``text`` says as a count of a count ("one in five": 0.2, 20%; see :data:`_RATIO`)."""
    out = []
    for m in _RATIO.finditer(text):
        part, whole = _count(m.group(1)), _count(m.group(2))
        year = len(m.group(2)) == 4 and m.group(2).isdigit() and 1000 <= whole <= 2100
        if 0 < part < whole and not year:
            out.append(WordNumber(m.start(), m.end(), round(part / whole, 6), round(100 * part / whole, 1)))
    return out
