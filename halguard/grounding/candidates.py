"""Which evidence chunks are worth embedding: a lexical pass over the whole context, before any model runs.

Embedding every sentence and window of a fresh context is most of a check's cost. Most chunks share no word with
any claim; the ones that can be a claim's best evidence almost always share its rarer words (names, numbers,
content words). Per claim, chunks are scored by the inverse document frequency of the terms they share with it
(BM25-like, without length normalisation: chunks are already short) and the best ``per_claim`` are kept; the
union over the claims is embedded and searched.

The pass only narrows what is *embedded*. The lexical signals (names, numbers, records, verbatim copies) still
read the whole context. A claim that shares no term with any chunk can only find its evidence by meaning: its
candidates are the chunks closest to it by ``by_meaning``, a cheap stand-in for the model (the mean of the model's
own input vectors of the words: :meth:`~halguard.grounding.embedding.LocalEmbedder.word_vector_ranker`). Without
one, nothing is pruned for that answer and every chunk is embedded.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Callable, Sequence

from halguard.text.lexical import STOPWORDS, stem, word_spans
from halguard.text.segment import check_deadline

__all__ = ["MEANING_SHARE", "candidate_chunks", "key_terms", "lexical_ranker"]


def key_terms(text: str, *, ignore: frozenset[str] = frozenset()) -> frozenset[str]:
    """The terms a chunk and a claim are matched on: stems of content words, and numbers as written; words in
    ``ignore`` (lower case, as written) are left out like stop words."""
    out = set()
    for s, e in word_spans(text):
        w = text[s:e].lower()
        if w in STOPWORDS or w in ignore or (len(w) < 3 and not w.isdigit()):
            continue
        out.add(w if w[0].isdigit() else stem(w))
    return frozenset(out)


MEANING_SHARE = 0.5
"""A claim that shares no term with the context gets this share of ``per_claim`` chunks, ranked by meaning. Its
words are all missing from the context whatever its closest chunks say, so a few of them measure its similarity
as well as more would; on issue 29's shape (10 KB of shuffled news sentences, a two-claim answer) 4 instead of 8
took the median first sight from 0.33 s to (see docs/evaluation.md); on the dev files the ranker changed 2 of 1,896
rows' scores (labels unchanged)."""

MeaningRanker = Callable[[Sequence[str]], Callable[[str], Sequence[float]]]
"""``by_meaning(chunks)`` returns a function giving a claim's closeness to each chunk (higher is closer)."""


def lexical_ranker(chunks: Sequence[str]) -> Callable[[str], dict[int, float]]:
    """A scorer of ``chunks`` for a claim: each chunk sharing a key term with the claim, with the sum of the shared
    terms' inverse document frequencies (chunks sharing nothing are left out). The index is built once."""
    postings: dict[str, list[int]] = defaultdict(list)  # term -> the chunks that have it
    for i, chunk in enumerate(chunks):
        for t in key_terms(chunk):
            postings[t].append(i)
    n = len(chunks)

    def scores(claim: str) -> dict[int, float]:
        found: dict[int, float] = defaultdict(float)
        for t in key_terms(claim):
            hits = postings.get(t)
            if hits:
                idf = math.log(1 + n / len(hits))
                for i in hits:
                    found[i] += idf
        return found

    return scores


def candidate_chunks(claims: Sequence[str], chunks: Sequence[str], per_claim: int, *,
                     deadline: float | None = None, by_meaning: MeaningRanker | None = None) -> list[int] | None:
    """Indices (ascending) of the chunks to embed for ``claims``, or None to embed them all.

    A claim with no term in common with any chunk gets the :data:`MEANING_SHARE` of ``per_claim`` chunks
    ``by_meaning`` ranks closest; with
    no ``by_meaning``, None (pruning could lose its evidence). None too when pruning would not save anything (the
    union is every chunk). ``deadline`` (``time.monotonic()``): checked per claim, raising
    :class:`~halguard.text.segment.BudgetExceeded` when it has passed.
    """
    ranker = lexical_ranker(chunks)
    n = len(chunks)
    keep: set[int] = set()
    unmatched: list[str] = []
    for claim in claims:
        check_deadline(deadline)
        scores = ranker(claim)
        if not scores:
            if by_meaning is None:
                return None
            unmatched.append(claim)
            continue
        # Ties go to the earlier chunk, so the choice does not depend on dict order.
        keep.update(i for i, _ in heapq.nsmallest(per_claim, scores.items(), key=lambda kv: (-kv[1], kv[0])))
    if unmatched:
        closeness = by_meaning(chunks)  # type: ignore[misc]
        for claim in unmatched:
            check_deadline(deadline)
            ranked = closeness(claim)
            keep.update(heapq.nsmallest(max(1, round(per_claim * MEANING_SHARE)), range(n),
                                        key=lambda i: (-ranked[i], i)))
    if len(keep) >= n:
        return None
    return sorted(keep)
