"""Nearest-evidence search: exact inner product over unit vectors, with faiss when there are many chunks."""

from __future__ import annotations

import numpy as np

__all__ = ["EvidenceIndex"]


class EvidenceIndex:
    """Top-k search over chunk embeddings.

    Below ``faiss_min`` chunks a numpy matrix product is faster than building an index; above it, a
    ``faiss.IndexFlatIP`` (exact, so results are the same either way) keeps large contexts fast.
    """

    def __init__(self, embeddings: np.ndarray, *, faiss_min: int = 256) -> None:
        self.embeddings = np.ascontiguousarray(embeddings, dtype=np.float32)
        self._faiss = None
        if len(self.embeddings) >= faiss_min:
            try:
                import faiss
            except ImportError:  # numpy is exact too, only slower
                faiss = None
            if faiss is not None:
                index = faiss.IndexFlatIP(self.embeddings.shape[1])
                index.add(self.embeddings)
                self._faiss = index

    @property
    def uses_faiss(self) -> bool:
        return self._faiss is not None

    def __len__(self) -> int:
        return len(self.embeddings)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Return (similarities, chunk indices), each of shape (len(queries), min(k, len(self)))."""
        k = min(k, len(self))
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        if k == 0 or len(queries) == 0:
            return np.zeros((len(queries), 0), np.float32), np.zeros((len(queries), 0), np.int64)
        if self._faiss is not None:
            sims, idx = self._faiss.search(queries, k)
            return sims, idx
        sims = queries @ self.embeddings.T
        idx = np.argsort(-sims, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(sims, idx, axis=1), idx
