"""HalguardCallbackHandler: observe-only verification of finished RAG runs, for chains you can't wrap."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from uuid import UUID

from langchain_core.documents import Document
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.context import register_configure_hook
from langchain_core.tracers.schemas import Run

from halguard.api import resolve_detector
from halguard.detector import Detector
from halguard.failures import log_failure
from halguard.schema import RequestInfo, Verdict
from halguard.util.files import append_private
from halguard.util.options import require_positive_int
from halguard.util.verdict_callback import check_on_verdict
from langchain_halguard._documents import documents_to_contexts

__all__ = ["HalguardCallbackHandler", "get_halguard_callback"]

logger = logging.getLogger("langchain_halguard")

_QUESTION_KEYS = ("input", "question", "query")
_ANSWER_KEYS = ("answer", "output", "result", "text")


def _walk(run: Run) -> Iterator[Run]:
    yield run
    for child in sorted(run.child_runs, key=lambda r: (r.start_time, r.dotted_order or "")):
        yield from _walk(child)


def _generation_text(run: Run) -> str | None:
    generations = (run.outputs or {}).get("generations") or []
    for batch in generations:
        for gen in batch or []:
            text = gen.get("text") if isinstance(gen, dict) else getattr(gen, "text", None)
            if text:
                return text
    return None


class _SyncOrAsync:
    """A callback method that LangChain awaits on an event loop and calls plainly everywhere else.

    LangChain's async callback manager awaits a handler method only when it is a coroutine function; a plain one
    it calls (``run_inline``) without waiting for work it hands elsewhere, so a check done off the loop would end
    after ``await chain.ainvoke(...)`` returned. The sync manager, given a coroutine function, would start a new
    event loop for every call of it. Looking the method up by where it is called from gives each manager the form
    that costs it nothing: the coroutine on a running loop, the plain method elsewhere.
    """

    def __init__(self, sync_name: str, async_name: str) -> None:
        self.sync_name = sync_name
        self.async_name = async_name

    def __get__(self, handler: Any, owner: type | None = None) -> Any:
        if handler is None:
            return self
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return getattr(handler, self.sync_name)
        return getattr(handler, self.async_name)


def _first_str(values: Any, keys: tuple[str, ...]) -> str | None:
    if isinstance(values, str):
        return values
    if isinstance(values, dict):
        for key in keys:
            value = values.get(key)
            if isinstance(value, str):
                return value
            text = getattr(value, "text", None)  # a message
            if isinstance(text, str):
                return text
    return None


class HalguardCallbackHandler(BaseTracer):
    """Verify every finished root run that retrieved documents and produced an answer.

    Built on :class:`~langchain_core.tracers.base.BaseTracer`, which assembles the run tree, so the
    retriever's documents and the answer are correlated through the root run even though they come from
    sibling runs. Documents come from retriever runs (``outputs["documents"]``); the answer is the root
    run's output (``answer``/``output``/``result``, or a str), else the last LLM generation; the question
    is the root run's input (``input``/``question``/``query``), else the retriever's query.

    It only observes: verdicts are kept keyed by root run id (:attr:`verdicts`, thread-safe, the latest
    ``max_verdicts``), passed to ``on_verdict(verdict)`` (the run id is ``verdict.request.id``),
    logged through :mod:`logging` and optionally
    appended as JSON lines to ``jsonl_path``. Errors are logged, never raised into the chain.

    The check runs when the root run ends, before the call returns: ``invoke``, ``batch`` and ``stream`` check
    in the calling thread; ``ainvoke``, ``abatch``, ``astream`` and ``astream_events`` await the detector's
    ``averify`` (the local verifier runs in a worker thread, so the loop serves other requests meanwhile). Every
    verdict of a call is in :attr:`verdicts` when the call returns; the cost is the check's own time (tens of
    milliseconds with the local verifier, measured in docs/langchain.md).

    Args:
        detector: The detector (default: the shared LocalVerifier).
        on_verdict: Called as ``on_verdict(verdict)`` after each verification, the shape every halguard guard
            uses; the root run's id is ``verdict.request.id``. A callable that cannot take the verdict alone is
            refused here (``InvalidInputError``).
        jsonl_path: Append one JSON line per verdict to this file (created with mode 0600; a symlink is refused).
        max_verdicts: How many verdicts :attr:`verdicts` keeps (the oldest go first).
        log_context_text: Write the retrieved passages (``contexts``, what ``halguard audit`` re-checks the answer
            on) and the evidence excerpts into ``jsonl_path``; False leaves them out (the claims, spans and scores
            stay, and an audit of the log marks those rows unreadable: no contexts).
    """

    name: str = "halguard_callback_handler"
    run_inline: bool = True

    def __init__(
        self,
        *,
        detector: Detector | None = None,
        on_verdict: Callable[[Verdict], Any] | None = None,
        jsonl_path: str | Path | None = None,
        max_verdicts: int = 1000,
        log_context_text: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        require_positive_int("max_verdicts", max_verdicts)
        self.detector = resolve_detector(detector)
        self.on_verdict = check_on_verdict(on_verdict, "HalguardCallbackHandler")
        self.jsonl_path = Path(jsonl_path) if jsonl_path is not None else None
        self.max_verdicts = max_verdicts
        self.log_context_text = log_context_text
        self._verdicts: OrderedDict[UUID, Verdict] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def verdicts(self) -> dict[UUID, Verdict]:
        """A snapshot of the verdicts so far, keyed by root run id."""
        with self._lock:
            return dict(self._verdicts)

    def get_verdict(self, run_id: UUID) -> Verdict | None:
        with self._lock:
            return self._verdicts.get(run_id)

    def _persist_run(self, run: Run) -> None:
        """Nothing: a root run is checked when it ends (``on_chain_end``), where an async call can await it."""

    def _end_chain(self, outputs: dict[str, Any], *, run_id: UUID, inputs: dict[str, Any] | None = None,
                   **kwargs: Any) -> Run:
        run = super().on_chain_end(outputs, run_id=run_id, inputs=inputs, **kwargs)
        if run.parent_run_id is None:
            found = self._find(run)
            if found is not None:
                try:
                    self._record(run, *found, self.detector.verify(found[1], found[2], question=found[0]))
                except Exception as exc:  # an observer must never break the chain it observes
                    log_failure(logger, f"halguard verifying run {run.id}", exc, level=logging.ERROR)
        return run

    async def _aend_chain(self, outputs: dict[str, Any], *, run_id: UUID, inputs: dict[str, Any] | None = None,
                          **kwargs: Any) -> None:
        run = super().on_chain_end(outputs, run_id=run_id, inputs=inputs, **kwargs)
        if run.parent_run_id is None:
            found = self._find(run)
            if found is not None:
                try:
                    self._record(run, *found, await self.detector.averify(found[1], found[2], question=found[0]))
                except Exception as exc:
                    log_failure(logger, f"halguard verifying run {run.id}", exc, level=logging.ERROR)

    on_chain_end = _SyncOrAsync("_end_chain", "_aend_chain")  # type: ignore[assignment]

    def flush(self, timeout: float | None = None) -> bool:
        """True: every check is done when its call returns (kept for code written for earlier versions)."""
        return True

    async def aflush(self, timeout: float | None = None) -> bool:
        """Async twin of :meth:`flush`."""
        return True

    def _find(self, run: Run) -> tuple[str | None, str, list[tuple[str, str]]] | None:
        """The question, answer and contexts of a finished root run; None when it is not a RAG run."""
        docs: list[Document] = []
        question = _first_str(run.inputs, _QUESTION_KEYS)
        last_generation = None
        for node in _walk(run):
            if node.run_type == "retriever" and node.outputs:
                docs.extend(d for d in node.outputs.get("documents", []) if isinstance(d, Document))
                question = question or _first_str(node.inputs, ("query",))
            elif node.run_type in ("llm", "chat_model"):
                last_generation = _generation_text(node) or last_generation
        answer = _first_str(run.outputs, _ANSWER_KEYS) or last_generation
        if not docs or answer is None:
            return None  # not a RAG run: nothing retrieved, or nothing answered
        return question, answer, documents_to_contexts(docs, "documents")

    def _record(self, run: Run, question: str | None, answer: str, contexts: list[tuple[str, str]],
                verdict: Verdict) -> None:
        verdict = verdict.model_copy(update={
            "request": RequestInfo(id=str(run.id), question=question, source="langchain:HalguardCallbackHandler")
        })
        with self._lock:
            self._verdicts[run.id] = verdict
            while len(self._verdicts) > self.max_verdicts:
                self._verdicts.popitem(last=False)
            if self.jsonl_path is not None:
                record = verdict.to_metadata()
                if not self.log_context_text:
                    record = _without_context_text(record)
                line = {"run_id": str(run.id), "question": question, "answer": answer, "verdict": record}
                if self.log_context_text:  # the retrieved passages: what `halguard audit` re-checks the answer on
                    line["contexts"] = [{"id": i, "text": t} for i, t in contexts]
                append_private(self.jsonl_path, json.dumps(line) + "\n")
        level = logging.INFO if verdict.label == "supported" else logging.WARNING
        logger.log(level, "halguard run %s: %s (score %s)", run.id, verdict.label, verdict.score)
        if self.on_verdict is not None:
            self.on_verdict(verdict)


def _without_context_text(record: dict[str, Any]) -> dict[str, Any]:
    """A verdict's metadata without excerpts of the retrieved documents."""
    record = dict(record)
    record["claims"] = [{**c, "evidence": [{k: v for k, v in e.items() if k != "text"} for e in c["evidence"]]}
                        for c in record.get("claims", [])]
    record["skipped_sources"] = [{k: v for k, v in s.items() if k != "text"} for s in record.get("skipped_sources", [])]
    return record


_halguard_callback_var: ContextVar[HalguardCallbackHandler | None] = ContextVar(
    "halguard_callback", default=None
)
register_configure_hook(_halguard_callback_var, inheritable=True)


@contextmanager
def get_halguard_callback(
    *, detector: Detector | None = None, **kwargs: Any
) -> Iterator[HalguardCallbackHandler]:
    """Verify every RAG run inside the ``with`` block, like ``get_usage_metadata_callback()``.

    ``detector`` and ``kwargs`` are :class:`HalguardCallbackHandler`'s options.

    Example:
        .. code-block:: python

            with get_halguard_callback() as cb:
                rag_chain.invoke({"input": "When did JWST launch?"})
            print(list(cb.verdicts.values())[0].label)
    """
    handler = HalguardCallbackHandler(detector=detector, **kwargs)
    token = _halguard_callback_var.set(handler)
    try:
        yield handler
    finally:
        _halguard_callback_var.reset(token)
