"""A number the passages give one of a series' members said of another: "Your third child would get 10% off" against "A
10% discount applies to the second child from the same family and 15% to the third".

Tiers ("the second child", "the third", "the first hour", "each further night") are told apart by their ordinal
alone, which no word check reads as a thing and the moved-number check never sees: the claim's number stands in the
sentence, and so does its ordinal. Here the claim's phrase pairs one number with one ordinal, and the sentence it copies
(``copy_overlap`` of its content words) pairs that number with another ordinal and that ordinal with another number,
each in a phrase of its own (a comma, a semicolon, "and", "while", "whereas", "but" end one). Reported as a moved
number (``role_conflicts``, "10% where the passage has 15% (third)").

Bounded: at most :data:`MAX_PHRASES` phrases a side, one pass over each.
"""

from __future__ import annotations

import re
from itertools import islice

from halguard.grounding.signals.closest import ClosestSentence, shared_share
from halguard.text.lexical import number_mentions

__all__ = ["MAX_PHRASES", "ordinal_swapped"]

MAX_PHRASES = 24
# (not "second-hand", "first-class": a kind of thing, no tier)
_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|1st|2nd|3rd|[4-9]th)\b"
                      r"(?!-(?:hand|class|rate|aid)\b)", re.IGNORECASE)
_PHRASE_BREAK = re.compile(r"[,;:]|\b(?:and|while|whereas|but)\b", re.IGNORECASE)


def _pairs(text: str) -> list[tuple[float, bool, str, int, int]]:
    """The (number, is a percentage, ordinal, start, end) of each phrase of ``text`` holding exactly one number (not
    a fraction word: "a third") and one ordinal."""
    out = []
    starts = [0] + [m.end() for m in islice(_PHRASE_BREAK.finditer(text), MAX_PHRASES - 1)]
    ends = starts[1:] + [len(text)]
    for a, b in zip(starts, ends):
        phrase = text[a:b]
        ordinals = _ORDINAL.findall(phrase)
        numbers = [m for m in number_mentions(phrase) if not _ORDINAL.fullmatch(phrase[m.start:m.end].split()[-1])]
        if len(ordinals) == 1 and len(numbers) == 1:
            n = numbers[0]
            out.append((n.value, n.is_percent, ordinals[0].lower(), a + n.start, a + n.end))
    return out


def ordinal_swapped(text: str, closest: ClosestSentence, copy_overlap: float) -> list[tuple[int, int, str]]:
    """The claim's numbers said of another ordinal than the copied sentence's (see the module), each as its span
    and the reason in words."""
    if shared_share(closest.claim_terms, closest.terms) < copy_overlap or not _ORDINAL.search(text):
        return []
    theirs = _pairs(closest.text)
    found = []
    for value, percent, ordinal, start, end in _pairs(text):
        same = [(o, v) for v, p, o, _, _ in theirs if v == value and p == percent]
        others = [v for v, p, o, _, _ in theirs if o == ordinal and p == percent and v != value]
        if same and others and all(o != ordinal for o, _ in same):
            number = text[start:end]
            found.append((start, end, f"{number} where the passage has {others[0]:g}{'%' if percent else ''} "
                                      f"({ordinal}); its {number} is the {same[0][0]}'s"))
    return found
