"""A sentence in a script the local checks cannot read: its numbers and Latin-script names, and nothing else.

The embedding model and the word rules are English-only, so a Chinese sentence after an English one ("该塔于2019年以
5亿欧元出售给卡塔尔。") cannot be judged on its meaning. What it states in digits and in Latin letters can still be
looked up: a year, an amount or a name the context does not have is flagged whatever the script around it. What
cannot be compared keeps the answer from ``supported`` (the verifier says so with the code ``unchecked_script``).
"""

from __future__ import annotations

import unicodedata

from halguard.grounding.signals import ClaimMeasurements
from halguard.grounding.signals.scope import Scope
from halguard.grounding.signals.words import missing_names, missing_numbers
from halguard.text.lexical import number_mentions

__all__ = ["REASON", "latin_view", "measure_foreign"]

REASON = "in a script the local checks cannot read: only its numbers and names were compared with the context"

# Number scales written after the digits in Chinese and Japanese ("5亿" = 500 million, "3万" = 30,000).
_CJK_SCALES = {"十": 10.0, "百": 100.0, "千": 1e3, "万": 1e4, "萬": 1e4, "亿": 1e8, "億": 1e8}


# What a letter outside the Latin script becomes in the view: not a letter (no name or word is made of it) and
# not a space, so "το 1999." does not read as a list marker "1999." opening its line.
_PLACEHOLDER = "\u00b7"


def latin_view(text: str) -> str:
    """``text`` with every letter outside the Latin script replaced by a middle dot (same length, offsets kept), so
    the English number and name rules find "2019" in "于2019年" and "NASA" in "由NASA主导"."""
    return "".join(_view_char(ch) for ch in text)


def _view_char(ch: str) -> str:
    if ch.isalpha() and ord(ch) >= 0x250:
        return _PLACEHOLDER
    if ch.isdecimal() and not ch.isascii():  # Arabic-Indic, Devanagari, ... digits: "٢٠٢١" is 2021
        return str(unicodedata.decimal(ch))
    return ch


def _found_scaled(text: str, view: str, start: int, end: int, scope: Scope) -> bool:
    """Whether the number at ``view[start:end]``, read with the CJK scale written after it, is in the passages."""
    scale = _CJK_SCALES.get(text[end : end + 1])
    if scale is None:
        return False
    return any(round(m.value * scale, 6) in scope.context_numbers for m in number_mentions(view[start:end]))


def measure_foreign(text: str, scope: Scope) -> ClaimMeasurements:
    """The measurements of a foreign-script claim ``text`` (the claim's own text, offsets relative to it).

    Only names and numbers are measured (against the passages, not the question); the similarity is left at 0
    and never read (the verifier scores these claims apart: see ``LocalVerifier``).
    """
    view = latin_view(text)
    numbers = [(s, e) for s, e in missing_numbers(view, scope, set()) if not _found_scaled(text, view, s, e, scope)]
    return ClaimMeasurements(
        similarity=0.0,
        novel_ratio=0.0,
        missing_entities=missing_names(view, scope),
        missing_numbers=numbers,
        evidence_has_numbers=bool(scope.context_numbers),
    )

