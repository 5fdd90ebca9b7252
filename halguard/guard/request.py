"""What a guard checks, once an adapter has read it out of the framework's objects."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from halguard.detector import Detector
from halguard.schema import SkippedSource, Verdict

__all__ = ["CheckPurpose", "FallbackAnswer", "GuardHooks", "GuardRequest", "evidence_of"]

CheckPurpose = Literal["answer", "fallback"]
"""Which answer a check is for: the guarded one, or the fallback's that replaces it."""


@dataclass(frozen=True)
class GuardRequest:
    """One answer as a guard checks it.

    Attributes:
        question: The user's question (None when the input carries none).
        answer: The text checked: the answer, or a structured answer as ``field: value`` lines.
        contexts: The evidence, in any form a detector takes (strings, ``(id, text)`` pairs, Sources).
        check_question: The question given to the detector (a structured answer's field names added); None:
            ``question``.
        structured: Whether the answer is a structured output (its type must never change).
        request_id: The id the verdict is recorded under (the framework's run or span id).
        source: What made the request, as ``RequestInfo.source`` ("langchain:RunnableWithHalguard").
        skipped_sources: Sources that are not evidence (an LLM's own intermediate answers), added to the verdict.
        detector: A detector for this request only (one that leaves a framework's framing out); None: the
            guard's.
    """

    question: str | None
    answer: str
    contexts: Any
    check_question: str | None = None
    structured: bool = False
    request_id: str | None = None
    source: str = ""
    skipped_sources: Sequence[SkippedSource] = ()
    detector: Detector | None = None

    @property
    def detector_question(self) -> str | None:
        """The question the detector gets."""
        return self.check_question if self.check_question is not None else self.question


def evidence_of(verdict: Verdict) -> list[tuple[str, str]]:
    """``(id, text)`` pairs of the evidence ``verdict``'s claims were compared with: what a fallback answer that
    came with no documents of its own is checked against."""
    return [(e.source_id, e.text) for claim in verdict.claims for e in claim.evidence]


@dataclass(frozen=True)
class FallbackAnswer:
    """What the fallback chain or engine answered, as the adapter read it.

    Attributes:
        result: The fallback's output, as the framework returned it (the adapter puts it in the answer's place).
        request: The fallback's answer to check; None when ``verdict`` says why it is not checked.
        verdict: The verdict when the answer could not be read (``fallback_unchecked``); None: check ``request``.
    """

    result: Any
    request: GuardRequest | None = None
    verdict: Verdict | None = None


MaybeAwaitable = Union[Any, Awaitable[Any]]


@dataclass(frozen=True)
class GuardHooks:
    """What one guarded call lets the core do in the framework's terms. Built per call: nothing is shared.

    For :meth:`~halguard.guard.GuardCore.arun` the callables may be coroutine functions.

    Attributes:
        ask: Answers one paraphrased question through the guarded app (paraphrase sampling).
        ask_batch: Answers a list of them at once (an answer may be an exception); used instead of ``ask``.
        fallback: Asks the fallback chain or engine, given the rejected answer's verdict (its question and evidence
            stand in for what the fallback's answer lacks); None: the fallback, if any, is a fixed message.
        traced: Runs one check inside the framework's trace: ``traced(check, request, purpose) -> Verdict``;
            None: the check runs as it is.
        on_checked: Told the verdict once it is checked (and sampled), before the policy: events, tracing, logs.
        around_app: A context manager the app's own calls (sampling) run in; None: none.
    """

    ask: Callable[[str], MaybeAwaitable] | None = None
    ask_batch: Callable[[list[str]], MaybeAwaitable] | None = None
    fallback: Callable[[Verdict], MaybeAwaitable] | None = None
    traced: Callable[[Callable[[GuardRequest], Any], GuardRequest, CheckPurpose], MaybeAwaitable] | None = None
    on_checked: Callable[[Verdict], MaybeAwaitable] | None = None
    around_app: Callable[[], Any] | None = field(default=None)
