"""Counts a claim gives of its own lists: "his two predecessors, John Paul II and Benedict XVI", "the three winners:
A, B and C". The count is the claim's own reckoning, not a number to find in the passages; the listed items are
checked as names and words. Bounded: at most :data:`MAX_LISTED` items of at most :data:`MAX_ITEM_WORDS` words, each
found by a search of at most 80 characters.
"""

from __future__ import annotations

import re

from halguard.text.lexical import number_mentions

__all__ = ["MAX_ITEM_WORDS", "MAX_LISTED", "listed_counts"]

# A count the claim gives its own list of: "his two predecessors, John Paul II and Benedict XVI", "the three
# winners: A, B and C". The number (2 to MAX_LISTED), at most three words, then a comma, colon or parenthesis and a
# list of short items (at most MAX_ITEM_WORDS words each) closed by "and" or "or".
MAX_LISTED = 12
MAX_ITEM_WORDS = 5
# A list after a colon may be of clauses: at most MAX_CLAUSE_WORDS words each, in at most MAX_CLAUSE_LIST characters.
MAX_CLAUSE_WORDS = 12
MAX_CLAUSE_LIST = 300
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_CLAUSE_SEPARATOR = re.compile(r"\s*[,;]\s*(?:and\s+|or\s+)?")
_LAST_ITEM = re.compile(r"\s+(?:and|or)\s+")
_LIST_OPENING = re.compile(r"(?:\s+[^\W\d_][\w'-]*){1,3}\s*[,:(]\s*")
_LIST_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
_LIST_END = re.compile(r"[,;.:!?()\n]|\s+(?:and|or)\s+")


def listed_counts(text: str) -> set[float]:
    """The numbers of ``text`` that count a list the text itself gives right after them ("his two predecessors, John
    Paul II and Benedict XVI"): the count is the claim's own reckoning, and the listed items are checked as names and
    words."""
    counted: set[float] = set()
    for m in number_mentions(text):
        if not 2 <= m.value <= MAX_LISTED or m.value != int(m.value) or m.is_percent:
            continue
        opening = _LIST_OPENING.match(text, m.end)
        if opening is not None and m.value in (_list_length(text, opening.end()), _clause_list_length(text, opening)):
            counted.add(float(m.value))
    return counted


def _clause_list_length(text: str, opening: re.Match[str]) -> int:
    """How many clauses the list after a colon opening has ("two changes: no 10:30 sailing on Tuesdays and
    Wednesdays, and an earlier last departure"), split at its commas and semicolons (at its "and" or "or" only where
    it has none), to the sentence's end; 0 unless every clause has at most :data:`MAX_CLAUSE_WORDS` words."""
    if not opening.group(0).rstrip().endswith(":"):
        return 0
    end = _SENTENCE_END.search(text, opening.end(), min(len(text), opening.end() + MAX_CLAUSE_LIST))
    body = text[opening.end():end.start() if end else opening.end() + MAX_CLAUSE_LIST]
    clauses = _CLAUSE_SEPARATOR.split(body) if _CLAUSE_SEPARATOR.search(body) else _LAST_ITEM.split(body)
    return len(clauses) if all(0 < len(c.split()) <= MAX_CLAUSE_WORDS for c in clauses) else 0


def _list_length(text: str, start: int) -> int:
    """How many items the list at ``start`` has, up to and including the one after its "and" or "or" (0 if none)."""
    items, position, closing = 0, start, False
    for _ in range(MAX_LISTED + 1):
        end = _LIST_END.search(text, position, min(len(text), position + 80))
        stop = end.start() if end else min(len(text), position + 80)
        item = text[position:stop].strip()
        if not item or len(item.split()) > MAX_ITEM_WORDS:
            return 0
        items += 1
        if closing:
            return items
        separator = _LIST_SEPARATOR.match(text, stop) if end else None
        if separator is None:
            return 0
        closing = bool(re.search(r"\b(?:and|or)\b", separator.group(0)))
        position = separator.end()
    return 0
