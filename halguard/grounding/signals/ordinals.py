"""Ordinals the passages give otherwise: "It is the first strike this year" where they write "the third strike".

An ordinal is no number (:func:`halguard.text.lexical.number_mentions` reads none), so the number checks never see
it; which one it is, is the fact. Read as a changed number by :mod:`.measure`.
"""

from __future__ import annotations

import re

from halguard.grounding.signals.scope import Scope
from halguard.text.lexical import content_terms, entity_mentions, stem

__all__ = ["changed_ordinals"]

Span = tuple[int, int]

_ORDINAL_WORDS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth"
# An ordinal and the word it numbers ("the third strike", "in the first half"); bounded: two words, no nesting.
_ORDINAL = re.compile(rf"\b({_ORDINAL_WORDS})[ \t-]+([^\W\d_]+)", re.IGNORECASE)
# What ends a clause around an ordinal: punctuation, a coordinating word.
_CLAUSE_EDGE = re.compile(r"[,;:.!?()]|\b(?:and|but|while|whereas)\b", re.IGNORECASE)
# Characters either side of an ordinal read for its clause (a clause is short; a crafted one is not read whole).
_CLAUSE_CHARS = 200
# Ordinals read per claim, and per thing in the passages (a crafted text of thousands is read up to here).
_MAX_ORDINALS = 16


def changed_ordinals(text: str, scope: Scope) -> list[Span]:
    """Ordinals of the claim that the passages give to the same thing otherwise: "It is the first strike this year"
    where they write "It is the third strike this year" and never "first strike". An ordinal is no number
    (:func:`missing_numbers` reads none), but which one it is is the fact. The two must say the same proposition:
    at least half of the other content words of the claim's clause stand in the passage's ("Otávio scored a third in
    the second half" is not "Mehdi Taremi scored twice in the first half"). A thing the passages number with no
    ordinal, or with the claim's own, decides nothing."""
    ours = [(m.start(1), m.end(1), m.group(1).lower(), stem(m.group(2)))
            for m, _ in zip(_ORDINAL.finditer(text), range(_MAX_ORDINALS))]
    if not ours:
        return []
    nouns = {noun for *_, noun in ours}
    theirs: dict[str, list[tuple[str, set[str], set[str]]]] = {}
    for src in scope.sources:
        for m in _ORDINAL.finditer(src.text):
            noun = stem(m.group(2))
            told = theirs.setdefault(noun, []) if noun in nouns else None
            if told is not None and len(told) < _MAX_ORDINALS:
                terms, names = _clause_terms(src.text, m.start()), _apposed_names(src.text, m.start())
                told.append((m.group(1).lower(), terms, names))
                # and the ordinals that number the same thing after it in its sentence, the noun left out: "The first
                # permit costs $45 and the second costs $90" numbers a second permit
                told.extend((o.group(1).lower(), terms, names) for o, _ in zip(
                    _ELIDED.finditer(src.text, m.end(), _sentence_end(src.text, m.end())), range(_MAX_ORDINALS)))
    found = []
    for s, e, ordinal, noun in ours:
        told = theirs.get(noun, [])
        if not told or any(o == ordinal for o, *_ in told):
            continue
        clause = _clause_terms(text, s) - {ordinal, noun}
        if clause and any(len(clause & terms) * 2 >= len(clause) for _, terms, _ in told):
            found.append((s, e))
        elif len(clause) <= _APPOSITION_WORDS and (named := _apposed_names(text, s)) and any(
                named & names for *_, names in told):
            found.append((s, e))  # the same named thing: "'Saltwater Clocks', the band's fifth album"
    return found


# An ordinal whose noun is left out, after "the" ("and the second costs $90", "the third is free").
_ELIDED = re.compile(rf"\bthe\s{{1,3}}({_ORDINAL_WORDS})\b(?![ \t-]+(?:{_ORDINAL_WORDS})\b)", re.IGNORECASE)

_SENTENCE_STOP = re.compile(r"[.!?;](?:\s|$)")


def _sentence_end(text: str, at: int) -> int:
    """Where the sentence of ``text`` that goes on at ``at`` ends (within :data:`_CLAUSE_CHARS`)."""
    end = min(len(text), at + _CLAUSE_CHARS)
    stop = _SENTENCE_STOP.search(text, at, end)
    return stop.start() if stop else end


# A claim's clause of at most this many other content words around its ordinal is an apposition ("the band's fifth
# album"): what it numbers is the name beside it, which the passage's ordinal must have beside it too ("their fourth
# album, 'Saltwater Clocks'"), since such a clause shares too few words to say the same proposition by itself.
_APPOSITION_WORDS = 2


def _apposed_names(text: str, at: int) -> set[str]:
    """The stems of the names in the clauses of ``text`` either side of the clause around offset ``at``."""
    left, right = _clause_bounds(text, at, reach=2)
    window = text[left:right]
    return {st for s, e in entity_mentions(window) for _, _, st in content_terms(window[s:e])}


def _clause_terms(text: str, at: int) -> set[str]:
    """The content-word stems of the clause of ``text`` around offset ``at``."""
    left, right = _clause_bounds(text, at)
    return {st for _, _, st in content_terms(text[left:right])}


def _clause_bounds(text: str, at: int, reach: int = 1) -> tuple[int, int]:
    """Where the clause of ``text`` around offset ``at`` starts and ends (:data:`_CLAUSE_EDGE`, within
    :data:`_CLAUSE_CHARS` either side); with ``reach`` 2, the clauses either side of it too."""
    lo, hi = max(0, at - _CLAUSE_CHARS), min(len(text), at + _CLAUSE_CHARS)
    before = [m.end() for m in _CLAUSE_EDGE.finditer(text, lo, at)]
    after = [m.start() for m, _ in zip(_CLAUSE_EDGE.finditer(text, at, hi), range(reach))]
    return (before[-reach] if len(before) >= reach else lo), (after[reach - 1] if len(after) >= reach else hi)
