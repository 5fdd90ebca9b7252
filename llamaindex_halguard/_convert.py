"""Nodes to contexts, verdicts onto responses and node metadata — copying, never mutating the inputs."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from llama_index.core.instrumentation.span import active_span_id
from llama_index.core.response_synthesizers import Accumulate, BaseSynthesizer
from llama_index.core.schema import MetadataMode, NodeWithScore

from halguard.schema import METADATA_KEY, ClaimVerdict, SkippedSource, Verdict
from halguard.text.contexts import Source

__all__ = [
    "ACCUMULATE_SEPARATOR",
    "accumulate_framing",
    "accumulating",
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


# Accumulate and CompactAndAccumulate (response_mode="accumulate" | "compact_accumulate") answer once per chunk and
# join the answers as "Response 1: ...\n---------------------\nResponse 2: ...", writing "Empty Response" for an empty
# one (llama_index.core.response_synthesizers.accumulate, the default `separator`). The labels, the separator line
# and the placeholder are LlamaIndex's framing, not the LLM's claims: checked as text, every grounded answer was
# flagged ("Response", "1" found nowhere in the context).
ACCUMULATE_SEPARATOR = "\n---------------------\n"
_EMPTY_PART = "Empty Response"


def accumulate_framing(text: str, accumulated: bool | None) -> list[tuple[int, int]]:
    """The spans of LlamaIndex's accumulate framing in ``text`` (labels, separator lines, placeholders), or [].

    The framing is recognised only in its exact shape: parts numbered ``Response 1:``, ``Response 2:``... in order
    from the first character, joined by :data:`ACCUMULATE_SEPARATOR`; anything else is the answer's own text and
    is checked. Only the labels, the dashes of each separator line and a whole-part "Empty Response" are returned:
    every character of each part's answer stays in the check.

    Args:
        text: The answer as the engine returned it.
        accumulated: True when the engine's synthesizer is an accumulating one, False when it is known to be
            another (nothing is framing then: an LLM that writes "Response 1:" is checked as written), None when
            unknown (a wrapped or custom engine, an evaluator): then at least two parts are needed, as one
            "Response 1: ..." without a separator cannot be told from an answer that begins so.
    """
    if accumulated is False or not text.startswith("Response 1:"):
        return []
    parts = text.split(ACCUMULATE_SEPARATOR)
    if len(parts) < 2 and accumulated is not True:
        return []
    spans: list[tuple[int, int]] = []
    offset = 0
    for number, part in enumerate(parts, 1):
        label = f"Response {number}:"
        body = part[len(label):]
        if not part.startswith(label) or (body and not body.startswith(" ")):
            return []  # not LlamaIndex's numbering: the answer's own text
        spans.append((offset, offset + len(label)))
        if body.strip() == _EMPTY_PART:
            lead = len(body) - len(body.lstrip())
            spans.append((offset + len(label) + lead, offset + len(label) + lead + len(_EMPTY_PART)))
        offset += len(part)
        if number < len(parts):  # the dashes only: the line breaks around them keep the parts apart
            spans.append((offset + 1, offset + len(ACCUMULATE_SEPARATOR) - 1))
            offset += len(ACCUMULATE_SEPARATOR)
    return spans


def accumulating(engine: Any) -> bool | None:
    """Whether ``engine`` answers through an accumulating synthesizer (``Accumulate``, ``CompactAndAccumulate``).

    Read from the engine's synthesizer, as LlamaIndex's own chat engines read it (``_response_synthesizer``: a
    ``RetrieverQueryEngine``, ``CitationQueryEngine``, ``SubQuestionQueryEngine``). None when the engine has none
    to read (a custom or composite engine): :func:`accumulate_framing` then asks for the full framing.
    """
    synthesizer = getattr(engine, "_response_synthesizer", None)
    if not isinstance(synthesizer, BaseSynthesizer):
        return None
    return isinstance(synthesizer, Accumulate)


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
