"""A total a claim reckons as a count times a price each: "four would cost £14" of "Tyres cost £3.50 each", "three
nights at $80 a night come to $240", "two adult tickets are €24" of "€12 per adult".

A claim's amount that no passage writes is a missing number (:func:`halguard.grounding.signals.words.missing_numbers`)
unless a passage gives it another way, :mod:`.derived` computes it from two numbers of one passage sentence, or, here,
it is a count the claim itself states (a whole number from 2 to :data:`MAX_COUNT`: "four", "3 nights") times an amount
in the same currency that a passage gives per one thing ("£3.50 each", "$80 a night", "€12 per adult", "20p a day"),
to the hundredth. The count must be the claim's own, so that a reader can follow the sum (a count the claim never
states is a guess), and where both the count and the price are said per a period ("3 nights", "a night") the periods
are one. The passage's sentence must share a content word with the claim, so a price of another thing computes
nothing.

What is left out: a count only the question or the passages state, a count times a price times another count ("two
adults for three nights"), a price per a share of a unit ("£2 per 100 grams").

Bounded on any input: at most :data:`MAX_PRICES` prices read from a passage's sentences, those the caller reads (the
verifier passes :func:`halguard.grounding.signals.closest.source_sentences`: a passage's first 20,000 characters, split
once and kept), with one linear pattern, once per claim; at most :data:`MAX_COUNTS` counts and twice as many amounts of
the claim.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from itertools import islice

from halguard.text.currency import CURRENCY_SYMBOLS, currency_of, in_cents
from halguard.text.lexical import NumberMention, content_terms, number_mentions, stem

__all__ = ["MAX_COUNT", "MAX_COUNTS", "MAX_PRICES", "ProductSpans"]

# The largest count read as one a claim multiplies a price by: a count of things bought or nights stayed, not a
# quantity of its own ("1,200 visitors").
MAX_COUNT = 50
MAX_COUNTS = 6
MAX_PRICES = 24
# A price said per one thing: a symbol and an amount, or an amount of pence or cents, then "each", "apiece", or
# "a", "an", "per", "every" and the thing ("£3.50 each", "$80 a night", "20p per day", "€12 per adult").
_PRICE_EACH = re.compile(
    r"(?:([$€£¥₹])[ \t]?(\d{1,7}(?:,\d{3})*(?:\.\d{1,2})?)|(\d{1,4})[ \t]?(?:p|pence|cents?)\b)"
    r"[ \t]{1,3}(?:each|apiece|(?:a|an|per|every)[ \t]{1,3}([^\W\d_]{2,20}))\b", re.IGNORECASE)
# The periods a count and a price may both be said per: "3 nights" at "£80 a night", not "3 days" at "£80 a week".
_PERIODS = frozenset(stem(w) for w in "minute hour day night week fortnight month year term session".split())
_WORD_AFTER = re.compile(r"[ \t]{1,3}([^\W\d_]{2,20})")
# Money to the hundredth: a total within half a penny of the product is the product.
_HUNDREDTH = 0.005


def _amount(text: str, mention: NumberMention) -> tuple[str, float] | None:
    """The currency ("pound"; "" for pence or cents, any currency's hundredths) and the amount in whole units of the
    money whose number is ``mention``; None where it is no money."""
    cents = in_cents(text, mention)
    if cents is not None:
        return "", cents
    found = currency_of(text, mention)
    return (found[2], mention.value) if found else None


def _counts(text: str, mentions: Sequence[NumberMention]) -> list[tuple[NumberMention, str]]:
    """The numbers of ``text`` (its ``mentions``) that count things (whole, 2 to :data:`MAX_COUNT`, no money, no
    percentage; at most :data:`MAX_COUNTS`), each with the stem of the word after it."""
    out: list[tuple[NumberMention, str]] = []
    for m in mentions:
        if len(out) == MAX_COUNTS:
            break
        if m.is_percent or not m.value.is_integer() or not 2 <= m.value <= MAX_COUNT or _amount(text, m) is not None:
            continue
        word = _WORD_AFTER.match(text, m.end)
        out.append((m, stem(word.group(1).lower()) if word else ""))
    return out


class ProductSpans:
    """Whether numbers of a claim are a product (see the module): an amount the passages do not state (``stated``:
    their numbers) that a count the claim states times a passage's price each gives, or that count (the claim's
    operand, found with its product: "Three nights would come to £240"; another mention of the same number is not).
    ``sources`` holds each passage's sentences with their stems (as :func:`halguard.grounding.signals.closest.
    source_sentences` reads a passage's head); read once, on the first number asked about."""

    def __init__(self, text: str, sources: Iterable[Sequence[tuple[str, Collection[str]]]],
                 stated: Collection[float]) -> None:
        self._text = text
        self._sources = sources
        self._stated = stated
        self._spans: set[tuple[int, int]] | None = None

    def __call__(self, start: int, end: int) -> bool:
        """Whether the claim's number at ``start:end`` is such an amount or count."""
        if self._spans is None:
            self._spans = _product_spans(self._text, self._sources, self._stated)
        return (start, end) in self._spans


def _prices(sources: Iterable[Sequence[tuple[str, Collection[str]]]]) -> list[tuple[str, float, str, Collection[str]]]:
    """The prices each of ``sources`` (each a passage's sentences with their stems; at most :data:`MAX_PRICES` of a
    passage): the currency ("" for pence or cents), the amount, the stem of the thing it is per ("" for "each") and
    its sentence's stems."""
    out = []
    for sentences in sources:
        found = ((m, terms) for sentence, terms in sentences for m in _PRICE_EACH.finditer(sentence))
        for m, terms in islice(found, MAX_PRICES):
            currency = CURRENCY_SYMBOLS[m.group(1)].split()[0] if m.group(1) else ""  # as currency_of names it
            price = float(m.group(2).replace(",", "")) if m.group(2) else int(m.group(3)) / 100
            per = stem(m.group(4).lower()) if m.group(4) else ""
            out.append((currency, price, per, terms))
    return out


def _product_spans(text: str, sources: Iterable[Sequence[tuple[str, Collection[str]]]], stated: Collection[float]
                   ) -> set[tuple[int, int]]:
    """The spans of the claim's amounts that are products and of their counts (see :class:`ProductSpans`); an
    amount the passages state (``stated``: their numbers) is theirs, no product: "up to 10 bags" is no count of
    "£40 a trailer load" where they price a bag at £4."""
    mentions = number_mentions(text)
    amounts = [(m, found) for m in mentions[:MAX_COUNTS * 2] if (found := _amount(text, m)) is not None
               and round(m.value, 6) not in stated and round(found[1], 6) not in stated]
    counts = _counts(text, mentions)
    if not amounts or not counts:
        return set()
    claim_terms = {st for _, _, st in content_terms(text)}
    prices = [p for p in _prices(sources) if not claim_terms.isdisjoint(p[3])]
    spans: set[tuple[int, int]] = set()
    for mention, (currency, total) in amounts:
        for count, word in counts:
            if any((not currency or not theirs or currency == theirs)
                   and not (word in _PERIODS and per in _PERIODS and word != per)
                   and abs(count.value * price - total) <= _HUNDREDTH for theirs, price, per, _ in prices):
                spans |= {(mention.start, mention.end), (count.start, count.end)}
                break
    return spans
