"""Which evidence chunks are worth embedding: a lexical pass over the whole context, before any model runs.

Embedding every sentence and window of a fresh context is most of a check's cost. Most chunks share no word with
any claim; the ones that can be a claim's best evidence almost always share its rarer words (names, numbers,
content words). Per claim, chunks are scored by the inverse document frequency of the terms they share with it
(BM25-like, without length normalisation: chunks are already short) and the best ``per_claim`` are kept; the
union over the claims is embedded and searched.

The pass only narrows what is *embedded*. The lexical signals (names, numbers, records, verbatim copies) still
read the whole context. When some claim shares no term with any chunk, nothing is pruned for that answer: the
claim's evidence can then only be found by meaning, so every chunk is embedded as before.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Sequence

from halguard.text.lexical import STOPWORDS, stem, word_spans
from halguard.text.segment import check_deadline

__all__ = ["candidate_chunks", "key_terms"]


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


def candidate_chunks(claims: Sequence[str], chunks: Sequence[str], per_claim: int, *,
                     deadline: float | None = None) -> list[int] | None:
    """Indices (ascending) of the chunks to embed for ``claims``, or None to embed them all.

    None when pruning could lose evidence (a claim with no term in common with any chunk) or would not save
    anything (the union is every chunk). ``deadline`` (``time.monotonic()``): checked per claim, raising
    :class:`~halguard.text.segment.BudgetExceeded` when it has passed.
    """
    postings: dict[str, list[int]] = defaultdict(list)  # term -> the chunks that have it
    for i, chunk in enumerate(chunks):
        for t in key_terms(chunk):
            postings[t].append(i)
    n = len(chunks)
    keep: set[int] = set()
    for claim in claims:
        check_deadline(deadline)
        scores: dict[int, float] = defaultdict(float)
        for t in key_terms(claim):
            hits = postings.get(t)
            if hits:
                idf = math.log(1 + n / len(hits))
                for i in hits:
                    scores[i] += idf
        if not scores:
            return None
        # Ties go to the earlier chunk, so the choice does not depend on dict order.
        keep.update(i for i, _ in heapq.nsmallest(per_claim, scores.items(), key=lambda kv: (-kv[1], kv[0])))
    if len(keep) >= n:
        return None
    return sorted(keep)
