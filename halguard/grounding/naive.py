"""The naive baseline the benchmarks compare against: similarity alone, no rules."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from halguard.detector import Detector
from halguard.grounding.embedding import LocalEmbedder
from halguard.grounding.index import EvidenceIndex
from halguard.schema import Verdict
from halguard.text.contexts import chunk_source, normalize_contexts
from halguard.text.segment import split_sentences

__all__ = ["NaiveSimilarity"]


class NaiveSimilarity(Detector):
    """Baseline: risk = 1 - the best MiniLM similarity of the answer's weakest sentence; no rules."""

    name = "naive-minilm-similarity"
    threshold = 0.5

    def __init__(self, *, embedder: LocalEmbedder | None = None) -> None:
        self.embedder = embedder if embedder is not None else LocalEmbedder.shared()

    def warm_up(self) -> float:
        _ = self.embedder.model
        return self.embedder.load_seconds

    def verify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        t0 = time.perf_counter()
        sentences = [answer[s:e] for s, e in split_sentences(answer)] or [answer]
        chunks = [c.text for src in normalize_contexts(contexts) for c in chunk_source(src.text)] or [""]
        vecs, _ = self.embedder.encode(chunks + sentences)
        sims, _ = EvidenceIndex(vecs[: len(chunks)]).search(vecs[len(chunks) :], 1)
        risk = float(np.clip(1 - sims[:, 0].min(), 0, 1))
        return Verdict(label="hallucinated" if risk >= self.threshold else "supported",
                       hallucination_detected=risk >= self.threshold, score=risk, threshold=self.threshold,
                       detector=self.name, latency_ms=(time.perf_counter() - t0) * 1000)
