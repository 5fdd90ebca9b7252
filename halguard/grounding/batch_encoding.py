"""One encoding for a whole batch of prepared answers: which texts are encoded, in what order, and what is done with
an encoding the time budget cut short.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from halguard.errors import InvalidInputError
from halguard.grounding.embedding import EncodeStats, LocalEmbedder
from halguard.grounding.job import Job
from halguard.schema import Usage
from halguard.text.segment import BudgetExceeded, check_deadline

__all__ = ["Encode", "PartlyEncoded", "embed_jobs", "encode_in_slices"]

# ``encode(texts, deadline, keep_partial=False) -> (vectors, stats)``: the verifier's budget-checked encoder.
Encode = Callable[..., tuple[np.ndarray, EncodeStats]]


class PartlyEncoded(BudgetExceeded):
    """The budget ran out while encoding; ``vectors[k]`` is the vector of text number ``done[k]``."""

    def __init__(self, vectors: np.ndarray, done: list[int], stats: EncodeStats) -> None:
        super().__init__("the time budget ran out while encoding")
        self.vectors, self.done, self.stats = vectors, done, stats


def embed_jobs(jobs: list[Job], encode: Encode, embedder: LocalEmbedder,
               deadline: float | None = None) -> tuple[dict[str, np.ndarray], Usage]:
    """One encoding for every chunk and claim window of the batch (the retriever's vectors where usable).

    Args:
        jobs: The prepared answers.
        encode: Encodes texts within the budget; with ``keep_partial=True`` it raises :class:`PartlyEncoded` with
            what it encoded before the budget ran out.
        embedder: The model the vectors come from (its dimension checks the retriever's vectors).
        deadline: ``time.monotonic()`` time the check must end by (None: no budget).

    Returns:
        Each text's vector, and the encoding's usage.

    Raises:
        InvalidInputError: A precomputed vector has another dimension than the model's.
        BudgetExceeded: The budget ran out before the evidence was encoded.
    """
    given: dict[str, np.ndarray] = {}
    for job in jobs:
        for text, vec in job.given.items():
            given.setdefault(text, vec)
    chunk_texts = list(dict.fromkeys(ch.text for job in jobs for _, ch in job.chunks if ch.text not in given))
    chunk_set = set(chunk_texts)
    window_texts = list(dict.fromkeys(w for job in jobs for ws in job.windows for w in ws
                                      if w not in given and w not in chunk_set))
    # The evidence first, whole (a claim is only ever judged against all of it), then the claims' windows. A
    # budget that runs out among the windows leaves the claims encoded in full so far: enough to flag an
    # answer whose claims are already unsupported (see LocalVerifier._measure_claims), never to call one supported.
    vecs, stats = encode(chunk_texts, deadline)
    texts = chunk_texts
    try:
        window_vecs, window_stats = encode(window_texts, deadline, keep_partial=True)
    except PartlyEncoded as cut:
        window_texts, window_vecs, window_stats = [window_texts[j] for j in cut.done], cut.vectors, cut.stats
    if len(window_texts):
        vecs = np.vstack([vecs, window_vecs]) if len(texts) else window_vecs
        texts = texts + window_texts
        stats = EncodeStats(computed=stats.computed + window_stats.computed,
                            cached=stats.cached + window_stats.cached,
                            batches=stats.batches + window_stats.batches)
    dim = vecs.shape[1] if len(texts) else embedder.dimension
    wrong = next((v for v in given.values() if len(v) != dim), None)
    if wrong is not None:
        msg = (
            f"a precomputed embedding has {len(wrong)} dimensions but {embedder.model_name} makes {dim}: "
            "the vectors come from another model than the one named in embedding_model"
        )
        raise InvalidInputError(msg)
    usage = Usage(model_calls=stats.batches, embedded_texts=stats.computed, cached_texts=stats.cached,
                  precomputed_texts=len(given))
    return {**given, **dict(zip(texts, vecs))}, usage


def encode_in_slices(embedder: LocalEmbedder, texts: list[str], deadline: float | None, keep_partial: bool = False, *,
                     batch_size: int, num_threads: int | None) -> tuple[np.ndarray, EncodeStats]:
    """Encode in slices, checking the time budget between them (what was encoded stays in the cache).

    With a budget, the slices are single batches (``batch_size`` texts), shortest texts first so each batch pads
    to similar lengths: the budget is checked between batches, so one batch is the most a check overruns it by.
    Eight texts of 256 word pieces take about 0.3 s on one idle core and under 2 s on a machine loaded 2.5
    times over (issue 25: slices of 64 such texts once took 20 s there, and a check ran 27 s on a 10 s budget).
    With ``keep_partial``, a budget that runs out after the first batch raises :class:`PartlyEncoded` with the
    texts encoded so far, instead of losing them.
    """
    step = batch_size
    if deadline is None or len(texts) <= step:
        check_deadline(deadline)
        return embedder.encode(texts, batch_size=batch_size, num_threads=num_threads)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    parts, total = [], EncodeStats()
    for i in range(0, len(order), step):
        try:
            check_deadline(deadline)
        except BudgetExceeded:
            if not keep_partial or not parts:
                raise
            raise PartlyEncoded(np.vstack(parts), order[:i], total) from None
        vecs, stats = embedder.encode([texts[j] for j in order[i : i + step]], batch_size=batch_size,
                                      num_threads=num_threads)
        parts.append(vecs)
        total.computed += stats.computed
        total.cached += stats.cached
        total.batches += stats.batches
    out = np.empty((len(texts), parts[0].shape[1]), dtype=parts[0].dtype)
    out[order] = np.vstack(parts)
    return out, total
