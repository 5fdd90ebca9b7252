"""Nodes to contexts, verdicts onto responses and node metadata — copying, never mutating the inputs."""

from __future__ import annotations

from typing import Any

from llama_index.core.schema import NodeWithScore

from halguard.schema import METADATA_KEY, ClaimStatus, Verdict

__all__ = ["annotate_nodes", "nodes_to_contexts", "with_node_metadata"]


def node_text(nws: NodeWithScore) -> str:
    """The node's text, or "" for nodes without text (image nodes)."""
    try:
        return nws.node.get_content() or ""
    except (AttributeError, NotImplementedError, ValueError):
        return ""


def nodes_to_contexts(nodes: list[NodeWithScore] | None) -> list[tuple[str, str]]:
    """``(node_id, text)`` pairs for the nodes that carry text."""
    return [(n.node.node_id, text) for n in nodes or [] if (text := node_text(n)).strip()]


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
