"""HalguardNodePostprocessor: evidence checks between retrieval and synthesis, and after it.

Before synthesis a postprocessor sees the query and the nodes, never the answer, so it checks what can be
checked there (:mod:`halguard.grounding.premise`): **query support**, how well each node backs the question's
own assumptions, and **conflicts between nodes**, closely matching sentences that give different numbers.

After synthesis, :meth:`HalguardNodePostprocessor.annotate_with_answer` records on each node which claims
of the answer it supports.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import numpy as np
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle

from halguard.api import resolve_detector
from halguard.detector import Detector
from halguard.grounding.embedding import LocalEmbedder
from halguard.grounding.premise import passage_conflicts, premise_support
from halguard.grounding.scoring import DEFAULT_PREMISE_WEIGHTS
from halguard.grounding.verifier import LocalVerifier
from halguard.schema import Verdict
from halguard.text.segment import split_sentences
from llamaindex_halguard._convert import annotate_nodes, node_text, nodes_to_contexts, with_node_metadata
from llamaindex_halguard.events import dispatch_verdict

__all__ = ["HalguardNodePostprocessor"]


def _prepare(
    nodes: list[NodeWithScore], query_bundle: QueryBundle | None
) -> tuple[str | None, list[str], list[list[str]], list[str]]:
    """The query, node texts, their sentences, and every distinct text to embed."""
    query = query_bundle.query_str if query_bundle is not None else None
    texts = [node_text(n) for n in nodes]
    sentences = [[t[s:e] for s, e in split_sentences(t)] if t.strip() else [] for t in texts]
    to_embed = [t for t in texts if t.strip()] + [s for ss in sentences for s in ss] + ([query] if query else [])
    return query, texts, sentences, list(dict.fromkeys(to_embed))


class HalguardNodePostprocessor(BaseNodePostprocessor):
    """Annotate (and optionally drop) retrieved nodes with premise-support and cross-node conflict checks.

    Findings go to ``node.metadata["halguard"]``; the key is added to ``excluded_llm_metadata_keys`` and
    ``excluded_embed_metadata_keys`` so it never reaches the prompt or the embeddings. ``score`` is never
    changed. Nodes are copied, never mutated.
    """

    min_query_support: float | None = Field(
        default=None, description="Drop nodes whose query support is below this (0..1); None keeps all."
    )
    check_conflicts: bool = Field(default=True, description="Look for numbers that differ between nodes.")
    conflict_similarity: float = Field(
        default=DEFAULT_PREMISE_WEIGHTS.conflict_similarity,
        description="Sentences at least this similar are taken to state the same thing.",
    )
    embedding_model: str | None = Field(
        default=None,
        description="The model the index was built with; when it is the local verifier's, nodes' stored "
        "embeddings are reused by annotate_with_answer instead of recomputed.",
    )
    _detector: Detector = PrivateAttr()
    _embedder: LocalEmbedder = PrivateAttr()

    def __init__(self, *, detector: Detector | None = None, embedder: LocalEmbedder | None = None,
                 **kwargs: Any) -> None:
        """Args:
            detector: Checks the answer in :meth:`annotate_with_answer` (default: the shared local verifier).
            embedder: Embeds the query and nodes (default: the local verifier's, else the shared MiniLM).
            **kwargs: The fields above (``min_query_support``, ``check_conflicts``, ...).
        """
        super().__init__(**kwargs)
        self._detector = resolve_detector(detector)
        if embedder is None:
            embedder = (self._detector.embedder if isinstance(self._detector, LocalVerifier)
                        else LocalEmbedder.shared())
        self._embedder = embedder

    @classmethod
    def class_name(cls) -> str:
        return "HalguardNodePostprocessor"

    # -- before synthesis ------------------------------------------------------------------------------

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        query, texts, sentences, to_embed = _prepare(nodes, query_bundle)
        vectors, _ = self._embedder.encode(to_embed)
        return self._annotate(nodes, query, texts, sentences, dict(zip(to_embed, vectors)))

    async def _apostprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        query, texts, sentences, to_embed = _prepare(nodes, query_bundle)
        # Encoding is CPU-bound: run it off the event loop; the rest is cheap.
        vectors, _ = await asyncio.to_thread(self._embedder.encode, to_embed)
        return self._annotate(nodes, query, texts, sentences, dict(zip(to_embed, vectors)))

    def _annotate(
        self,
        nodes: list[NodeWithScore],
        query: str | None,
        texts: list[str],
        sentences: list[list[str]],
        vec: dict[str, np.ndarray],
    ) -> list[NodeWithScore]:
        conflicts = self._conflicts(nodes, sentences, vec) if self.check_conflicts else {}
        out = []
        for nws, text in zip(nodes, texts):
            if not text.strip():
                out.append(with_node_metadata(nws, {"checked": False, "reason": "the node has no text"}))
                continue
            data: dict[str, Any] = {"checked": True, "conflicts": conflicts.get(nws.node.node_id, [])}
            if query:
                data.update(premise_support(query, text, vec).as_metadata())
                if self.min_query_support is not None and data["query_support"] < self.min_query_support:
                    continue
            out.append(with_node_metadata(nws, data))
        return out

    def _conflicts(
        self, nodes: list[NodeWithScore], sentences: list[list[str]], vec: dict[str, np.ndarray]
    ) -> dict[str, list[dict[str, Any]]]:
        """Per node id, its sentences that closely match another node's with different numbers."""
        weights = replace(DEFAULT_PREMISE_WEIGHTS, conflict_similarity=self.conflict_similarity)
        found: dict[str, list[dict[str, Any]]] = {}
        for c in passage_conflicts(sentences, vec, weights):
            id_i, id_j = nodes[c.first].node.node_id, nodes[c.second].node.node_id
            found.setdefault(id_i, []).append({"other_node": id_j, "text": c.first_text, "other_text": c.second_text})
            found.setdefault(id_j, []).append({"other_node": id_i, "text": c.second_text, "other_text": c.first_text})
        return found

    # -- after synthesis -------------------------------------------------------------------------------

    def annotate_with_answer(
        self, nodes: list[NodeWithScore], answer: str, query: str | None = None
    ) -> tuple[list[NodeWithScore], Verdict]:
        """Verify ``answer`` against ``nodes`` and record on (copies of) the nodes which claims each supports."""
        contexts = nodes_to_contexts(nodes, embedding_model=self.embedding_model)
        verdict = self._detector.verify(answer, contexts, question=query)
        dispatch_verdict(verdict, query, source="HalguardNodePostprocessor")
        return annotate_nodes(nodes, verdict), verdict

    async def aannotate_with_answer(
        self, nodes: list[NodeWithScore], answer: str, query: str | None = None
    ) -> tuple[list[NodeWithScore], Verdict]:
        """Async twin of :meth:`annotate_with_answer`."""
        contexts = nodes_to_contexts(nodes, embedding_model=self.embedding_model)
        verdict = await self._detector.averify(answer, contexts, question=query)
        dispatch_verdict(verdict, query, source="HalguardNodePostprocessor")
        return annotate_nodes(nodes, verdict), verdict
