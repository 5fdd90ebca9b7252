"""HalguardChatEngine: wrap a chat engine; every turn's answer is verified against the nodes it used."""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncGenerator, Callable, Generator
from dataclasses import dataclass, field, replace
from typing import Any

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.core.chat_engine.types import AgentChatResponse, BaseChatEngine, StreamingAgentChatResponse

from halguard.detector import Detector
from halguard.errors import InputTypeError, InvalidInputError
from halguard.guard import FallbackAnswer, GuardHooks, GuardOutcome, GuardRequest
from halguard.guard.sentences import SentenceGate
from halguard.schema import METADATA_KEY, Verdict
from llamaindex_halguard._convert import accumulating, annotate_nodes, guarding, request_id
from llamaindex_halguard._guard import LlamaIndexGuard
from llamaindex_halguard._request import answer_text
from llamaindex_halguard._sentences import areleased_tokens, released_tokens

__all__ = ["HalguardChatEngine", "HalguardStreamingChatResponse"]

logger = logging.getLogger("llamaindex_halguard")

SOURCE = "HalguardChatEngine"


@dataclass
class HalguardStreamingChatResponse(StreamingAgentChatResponse):
    """A streamed chat answer checked when the stream ends; then ``metadata["halguard"]`` holds the verdict.

    With ``on_hallucination="raise"`` the error comes after the last token, as the check needs the whole answer.
    With ``"fallback"`` or ``"filter"`` the guard buffers the answer, so this stream yields the checked text.
    """

    metadata: dict[str, Any] | None = None
    inner: StreamingAgentChatResponse | None = field(default=None, repr=False)
    on_end: Callable[[str], Any] | None = field(default=None, repr=False)
    gate: SentenceGate | None = field(default=None, repr=False)  # streaming="sentence": what releases each one
    on_outcome: Callable[[str, GuardOutcome], Any] | None = field(default=None, repr=False)

    @property
    def response_gen(self) -> Generator[str, None, None]:
        if self.inner is None:  # buffered: the checked text, replayed
            yield from super().response_gen
            return
        if self.gate is not None:  # the engine writes its memory as it streams: read it to the end (drain)
            yield from released_tokens(self.gate, self.inner.response_gen, self._released, drain=True)
            return
        parts = []
        for token in self.inner.response_gen:
            parts.append(token)
            yield token
        self._ended("".join(parts))

    async def async_response_gen(self) -> AsyncGenerator[str, None]:
        if self.inner is None:
            async for token in super().async_response_gen():
                yield token
            return
        if self.gate is not None:
            async for token in areleased_tokens(self.gate, self.inner.async_response_gen(), self._areleased,
                                                drain=True):
                yield token
            return
        parts = []
        async for token in self.inner.async_response_gen():
            parts.append(token)
            yield token
        self._ended("".join(parts))

    def _released(self, text: str, outcome: GuardOutcome) -> None:
        self.response = self.unformatted_response = text.strip()
        if self.on_outcome is not None:
            self.on_outcome(text, outcome)

    async def _areleased(self, text: str, outcome: GuardOutcome) -> None:
        self.response = self.unformatted_response = text.strip()
        if self.on_outcome is not None:
            done = self.on_outcome(text, outcome)
            if inspect.isawaitable(done):
                await done

    def _ended(self, text: str) -> None:
        self.response = self.unformatted_response = text.strip()
        if self.on_end is not None:
            self.on_end(self.response)

    def __str__(self) -> str:
        return self.response


def _turn_nodes(response: Any) -> list[Any]:
    """The nodes a chat turn used: ``source_nodes``, or those of its tool outputs (``condense_question`` streams
    asynchronously through an ``AsyncStreamingResponse``, which ``source_nodes`` does not pick up)."""
    if response.source_nodes:
        return list(response.source_nodes)
    return [n for tool in response.sources or [] for n in getattr(tool.raw_output, "source_nodes", None) or []]


def _replacement(outcome: GuardOutcome) -> str | None:
    """The text the user gets instead of the answer (None: the answer stands): a fallback engine's answer, or the
    text the policy chose."""
    if outcome.fallback is not None:
        return answer_text(getattr(outcome.fallback.result, "response", None))
    return outcome.text


def _replay(text: str) -> tuple[Generator[ChatResponse, None, None], Callable[[], AsyncGenerator[ChatResponse, None]]]:
    message = ChatMessage(role=MessageRole.ASSISTANT, content=text)

    def sync() -> Generator[ChatResponse, None, None]:
        yield ChatResponse(message=message, delta=text)

    async def agen() -> AsyncGenerator[ChatResponse, None]:
        yield ChatResponse(message=message, delta=text)

    return sync(), agen


class HalguardChatEngine(BaseChatEngine):
    """A chat engine that verifies each answer against the source nodes its turn retrieved.

    Wraps what ``index.as_chat_engine(chat_mode="context" | "condense_plus_context" | "condense_question")``
    returns, or any ``BaseChatEngine`` whose responses carry ``source_nodes``. Each turn is checked against its
    nodes (the user's message is the question), the verdict goes to ``response.metadata["halguard"]`` (a dict;
    :func:`halguard.get_verdict` reads it back) with annotated copies of the nodes, a
    :class:`~llamaindex_halguard.HalguardVerdictEvent` is dispatched, and the policy applies as in
    :class:`~llamaindex_halguard.HalguardQueryEngine`.

    When the policy changes the answer (``"filter"``, ``"fallback"``, ``"repair"``) the engine's memory is changed too, so the
    next turn builds on what the user was shown, not on the rejected text (``rewrite_history=True``, the
    default): the last assistant message, when it is the rejected answer, is replaced. With ``"raise"`` the turn
    stays in the engine's memory as the engine wrote it; call ``reset()`` or handle it in your app.

    Args:
        chat_engine: The chat engine to wrap.
        detector: A halguard Detector (default: the shared LocalVerifier).
        on_hallucination: ``"annotate" | "raise" | "fallback" | "filter" | "repair"``.
        on_unverified: ``"fail_open" | "fail_closed"``.
        fallback: With ``"fallback"``: a message, or a query engine asked the user's message instead.
        embedding_model: The index's embedding model, so nodes' stored vectors can be reused.
        rewrite_history: Put the answer the user got into the engine's memory when the policy changed it.
        repairer: With ``"repair"``: the LLM that rewrites flagged sentences from the turn's source nodes.
        streaming: ``"whole"`` or ``"sentence"``: ``stream_chat`` sends each sentence once it is complete and
            checked (``filter`` drops a flagged one, ``fallback`` sends the message instead and the rest of the
            engine's answer is read but not sent); the memory then holds what was sent. ``repair`` streams whole.
        warm_up: Load what the detector's first check would load now, not at the first request.
    """

    def __init__(
        self,
        chat_engine: BaseChatEngine,
        *,
        detector: Detector | None = None,
        on_hallucination: str = "annotate",
        on_unverified: str = "fail_open",
        fallback: str | BaseQueryEngine | None = None,
        embedding_model: str | None = None,
        rewrite_history: bool = True,
        repairer: Any = None,
        streaming: str = "whole",
        warm_up: bool = False,
    ) -> None:
        if not isinstance(chat_engine, BaseChatEngine):
            msg = f"chat_engine must be a LlamaIndex BaseChatEngine, got {type(chat_engine).__name__}"
            raise InputTypeError(msg)
        self._guard = LlamaIndexGuard(detector, on_hallucination, on_unverified, embedding_model, SOURCE,
                                      repairer=repairer, fallback=fallback, warm_up=warm_up)
        if streaming not in ("whole", "sentence"):
            msg = f"streaming must be 'whole' or 'sentence', got {streaming!r}"
            raise InvalidInputError(msg)
        self._by_sentence = streaming == "sentence" and on_hallucination != "repair"  # repair needs the whole answer
        self._engine = chat_engine
        self.on_hallucination = on_hallucination
        self.on_unverified = on_unverified
        self.fallback = fallback
        self.rewrite_history = rewrite_history

    # -- the wrapped engine's state -------------------------------------------------------------------

    def reset(self) -> None:
        self._engine.reset()

    @property
    def chat_history(self) -> list[ChatMessage]:
        return self._engine.chat_history

    # -- chat -------------------------------------------------------------------------------------------

    def chat(self, message: str, chat_history: list[ChatMessage] | None = None) -> AgentChatResponse:
        with guarding():
            response = self._engine.chat(message, chat_history)
        outcome = self._guard.core.run(self._request(message, response.response, _turn_nodes(response)),
                                       self._hooks(message))
        text = _replacement(outcome)
        if text is not None:
            self._rewrite(response.response, text)
        return self._finish(response, outcome.verdict, text)

    async def achat(self, message: str, chat_history: list[ChatMessage] | None = None) -> AgentChatResponse:
        with guarding():
            response = await self._engine.achat(message, chat_history)
        outcome = await self._guard.core.arun(self._request(message, response.response, _turn_nodes(response)),
                                              self._ahooks(message))
        text = _replacement(outcome)
        if text is not None:
            await self._arewrite(response.response, text)
        return self._finish(response, outcome.verdict, text)

    def stream_chat(self, message: str, chat_history: list[ChatMessage] | None = None) -> StreamingAgentChatResponse:
        request = request_id()
        with guarding():
            inner = self._engine.stream_chat(message, chat_history)
        if self._by_sentence:
            return self._by_sentences(inner, message, request, self._guard.hooks())
        if not self._guard.core.changes_answers:
            return self._live(inner, message, request)
        text = "".join(inner.response_gen)  # buffered: the answer may be replaced after the check
        outcome = self._guard.core.run(self._request(message, text, _turn_nodes(inner), request),
                                       self._hooks(message))
        new = _replacement(outcome)
        if new is not None:
            self._rewrite(text, new)
        return self._buffered(inner, outcome.verdict, text if new is None else new)

    async def astream_chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> StreamingAgentChatResponse:
        request = request_id()
        with guarding():
            inner = await self._engine.astream_chat(message, chat_history)
        if self._by_sentence:
            return self._by_sentences(inner, message, request, self._guard.hooks(), asynchronous=True)
        if not self._guard.core.changes_answers:
            return self._live(inner, message, request)
        text = "".join([t async for t in inner.async_response_gen()])
        outcome = await self._guard.core.arun(self._request(message, text, _turn_nodes(inner), request),
                                              self._ahooks(message))
        new = _replacement(outcome)
        if new is not None:
            await self._arewrite(text, new)
        return self._buffered(inner, outcome.verdict, text if new is None else new)

    # -- policy -----------------------------------------------------------------------------------------

    def _request(self, message: str, text: str, nodes: list[Any], request: str | None = None) -> GuardRequest:
        # condense_question answers through a query engine, which may accumulate ("Response 1: ...")
        engine = getattr(self._engine, "_query_engine", None)
        return self._guard.request(message, text, nodes, request=request, accumulated=accumulating(engine))

    def _hooks(self, message: str) -> GuardHooks:
        """A fallback query engine is asked the user's message; its answer is checked against its own nodes."""
        def fallback(rejected: Verdict) -> FallbackAnswer:
            with guarding():
                response = self.fallback.query(message)  # type: ignore[union-attr]
            return FallbackAnswer(response, self._fallback_request(rejected, message, response))

        return self._guard.hooks(fallback=fallback if isinstance(self.fallback, BaseQueryEngine) else None)

    def _ahooks(self, message: str) -> GuardHooks:
        async def fallback(rejected: Verdict) -> FallbackAnswer:
            with guarding():
                response = await self.fallback.aquery(message)  # type: ignore[union-attr]
            return FallbackAnswer(response, self._fallback_request(rejected, message, response))

        return self._guard.hooks(fallback=fallback if isinstance(self.fallback, BaseQueryEngine) else None)

    def _fallback_request(self, rejected: Verdict, message: str, response: Any) -> GuardRequest:
        request = rejected.request.id if rejected.request else None
        return self._guard.request(message, getattr(response, "response", None),
                                   getattr(response, "source_nodes", []), request=request,
                                   accumulated=accumulating(self.fallback))

    def _finish(self, response: AgentChatResponse, verdict: Verdict, text: str | None) -> AgentChatResponse:
        return replace(
            response,
            response=text if text is not None else response.response,
            source_nodes=annotate_nodes(_turn_nodes(response), verdict),
            metadata={**(response.metadata or {}), METADATA_KEY: verdict.to_metadata()},
        )

    def _live(self, inner: StreamingAgentChatResponse, message: str, request: str) -> HalguardStreamingChatResponse:
        """The inner stream as it comes; the check runs when it ends (``raise`` raises then)."""
        wrapped = HalguardStreamingChatResponse(sources=inner.sources, source_nodes=list(inner.source_nodes),
                                                is_writing_to_memory=False, inner=inner)

        def on_end(text: str) -> None:
            outcome = self._guard.core.run(self._request(message, text, _turn_nodes(inner), request),
                                           self._hooks(message))
            wrapped.metadata = {METADATA_KEY: outcome.verdict.to_metadata()}
            wrapped.source_nodes = annotate_nodes(_turn_nodes(inner), outcome.verdict)

        wrapped.on_end = on_end
        return wrapped

    def _by_sentences(self, inner: StreamingAgentChatResponse, message: str, request: str, hooks: GuardHooks, *,
                      asynchronous: bool = False) -> HalguardStreamingChatResponse:
        """Each sentence once it is complete and checked; the memory then holds what was sent."""
        wrapped = HalguardStreamingChatResponse(sources=inner.sources, source_nodes=list(inner.source_nodes),
                                                is_writing_to_memory=False, inner=inner)
        wrapped.gate = SentenceGate(self._guard.core, self._request(message, "", _turn_nodes(inner), request), hooks)

        def on_outcome(text: str, outcome: GuardOutcome) -> None:
            wrapped.metadata = {METADATA_KEY: outcome.verdict.to_metadata()}
            wrapped.source_nodes = annotate_nodes(_turn_nodes(inner), outcome.verdict)
            if outcome.action != "pass":
                self._rewrite(inner.response, text.strip())

        async def aon_outcome(text: str, outcome: GuardOutcome) -> None:
            wrapped.metadata = {METADATA_KEY: outcome.verdict.to_metadata()}
            wrapped.source_nodes = annotate_nodes(_turn_nodes(inner), outcome.verdict)
            if outcome.action != "pass":
                await self._arewrite(inner.response or inner.unformatted_response, text.strip())

        wrapped.on_outcome = aon_outcome if asynchronous else on_outcome
        return wrapped

    def _buffered(self, inner: StreamingAgentChatResponse, verdict: Verdict,
                  text: str) -> HalguardStreamingChatResponse:
        stream, astream = _replay(text)
        return HalguardStreamingChatResponse(
            response=text, sources=inner.sources, source_nodes=annotate_nodes(_turn_nodes(inner), verdict),
            chat_stream=stream, achat_stream=astream(), is_writing_to_memory=False,
            metadata={METADATA_KEY: verdict.to_metadata()},
        )

    # -- memory -----------------------------------------------------------------------------------------

    def _memory(self) -> Any:
        return getattr(self._engine, "_memory", None) or getattr(self._engine, "memory", None)

    @staticmethod
    def _rewritten(messages: list[ChatMessage], original: str, new: str) -> list[ChatMessage] | None:
        for i in range(len(messages) - 1, -1, -1):
            if messages[i].role == MessageRole.ASSISTANT:
                if (messages[i].content or "").strip() == (original or "").strip():
                    return [*messages[:i], ChatMessage(role=MessageRole.ASSISTANT, content=new), *messages[i + 1:]]
                return None
        return None

    def _rewrite(self, original: str, new: str) -> None:
        memory = self._memory()
        if not self.rewrite_history or memory is None:
            return
        updated = self._rewritten(memory.get_all(), original, new)
        if updated is None:
            logger.info("halguard: the engine's memory does not end with the rejected answer; left as it is")
            return
        memory.set(updated)

    async def _arewrite(self, original: str, new: str) -> None:
        memory = self._memory()
        if not self.rewrite_history or memory is None:
            return
        updated = self._rewritten(await memory.aget_all(), original, new)
        if updated is None:
            logger.info("halguard: the engine's memory does not end with the rejected answer; left as it is")
            return
        await memory.aset(updated)
