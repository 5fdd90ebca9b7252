"""Instrumentation: a verdict event, and an observe-only handler that verifies answers from events."""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from typing import Any

from llama_index.core.base.response.schema import PydanticResponse, Response
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.instrumentation.events.query import QueryEndEvent
from llama_index.core.instrumentation.events.synthesis import SynthesizeEndEvent

from halguard.api import resolve_detector
from halguard.failures import log_failure
from halguard.guard import GuardCore
from halguard.schema import METADATA_KEY, RequestInfo, Verdict
from halguard.util.files import append_private
from llamaindex_halguard._convert import inside_guard
from llamaindex_halguard._request import to_request

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


_GUARDS = ("HalguardQueryEngine", "HalguardChatEngine")
SOURCE = "HalguardEventHandler"
# The synthesizers whose answers carry LlamaIndex's "Response 1: ..." framing. A synthesis span's id is
# "<synthesizer class>.synthesize-<uuid>" (llama_index_instrumentation's Dispatcher.span); a subclass under another
# name falls back to recognising the framing in full.
_ACCUMULATING_SPANS = ("Accumulate.", "CompactAndAccumulate.")
_REMEMBERED = 1024  # answers verified at synthesis, kept to recognise them when their QueryEndEvent follows


class HalguardEventHandler(BaseEventHandler):
    """Verify answers from instrumentation events, for engines you cannot wrap. Observe-only, never raises.

    An answer is verified when it is synthesized (``SynthesizeEndEvent``: query engines, and the ``context``,
    ``condense_plus_context`` and ``condense_question`` chat engines, whose chat turns fire no query event), or at
    ``QueryEndEvent`` for engines that answer without a synthesizer. Each answer is verified once:

    - a query engine's ``QueryEndEvent`` carries the response already verified at synthesis: its verdict is
      re-keyed under the query's span id, not computed again;
    - answers inside a halguard guard (:class:`~llamaindex_halguard.HalguardQueryEngine`,
      :class:`~llamaindex_halguard.HalguardChatEngine`) are left to the guard, and the guard's own verdict (its
      ``HalguardVerdictEvent``, or ``response.metadata["halguard"]``) is recorded as it is.

    Verdicts are kept keyed by span id (:attr:`verdicts`, the latest ``max_verdicts``), each with
    ``verdict.request`` (that id and the question), and each verdict it computes is dispatched as a
    :class:`HalguardVerdictEvent` (``source="HalguardEventHandler"``, the synthesis span's id in
    ``verdict["request"]["id"]``), like every halguard verdict. It receives that event too and neither checks nor
    records it again. A streaming response is not consumed when these events fire: it is recorded as
    ``unverified`` (``stream_not_consumed``); wrap the engine in a guard to check streams. LlamaIndex's
    ``accumulate`` framing ("Response 1: ...") is left out of the check, as in the guards.

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
    max_verdicts: int = Field(default=1000, gt=0, description="How many verdicts to keep (the oldest go first).")
    jsonl_path: str | None = Field(
        default=None,
        description="Append one JSON line per verified answer to this file (mode 0600; a symlink is refused): "
        "id, query, response, source_nodes (id_, text, metadata.source, score) and the verdict, the shape "
        "`halguard audit` reads. The node texts are written: leave it unset where they must not be stored.",
    )
    _verdicts: OrderedDict[str, Verdict] = PrivateAttr(default_factory=OrderedDict)
    _synthesized: OrderedDict[int, tuple[Any, str]] = PrivateAttr(default_factory=OrderedDict)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def class_name(cls) -> str:
        return "HalguardEventHandler"

    @property
    def verdicts(self) -> dict[str, Verdict]:
        with self._lock:
            return dict(self._verdicts)

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        try:
            if isinstance(event, HalguardVerdictEvent):
                self._guard_verdict(event)
            elif inside_guard():
                return  # the guard around this engine verifies the answer
            elif isinstance(event, SynthesizeEndEvent):
                self._answered(event.span_id or event.id_, _query_str(event.query), event.response,
                               accumulated=_accumulating_span(event.span_id))
            elif isinstance(event, QueryEndEvent):
                self._query_end(event)
        except Exception as exc:  # an observer must never break the query it observes
            log_failure(logger, f"halguard verifying the answer in span {event.span_id}", exc, level=logging.ERROR)

    def _guard_verdict(self, event: HalguardVerdictEvent) -> None:
        request = event.verdict.get("request") or {}
        if event.source in _GUARDS and request.get("id"):
            self._record(request["id"], Verdict.from_metadata(event.verdict))

    def _query_end(self, event: QueryEndEvent) -> None:
        key = event.span_id or event.id_
        response = event.response
        attached = (getattr(response, "metadata", None) or {}).get(METADATA_KEY)
        if isinstance(attached, dict) and "label" in attached:  # a guard's response: its verdict, as it is
            # Under the guard's request id, where its HalguardVerdictEvent put it: one entry per answer.
            self._record((attached.get("request") or {}).get("id") or key, Verdict.from_metadata(attached))
            return
        with self._lock:
            seen = self._synthesized.pop(id(response), None)
            if seen is not None and seen[0] is response:  # verified at synthesis: the same answer, re-keyed
                verdict = self._verdicts.pop(seen[1])
                request = (verdict.request or RequestInfo()).model_copy(update={"id": key})
                self._verdicts[key] = verdict.model_copy(update={"request": request})
                return
        self._answered(key, _query_str(event.query), response)

    def _answered(self, key: str, query: str | None, response: Any, *, accumulated: bool | None = None) -> None:
        detector = resolve_detector(self.detector)
        if isinstance(response, (Response, PydanticResponse)):
            request = to_request(query, response.response, response.source_nodes, detector=detector, source=SOURCE,
                                 embedding_model=self.embedding_model, accumulated=accumulated)
            verdict = GuardCore(detector).check(request)  # the guards' check, without their policy
        else:
            verdict = Verdict.unverified(
                "stream_not_consumed",
                f"{type(response).__name__} is not consumed when the answer is synthesized; wrap the engine in "
                "HalguardQueryEngine or HalguardChatEngine to verify streams",
                detector=detector.name,
                threshold=detector.threshold,
            )
        verdict = verdict.model_copy(update={
            "request": RequestInfo(id=key, question=query, source=f"llamaindex:{SOURCE}")})
        self._record(key, verdict)
        # Dispatched like every halguard verdict. This handler receives it too: _guard_verdict records only the
        # guards' verdicts, so its own is neither checked nor recorded again (no loop).
        dispatch_verdict(verdict, query, source=SOURCE)
        if self.jsonl_path is not None and isinstance(response, (Response, PydanticResponse)):
            self._log(key, query, response, verdict)
        with self._lock:
            self._synthesized[id(response)] = (response, key)
            while len(self._synthesized) > _REMEMBERED:
                self._synthesized.popitem(last=False)
        logger.log(logging.INFO if verdict.label == "supported" else logging.WARNING,
                   "halguard answer to %r: %s (score %s)", query, verdict.label, verdict.score)

    def _log(self, key: str, query: str | None, response: Any, verdict: Verdict) -> None:
        nodes = [{"node": {"id_": n.node.node_id, "text": n.node.get_content(),
                           "metadata": {"source": (n.node.metadata or {}).get("source")}},
                  "score": n.score} for n in response.source_nodes or []]
        line = {"id": key, "query": query, "response": str(response.response or ""), "source_nodes": nodes,
                "verdict": verdict.to_metadata()}
        with self._lock:
            append_private(self.jsonl_path, json.dumps(line, default=str) + "\n")

    def _record(self, key: str, verdict: Verdict) -> None:
        with self._lock:
            self._verdicts[key] = verdict
            self._verdicts.move_to_end(key)
            while len(self._verdicts) > self.max_verdicts:
                self._verdicts.popitem(last=False)


def _accumulating_span(span_id: str | None) -> bool | None:
    """True when the synthesis span is an accumulating synthesizer's, else None (unknown)."""
    return True if span_id and span_id.startswith(_ACCUMULATING_SPANS) else None


def _query_str(query: Any) -> str | None:
    value = getattr(query, "query_str", query)
    return value if isinstance(value, str) else None
