"""Numbers a source writes in a declared scale: a table "(all figures in £ thousands)" writes 7,680 for £7.68 million,
a filing "(in millions of dollars)" 4,215 for $4.215 billion.

A claim that gives the amount whole ("sold £7.68 million in total") says the passage's number; read digit for digit it
is a number the passage never writes. :func:`scaled_values` gives a source's numbers times its declared scale, and
:func:`scale_currency_words` the words of the currency the declaration names ("£ thousands": "pound pounds"), so the
claim's "£" is no currency the passages lack. Only a declaration is read: "in thousands" / "in £ millions" / "in
millions of dollars" / "£000s" and "£'000", where a bracket or a word naming the figures comes just before ("(all
figures in £ thousands)", "amounts stated in millions"): "protesters gathered in thousands" and "attendance in the
thousands" declare nothing. Every pattern is a bounded alternation; the text is read once per pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from halguard.text.currency import CURRENCY_SYMBOLS

__all__ = ["declared_scale", "scale_currency_words", "scaled_values"]

_FACTORS = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
# "in thousands", "in £ thousands", "in millions of dollars", "(£ in millions)"
_IN_SCALE = re.compile(r"(?:\b|(?<=[$€£¥₹]))in[ \t]{1,3}(?:([$€£¥₹])[ \t]{0,2})?(thousands|millions|billions)\b"
                       r"(?:[ \t]{1,3}of[ \t]{1,3}(dollars|euros|pounds|yen))?", re.IGNORECASE)
_SYMBOL_BEFORE = re.compile(r"([$€£¥₹])[ \t]{0,2}$")
# What makes it a declaration of the figures: a bracket opened before it, or a word that names them ("(in millions",
# "all figures in", "amounts are stated in"), in the few characters before, within the sentence
_DECLARING = re.compile(r"(?:\(|\b(?:figures|amounts|numbers|values|data|expressed|stated|shown|reported|presented)\b)"
                        r"[^.;:\n()]{0,24}$", re.IGNORECASE)
_LOOK_BEFORE = 48
# "£000s", "£'000", "($000)": thousands of the symbol's currency
_THOUSANDS_OF = re.compile(r"([$€£¥₹])[ \t]?['’]?000s?\b")


def declared_scale(text: str) -> tuple[float, str] | None:
    """The first scale ``text`` declares for its figures, with the currency words it names ("" for none):
    ``(1000.0, "pound pounds")`` for "(all figures in £ thousands)"."""
    for found in _IN_SCALE.finditer(text):
        before = text[max(0, found.start() - _LOOK_BEFORE):found.start()]
        if not _DECLARING.search(before):
            continue  # "protesters gathered in thousands" declares nothing of the figures
        symbol = found.group(1) or next((m.group(1) for m in _SYMBOL_BEFORE.finditer(before)), None)
        words = CURRENCY_SYMBOLS.get(symbol or "", "") or (found.group(3) or "").lower()
        return _FACTORS[found.group(2).lower()], words
    thousands = _THOUSANDS_OF.search(text)
    if thousands is not None:
        return 1e3, CURRENCY_SYMBOLS[thousands.group(1)]
    return None


def scaled_values(text: str, values: Iterable[float]) -> frozenset[float]:
    """``values`` (numbers of ``text``) times the scale ``text`` declares; none where it declares none."""
    scale = declared_scale(text)
    return frozenset(round(v * scale[0], 6) for v in values) if scale else frozenset()


def scale_currency_words(text: str) -> str:
    """The words of the currency ``text``'s declared scale names ("pound pounds"; empty where none)."""
    scale = declared_scale(text)
    return scale[1] if scale else ""
