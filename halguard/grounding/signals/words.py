"""Words, names and numbers of a claim found nowhere in its scope (the context and the question)."""

from __future__ import annotations

from collections.abc import Collection

from halguard.grounding.signals.scope import Scope, word_string
from halguard.text.dates import month_of
from halguard.text.lexical import content_terms, entity_mentions, is_enumerator, is_number_word, number_mentions, stem
from halguard.text.mentions import mentioned, strip_titles
from halguard.text.wordnet import licensed

__all__ = ["found_names", "missing_names", "missing_numbers", "novel_terms"]

Span = tuple[int, int]


def novel_terms(terms: list[tuple[int, int, str]], scope: Scope, text: str, nearby: Collection[str],
                names: Collection[Span] = ()) -> list[Span]:
    """Content words (by stem) of the claim ``text`` that the scope never uses, not even in other words.

    A word is said in other words when a word of its evidence (``nearby``: stems of the claim's closest evidence)
    licenses it (:mod:`halguard.text.wordnet`: "staff" by "personnel", "died" by "death"). Only the evidence, not
    the whole scope: a word far away is too often another sense ("accounted for" would license "record"). A number
    word ("eight", "thousand") is no word to look up: it is a number, which :func:`missing_numbers` compares by
    value ("eight" / "8"). Words of the ``names`` the passages mention (:func:`found_names`: "California" for a
    record's "CA") are the names' finding, not words to look up.
    """
    return [(s, e) for s, e, st in terms
            if not _found(text[s:e], st, scope.terms) and not is_number_word(text[s:e]) and not licensed(st, nearby)
            and not any(a <= s and e <= b for a, b in names)]


def found_names(text: str, scope: Scope) -> list[Span]:
    """The names (capitalised runs) of ``text`` that the scope mentions: every one :func:`missing_names` does not
    report."""
    missing = set(missing_names(text, scope))
    return [sp for sp in entity_mentions(text) if sp not in missing]


def _found(word: str, word_stem: str, terms: frozenset[str]) -> bool:
    """Whether the scope uses the word: by its stem, or a month's short name by the month's name ("Dec.")."""
    if word_stem in terms:
        return True
    month = month_of(word)
    return month is not None and stem(month) in terms


def missing_names(text: str, scope: Scope) -> list[Span]:
    """Names (capitalised runs) of which fewer than half the words, or none, appear in the scope, and that the
    passages do not mention in another form either (:func:`halguard.text.mentions.mentioned`: a code, an
    acronym, a demonym, a spelling variant; a title is not part of the name)."""
    found = []
    for s, e in entity_mentions(text):
        name = strip_titles(text[s:e])
        if not name:
            continue  # a title alone ("Rep.") names no one
        words = content_terms(name)
        if not words:
            # A name of short words only ("Wi-Fi", "Li Na", "V DC") has no content term to look up: it is found
            # when its words stand together, in order, in some source.
            if not _stands_in_a_source(name, scope) and not _mentioned(name, scope):
                found.append((s, e))
            continue
        present = sum(1 for s2, e2, st in words if _found(name[s2:e2], st, scope.terms))
        if (present * 2 < len(words) or present == 0) and not _mentioned(name, scope):
            found.append((s, e))
    return found


def _mentioned(name: str, scope: Scope) -> bool:
    return mentioned(name, [src.text for src in scope.sources], scope.terms)


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
            if m.is_percent:  # a fraction's percentage, also whole: "a third" is the context's "33%"
                values.add(float(round(m.alt)))
        if not values & scope.numbers and not values & computed:
            found.append((m.start, m.end))
    return found
