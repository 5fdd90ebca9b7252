"""Strict citation checks: does the source a claim cites support it, or only another source?"""

from __future__ import annotations

import numpy as np

from halguard.grounding.scoring import ScoringWeights
from halguard.grounding.signals.measure import measure_claim
from halguard.grounding.signals.scope import scope_of
from halguard.schema import EvidenceRef
from halguard.text.claims import Claim
from halguard.text.contexts import Chunk, Source

__all__ = ["miscited"]


def miscited(claim: Claim, cited: list[str | None], *, sources: list[Source], chunks: list[tuple[int, Chunk]],
             question: str | None, claim_vectors: np.ndarray, chunk_vectors: np.ndarray,
             evidence: list[EvidenceRef], claims_in_answer: int, weights: ScoringWeights,
             threshold: float) -> str | None:
    """Why the claim's citations are wrong, or None when the sources it cites support it.

    The claim is scored again against its cited sources alone (same signals, same weights): the citation is
    wrong when that score would flag the claim, which the whole context does not. A marker naming no source
    at all is wrong too. ``chunks`` are (source index, chunk) pairs, ``chunk_vectors`` their embeddings in order.
    """
    labels = ", ".join(f"[{lab}]" for lab in claim.citations)
    if any(c is None for c in cited):
        unknown = ", ".join(f"[{lab}]" for lab, c in zip(claim.citations, cited) if c is None)
        return f"cites {unknown}, which names none of the {len(sources)} sources"
    wanted = set(cited)
    rows = [k for k, (i, _) in enumerate(chunks) if sources[i].id in wanted]
    sims = claim_vectors @ chunk_vectors[rows].T  # windows x cited chunks
    best_per_window = sims.max(axis=1)
    weakest = int(np.argmin(best_per_window))
    best = chunks[rows[int(np.argmax(sims[weakest]))]][1]
    scope = scope_of([src for src in sources if src.id in wanted], question)
    signals = measure_claim(claim, float(best_per_window[weakest]), best.text, scope, weights)
    if weights.risk(signals, claims_in_answer=claims_in_answer) < threshold:
        return None
    elsewhere = evidence[0].source_id if evidence else "another source"
    return f"the cited source {labels} does not support this claim; the best evidence is in source {elsewhere}"
