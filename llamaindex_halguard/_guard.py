"""What the query-engine and chat-engine guards share: checking an answer against its nodes, and the policy."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from llama_index.core.schema import NodeWithScore

from halguard.api import resolve_detector
from halguard.detector import Detector
from halguard.errors import InputTypeError, InvalidInputError
from halguard.active.repair import arepair_decision, repair_decision
from halguard.policy import GuardDecision, decide, declined, refuse_to_retype, validate_policy
from halguard.schema import RequestInfo, SkippedSentence, SkippedSource, Verdict
from halguard.text.claims import is_non_answer
from halguard.text.structured import is_structured, question_with_fields, render_structured
from llamaindex_halguard._convert import accumulate_framing, evidence_nodes, nodes_to_contexts, request_id
from llamaindex_halguard.events import dispatch_verdict

__all__ = ["Checked", "GuardCore", "answer_text"]

logger = logging.getLogger("llamaindex_halguard")


@dataclass(frozen=True)
class Checked:
    """One answer as the guard checks it.

    Attributes:
        question: The query or chat message.
        text: The text checked: the answer, or a structured answer as ``field: value`` lines.
        structured: Whether the answer is a structured output (a pydantic model).
        check_question: The question given to the detector (a structured answer's field names are added).
        contexts: The evidence nodes as halguard Sources.
        skipped: Nodes that are not evidence (the LLM's own intermediate answers).
        request: The request id (the guard's span id).
        accumulated: Whether the engine joins one answer per chunk with LlamaIndex's accumulate framing
            ("Response 1: ..."): True, False, or None when unknown (see
            :func:`~llamaindex_halguard._convert.accumulate_framing`).
    """

    question: str | None
    text: str
    structured: bool
    check_question: str | None
    contexts: list[Any]
    skipped: list[SkippedSource]
    request: str
    accumulated: bool | None = None


def answer_text(answer: Any) -> str:
    """The text checked for an answer: a structured answer as ``field: value`` lines, None as ""."""
    if is_structured(answer):
        return render_structured(answer)
    return "" if answer is None else str(answer)


FRAMING_REASON = "LlamaIndex's accumulate framing (response_mode='accumulate'), not part of any answer"


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


class GuardCore:
    """Checks answers against their source nodes and applies the policy, for one guard.

    Args:
        detector: A halguard Detector (default: the shared LocalVerifier).
        on_hallucination: ``"annotate" | "raise" | "fallback" | "filter" | "repair"``.
        on_unverified: ``"fail_open" | "fail_closed"``.
        embedding_model: The index's embedding model, so nodes' stored vectors can be reused.
        source: The guard's name, recorded in the verdict and its event.
    """

    def __init__(self, detector: Detector | None, on_hallucination: str, on_unverified: str,
                 embedding_model: str | None, source: str, repairer: Any = None) -> None:
        validate_policy(on_hallucination, on_unverified)
        if on_hallucination == "repair" and repairer is None:
            msg = "on_hallucination='repair' needs repairer= (the LLM that rewrites flagged sentences)"
            raise InvalidInputError(msg)
        from llamaindex_halguard.providers import to_chat_model

        self.repairer = to_chat_model(repairer) if repairer is not None else None
        self.detector = resolve_detector(detector)
        self.on_hallucination = on_hallucination
        self.on_unverified = on_unverified
        self.embedding_model = embedding_model
        self.source = source

    def prepare(self, question: str | None, answer: Any, nodes: list[NodeWithScore] | None, *,
                request: str | None = None, accumulated: bool | None = None) -> Checked:
        """What to check: the answer's text (a structured answer rendered), and the nodes that are evidence.

        ``request`` is the request id (default: the current span's id). ``accumulated``: whether the engine's
        synthesizer accumulates (:func:`~llamaindex_halguard._convert.accumulating`; None: unknown).
        """
        structured = is_structured(answer)
        text = answer_text(answer)
        check_question = question_with_fields(question, answer) if structured else question
        kept, skipped = evidence_nodes(nodes)
        contexts = nodes_to_contexts(kept, embedding_model=self.embedding_model)
        return Checked(question, text, structured, check_question or None, contexts, skipped,
                       request or request_id(), False if structured else accumulated)

    def detector_for(self, c: Checked) -> Detector:
        """The detector for ``c``: the guard's, leaving LlamaIndex's accumulate framing out unless it cannot be."""
        return self.detector if c.accumulated is False else Unframed(self.detector, c.accumulated)

    def _internal_error(self, exc: BaseException) -> Verdict:
        logger.warning("halguard check failed: %s: %s", type(exc).__name__, exc)
        return Verdict.unverified("internal_error", f"the check failed: {type(exc).__name__}: {exc}",
                                  detector=self.detector.name, threshold=self.detector.threshold)

    def dispatch(self, verdict: Verdict) -> None:
        """Send the verdict to instrumentation handlers (a HalguardVerdictEvent)."""
        dispatch_verdict(verdict, verdict.request.question if verdict.request else None, source=self.source)

    def _finish(self, verdict: Verdict, c: Checked) -> Verdict:
        update: dict[str, Any] = {
            "request": RequestInfo(id=c.request, question=c.question, source=f"llamaindex:{self.source}"),
            "skipped_sources": [*verdict.skipped_sources, *c.skipped],
        }
        if c.structured:
            update["checked_text"] = c.text
        return verdict.model_copy(update=update)

    def verify(self, c: Checked, *, dispatch: bool = True) -> Verdict:
        """Check ``c``; a failure inside the check is ``unverified`` (``internal_error``), bad input raises."""
        try:
            verdict = self.detector_for(c).verify(c.text, c.contexts, question=c.check_question)
        except (InvalidInputError, InputTypeError):
            raise
        except Exception as exc:  # noqa: BLE001 - a guard turns its own failures into "unverified"
            verdict = self._internal_error(exc)
        verdict = self._finish(verdict, c)
        if dispatch:
            self.dispatch(verdict)
        return verdict

    async def averify(self, c: Checked, *, dispatch: bool = True) -> Verdict:
        """Async twin of :meth:`verify`."""
        try:
            verdict = await self.detector_for(c).averify(c.text, c.contexts, question=c.check_question)
        except (InvalidInputError, InputTypeError):
            raise
        except Exception as exc:  # noqa: BLE001
            verdict = self._internal_error(exc)
        verdict = self._finish(verdict, c)
        if dispatch:
            self.dispatch(verdict)
        return verdict

    def repair(self, decision: GuardDecision, c: Checked) -> GuardDecision:
        """For a ``repair`` decision: the repaired text and its verdict (:func:`halguard.active.repair_decision`)."""
        if decision.action != "repair":
            return decision
        text, verdict = repair_decision(decision, c.text, c.contexts, llm=self.repairer, question=c.question,
                                        detector=self.detector_for(c), on_unverified=self.on_unverified)
        return GuardDecision("repair", verdict, text)

    async def arepair(self, decision: GuardDecision, c: Checked) -> GuardDecision:
        """Async twin of :meth:`repair`."""
        if decision.action != "repair":
            return decision
        text, verdict = await arepair_decision(decision, c.text, c.contexts, llm=self.repairer, question=c.question,
                                               detector=self.detector_for(c), on_unverified=self.on_unverified)
        return GuardDecision("repair", verdict, text)

    def decide(self, verdict: Verdict, c: Checked, *, fallback_source: bool) -> GuardDecision:
        """The policy's decision (raises for ``raise``, and rather than change a structured answer's type)."""
        decision = decide(verdict, c.text, on_hallucination=self.on_hallucination, on_unverified=self.on_unverified)
        if c.structured:
            refuse_to_retype(decision, fallback_source=fallback_source)
        return decision

    def check_fallback(self, rejected: Verdict, c: Checked) -> Verdict | None:
        """The verdict on a fallback answer that needs no check (a refusal), or None to check it."""
        if c.text.strip() and is_non_answer(c.text, c.question):
            return declined(rejected, c.text)
        return None

