"""Currency symbols read as the words they stand for: "$2.6 million" is 2.6 million dollars, "€89" 89 euros. A
claim that writes the word where its passage writes the symbol says the passage's amount ("fares begin at 89
euros" against "fares starting at €89"), and a claim's symbol whose currency the passages never name is a word they
lack ("€89" against "£89"); the number is compared by value elsewhere."""

from __future__ import annotations

import re

__all__ = ["CURRENCY_SYMBOLS", "currency_symbols", "currency_words"]

# Symbol -> the words a claim writes for it. Hand-listed (ISO 4217 symbols of the currencies news text names by
# symbol); "$" is any dollar.
CURRENCY_SYMBOLS: dict[str, str] = {"$": "dollar dollars", "€": "euro euros", "£": "pound pounds", "¥": "yen yuan",
                                    "₹": "rupee rupees"}
# a symbol before an amount ("$2.6", "€ 89", "US$5"): one character and an optional space, so linear on any text
_BEFORE_AN_AMOUNT = re.compile(r"([$€£¥₹])[ \t]?(?=\d)")


def currency_words(text: str) -> str:
    """The words of the currencies ``text`` writes by symbol before an amount, space-separated (empty where none)."""
    return " ".join(sorted({CURRENCY_SYMBOLS[m.group(1)] for m in _BEFORE_AN_AMOUNT.finditer(text)}))


def currency_symbols(text: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """Each currency symbol ``text`` writes before an amount: its offsets and the words it stands for."""
    return [(m.start(1), m.end(1), tuple(CURRENCY_SYMBOLS[m.group(1)].split()))
            for m in _BEFORE_AN_AMOUNT.finditer(text)]
