"""Nodes to contexts, verdicts onto responses and node metadata — copying, never mutating the inputs."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from llama_index.core.instrumentation.span import active_span_id
from llama_index.core.schema import MetadataMode, NodeWithScore

from halguard.schema import METADATA_KEY, ClaimVerdict, SkippedSource, Verdict
from halguard.text.contexts import Source

__all__ = [
    "annotate_nodes",
    "evidence_nodes",
    "guarding",
    "inside_guard",
    "nodes_to_contexts",
    "request_id",
    "with_node_metadata",
]

_inside_guard: ContextVar[bool] = ContextVar("halguard_inside_guard", default=False)


@contextmanager
def guarding() -> Iterator[None]:
    """Mark the wrapped engine's call: the guard verifies its answer, so the event handler need not."""
    token = _inside_guard.set(True)
    try:
        yield
    finally:
        _inside_guard.reset(token)


def inside_guard() -> bool:
    """Whether the current code runs inside a halguard guard's call to the engine it wraps."""
    return _inside_guard.get()


def request_id() -> str:
    """The id of the current LlamaIndex span (the guard's query or chat call), or a new one outside any span."""
    return active_span_id.get() or str(uuid.uuid4())


# SubQuestionQueryEngine hands the synthesizer its sub-answers as nodes "Sub question: ...\nResponse: ...": the
# LLM's own output, not evidence. They are built without a source document.
_GENERATED_PREFIX = "Sub question: "
_GENERATED_MARK = "\nResponse: "


def _is_generated(nws: NodeWithScore, text: str) -> bool:
    return text.startswith(_GENERATED_PREFIX) and _GENERATED_MARK in text and not nws.node.relationships


def evidence_nodes(nodes: list[NodeWithScore] | None) -> tuple[list[NodeWithScore], list[SkippedSource]]:
    """The nodes that are evidence, and the ones that are not (the LLM's intermediate answers), with why."""
    kept: list[NodeWithScore] = []
    skipped: list[SkippedSource] = []
    for nws in nodes or []:
        text = node_text(nws)
        if _is_generated(nws, text):
            skipped.append(SkippedSource(
                source_id=nws.node.node_id, text=text[:200],
                reason="an intermediate answer the LLM wrote (SubQuestionQueryEngine), not retrieved evidence",
            ))
        else:
            kept.append(nws)
    return kept, skipped


def node_text(nws: NodeWithScore) -> str:
    """The node's text, or "" for nodes without text (image nodes)."""
    try:
        return nws.node.get_content() or ""
    except (AttributeError, NotImplementedError, ValueError):
        return ""


def _reusable_embedding(nws: NodeWithScore, text: str) -> list[float] | None:
    """The node's vector, when it was computed from exactly ``text``.

    LlamaIndex embeds ``get_content(MetadataMode.EMBED)``, which includes the node's metadata unless its keys
    are in ``excluded_embed_metadata_keys``; such a vector describes another text and is not reused.
    """
    embedding = getattr(nws.node, "embedding", None)
    if not embedding:
        return None
    try:
        embedded_text = nws.node.get_content(metadata_mode=MetadataMode.EMBED)
    except (AttributeError, NotImplementedError, ValueError):
        return None
    return embedding if embedded_text == text else None


def nodes_to_contexts(nodes: list[NodeWithScore] | None, *, embedding_model: str | None = None) -> list[Source]:
    """Sources (id = node id) for the nodes that carry text.

    With ``embedding_model`` (the model the index was built with), each node's stored embedding goes along
    when it was computed from the node's plain text, so the local verifier can skip re-embedding it.
    """
    out = []
    for n in nodes or []:
        text = node_text(n)
        if not text.strip():
            continue
        embedding = _reusable_embedding(n, text) if embedding_model else None
        out.append(Source(id=n.node.node_id, text=text, embedding=embedding,
                          embedding_model=embedding_model if embedding is not None else None))
    return out


def with_node_metadata(nws: NodeWithScore, data: dict[str, Any]) -> NodeWithScore:
    """A copy of ``nws`` whose node carries ``data`` under ``metadata["halguard"]``.

    The key is excluded from the LLM prompt and the embedding text, so it never leaks into either; the
    node's ``score`` is kept as it was.
    """
    node = nws.node.model_copy(deep=False)
    node.metadata = {**nws.node.metadata, METADATA_KEY: {**nws.node.metadata.get(METADATA_KEY, {}), **data}}
    node.excluded_llm_metadata_keys = [*dict.fromkeys([*nws.node.excluded_llm_metadata_keys, METADATA_KEY])]
    node.excluded_embed_metadata_keys = [*dict.fromkeys([*nws.node.excluded_embed_metadata_keys, METADATA_KEY])]
    return NodeWithScore(node=node, score=nws.score)


def _claim_ref(claim: ClaimVerdict) -> dict[str, Any]:
    return {"text": claim.text, "start": claim.start, "end": claim.end, "status": claim.status.value}


def annotate_nodes(nodes: list[NodeWithScore], verdict: Verdict) -> list[NodeWithScore]:
    """Record on each node which claims of the answer it supports (its id is their best evidence)."""
    out = []
    for nws in nodes:
        node_id = nws.node.node_id
        closest = [c for c in verdict.claims if c.evidence and c.evidence[0].source_id == node_id]
        out.append(
            with_node_metadata(
                nws,
                {
                    "supports_claims": [_claim_ref(c) for c in closest if not c.status.is_flagged],
                    "closest_to_flagged_claims": [_claim_ref(c) for c in closest if c.status.is_flagged],
                    "answer_label": verdict.label,
                },
            )
        )
    return out
