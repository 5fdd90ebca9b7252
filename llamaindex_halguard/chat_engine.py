"""HalguardChatEngine: wrap a chat engine; every turn's answer is verified against the nodes it used."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Callable, Generator
from dataclasses import dataclass, field, replace
from typing import Any

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.core.chat_engine.types import AgentChatResponse, BaseChatEngine, StreamingAgentChatResponse

from halguard.detector import Detector
from halguard.errors import InputTypeError
from halguard.policy import GuardDecision, fallback_unchecked, replacement_text, with_fallback_verdict
from halguard.schema import METADATA_KEY, Verdict
from llamaindex_halguard._convert import accumulating, annotate_nodes, guarding, request_id
from llamaindex_halguard._guard import Checked, GuardCore

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

    @property
    def response_gen(self) -> Generator[str, None, None]:
        if self.inner is None:  # buffered: the checked text, replayed
            yield from super().response_gen
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
        parts = []
        async for token in self.inner.async_response_gen():
            parts.append(token)
            yield token
        self._ended("".join(parts))

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
    ) -> None:
        if not isinstance(chat_engine, BaseChatEngine):
            msg = f"chat_engine must be a LlamaIndex BaseChatEngine, got {type(chat_engine).__name__}"
            raise InputTypeError(msg)
        self._core = GuardCore(detector, on_hallucination, on_unverified, embedding_model, SOURCE, repairer)
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
        checked = self._prepare(message, response.response, _turn_nodes(response))
        decision = self._core.repair(self._decide(self._core.verify(checked), checked), checked)
        text, fallback_verdict = self._replacement(decision, message)
        if text is not None:
            self._rewrite(response.response, text)
        return self._finish(response, decision, text, fallback_verdict)

    async def achat(self, message: str, chat_history: list[ChatMessage] | None = None) -> AgentChatResponse:
        with guarding():
            response = await self._engine.achat(message, chat_history)
        checked = self._prepare(message, response.response, _turn_nodes(response))
        decision = await self._core.arepair(self._decide(await self._core.averify(checked), checked), checked)
        text, fallback_verdict = await self._areplacement(decision, message)
        if text is not None:
            await self._arewrite(response.response, text)
        return self._finish(response, decision, text, fallback_verdict)

    def stream_chat(self, message: str, chat_history: list[ChatMessage] | None = None) -> StreamingAgentChatResponse:
        request = request_id()
        with guarding():
            inner = self._engine.stream_chat(message, chat_history)
        if self.on_hallucination not in ("fallback", "filter", "repair"):
            return self._live(inner, message, request)
        text = "".join(inner.response_gen)  # buffered: the answer may be replaced after the check
        checked = self._prepare(message, text, _turn_nodes(inner), request=request)
        decision = self._core.repair(self._decide(self._core.verify(checked), checked), checked)
        new, fallback_verdict = self._replacement(decision, message)
        if new is not None:
            self._rewrite(text, new)
        return self._buffered(inner, decision, text if new is None else new, fallback_verdict)

    async def astream_chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> StreamingAgentChatResponse:
        request = request_id()
        with guarding():
            inner = await self._engine.astream_chat(message, chat_history)
        if self.on_hallucination not in ("fallback", "filter", "repair"):
            return self._live(inner, message, request)
        text = "".join([t async for t in inner.async_response_gen()])
        checked = self._prepare(message, text, _turn_nodes(inner), request=request)
        decision = await self._core.arepair(self._decide(await self._core.averify(checked), checked), checked)
        new, fallback_verdict = await self._areplacement(decision, message)
        if new is not None:
            await self._arewrite(text, new)
        return self._buffered(inner, decision, text if new is None else new, fallback_verdict)

    # -- policy -----------------------------------------------------------------------------------------

    def _prepare(self, message: str, text: str, nodes: list[Any], request: str | None = None) -> Checked:
        # condense_question answers through a query engine, which may accumulate ("Response 1: ...")
        engine = getattr(self._engine, "_query_engine", None)
        return self._core.prepare(message, text, nodes, request=request, accumulated=accumulating(engine))

    def _decide(self, verdict: Verdict, checked: Checked) -> GuardDecision:
        return self._core.decide(verdict, checked, fallback_source=isinstance(self.fallback, BaseQueryEngine))

    def _replacement(self, decision: GuardDecision, message: str) -> tuple[str | None, Verdict | None]:
        """The text that replaces the answer (None: keep it) and the check of a fallback answer."""
        if decision.action == "fallback" and isinstance(self.fallback, BaseQueryEngine):
            with guarding():
                response = self.fallback.query(message)
            c = self._fallback_checked(decision, message, response)
            return c.text, self._core.check_fallback(decision.verdict, c) or self._core.verify(c, dispatch=False)
        return self._fixed(decision)

    async def _areplacement(self, decision: GuardDecision, message: str) -> tuple[str | None, Verdict | None]:
        if decision.action == "fallback" and isinstance(self.fallback, BaseQueryEngine):
            with guarding():
                response = await self.fallback.aquery(message)
            c = self._fallback_checked(decision, message, response)
            return c.text, self._core.check_fallback(decision.verdict, c) or await self._core.averify(c, dispatch=False)
        return self._fixed(decision)

    def _fallback_checked(self, decision: GuardDecision, message: str, response: Any) -> Checked:
        request = decision.verdict.request.id if decision.verdict.request else None
        return self._core.prepare(message, getattr(response, "response", None), getattr(response, "source_nodes", []),
                                  request=request, accumulated=accumulating(self.fallback))

    def _fixed(self, decision: GuardDecision) -> tuple[str | None, Verdict | None]:
        text = replacement_text(decision, self.fallback)
        return text, fallback_unchecked(decision.verdict) if decision.action == "fallback" else None

    @staticmethod
    def _final_verdict(decision: GuardDecision, fallback_verdict: Verdict | None) -> Verdict:
        if fallback_verdict is None:
            return decision.verdict
        return with_fallback_verdict(decision.verdict, fallback_verdict)

    def _finish(self, response: AgentChatResponse, decision: GuardDecision, text: str | None,
                fallback_verdict: Verdict | None) -> AgentChatResponse:
        verdict = self._final_verdict(decision, fallback_verdict)
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
            checked = self._prepare(message, text, _turn_nodes(inner), request=request)
            decision = self._core.repair(self._decide(self._core.verify(checked), checked), checked)
            wrapped.metadata = {METADATA_KEY: decision.verdict.to_metadata()}
            wrapped.source_nodes = annotate_nodes(_turn_nodes(inner), decision.verdict)

        wrapped.on_end = on_end
        return wrapped

    def _buffered(self, inner: StreamingAgentChatResponse, decision: GuardDecision, text: str,
                  fallback_verdict: Verdict | None) -> HalguardStreamingChatResponse:
        verdict = self._final_verdict(decision, fallback_verdict)
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
