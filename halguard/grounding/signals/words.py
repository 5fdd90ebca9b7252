"""Words, names and numbers of a claim found nowhere in its scope (the context and the question)."""

from __future__ import annotations

from halguard.grounding.signals.scope import Scope, word_string
from halguard.text.lexical import content_terms, entity_mentions, is_enumerator, number_mentions

__all__ = ["missing_names", "missing_numbers", "novel_terms"]

Span = tuple[int, int]


def novel_terms(terms: list[tuple[int, int, str]], scope: Scope) -> list[Span]:
    """Content words (by stem) of the claim that the scope never uses."""
    return [(s, e) for s, e, stem in terms if stem not in scope.terms]


def missing_names(text: str, scope: Scope) -> list[Span]:
    """Names (capitalised runs) of which fewer than half the words, or none, appear in the scope."""
    found = []
    for s, e in entity_mentions(text):
        words = content_terms(text[s:e])
        if not words:
            # A name of short words only ("Wi-Fi", "Li Na", "V DC") has no content term to look up: it is found
            # when its words stand together, in order, in some source.
            if not _stands_in_a_source(text[s:e], scope):
                found.append((s, e))
            continue
        present = sum(1 for _, _, st in words if st in scope.terms)
        if present * 2 < len(words) or present == 0:
            found.append((s, e))
    return found


def _stands_in_a_source(phrase: str, scope: Scope) -> bool:
    words = word_string(phrase)
    return words.strip() != "" and any(words in word_string(src.text) for src in scope.sources)


def missing_numbers(text: str, scope: Scope, computed: set[float]) -> list[Span]:
    """Numbers of the claim that the scope does not state and that are not the result of a correct calculation
    in the claim (``computed``). List markers and passage references ("3. ...", "passage 2") are not numbers."""
    found = []
    for m in number_mentions(text):
        if is_enumerator(text, m.start, m.end):
            continue
        values = {round(m.value, 6), round(abs(m.value), 6)}
        if m.alt is not None:
            values.add(round(m.alt, 6))
        if not values & scope.numbers and not values & computed:
            found.append((m.start, m.end))
    return found
