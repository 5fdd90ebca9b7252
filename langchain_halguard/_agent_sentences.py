"""An agent's answer streamed sentence by sentence (``HalguardMiddleware(streaming="sentence")``).

LangGraph's ``"messages"`` stream mode takes a chat model's tokens from its callbacks while the model node runs,
before any middleware hook. So the middleware wraps the model call (``wrap_model_call``): the model's own run is
tagged ``nostream`` (its raw tokens stay out of the stream), a callback handler feeds its tokens to a
:class:`~halguard.guard.sentences.SentenceGate`, and each sentence the gate releases is sent as a token of a run of
its own (``halguard_sentences``, a chat-model run started through LangChain's callback managers), which the
``"messages"`` mode streams like any model's tokens. The message the model node returns holds what was sent, under
that run's message id, with the verdict in its ``response_metadata`` (the middleware's ``after_model`` then only
records it in the state).
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.callbacks.base import BaseCallbackManager
from langchain_core.callbacks.manager import AsyncCallbackManager, CallbackManager
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, LLMResult
from langchain_core.runnables.config import ensure_config, var_child_runnable_config

from halguard.guard import GuardOutcome
from halguard.guard.sentences import ReleasedSentence, SentenceGate
from halguard.schema import METADATA_KEY

__all__ = ["RELAY_RUN_NAME", "astream_model_by_sentence", "stream_model_by_sentence"]

RELAY_RUN_NAME = "halguard_sentences"
_NOSTREAM = "nostream"  # langgraph.constants.TAG_NOSTREAM: a model run whose tokens the messages mode leaves out


def _chunk(text: str, message_id: str) -> ChatGenerationChunk:
    return ChatGenerationChunk(message=AIMessageChunk(content=text, id=message_id))


class _Relay(BaseCallbackHandler):
    """The model's tokens into the gate; the released sentences out as the relay run's tokens."""

    run_inline = True
    raise_error = True  # "raise" must stop the agent, not be logged by the callback manager

    def __init__(self, gate: SentenceGate, relay: Any, message_id: str) -> None:
        self.gate, self.relay, self.message_id = gate, relay, message_id

    def send(self, sentences: list[ReleasedSentence]) -> None:
        for sentence in sentences:
            if sentence.text:
                self.relay.on_llm_new_token(sentence.text, chunk=_chunk(sentence.text, self.message_id))

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        if token:
            self.send(self.gate.feed(token))


class _AsyncRelay(AsyncCallbackHandler):
    """Async twin of :class:`_Relay`."""

    run_inline = True
    raise_error = True

    def __init__(self, gate: SentenceGate, relay: Any, message_id: str) -> None:
        self.gate, self.relay, self.message_id = gate, relay, message_id

    async def send(self, sentences: list[ReleasedSentence]) -> None:
        for sentence in sentences:
            if sentence.text:
                await self.relay.on_llm_new_token(sentence.text, chunk=_chunk(sentence.text, self.message_id))

    async def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        if token:
            await self.send(await self.gate.afeed(token))


def _callbacks(config: dict[str, Any], handler: Any) -> Any:
    """The node's callbacks with ``handler`` added and the model's run kept out of the messages stream."""
    callbacks = config.get("callbacks")
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
    else:
        manager = CallbackManager(handlers=list(callbacks or []), inheritable_handlers=list(callbacks or []))
    manager.add_handler(handler, inherit=True)
    manager.add_tags([_NOSTREAM], inherit=True)
    return manager


def _relay_run(config: dict[str, Any], manager_type: type) -> tuple[Any, str]:
    """The node's callback manager (the relay run starts under it) and the id its message chunks carry."""
    manager = manager_type.configure(config.get("callbacks"), None, inheritable_tags=config.get("tags"),
                                     inheritable_metadata=config.get("metadata"))
    return manager, f"lc_run--{uuid.uuid4()}"


def _answer(response: Any, text: str, outcome: GuardOutcome, message_id: str) -> Any:
    """The model's response with what was sent in its last message (same type), under the streamed id."""
    last = response.result[-1]
    metadata = {**last.response_metadata, METADATA_KEY: outcome.verdict.to_metadata()}
    update: dict[str, Any] = {"id": message_id, "response_metadata": metadata}
    if outcome.action != "pass":
        update["content"] = text.strip()
    return type(response)(result=[*response.result[:-1], last.model_copy(update=update)],
                          structured_response=response.structured_response)


def stream_model_by_sentence(gate: SentenceGate, request: Any, handler: Callable[[Any], Any]) -> Any:
    """Run the model through ``handler`` with its answer released sentence by sentence (see the module)."""
    config = ensure_config()
    manager, message_id = _relay_run(config, CallbackManager)
    (relay,) = manager.on_chat_model_start({"name": RELAY_RUN_NAME}, [list(request.messages)], name=RELAY_RUN_NAME)
    watcher = _Relay(gate, relay, message_id)
    token = var_child_runnable_config.set({**config, "callbacks": _callbacks(config, watcher)})
    try:
        response = handler(request)
    finally:
        var_child_runnable_config.reset(token)
    if not gate.text.strip():  # a tool call with no text: nothing was streamed, after_model decides as usual
        relay.on_llm_end(LLMResult(generations=[[]]))
        return response
    rest, outcome = gate.close()
    watcher.send(rest)
    sent = "".join(r.text for r in gate.released)
    relay.on_llm_end(LLMResult(generations=[[ChatGeneration(message=AIMessage(content=sent, id=message_id))]]))
    return _answer(response, sent, outcome, message_id)


async def astream_model_by_sentence(gate: SentenceGate, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
    """Async twin of :func:`stream_model_by_sentence`."""
    config = ensure_config()
    manager, message_id = _relay_run(config, AsyncCallbackManager)
    (relay,) = await manager.on_chat_model_start({"name": RELAY_RUN_NAME}, [list(request.messages)],
                                                 name=RELAY_RUN_NAME)
    watcher = _AsyncRelay(gate, relay, message_id)
    token = var_child_runnable_config.set({**config, "callbacks": _callbacks(config, watcher)})
    try:
        response = await handler(request)
    finally:
        var_child_runnable_config.reset(token)
    if not gate.text.strip():
        await relay.on_llm_end(LLMResult(generations=[[]]))
        return response
    rest, outcome = await gate.aclose()
    await watcher.send(rest)
    sent = "".join(r.text for r in gate.released)
    await relay.on_llm_end(LLMResult(generations=[[ChatGeneration(message=AIMessage(content=sent, id=message_id))]]))
    return _answer(response, sent, outcome, message_id)
