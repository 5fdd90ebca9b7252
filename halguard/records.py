"""Structured contexts: compare a claim with a JSON record field by field.

Sentence embeddings read ``"OutdoorSeating": false`` as text about outdoor seating, so "the restaurant
offers outdoor seating" looks well supported by it. When a source is a JSON object (a product record, a
business listing, a database row), this module reads its yes/no fields and reports claims that assert a
feature the record marks as absent (``false`` or ``"no"``; ``"None"`` means unknown in listings and is
not read as absent).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from halguard.lexical import NEGATION_CUES, has_negation

__all__ = ["absent_features", "absent_feature_mentions"]

# Key prefixes that name the record type, not the feature ("RestaurantsTakeOut" is about take-out).
_KEY_PREFIXES = ("restaurants", "business")
# "None" is left out on purpose: listings use it for "unknown", not for "absent".
_ABSENT_VALUES = {"false", "no"}
_MAX_RECORD_CHARS = 2_000_000


def _key_phrase(key: str) -> str:
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|[_\-]+", " ", key).lower().split()
    phrase = " ".join(words)
    for prefix in _KEY_PREFIXES:
        if phrase.startswith(prefix + " ") and len(phrase) > len(prefix) + 3:
            phrase = phrase[len(prefix) + 1 :]
    return phrase


def _unquote(value: str) -> str:
    """``"u'no'"`` (a Python 2 repr some exports keep) and ``"'no'"`` read as ``no``."""
    v = value.strip().lower()
    if v[:2] in ("u'", 'u"'):
        v = v[1:]
    return v.strip("'\"")


def _walk(value, out: set[str], key: str | None = None) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _walk(v, out, str(k))
    elif isinstance(value, list):
        for v in value:
            _walk(v, out, key)
    elif key is not None and (value is False or (isinstance(value, str) and _unquote(value) in _ABSENT_VALUES)):
        phrase = _key_phrase(key)
        if len(phrase) >= 3:
            out.add(phrase)


_NEGATION = NEGATION_CUES | {"lack", "absence", "unavailable"}
# Commas do not end the clause: "no valet, garage, or lot parking" negates the whole list.
_CLAUSE_BREAK = re.compile(r"[;:.!?()]|\b(?:but|however|while|although|whereas)\b", re.IGNORECASE)


def _clause(text: str, start: int, end: int) -> str:
    left = max((m.end() for m in _CLAUSE_BREAK.finditer(text, 0, start)), default=0)
    right = next((m.start() for m in _CLAUSE_BREAK.finditer(text, end)), len(text))
    return text[left:right]


@lru_cache(maxsize=1024)
def absent_features(text: str) -> frozenset[str]:
    """Feature phrases a JSON record marks as absent ("outdoor seating", "upscale"); empty if not JSON."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")) or len(stripped) > _MAX_RECORD_CHARS:
        return frozenset()
    try:
        record = json.loads(stripped)
    except ValueError:
        return frozenset()
    out: set[str] = set()
    _walk(record, out)
    return frozenset(out)


def absent_feature_mentions(claim: str, features: frozenset[str]) -> list[tuple[int, int, str]]:
    """Spans of ``claim`` that assert one of ``features``, unless its clause is negated.

    A phrase matches on word boundaries, and also written as one word ("takeout" for "take out") or with
    a hyphen. A mention in a clause with a negation cue ("outdoor seating is not available", "without
    valet parking") agrees with the record and is not reported.
    """
    if not features:
        return []
    found: list[tuple[int, int, str]] = []
    for phrase in sorted(features):
        variants = {phrase, phrase.replace(" ", ""), phrase.replace(" ", "-")}
        for variant in variants:
            # Matched case-insensitively on the claim itself (not a lowered copy) so offsets stay exact.
            for m in re.finditer(rf"(?<![\w-]){re.escape(variant)}(?![\w-])", claim, re.IGNORECASE):
                if not has_negation(_clause(claim, m.start(), m.end()), cues=_NEGATION):
                    found.append((m.start(), m.end(), phrase))
    kept: list[tuple[int, int, str]] = []
    for f in sorted(found, key=lambda f: (f[0], -f[1])):  # the longest match at a position wins
        if not kept or f[0] >= kept[-1][1]:
            kept.append(f)
    return kept
