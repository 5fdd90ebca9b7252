"""Instrumentation: a verdict event, and an observe-only handler that verifies on QueryEndEvent."""

from __future__ import annotations

import logging
import threading
from typing import Any

from llama_index.core.base.response.schema import Response
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.instrumentation.events.query import QueryEndEvent

from halguard.api import default_detector
from halguard.detector import Detector
from halguard.schema import Verdict
from llamaindex_halguard._convert import nodes_to_contexts

__all__ = ["HalguardEventHandler", "HalguardVerdictEvent"]

logger = logging.getLogger("llamaindex_halguard")
dispatcher = get_dispatcher(__name__)


class HalguardVerdictEvent(BaseEvent):
    """Dispatched with every verdict halguard's LlamaIndex components produce."""

    query: str | None = Field(default=None, description="The query the answer responds to.")
    verdict: dict[str, Any] = Field(description="The verdict, as Verdict.to_metadata().")
    source: str = Field(default="", description="Which component produced it.")

    @classmethod
    def class_name(cls) -> str:
        return "HalguardVerdictEvent"


def dispatch_verdict(verdict: Verdict, query: str | None, source: str) -> None:
    dispatcher.event(HalguardVerdictEvent(query=query, verdict=verdict.to_metadata(), source=source))


class HalguardEventHandler(BaseEventHandler):
    """Verify answers on ``QueryEndEvent``, for engines you cannot wrap. Observe-only, never raises.

    Verdicts are kept keyed by the event's span id (:attr:`verdicts`). A streaming response is not yet
    consumed when ``QueryEndEvent`` fires: it is recorded as ``unverified`` (``stream_not_consumed``);
    wrap the engine in :class:`~llamaindex_halguard.HalguardQueryEngine` to check streams.

    Example:
        .. code-block:: python

            from llama_index.core.instrumentation import get_dispatcher
            handler = HalguardEventHandler()
            get_dispatcher().add_event_handler(handler)
    """

    detector: Any = Field(default=None, description="A halguard Detector; default: the shared LocalVerifier.")
    embedding_model: str | None = Field(
        default=None,
        description="The model the index was built with; when it is the local verifier's, source nodes' stored "
        "embeddings are reused instead of recomputed.",
    )
    _verdicts: dict[str, Verdict] = PrivateAttr(default_factory=dict)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def class_name(cls) -> str:
        return "HalguardEventHandler"

    @property
    def verdicts(self) -> dict[str, Verdict]:
        with self._lock:
            return dict(self._verdicts)

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        if not isinstance(event, QueryEndEvent):
            return
        try:
            self._handle(event)
        except Exception:  # an observer must never break the query it observes
            logger.exception("halguard could not verify the query ending in span %s", event.span_id)

    def _handle(self, event: QueryEndEvent) -> None:
        detector: Detector = self.detector or default_detector()
        query = getattr(event.query, "query_str", event.query)
        response = event.response
        if isinstance(response, Response):
            contexts = nodes_to_contexts(response.source_nodes, embedding_model=self.embedding_model)
            verdict = detector.verify(response.response or "", contexts,
                                      question=query if isinstance(query, str) else None)
        else:
            verdict = Verdict.unverified(
                "stream_not_consumed",
                f"{type(response).__name__} is not consumed when the query ends; wrap the engine in "
                "HalguardQueryEngine to verify streams",
                detector=getattr(detector, "name", "detector"),
                threshold=getattr(detector, "threshold", 0.5),
            )
        with self._lock:
            self._verdicts[event.span_id or event.id_] = verdict
        logger.log(logging.INFO if verdict.label == "supported" else logging.WARNING,
                   "halguard query %r: %s (score %s)", query, verdict.label, verdict.score)
