"""Nodes to contexts, verdicts onto responses and node metadata — copying, never mutating the inputs."""

from __future__ import annotations

from typing import Any

from llama_index.core.schema import MetadataMode, NodeWithScore

from halguard.schema import METADATA_KEY, ClaimStatus, Verdict
from halguard.sources import Source

__all__ = ["annotate_nodes", "nodes_to_contexts", "with_node_metadata"]


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


def annotate_nodes(nodes: list[NodeWithScore], verdict: Verdict) -> list[NodeWithScore]:
    """Record on each node which claims of the answer it supports (its id is their best evidence)."""
    supported = (ClaimStatus.SUPPORTED, ClaimStatus.WEAK_SUPPORT)
    out = []
    for nws in nodes:
        node_id = nws.node.node_id
        claims = [
            {"text": c.text, "start": c.start, "end": c.end, "status": c.status.value}
            for c in verdict.claims
            if c.evidence and c.evidence[0].source_id == node_id
        ]
        out.append(
            with_node_metadata(
                nws,
                {
                    "supports_claims": [c for c in claims if c["status"] in {s.value for s in supported}],
                    "closest_to_flagged_claims": [c for c in claims if c["status"] not in {s.value for s in supported}],
                    "answer_label": verdict.label,
                },
            )
        )
    return out
