"""An agent's answer streamed sentence by sentence (``HalguardMiddleware(streaming="sentence")``).

LangGraph's ``"messages"`` stream mode takes a chat model's tokens from its callbacks while the model node runs,
before any middleware hook. So the middleware wraps the model call (``wrap_model_call``): the model's own run is
tagged ``nostream`` (its raw tokens stay out of the stream), a callback handler feeds its tokens to a
:class:`~halguard.guard.sentences.SentenceGate`, and each sentence the gate releases is sent as a token of a run of
its own (``halguard_sentences``, a chat-model run started through LangChain's callback managers), which the
``"messages"`` mode streams like any model's tokens. The message the model node returns holds what was sent, under
that run's message id, with the verdict in its ``response_metadata`` (the middleware's ``after_model`` then only
records it in the state).

Two things are only known as the model's turn goes on. A turn that begins with no evidence in the thread (the
agent's first turn, before any tool ran) is held whole: what a model says there is usually "Let me look that up."
next to a tool call, which is not an answer to check (unless ``check_intermediate``); at the turn's end a tool call
sends it as it is (as ``streaming="whole"`` leaves it), and an answer is checked whole. And a model call that fails
mid-stream and is tried again (``ModelRetryMiddleware``, ``ModelFallbackMiddleware`` inside this one) starts a new
gate under a new message id: the failed attempt's unfinished sentence is never sent, nor joined to the next.
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

__all__ = ["RELAY_RUN_NAME", "acall_model_checked", "astream_model_by_sentence", "call_model_checked",
           "stream_model_by_sentence"]

RELAY_RUN_NAME = "halguard_sentences"
_NOSTREAM = "nostream"  # langgraph.constants.TAG_NOSTREAM: a model run whose tokens the messages mode leaves out


def _chunk(text: str, message_id: str) -> ChatGenerationChunk:
    return ChatGenerationChunk(message=AIMessageChunk(content=text, id=message_id))


class _Turn:
    """One model turn's state, shared by the sync and async relays: the current attempt's gate and message id, and
    the text held while the turn has no evidence."""

    def __init__(self, make_gate: Callable[[], SentenceGate], relay: Any) -> None:
        self.make_gate, self.relay = make_gate, relay
        self.gate = make_gate()
        self.hold = not self.gate.request.contexts  # no evidence yet: decide at the turn's end
        self.held = ""
        self.message_id = _message_id()
        self.attempt: Any = None  # the model run whose tokens are being read

    def token(self, token: str, run_id: Any) -> str | None:
        """The text to feed the gate (None: held, or nothing)."""
        if run_id is not None and self.attempt is not None and run_id != self.attempt:
            self.restart()  # another model run: the previous one ended without an answer
        self.attempt = run_id
        if self.hold:
            self.held += token
            return None
        return token or None

    def restart(self) -> None:
        """A failed attempt: its unfinished text is dropped; the next attempt gets a new gate and message id."""
        self.gate = self.make_gate()
        self.held = ""
        self.message_id = _message_id()
        self.attempt = None


class _Relay(BaseCallbackHandler):
    """The model's tokens into the gate; the released sentences out as the relay run's tokens."""

    run_inline = True
    raise_error = True  # "raise" must stop the agent, not be logged by the callback manager

    def __init__(self, turn: _Turn) -> None:
        self.turn = turn

    def send(self, sentences: list[ReleasedSentence]) -> None:
        for sentence in sentences:
            if sentence.text:
                self.turn.relay.on_llm_new_token(sentence.text, chunk=_chunk(sentence.text, self.turn.message_id))

    def on_llm_new_token(self, token: str, *, run_id: Any = None, **kwargs: Any) -> None:
        text = self.turn.token(token, run_id)
        if text:
            self.send(self.turn.gate.feed(text))

    def on_llm_error(self, error: BaseException, *, run_id: Any = None, **kwargs: Any) -> None:
        self.turn.restart()


class _AsyncRelay(AsyncCallbackHandler):
    """Async twin of :class:`_Relay`."""

    run_inline = True
    raise_error = True

    def __init__(self, turn: _Turn) -> None:
        self.turn = turn

    async def send(self, sentences: list[ReleasedSentence]) -> None:
        for sentence in sentences:
            if sentence.text:
                await self.turn.relay.on_llm_new_token(sentence.text,
                                                       chunk=_chunk(sentence.text, self.turn.message_id))

    async def on_llm_new_token(self, token: str, *, run_id: Any = None, **kwargs: Any) -> None:
        text = self.turn.token(token, run_id)
        if text:
            await self.send(await self.turn.gate.afeed(text))

    async def on_llm_error(self, error: BaseException, *, run_id: Any = None, **kwargs: Any) -> None:
        self.turn.restart()


def _message_id() -> str:
    return f"lc_run--{uuid.uuid4()}"


def _unstreamed(turn: _Turn, response: Any) -> None:
    """A model that does not stream sent no token: its answer is taken whole, as one chunk of text."""
    if turn.gate.text or turn.held or not response.result:
        return
    turn.hold, turn.held = True, response.result[-1].text


def _unchecked_step(turn: _Turn, response: Any, check_intermediate: bool) -> str | None:
    """The text of a held turn that ends in a tool call and is not checked (as ``streaming="whole"`` leaves it);
    None when the turn is to be checked."""
    last = response.result[-1] if response.result else None
    if not turn.hold or check_intermediate or last is None or not getattr(last, "tool_calls", None):
        return None
    return turn.held


def _event_streams() -> tuple[type, ...]:
    """The handlers behind ``astream_events`` and ``astream_log`` (they stream every model token they see)."""
    try:
        from langchain_core.tracers.event_stream import _AstreamEventsCallbackHandler
        from langchain_core.tracers.log_stream import LogStreamCallbackHandler
    except ImportError:  # another langchain-core layout: the docs' exclude_tags=["nostream"] still works
        return ()
    return (_AstreamEventsCallbackHandler, LogStreamCallbackHandler)


def _callbacks(config: dict[str, Any], handler: Any) -> Any:
    """The node's callbacks with ``handler`` added and the model's run kept out of the streams a user reads: the
    messages stream mode (the ``nostream`` tag) and ``astream_events`` / ``astream_log`` (their handlers are left
    out of the model's run; the relay run's checked sentences reach them as ``on_chat_model_stream``)."""
    callbacks = config.get("callbacks")
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
    else:
        manager = CallbackManager(handlers=list(callbacks or []), inheritable_handlers=list(callbacks or []))
    hidden = _event_streams()
    for streamer in [h for h in manager.handlers if hidden and isinstance(h, hidden)]:
        manager.remove_handler(streamer)
    if handler is not None:
        manager.add_handler(handler, inherit=True)
    manager.add_tags([_NOSTREAM], inherit=True)
    return manager


def _node_manager(config: dict[str, Any], manager_type: type) -> Any:
    """The node's callback manager (the relay run starts under it)."""
    return manager_type.configure(config.get("callbacks"), None, inheritable_tags=config.get("tags"),
                                  inheritable_metadata=config.get("metadata"))


def _with_last(response: Any, update: dict[str, Any]) -> Any:
    """The model's response (same type) with ``update`` on its last message."""
    last = response.result[-1]
    return type(response)(result=[*response.result[:-1], last.model_copy(update=update)],
                          structured_response=response.structured_response)


def _answer(response: Any, text: str, outcome: GuardOutcome, message_id: str) -> Any:
    """The model's response with what was sent in its last message, under the streamed id, with the verdict."""
    metadata = {**response.result[-1].response_metadata, METADATA_KEY: outcome.verdict.to_metadata()}
    update: dict[str, Any] = {"id": message_id, "response_metadata": metadata}
    if outcome.action != "pass":
        update["content"] = text.strip()
    return _with_last(response, update)


def _end(text: str, message_id: str) -> LLMResult:
    return LLMResult(generations=[[ChatGeneration(message=AIMessage(content=text, id=message_id))]])


def _send_once(relay: Any, text: str, message_id: str) -> None:
    """``text`` as the relay run's one token, and the run ended with it."""
    if text:
        relay.on_llm_new_token(text, chunk=_chunk(text, message_id))
    relay.on_llm_end(_end(text, message_id))


async def _asend_once(relay: Any, text: str, message_id: str) -> None:
    """Async twin of :func:`_send_once`."""
    if text:
        await relay.on_llm_new_token(text, chunk=_chunk(text, message_id))
    await relay.on_llm_end(_end(text, message_id))


def stream_model_by_sentence(make_gate: Callable[[], SentenceGate], request: Any, handler: Callable[[Any], Any], *,
                             check_intermediate: bool = False) -> Any:
    """Run the model through ``handler`` with its answer released sentence by sentence (see the module)."""
    config = ensure_config()
    manager = _node_manager(config, CallbackManager)
    (relay,) = manager.on_chat_model_start({"name": RELAY_RUN_NAME}, [list(request.messages)], name=RELAY_RUN_NAME)
    turn = _Turn(make_gate, relay)
    watcher = _Relay(turn)
    token = var_child_runnable_config.set({**config, "callbacks": _callbacks(config, watcher)})
    try:
        response = handler(request)
    finally:
        var_child_runnable_config.reset(token)
    _unstreamed(turn, response)
    step = _unchecked_step(turn, response, check_intermediate)
    if step is not None:  # "Let me look that up." and a tool call: sent as it is, as the state keeps it
        if not step:  # a tool call with no text: nothing to send
            relay.on_llm_end(LLMResult(generations=[[]]))
            return response
        _send_once(relay, step, turn.message_id)
        return _with_last(response, {"id": turn.message_id})  # the messages mode then does not send it again
    gate = turn.gate
    if turn.hold and turn.held:
        watcher.send(gate.feed(turn.held))
    if not gate.text.strip():  # a tool call with no text: nothing was streamed, after_model decides as usual
        relay.on_llm_end(LLMResult(generations=[[]]))
        return response
    rest, outcome = gate.close()
    watcher.send(rest)
    sent = "".join(r.text for r in gate.released)
    relay.on_llm_end(_end(sent, turn.message_id))
    return _answer(response, sent, outcome, turn.message_id)


async def astream_model_by_sentence(make_gate: Callable[[], SentenceGate], request: Any,
                                    handler: Callable[[Any], Awaitable[Any]], *,
                                    check_intermediate: bool = False) -> Any:
    """Async twin of :func:`stream_model_by_sentence`."""
    config = ensure_config()
    manager = _node_manager(config, AsyncCallbackManager)
    (relay,) = await manager.on_chat_model_start({"name": RELAY_RUN_NAME}, [list(request.messages)],
                                                 name=RELAY_RUN_NAME)
    turn = _Turn(make_gate, relay)
    watcher = _AsyncRelay(turn)
    token = var_child_runnable_config.set({**config, "callbacks": _callbacks(config, watcher)})
    try:
        response = await handler(request)
    finally:
        var_child_runnable_config.reset(token)
    _unstreamed(turn, response)
    step = _unchecked_step(turn, response, check_intermediate)
    if step is not None:
        if not step:
            await relay.on_llm_end(LLMResult(generations=[[]]))
            return response
        await _asend_once(relay, step, turn.message_id)
        return _with_last(response, {"id": turn.message_id})  # the messages mode then does not send it again
    gate = turn.gate
    if turn.hold and turn.held:
        await watcher.send(await gate.afeed(turn.held))
    if not gate.text.strip():
        await relay.on_llm_end(LLMResult(generations=[[]]))
        return response
    rest, outcome = await gate.aclose()
    await watcher.send(rest)
    sent = "".join(r.text for r in gate.released)
    await relay.on_llm_end(_end(sent, turn.message_id))
    return _answer(response, sent, outcome, turn.message_id)


# -- the whole answer, checked before anything is streamed (streaming="whole") ---------------------------------------

def _checked_response(response: Any, update: dict[str, Any]) -> tuple[Any, str, str]:
    """The response with the checked message (``update``: the middleware's state update) in its last one's place,
    under a new message id, with the text to send and that id."""
    message_id = _message_id()
    checked = update["messages"][0]
    return (_with_last(response, {"id": message_id, "content": checked.content, "tool_calls": checked.tool_calls,
                                  "response_metadata": checked.response_metadata}),
            checked.text, message_id)


def call_model_checked(check: Callable[[Any], dict[str, Any] | None], request: Any,
                       handler: Callable[[Any], Any]) -> Any:
    """Run the model through ``handler`` with its tokens kept out of the streams a user reads, check its answer
    whole (``check(response)``: the middleware's state update, None when there is no answer to check), and send the
    checked message once, as a run of its own (see the module: the same relay as the sentence stream, one token).

    LangGraph's ``"messages"`` mode would otherwise show the model's raw tokens as they come, and the model node's
    message as it ends, both before ``after_model`` checks anything."""
    config = ensure_config()
    manager = _node_manager(config, CallbackManager)
    token = var_child_runnable_config.set({**config, "callbacks": _callbacks(config, None)})
    try:
        response = handler(request)
        update = check(response)
    finally:
        var_child_runnable_config.reset(token)
    if update is None:  # no answer to check (a tool call): the model node sends its message as it ends
        return response
    out, text, message_id = _checked_response(response, update)
    (relay,) = manager.on_chat_model_start({"name": RELAY_RUN_NAME}, [list(request.messages)], name=RELAY_RUN_NAME)
    _send_once(relay, text, message_id)
    return out


async def acall_model_checked(check: Callable[[Any], Awaitable[dict[str, Any] | None]], request: Any,
                              handler: Callable[[Any], Awaitable[Any]]) -> Any:
    """Async twin of :func:`call_model_checked`."""
    config = ensure_config()
    manager = _node_manager(config, AsyncCallbackManager)
    token = var_child_runnable_config.set({**config, "callbacks": _callbacks(config, None)})
    try:
        response = await handler(request)
        update = await check(response)
    finally:
        var_child_runnable_config.reset(token)
    if update is None:
        return response
    out, text, message_id = _checked_response(response, update)
    (relay,) = await manager.on_chat_model_start({"name": RELAY_RUN_NAME}, [list(request.messages)],
                                                 name=RELAY_RUN_NAME)
    await _asend_once(relay, text, message_id)
    return out

