"""LlamaIndex answers and nodes as a halguard GuardRequest: the text checked, the evidence, the framing left out."""

from __future__ import annotations

from typing import Any

from llama_index.core.schema import NodeWithScore

from halguard.detector import Detector
from halguard.guard import GuardRequest
from halguard.schema import SkippedSentence, Verdict
from halguard.text.structured import is_structured, question_with_fields, render_structured
from llamaindex_halguard._convert import accumulate_framing, evidence_nodes, nodes_to_contexts, request_id

__all__ = ["FRAMING_REASON", "Unframed", "answer_text", "to_request"]

FRAMING_REASON = "LlamaIndex's accumulate framing (response_mode='accumulate'), not part of any answer"


def answer_text(answer: Any) -> str:
    """The text checked for an answer: a structured answer as ``field: value`` lines, None as ""."""
    if is_structured(answer):
        return render_structured(answer)
    return "" if answer is None else str(answer)


def to_request(question: str | None, answer: Any, nodes: list[NodeWithScore] | None, *, detector: Detector,
               source: str, embedding_model: str | None = None, request: str | None = None,
               accumulated: bool | None = None) -> GuardRequest:
    """What to check: the answer's text (a structured answer rendered), and the nodes that are evidence.

    Args:
        question: The query or chat message.
        answer: The answer (a str, or a structured output).
        nodes: The source nodes; those that are an LLM's own intermediate answers go to ``skipped_sources``.
        detector: The guard's detector; wrapped in :class:`Unframed` unless the answer has no accumulate framing.
        source: The component, recorded as ``llamaindex:<source>``.
        embedding_model: The index's embedding model, so nodes' stored vectors can be reused.
        request: The request id (default: the current span's id).
        accumulated: Whether the engine's synthesizer accumulates (:func:`~llamaindex_halguard._convert.accumulating`;
            None: unknown).
    """
    structured = is_structured(answer)
    check_question = question_with_fields(question, answer) if structured else question
    kept, skipped = evidence_nodes(nodes)
    accumulated = False if structured else accumulated
    return GuardRequest(
        question=question,
        answer=answer_text(answer),
        contexts=nodes_to_contexts(kept, embedding_model=embedding_model),
        check_question=check_question or None,
        structured=structured,
        request_id=request or request_id(),
        source=f"llamaindex:{source}",
        skipped_sources=tuple(skipped),
        detector=detector if accumulated is False else Unframed(detector, accumulated),
    )


class Unframed(Detector):
    """A detector that checks an answer with LlamaIndex's accumulate framing left out.

    The framing (:func:`~llamaindex_halguard._convert.accumulate_framing`) is replaced by spaces of the same length,
    so every offset in the verdict is the returned answer's, and each piece is listed in ``verdict.skipped``; the
    answers between the labels are checked as they are. Made for one check (it holds that answer's
    ``accumulated``): a guard's repair checks its repaired text through it too.

    Args:
        inner: The detector that checks.
        accumulated: True, False or None (unknown), as :func:`accumulate_framing` takes it.
    """

    def __init__(self, inner: Detector, accumulated: bool | None) -> None:
        self.inner = inner
        self.accumulated = accumulated

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.inner.name

    @property
    def threshold(self) -> float:  # type: ignore[override]
        return self.inner.threshold

    def warm_up(self) -> float:
        return self.inner.warm_up()

    def prepare(self, contexts: Any, *, question: str | None = None) -> None:
        self.inner.prepare(contexts, question=question)

    def _framing(self, answer: Any) -> list[tuple[int, int]]:
        return accumulate_framing(answer, self.accumulated) if isinstance(answer, str) else []

    def verify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        spans = self._framing(answer)
        if not spans:
            return self.inner.verify(answer, contexts, question=question)
        return _framing_skipped(self.inner.verify(_blank(answer, spans), contexts, question=question), answer, spans)

    async def averify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        spans = self._framing(answer)
        if not spans:
            return await self.inner.averify(answer, contexts, question=question)
        verdict = await self.inner.averify(_blank(answer, spans), contexts, question=question)
        return _framing_skipped(verdict, answer, spans)


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each span replaced by as many spaces (the spans hold no line break)."""
    out, cursor = [], 0
    for start, end in spans:
        out += [text[cursor:start], " " * (end - start)]
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _framing_skipped(verdict: Verdict, answer: str, spans: list[tuple[int, int]]) -> Verdict:
    framing = [SkippedSentence(start=s, end=e, text=answer[s:e], reason=FRAMING_REASON) for s, e in spans]
    return verdict.model_copy(update={"skipped": sorted([*verdict.skipped, *framing], key=lambda k: k.start)})
