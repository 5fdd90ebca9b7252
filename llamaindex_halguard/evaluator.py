"""HalguardEvaluator: the grounding check as a LlamaIndex evaluator (BatchEvalRunner, RetryQueryEngine)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.bridge.pydantic import Field
from llama_index.core.evaluation import BaseEvaluator, EvaluationResult
from llama_index.core.prompts.mixin import PromptDictType

from halguard.api import resolve_detector
from halguard.detector import Detector
from halguard.schema import Verdict
from llamaindex_halguard._request import Unframed
from llamaindex_halguard.events import dispatch_verdict

__all__ = ["HalguardEvaluationResult", "HalguardEvaluator"]


class HalguardEvaluationResult(EvaluationResult):
    """An ``EvaluationResult`` that keeps the whole verdict (the base class drops unknown fields)."""

    verdict: Verdict | None = Field(default=None, description="The full halguard verdict.")


def _findings(reasons: list[str]) -> list[str]:
    """A claim's reasons without the local verifier's similarity line (every detector's findings are kept)."""
    return [r for r in reasons if not r.startswith("best evidence similarity")]


class HalguardEvaluator(BaseEvaluator):
    """Evaluate whether a response is grounded in its contexts.

    ``passing`` is True for ``supported`` and False for ``hallucinated``; an ``unverified`` verdict is an
    invalid result (``invalid_result=True``, ``passing=None``) with the reason, never a pass. ``score`` is
    ``1 - risk`` (higher is better, as LlamaIndex evaluators go); ``feedback`` lists the flagged claims.

    Args:
        detector: The :class:`halguard.Detector` that checks each response (default: the shared LocalVerifier).
    """

    def __init__(self, *, detector: Detector | None = None) -> None:
        self._detector = resolve_detector(detector)

    def _checker(self) -> Unframed:
        # An evaluator sees text, not the engine: LlamaIndex's accumulate framing is left out when it is there in
        # full (two answers or more, see llamaindex_halguard._convert.accumulate_framing).
        return Unframed(self._detector, None)

    def _get_prompts(self) -> PromptDictType:
        return {}

    def _update_prompts(self, prompts: PromptDictType) -> None:
        """No prompts: the local check has none."""

    async def aevaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> HalguardEvaluationResult:
        verdict = await self._checker().averify(response or "", list(contexts or []), question=query)
        dispatch_verdict(verdict, query, source="HalguardEvaluator")
        return self._result(query, response, contexts, verdict)

    def evaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> HalguardEvaluationResult:
        """Sync twin of :meth:`aevaluate`, without an event loop (safe inside a running loop's thread)."""
        verdict = self._checker().verify(response or "", list(contexts or []), question=query)
        dispatch_verdict(verdict, query, source="HalguardEvaluator")
        return self._result(query, response, contexts, verdict)

    @staticmethod
    def _result(
        query: str | None, response: str | None, contexts: Sequence[str] | None, verdict: Verdict
    ) -> HalguardEvaluationResult:
        unverified = verdict.label == "unverified"
        if unverified:
            feedback = "not verified: " + "; ".join(f"{e.code}: {e.message}" for e in verdict.errors)
        elif verdict.flagged_claims:
            feedback = "unsupported claims:\n" + "\n".join(
                f"- [{c.status.value}] {c.text} ({'; '.join(_findings(c.reasons)) or 'weak evidence'})"
                for c in verdict.flagged_claims
            )
        else:
            feedback = "every claim is supported by the contexts"
        return HalguardEvaluationResult(
            query=query,
            response=response,
            contexts=list(contexts) if contexts is not None else None,
            passing=None if unverified else verdict.label == "supported",
            score=None if verdict.score is None else round(1 - verdict.score, 4),
            feedback=feedback,
            invalid_result=unverified,
            invalid_reason=feedback if unverified else None,
            verdict=verdict,
        )
