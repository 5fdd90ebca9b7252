"""What the query-engine and chat-engine guards share: LlamaIndex objects in and out of halguard's GuardCore."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llama_index.core.schema import NodeWithScore

from halguard.detector import Detector
from halguard.guard import FallbackAnswer, GuardCore, GuardHooks, GuardRequest
from halguard.policy import validate_policy
from halguard.schema import Verdict
from llamaindex_halguard._convert import guarding
from llamaindex_halguard._request import to_request
from llamaindex_halguard.events import dispatch_verdict

__all__ = ["LlamaIndexGuard"]


class LlamaIndexGuard:
    """One guard's :class:`~halguard.guard.GuardCore`, fed from nodes and reporting through instrumentation.

    Args:
        detector: A halguard Detector or a detector name ("nli:<model>"; default: the shared LocalVerifier).
        on_hallucination: ``"annotate" | "raise" | "fallback" | "filter" | "repair"``.
        on_unverified: ``"fail_open" | "fail_closed"``.
        embedding_model: The index's embedding model, so nodes' stored vectors can be reused.
        source: The guard's name, recorded in the verdict and its event.
        repairer: With ``"repair"``: the LLM that rewrites flagged sentences (a LlamaIndex LLM, a client, a
            callable).
        fallback: The guard's fallback: a message, a query engine, or None.
        sampler: A :class:`~halguard.consistency.sampling.ParaphraseConsistency`, or None.
        warm_up: Load what the detector's first check would load now, not at the first request.
    """

    def __init__(self, detector: Detector | None, on_hallucination: str, on_unverified: str,
                 embedding_model: str | None, source: str, *, repairer: Any = None, fallback: Any = None,
                 sampler: Any = None, warm_up: bool = False) -> None:
        validate_policy(on_hallucination, on_unverified)
        from llamaindex_halguard.providers import to_chat_model

        self.core = GuardCore(
            detector, on_hallucination=on_hallucination, on_unverified=on_unverified,
            fallback_message=fallback if isinstance(fallback, str) else None,
            repairer=to_chat_model(repairer) if repairer is not None else None, sampler=sampler, warm_up=warm_up,
        )
        self.embedding_model = embedding_model
        self.source = source

    @property
    def detector(self) -> Detector:
        return self.core.detector

    def request(self, question: str | None, answer: Any, nodes: list[NodeWithScore] | None, *,
                request: str | None = None, accumulated: bool | None = None) -> GuardRequest:
        """What to check (:func:`~llamaindex_halguard._request.to_request`)."""
        return to_request(question, answer, nodes, detector=self.core.detector, source=self.source,
                          embedding_model=self.embedding_model, request=request, accumulated=accumulated)

    def dispatch(self, verdict: Verdict) -> None:
        """Send the verdict to instrumentation handlers (a HalguardVerdictEvent)."""
        dispatch_verdict(verdict, verdict.request.question if verdict.request else None, source=self.source)

    def hooks(self, *, ask: Callable[[str], Any] | None = None,
              fallback: Callable[[Verdict], FallbackAnswer] | None = None) -> GuardHooks:
        """One call's hooks: the verdict dispatched once checked, the app's own calls inside ``guarding()`` (so an
        event handler leaves them to the guard)."""
        return GuardHooks(ask=ask, fallback=fallback, on_checked=self.dispatch, around_app=guarding)
