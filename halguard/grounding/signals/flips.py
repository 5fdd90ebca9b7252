"""Antonym flips in a claim's aligned propositions: "profit rose" where its evidence says "Net profit fell".

The claim is read against its closest evidence sentence as a whole; where the claim or the sentence holds both sides
of a pair ("revenue rose, but profit fell": no flip for the whole), clause by clause against the clauses of its
evidence chunks (:func:`claim_flips`). A flip counts only in an aligned proposition: at least ``aligned_overlap`` of
the clause's other content words in the evidence clause it flips. The lexicon of opposites is
:mod:`halguard.grounding.signals.antonyms`. Bounded: :data:`_MAX_CLAUSES` clauses of a claim, four times as many of
each evidence chunk.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from halguard.grounding.scoring import ScoringWeights
from halguard.grounding.signals.antonyms import antonym_flips, lexicon_side
from halguard.grounding.signals.closest import shared_share
from halguard.text.clock import clock_times
from halguard.text.lexical import content_terms, negated_terms, stem, term_set, word_spans

__all__ = ["claim_flips", "clauses"]


# What ends a clause for the antonym's proposition: ",", ";", ":", a dash, or a coordinating "and" / "but".
_CLAUSE_EDGE = re.compile(r"[,;:()]|\s[-–—]\s|\b(?:and|but|while|whereas)\b", re.IGNORECASE)


def _clause_terms(text: str, start: int, end: int) -> set[str]:
    """The content-word stems of the clause of ``text`` around ``text[start:end]`` ("..., and *weakened* its balance
    sheet by drawing down on its revolver": the proposition the antonym is in, not the whole compound sentence)."""
    left = max((m.end() for m in _CLAUSE_EDGE.finditer(text, 0, start)), default=0)
    right = next((m.start() for m in _CLAUSE_EDGE.finditer(text, end)), len(text))
    return {st for _, _, st in content_terms(text[left:right])}


def claim_flips(text: str, chunks: Sequence[str], closest: str, closest_terms: set[str], weights: ScoringWeights,
                similarity: float) -> list[tuple[int, int]]:
    """The claim's antonym flips against its closest evidence sentence, each in an aligned proposition; where the
    claim or the sentence holds both sides of a pair ("revenue rose, but profit fell": no flip for the whole), each
    clause of the claim against the clauses of its evidence ``chunks`` it aligns with best ("profit rose" against
    "Net profit fell"; "a net loss of 312 million" against "a net profit of 312 million, compared with a loss of 45
    million"; a fused claim's clause against its second chunk's). None where the evidence is less than the
    ``antonym_gate`` of ``weights`` similar (``similarity``)."""
    if similarity < weights.antonym_gate:  # an antonym is read only against evidence this similar
        return []
    aligned_overlap = weights.aligned_overlap
    negated = negated_terms(text)  # "does not open" against "is closed" is no flip: the negation turns it back
    flips = [(s, e) for s, e in antonym_flips(text, closest, negated_terms(closest)) if stem(text[s:e]) not in negated
             and _aligned_without(text[s:e], _clause_terms(text, s, e), closest_terms, aligned_overlap)]
    if flips:
        return flips
    ours = clauses(text)
    theirs = [(clause, term_set(clause)) for clause in dict.fromkeys(
        clause for chunk in chunks for _, clause in clauses(chunk, limit=_MAX_CLAUSES * 4))]
    for left, clause in ours:
        terms = {st for _, _, st in content_terms(clause)}
        most = max((len(terms & their_terms) for _, their_terms in theirs), default=0)
        # Every evidence clause that shares the most words is this clause's counterpart: "the boiling point falls"
        # and "Water boils at sea level" share two words each with "The boiling point of water rises".
        for best, best_terms in (c for c in theirs if most and len(terms & c[1]) == most):
            flips += [(left + s, left + e) for s, e in antonym_flips(clause, best, negated_terms(best))
                      if stem(clause[s:e]) not in negated
                      and _aligned_without(clause[s:e], terms, best_terms, aligned_overlap)
                      and (left + s, left + e) not in flips and not _restated(text, left, clause, s, e)
                      and not _hours_given(clause[s:e], clause, best)]
    return flips


def _hours_given(word: str, clause: str, evidence: str) -> bool:
    """Whether ``word`` opens or closes, said with a time of day in a clause whose evidence clause gives times too:
    "closing at 6pm Monday to Thursday" against "opens 8am to 6pm Monday to Thursday" is that range's end (the hours
    are :mod:`.prose_hours`' to read), no "open" turned "closed"."""
    side = lexicon_side(word)
    return (side is not None and side[0] == _OPEN_CLOSED and bool(clock_times(clause))
            and bool(clock_times(evidence)))


_OPEN_CLOSED = (lexicon_side("open") or (-1, -1))[0]


# An appositive that names the clause before it: "profit dropped 3%, *a decline* the company blamed on pricier cocoa".
_APPOSITIVE = re.compile(r"\s*(?:a|an|the|this|that)\s+$", re.IGNORECASE)


def _restated(text: str, left: int, clause: str, start: int, end: int) -> bool:
    """Whether the word at ``start:end`` of ``clause`` (at ``left`` in ``text``) opens an appositive naming the
    movement of the words before it ("dropped 3%, a decline ..."): a word of its side is in the text before the clause,
    so the word is that movement's, read with it, not with the clause's other words ("blamed on higher prices")."""
    side = lexicon_side(clause[start:end])
    return (side is not None and _APPOSITIVE.fullmatch(clause[:start]) is not None
            and any(lexicon_side(text[a:b]) == side for a, b in word_spans(text[:left])))


# What ends a clause when a claim is read clause by clause: _CLAUSE_EDGE, a sentence's end, and the subordinating
# words that join two propositions ("profit fell *as* costs rose", "*because of* higher costs").
_CLAUSE_JOIN = re.compile(r"[,;:()]|[.!?]\s|\s[-–—]\s|\b(?:and|but|while|whereas|as|because|since|although|though)\b",
                          re.IGNORECASE)


def clauses(text: str, limit: int = 0) -> list[tuple[int, str]]:
    """The clauses of ``text`` with where each starts (at most ``limit``, default :data:`_MAX_CLAUSES`)."""
    edges = [0]
    for m in _CLAUSE_JOIN.finditer(text):
        if len(edges) > (limit or _MAX_CLAUSES):
            break
        edges.append(m.end())
    edges.append(len(text))
    return [(a, text[a:b]) for a, b in zip(edges, edges[1:]) if text[a:b].strip()]


# The most clauses of one claim read one by one for antonym flips (a crafted claim of a thousand commas is not).
_MAX_CLAUSES = 8


def _aligned_without(word: str, claim_terms: set[str], closest_terms: set[str], aligned_overlap: float) -> bool:
    """Whether the claim's clause (``claim_terms``), but for ``word`` (an antonym of the evidence's), states what its
    closest evidence sentence states: at least ``aligned_overlap`` of its other content words are there. "The
    mimosas are available at a low cost" against "Bottomless mimosas cost $15" shares one word: no proposition to
    flip."""
    rest = claim_terms - term_set(word)
    return bool(rest) and shared_share(rest, closest_terms) >= aligned_overlap
