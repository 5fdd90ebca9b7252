"""HalguardNodePostprocessor: evidence checks between retrieval and synthesis, and after it.

Before synthesis a postprocessor sees the query and the nodes, never the answer, so it checks what can be
checked there:

- **query support** (a premise check, after the false-premise study in "A Stitch in Time Saves Nine"):
  how well each node backs the question's own assumptions — semantic similarity to the query plus the
  share of the query's names, numbers and content words the node contains;
- **conflicts between nodes**: closely matching sentences of two nodes that give different numbers or
  dates for the same thing.

After synthesis, :meth:`HalguardNodePostprocessor.annotate_with_answer` records on each node which claims
of the answer it supports.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle

from halguard.api import default_detector
from halguard.detector import Detector
from halguard.grounding.embedding import LocalEmbedder
from halguard.errors import InputTypeError
from halguard.text.lexical import content_terms, entity_mentions, number_mentions, term_set
from halguard.schema import Verdict
from halguard.text.segment import split_sentences
from llamaindex_halguard._convert import annotate_nodes, node_text, nodes_to_contexts, with_node_metadata

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
        default=0.8, description="Sentences at least this similar are taken to state the same thing."
    )
    embedding_model: str | None = Field(
        default=None,
        description="The model the index was built with; when it is the local verifier's, nodes' stored "
        "embeddings are reused by annotate_with_answer instead of recomputed.",
    )
    _detector: Detector = PrivateAttr()
    _embedder: LocalEmbedder = PrivateAttr()

    def __init__(self, detector: Detector | None = None, embedder: LocalEmbedder | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        detector = detector if detector is not None else default_detector()
        if not isinstance(detector, Detector):
            msg = f"detector must be a halguard.Detector, got {type(detector).__name__}"
            raise InputTypeError(msg)
        self._detector = detector
        self._embedder = embedder or getattr(detector, "embedder", None) or LocalEmbedder.shared()

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
                data.update(self._query_support(query, text, vec))
                if self.min_query_support is not None and data["query_support"] < self.min_query_support:
                    continue
            out.append(with_node_metadata(nws, data))
        return out

    @staticmethod
    def _query_support(query: str, text: str, vec: dict[str, np.ndarray]) -> dict[str, Any]:
        """Similarity to the query, and which of the query's facts (names, numbers, words) the node has."""
        terms = term_set(text)
        numbers = {round(m.value, 6) for m in number_mentions(text)}
        wanted = [(query[s:e], stem) for s, e, stem in content_terms(query)]
        names = [query[s:e] for s, e in entity_mentions(query)]
        missing_names = [n for n in names if not any(st in terms for _, _, st in content_terms(n))]
        missing_numbers = [query[m.start : m.end] for m in number_mentions(query) if round(m.value, 6) not in numbers]
        missing_words = [w for w, st in wanted if st not in terms]
        coverage = 1 - len(missing_words) / len(wanted) if wanted else 1.0
        similarity = float(vec[query] @ vec[text])
        # Names and numbers in the question are its premises: a node lacking them cannot confirm them.
        support = max(0.0, min(1.0, 0.5 * similarity + 0.5 * coverage - 0.2 * len(missing_names) - 0.2 * len(missing_numbers)))
        return {
            "query_support": round(support, 4),
            "query_similarity": round(similarity, 4),
            "missing_query_names": missing_names,
            "missing_query_numbers": missing_numbers,
            "missing_query_words": missing_words,
        }

    def _conflicts(
        self, nodes: list[NodeWithScore], sentences: list[list[str]], vec: dict[str, np.ndarray]
    ) -> dict[str, list[dict[str, Any]]]:
        """Pairs of closely matching sentences in different nodes whose numbers differ."""
        found: dict[str, list[dict[str, Any]]] = {}
        with_numbers = [
            [(s, {round(m.value, 6) for m in number_mentions(s)}) for s in ss] for ss in sentences
        ]
        for i in range(len(nodes)):
            for j in range(i + 1, len(nodes)):
                for s_i, n_i in with_numbers[i]:
                    for s_j, n_j in with_numbers[j]:
                        if not n_i or not n_j or n_i == n_j:
                            continue
                        if float(vec[s_i] @ vec[s_j]) < self.conflict_similarity:
                            continue
                        id_i, id_j = nodes[i].node.node_id, nodes[j].node.node_id
                        found.setdefault(id_i, []).append({"other_node": id_j, "text": s_i, "other_text": s_j})
                        found.setdefault(id_j, []).append({"other_node": id_i, "text": s_j, "other_text": s_i})
        return found

    # -- after synthesis -------------------------------------------------------------------------------

    def annotate_with_answer(
        self, nodes: list[NodeWithScore], answer: str, query: str | None = None
    ) -> tuple[list[NodeWithScore], Verdict]:
        """Verify ``answer`` against ``nodes`` and record on (copies of) the nodes which claims each supports."""
        contexts = nodes_to_contexts(nodes, embedding_model=self.embedding_model)
        verdict = self._detector.verify(answer, contexts, question=query)
        return annotate_nodes(nodes, verdict), verdict

    async def aannotate_with_answer(
        self, nodes: list[NodeWithScore], answer: str, query: str | None = None
    ) -> tuple[list[NodeWithScore], Verdict]:
        """Async twin of :meth:`annotate_with_answer`."""
        contexts = nodes_to_contexts(nodes, embedding_model=self.embedding_model)
        verdict = await self._detector.averify(answer, contexts, question=query)
        return annotate_nodes(nodes, verdict), verdict
