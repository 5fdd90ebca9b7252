"""A figure a passage lists for one item, said of another: "A full day in the Fenwick Road multi-storey costs £15"
against "the multi-storey car park on Fenwick Road charges £2.50 for up to two hours, £4 for up to four hours and £9
for a full day" (the £15 is the passage's weekly pass), or "Weekend bookings cost £7.50 an hour" against "at £7.50 an
hour on weekdays and £8.50 an hour at weekends". Each word and number of such a claim is the passage's, and the claim
reorders the list's sentence ("A full day ... costs" for "£9 for a full day"), so no slot of a copy holds the other
number (:mod:`.moved_numbers`).

A list's sentence gives two or more figures of one kind (an amount of money, a percentage, a quantity of one unit's
dimension, a day of a month), each in its own item: the sentence cut at commas, semicolons, colons and the words that
join clauses ("and", "with", "while"...). An item's words are those of its piece of the sentence, less the sentence's
frame (its words before the first figure: "the multi-storey car park on Fenwick Road charges") and less the words
another item has ("hours"): "full day" is the item of £9, "weekends" the item of £8.50. A piece of the claim with one
figure (cut the same way) names an item when it has that item's words (all of them, or two thirds of three or more)
and no word of another item of the sentence. The figure is moved when the item's figure is another number of its
kind, which the claim does not give anywhere, while the claim's figure stands elsewhere in the passages and never in a
piece of a passage sentence with the item's words.

Reported as a role conflict ("A full day ... costs £15 where the passage has £9 for a full day"), weighted, never a
CONTRADICTION: its precision on real text is unmeasured (see docs/evaluation.md for the dev claims it fires on).

Bounded: at most :data:`MAX_SENTENCES` list sentences read, :data:`MAX_FIGURES` figures of a claim or a sentence,
:data:`MAX_PIECES` pieces of a text, :data:`SENTENCES_SEARCHED` sentences a source searched for the claim's figure.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence

from halguard.grounding.signals.closest import source_sentences
from halguard.text.dates import MONTHS
from halguard.text.lexical import NumberMention, content_terms, is_enumerator, number_mentions, word_spans
from halguard.text.quantities import UNITS, YEAR_RANGE

__all__ = ["MAX_FIGURES", "MAX_PIECES", "MAX_SENTENCES", "SENTENCES_SEARCHED", "figures_listed_otherwise"]

MAX_SENTENCES = 64
MAX_FIGURES = 8
MAX_PIECES = 24
# The passage sentences searched for the claim's figure said with the item's words (each a subset test of its stems,
# then its pieces read where it holds them all): more than the list sentences read, a cheaper reading.
SENTENCES_SEARCHED = 4 * MAX_SENTENCES
# An item of three or more words is named by this share of them (a claim restating a long item drops a word).
ITEM_SHARE = 2 / 3

_PIECE_EDGE = re.compile(r"[,;:()]\s*|\s(?:and|with|while|whereas|but|or|plus|then)\s", re.IGNORECASE)
_CURRENCY = "£$€¥"
_FIRST_YEAR, _LAST_YEAR = YEAR_RANGE
_TOGETHER = re.compile(r"\b(?:respectively|each|per cent of|between)\b", re.IGNORECASE)


def _kind(text: str, n: NumberMention, words: list[tuple[int, int]]) -> str:
    """What a figure measures: money, a percentage, a unit's dimension, a day of a month; "" for a bare count, a
    year, a list marker or a part of a clock time or range (the other checks' to read)."""
    written = text[n.start:n.end]
    if n.is_percent:
        return "%"
    if written[:1] in _CURRENCY or text[n.start - 1:n.start] in _CURRENCY:
        return "money"
    if (n.value.is_integer() and _FIRST_YEAR <= n.value <= _LAST_YEAR and written.isdigit()) or is_enumerator(
            text, n.start, n.end) or text[n.end:n.end + 1] in (":", "-", "–") or text[n.start - 1:n.start] in (
            ":", "-", "–"):
        return ""
    i = bisect_left(words, (n.end, n.end))
    after = text[words[i][0]:words[i][1]].lower() if i < len(words) else ""
    if after in MONTHS:
        return "date"
    return f"unit:{UNITS[after][0]}:{after}" if after in UNITS else ""


def _words(text: str) -> set[str]:
    """The content words' stems of ``text``, numbers left out (they are the figures)."""
    return {st for _, _, st in content_terms(text) if not any(ch.isdigit() for ch in st)}


def _figures(text: str) -> list[tuple[NumberMention, str]]:
    words = word_spans(text)
    out = []
    for n in number_mentions(text)[:MAX_FIGURES]:
        kind = _kind(text, n, words)
        if kind:
            out.append((n, kind))
    return out


def _pieces(text: str) -> list[tuple[int, int]]:
    edges = [0]
    for m in _PIECE_EDGE.finditer(text):
        if len(edges) >= MAX_PIECES:
            break
        edges += [m.start(), m.end()]
    edges.append(len(text))
    return [(edges[i], edges[i + 1]) for i in range(0, len(edges) - 1, 2)]


def _items(sentence: str, kind: str) -> list[tuple[NumberMention, frozenset[str], str]] | None:
    """The items of a list's sentence for figures of ``kind``: each figure with its item's words (those no other
    item has, less the sentence's frame); None where the sentence lists fewer than two such figures or a piece holds
    two."""
    figures = [n for n, k in _figures(sentence) if k == kind]
    if len(figures) < 2:
        return None
    frame = _words(sentence[:figures[0].start])
    raw = []
    for a, b in _pieces(sentence):
        inside = [n for n in figures if a <= n.start < b]
        if len(inside) > 1:
            return None
        if inside:
            raw.append((inside[0], _words(sentence[a:b]) - frame, sentence[a:b].strip(" .")))
    items = []
    for i, (n, words, piece) in enumerate(raw):
        others = set().union(*(w for j, (_, w, _) in enumerate(raw) if j != i))
        items.append((n, frozenset(words - others), piece))
    return items


def _names(item: frozenset[str], words: set[str]) -> bool:
    shared = len(item & words)
    return bool(item) and (shared == len(item) or (len(item) >= 3 and shared >= ITEM_SHARE * len(item)))


def _said_with(value: float, kind: str, item_words: frozenset[str], sources: Sequence[str]) -> bool:
    """Whether a passage gives the figure in a piece of a sentence that has the item's words."""
    for text in sources:
        for sentence, terms in source_sentences(text)[:SENTENCES_SEARCHED]:
            if not item_words <= terms:
                continue
            for a, b in _pieces(sentence):
                piece = sentence[a:b]
                if item_words <= _words(piece) and any(n.value == value and k == kind for n, k in _figures(piece)):
                    return True
    return False


def figures_listed_otherwise(text: str, sources: Sequence[str], context_numbers: frozenset[float] | set[float]
                             ) -> list[tuple[int, int, str]]:
    """The claim's figures (offsets in ``text``) that a list's sentence of the passages gives another item, while
    the item the claim names has another figure there, with the reason in words."""
    if _TOGETHER.search(text):
        return []  # figures given together, a share of a whole, a range: each item is not said apart
    ours = _figures(text)
    if not ours:
        return []
    values = {(n.value, k) for n, k in ours}
    out: list[tuple[int, int, str]] = []
    for a, b in _pieces(text):
        inside = [(n, k) for n, k in ours if a <= n.start < b]
        if len(inside) != 1 or inside[0][0].value not in context_numbers:
            continue
        n, kind = inside[0]
        words = _words(text[a:b])
        found = _listed_with(n, kind, words, values, sources)
        if found is None and sum(k == kind for _, k in ours) == 1:
            # the claim's one figure of its kind, its item named in another piece: "If you miss a check-up ...,
            # you'll be charged £50" of "charged £25 for a check-up or £50 for a longer treatment"
            found = _listed_with(n, kind, _words(text), values, sources)
        if found:
            out.append((n.start, n.end, f"{text[a:b].strip(' .')} where the passage has {found}"))
    return out


def _listed_with(n: NumberMention, kind: str, words: set[str], values: set[tuple[float, str]],
                 sources: Sequence[str]) -> str | None:
    """The piece of a list's sentence (its item and figure) that the claim's piece names, where its figure is another
    than the claim's (None for none)."""
    read = 0
    for text in sources:
        for sentence, terms in source_sentences(text):
            if read >= MAX_SENTENCES:
                return None
            if not words & terms or sum(t[:1].isdigit() for t in terms) < 2:
                continue  # no word of the claim's piece, or fewer than two numbers: no list of its figure
            items = _items(sentence, kind)
            if items is None:
                continue
            read += 1
            named = [(m, item, piece) for m, item, piece in items if item & words]
            if len(named) != 1 or not _names(named[0][1], words):
                continue
            m, item, piece = named[0]
            if m.value == n.value or (m.value, kind) in values:
                continue
            if _said_with(n.value, kind, item, sources) or _restates_another(words, terms, n.value, kind, sources):
                continue
            return piece
    return None


def _restates_another(words: set[str], list_terms: frozenset[str] | set[str], value: float, kind: str,
                      sources: Sequence[str]) -> bool:
    """Whether a passage sentence that gives the claim's figure shares more of the claim's piece's ``words`` than the
    list's sentence does: "the £35 one-off set-up charge is dropped for 18-month contracts" restates "There is a
    one-off set-up fee of £35 on the rolling plan; it is waived on the 18-month contract", not the list of monthly
    prices "on an 18-month contract, or ... on a 30-day rolling plan"."""
    listed = len(words & list_terms)
    for text in sources:
        for sentence, terms in source_sentences(text)[:SENTENCES_SEARCHED]:
            if len(words & terms) > listed and any(m.value == value and k == kind for m, k in _figures(sentence)):
                return True
    return False
