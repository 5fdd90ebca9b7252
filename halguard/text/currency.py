"""Currency symbols read as the words they stand for: "$2.6 million" is 2.6 million dollars, "€89" 89 euros. A
claim that writes the word where its passage writes the symbol says the passage's amount ("fares begin at 89
euros" against "fares starting at €89"), and a claim's symbol whose currency the passages never name is a word they
lack ("€89" against "£89"); the number is compared by value elsewhere."""

from __future__ import annotations

import re

from halguard.text.lexical import NumberMention, number_mentions

__all__ = ["CURRENCY_SYMBOLS", "cent_values", "currency_amounts", "currency_of", "currency_symbols", "currency_words",
           "in_cents", "symbol_before"]

# Symbol -> the words a claim writes for it. Hand-listed (ISO 4217 symbols of the currencies news text names by
# symbol); "$" is any dollar.
CURRENCY_SYMBOLS: dict[str, str] = {"$": "dollar dollars", "€": "euro euros", "£": "pound pounds", "¥": "yen yuan",
                                    "₹": "rupee rupees"}
# The currency a symbol or a word names (the symbol's first word in CURRENCY_SYMBOLS: "dollar", "euro").
_CURRENCY_OF = {key: words.split()[0] for symbol, words in CURRENCY_SYMBOLS.items() for key in (symbol, *words.split())}
_WORD_AFTER = re.compile(r"[ \t]{0,3}([A-Za-z]{1,12})")
# a symbol before an amount ("$2.6", "€ 89", "US$5"): one character and an optional space, so linear on any text
_BEFORE_AN_AMOUNT = re.compile(r"([$€£¥₹])[ \t]?(?=\d)")


# The words of a symbol's hundredth ("$0.52" is "52 cents"), said wherever the symbol is. Hand-listed with the symbols.
_HUNDREDTHS = {"$": "cent cents", "€": "cent cents", "£": "penny pence"}


def currency_words(text: str) -> str:
    """The words of the currencies ``text`` writes by symbol before an amount, and of their hundredths,
    space-separated (empty where none)."""
    symbols = {m.group(1) for m in _BEFORE_AN_AMOUNT.finditer(text)}
    words = {CURRENCY_SYMBOLS[s] for s in symbols} | {_HUNDREDTHS[s] for s in symbols if s in _HUNDREDTHS}
    return " ".join(sorted(words))


def currency_symbols(text: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """Each currency symbol ``text`` writes before an amount: its offsets and the words it stands for."""
    return [(m.start(1), m.end(1), tuple(CURRENCY_SYMBOLS[m.group(1)].split()))
            for m in _BEFORE_AN_AMOUNT.finditer(text)]


def currency_amounts(text: str) -> list[tuple[int, int, float, str]]:
    """Each amount ``text`` gives in a currency, by symbol or word ("$2.6 million", "90 million pounds"): the
    currency's offsets (the symbol, or the word), the amount's value and the currency ("dollar", "euro", ...)."""
    return [(found[0], found[1], m.value, found[2]) for m in number_mentions(text)
            if (found := currency_of(text, m)) is not None]


def symbol_before(text: str, number: NumberMention) -> int | None:
    """Where the currency symbol of the amount whose number is ``number`` stands in ``text`` ("$2.6 million", "€ 89"):
    its offset; None where no symbol stands before it."""
    at = number.start if text[number.start:number.start + 1] in CURRENCY_SYMBOLS else number.start - 1
    if at > 0 and text[at] in " \t":
        at -= 1  # "€ 89"
    return at if at >= 0 and text[at] in CURRENCY_SYMBOLS else None


def currency_of(text: str, number: NumberMention) -> tuple[int, int, str] | None:
    """The currency of the amount whose number is ``number`` in ``text`` (its symbol before it, "$2.6 million",
    "€ 89", or its word after it, "90 million pounds"): the currency's offsets and name; None where it has none."""
    at = symbol_before(text, number)
    if at is not None:
        return at, at + 1, _CURRENCY_OF[text[at]]
    word = _WORD_AFTER.match(text, number.end)
    if word and word.group(1).lower() in _CURRENCY_OF:
        return word.start(1), word.end(1), _CURRENCY_OF[word.group(1).lower()]
    return None


# A number of cents or pence ("52 cents", "a 52-cent dividend", "50 pence", "10p", "99¢"): a hundredth of its
# currency. A "p" joined to the number is one only where no "m" follows ("10p.m." is a time; "10pm" is no word "p").
_CENTS_AFTER = re.compile(r"[ \t-]{0,2}(?:cents?|pence)\b|p\b(?!\.?[ \t]?m\b)|¢", re.IGNORECASE)


def in_cents(text: str, number: NumberMention) -> float | None:
    """The amount in its currency's whole units where ``number`` counts cents or pence ("52 cents": 0.52); else
    None."""
    return round(number.value / 100, 6) if _CENTS_AFTER.match(text, number.end) else None


_HUNDREDTH_WORD = re.compile(r"\b(?:cents?|pence)\b|\dp\b|¢", re.IGNORECASE)


def cent_values(text: str) -> set[float]:
    """The amounts ``text`` gives in cents or pence, in whole units ("52 cents": 0.52): what "$0.52" says. A text
    that never writes the words is not read for its numbers again (every source's numbers are read once already)."""
    if not _HUNDREDTH_WORD.search(text):
        return set()
    return {value for m in number_mentions(text) if (value := in_cents(text, m)) is not None}
