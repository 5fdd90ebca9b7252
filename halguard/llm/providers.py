"""A small provider layer: "chat, optionally in JSON mode", sync and async, with retries and usage counts.

Implementations: :class:`CallableChat` (any function of a message list), :class:`OpenAIChat` (the
``openai`` SDK), :class:`MistralChat` (the ``mistralai`` SDK). :func:`as_chat_model` turns whatever the
caller passed into one of them. No framework imports: the LangChain and LlamaIndex adapters wrap their
own model types as :class:`CallableChat`.

Retries: 429, 5xx, timeouts and connection errors are retried with exponential backoff (honouring a
``Retry-After`` header); anything else raises :class:`ProviderError` at once. API keys are never read or
logged here: the SDK clients get them from arguments or their usual environment variables.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import math
import random
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from typing import Any

from halguard.errors import InputTypeError, InvalidInputError, ProviderError
from halguard.util.options import require_positive_int

__all__ = [
    "SYNC_WORKERS",
    "CallableChat",
    "ChatModel",
    "ChatReply",
    "TokenLogprob",
    "MistralChat",
    "OpenAIChat",
    "ProviderError",
    "UsageMeter",
    "as_chat_model",
]

Messages = list[dict[str, str]]


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token with its log-probability, and the most likely alternatives at its position."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()  # (token, logprob), most likely first

    @property
    def probability(self) -> float:
        return math.exp(self.logprob)


@dataclass(frozen=True)
class ChatReply:
    """A model's reply, its token counts and latency.

    ``logprobs`` holds one :class:`TokenLogprob` per generated token when the call asked for them
    (``top_logprobs=``) and the server returned them; it is None otherwise: the "no logprobs" signal (a provider
    that cannot return them, a server that ignored the request, a cached reply).
    """

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    logprobs: tuple[TokenLogprob, ...] | None = None

    @property
    def has_logprobs(self) -> bool:
        return bool(self.logprobs)


@dataclass
class UsageMeter:
    """Thread-safe running totals of LLM calls, tokens and latency.

    A :class:`ChatModel` keeps one for its lifetime (``model.usage``); a check that needs its own share passes a
    fresh meter to each call (``chat(..., meter=m)``), so concurrent checks never read each other's counts.
    """

    calls: int = 0
    failed_calls: int = 0
    cached_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def record_cached(self) -> None:
        with self._lock:
            self.cached_calls += 1

    def record(self, reply: ChatReply | None) -> None:
        with self._lock:
            self.calls += 1
            if reply is None:
                self.failed_calls += 1
                return
            self.input_tokens += reply.input_tokens
            self.output_tokens += reply.output_tokens
            # Bounded: a long-lived model must not grow without end (the last 1,000 calls are kept).
            self.latencies_ms.append(reply.latency_ms)
            if len(self.latencies_ms) > 1000:
                del self.latencies_ms[:-1000]

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_lock", None)  # locks don't pickle; a copy gets its own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


def _meters(own: UsageMeter, extra: UsageMeter | None) -> tuple[UsageMeter, ...]:
    return (own,) if extra is None else (own, extra)


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def _retry_after(exc: BaseException) -> float | None:
    """A ``Retry-After`` header in seconds, when it is a finite, non-negative number (an HTTP date, "-1" or
    "nan" is ignored and the usual backoff applies)."""
    # openai errors carry the HTTP response (``exc.response.headers``); mistralai errors carry the headers.
    headers = getattr(getattr(exc, "response", None), "headers", None) or getattr(exc, "headers", None) or {}
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
        seconds = float(value) if value is not None else None
    except (TypeError, ValueError, AttributeError):
        return None
    return seconds if seconds is not None and math.isfinite(seconds) and seconds >= 0 else None


def _retryable(exc: BaseException) -> bool:
    status = _status(exc)
    if status is not None:
        return status == 429 or 500 <= status < 600
    name = type(exc).__name__
    return isinstance(exc, (TimeoutError, asyncio.TimeoutError, ConnectionError)) or any(
        word in name for word in ("Timeout", "Connection")
    )


class ChatModel(ABC):
    """Chat with retries, a deadline per call and usage accounting.

    Every call is bounded twice: each try waits at most ``timeout`` seconds, and the whole call, retries and
    backoff included, at most ``deadline`` seconds. A sync try runs in a shared pool of worker threads so the
    wait can end even when the provider's client never returns (a server trickling bytes keeps an SDK's read
    timeout from firing); such a try keeps its thread until the client gives up, and the pool's size
    (:data:`SYNC_WORKERS`) bounds how many can. An async try is cancelled at its timeout.

    Args:
        timeout: Seconds per try.
        max_retries: Retries after the first try, for retryable errors.
        backoff: First backoff in seconds (doubles each retry, with jitter, capped at ``max_backoff``).
        max_backoff: Longest wait between tries (also caps a ``Retry-After``).
        deadline: Seconds for the whole call, retries included (default: ``timeout * (max_retries + 1)``).

    Raises:
        InvalidInputError: an option is not a finite number in its range.
    """

    name: str = "chat"

    def __init__(self, *, timeout: float = 60.0, max_retries: int = 3, backoff: float = 0.5,
                 max_backoff: float = 20.0, deadline: float | None = None) -> None:
        _positive("timeout", timeout)
        _positive("max_backoff", max_backoff, zero=True)
        _positive("backoff", backoff, zero=True)
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            msg = f"max_retries must be an int >= 0, got {max_retries!r}"
            raise InvalidInputError(msg)
        if deadline is not None:
            _positive("deadline", deadline)
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.deadline = float(deadline) if deadline is not None else self.timeout * (max_retries + 1)
        self.usage = UsageMeter()
        self.cache: Any = None  # a halguard.llm.cache.ResponseCache, set by the caller to opt in

    def _cached(self, messages: Messages, json_mode: bool, cache: Any, meters: tuple[UsageMeter, ...],
                top_logprobs: int | None = None) -> tuple[str | None, ChatReply | None]:
        if cache is None:
            return None, None
        if top_logprobs is None:
            key = cache.key("chat", self.name, messages, json_mode)
        else:  # a reply with its token probabilities is another entry than the text alone
            key = cache.key("chat", self.name, messages, json_mode, {"top_logprobs": top_logprobs})
        value = cache.get(key)
        if value is None:
            return key, None
        reply = ChatReply(value) if top_logprobs is None else _reply_from_json(value)
        if reply is None:
            return key, None
        for m in meters:
            m.record_cached()
        return key, reply

    @staticmethod
    def _store(cache: Any, key: str | None, reply: ChatReply, top_logprobs: int | None = None) -> ChatReply:
        if key is not None:
            cache.set(key, reply.text if top_logprobs is None else _reply_to_json(reply))
        return reply

    @abstractmethod
    def _chat(self, messages: Messages, json_mode: bool, top_logprobs: int | None = None) -> ChatReply:
        """One try. ``top_logprobs``: ask for token log-probabilities (providers that cannot, ignore it)."""

    @abstractmethod
    async def _achat(self, messages: Messages, json_mode: bool, top_logprobs: int | None = None) -> ChatReply:
        """Async twin of :meth:`_chat`."""

    def _wait(self, attempt: int, exc: BaseException) -> float:
        hinted = _retry_after(exc)
        base = hinted if hinted is not None else self.backoff * (2**attempt) * (0.5 + random.random())
        return max(0.0, min(base, self.max_backoff))

    def _try_sync(self, messages: Messages, json_mode: bool, top_logprobs: int | None, seconds: float) -> ChatReply:
        """One try, waited for at most ``seconds`` (in a pool thread, so a client that never returns is left)."""
        context = contextvars.copy_context()  # callbacks and tracing context follow the try into the thread
        future = _sync_pool().submit(context.run, self._chat, messages, json_mode, top_logprobs)
        try:
            return future.result(timeout=seconds)
        except FutureTimeout as exc:
            future.cancel()
            msg = f"{self.name} did not answer within {seconds:.1f} s"
            raise TimeoutError(msg) from exc

    def chat(self, messages: Messages, *, json_mode: bool = False, meter: UsageMeter | None = None,
             cache: Any = None, top_logprobs: int | None = None) -> ChatReply:
        """Send ``messages``; returns the reply, or raises :class:`ProviderError` after the retries or the deadline.

        Args:
            messages: ``[{"role", "content"}, ...]``.
            json_mode: Ask for a JSON object.
            meter: Also count this call here (besides ``self.usage``): a caller's per-request share.
            cache: A :class:`~halguard.llm.cache.ResponseCache` for this call (default: ``self.cache``).
            top_logprobs: Ask for each generated token's log-probability and this many alternatives (0 to 20);
                ``reply.logprobs`` is None when the provider or server gives none. The cache keeps such replies
                with their probabilities, under their own key.
        """
        _check_top_logprobs(top_logprobs)
        cache = cache if cache is not None else self.cache
        meters = _meters(self.usage, meter)
        key, hit = self._cached(messages, json_mode, cache, meters, top_logprobs)
        if hit is not None:
            return hit
        end = time.monotonic() + self.deadline
        for attempt in range(self.max_retries + 1):
            t0 = time.perf_counter()
            try:
                seconds = min(self.timeout, max(end - time.monotonic(), 0.001))
                reply = self._try_sync(messages, json_mode, top_logprobs, seconds)
            except Exception as exc:  # noqa: BLE001 - classified below
                for m in meters:
                    m.record(None)
                wait = self._wait(attempt, exc)
                if not _retryable(exc) or attempt == self.max_retries or time.monotonic() + wait >= end:
                    raise self._failure(exc, attempt) from exc
                time.sleep(wait)
                continue
            reply = _with_latency(reply, t0)
            for m in meters:
                m.record(reply)
            return self._store(cache, key, reply, top_logprobs)
        raise AssertionError("unreachable")  # pragma: no cover

    async def achat(self, messages: Messages, *, json_mode: bool = False, meter: UsageMeter | None = None,
                    cache: Any = None, top_logprobs: int | None = None) -> ChatReply:
        """Async twin of :meth:`chat`."""
        _check_top_logprobs(top_logprobs)
        cache = cache if cache is not None else self.cache
        meters = _meters(self.usage, meter)
        key, hit = self._cached(messages, json_mode, cache, meters, top_logprobs)
        if hit is not None:
            return hit
        end = time.monotonic() + self.deadline
        for attempt in range(self.max_retries + 1):
            t0 = time.perf_counter()
            try:
                seconds = min(self.timeout, max(end - time.monotonic(), 0.001))
                reply = await asyncio.wait_for(self._achat(messages, json_mode, top_logprobs), seconds)
            except Exception as exc:  # noqa: BLE001 - classified below
                for m in meters:
                    m.record(None)
                wait = self._wait(attempt, exc)
                if not _retryable(exc) or attempt == self.max_retries or time.monotonic() + wait >= end:
                    raise self._failure(exc, attempt) from exc
                await asyncio.sleep(wait)
                continue
            reply = _with_latency(reply, t0)
            for m in meters:
                m.record(reply)
            return self._store(cache, key, reply, top_logprobs)
        raise AssertionError("unreachable")  # pragma: no cover

    def _failure(self, exc: BaseException, attempt: int) -> ProviderError:
        kind = type(exc).__name__ if not isinstance(exc, asyncio.TimeoutError) else "TimeoutError"
        msg = f"{self.name} call failed after {attempt + 1} tries: {kind}: {exc}"
        return ProviderError(msg)


# Worker threads for sync tries (see ChatModel). A try that outlives its timeout keeps its thread until the
# provider's client returns; 32 bounds those, while a busy guard rarely has more calls in flight.
SYNC_WORKERS = 32
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _sync_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max_workers=SYNC_WORKERS, thread_name_prefix="halguard-llm")
    return _pool


def _positive(name: str, value: Any, *, zero: bool = False) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0 or (value == 0 and not zero):
        msg = f"{name} must be a finite number {'>= 0' if zero else '> 0'}, got {value!r}"
        raise InvalidInputError(msg)


def _with_latency(reply: ChatReply, t0: float) -> ChatReply:
    return replace(reply, latency_ms=(time.perf_counter() - t0) * 1000)


def _reply_to_json(reply: ChatReply) -> str:
    logprobs = None if reply.logprobs is None else [[t.token, t.logprob, [list(a) for a in t.top]]
                                                    for t in reply.logprobs]
    return json.dumps({"text": reply.text, "logprobs": logprobs}, ensure_ascii=False)


def _reply_from_json(value: str) -> ChatReply | None:
    """A cached reply with its probabilities; None for an entry that does not read as one (it is asked again)."""
    try:
        data = json.loads(value)
        logprobs = data["logprobs"]
        return ChatReply(data["text"], logprobs=None if logprobs is None else tuple(
            TokenLogprob(tok, float(lp), tuple((str(a), float(b)) for a, b in top)) for tok, lp, top in logprobs))
    except (ValueError, KeyError, TypeError):
        return None


def _check_top_logprobs(value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 20):
        msg = f"top_logprobs must be an int from 0 to 20 or None, got {value!r}"
        raise InvalidInputError(msg)


def parse_openai_logprobs(choice: Any) -> tuple[TokenLogprob, ...] | None:
    """The token log-probabilities of an OpenAI-format choice (``choice.logprobs.content``), or None when absent.

    Reads SDK objects and plain dicts alike; an entry without a finite log-probability ends the reading (None).
    """
    def get(obj: Any, name: str) -> Any:
        return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)

    content = get(get(choice, "logprobs"), "content")
    if not content:
        return None
    out = []
    for item in content:
        token, logprob = get(item, "token"), get(item, "logprob")
        if not isinstance(token, str) or not isinstance(logprob, (int, float)) or not math.isfinite(logprob):
            return None
        top = tuple((t, float(lp)) for alt in get(item, "top_logprobs") or []
                    if isinstance(t := get(alt, "token"), str) and isinstance(lp := get(alt, "logprob"), (int, float))
                    and math.isfinite(lp))
        out.append(TokenLogprob(token, float(logprob), top))
    return tuple(out)


class CallableChat(ChatModel):
    """Any function ``messages -> str`` (or ``-> ChatReply``), sync or async.

    Args:
        fn: Called with the OpenAI-style message list.
        name: The name in verdicts and cache keys (default: the function's name).
        **options: :class:`ChatModel`'s deadline and retry options.
    """

    def __init__(self, fn: Callable[[Messages], Any], *, name: str | None = None, **options: Any) -> None:
        if not callable(fn):
            msg = f"expected a callable, got {type(fn).__name__}"
            raise InputTypeError(msg)
        super().__init__(**options)
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "callable")
        self._is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))

    @staticmethod
    def _reply(value: Any) -> ChatReply:
        if isinstance(value, ChatReply):
            return value
        if isinstance(value, str):
            return ChatReply(value)
        msg = f"the chat callable returned {type(value).__name__}; expected a str"
        raise InputTypeError(msg)

    def _chat(self, messages: Messages, json_mode: bool, top_logprobs: int | None = None) -> ChatReply:
        if self._is_async:
            msg = f"{self.name} is async: call achat(), or pass a sync callable"
            raise InputTypeError(msg)
        return self._reply(self.fn(messages))  # ChatModel.chat bounds the wait

    async def _achat(self, messages: Messages, json_mode: bool, top_logprobs: int | None = None) -> ChatReply:
        if self._is_async:
            return self._reply(await self.fn(messages))
        return self._reply(await asyncio.to_thread(self.fn, messages))


_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")


def _request(model: str, messages: Messages, json_mode: bool, temperature: float | None, **timeout: Any) -> dict[str, Any]:
    """Chat-completion arguments both SDKs share (they name the timeout differently)."""
    kwargs: dict[str, Any] = {"model": model, "messages": messages, **timeout}
    if json_mode:
        kwargs["response_format"] = {"type": "json_object"}
    if temperature is not None:
        kwargs["temperature"] = temperature
    return kwargs


class OpenAIChat(ChatModel):
    """The ``openai`` SDK's chat completions (an ``OpenAI`` and/or ``AsyncOpenAI`` client).

    Reasoning models (o1/o3/o4/gpt-5 families) get no ``temperature``: they reject it.
    SDK-level retries are switched off so this class's retry policy is the one in force.

    Args:
        client: An ``openai.OpenAI`` (or ``AsyncOpenAI``) client; with neither client given, ``openai.OpenAI()``
            (its key from ``OPENAI_API_KEY``).
        model: The model name.
        async_client: An ``openai.AsyncOpenAI`` client for async calls (without one, async calls run the sync
            client in a worker thread).
        temperature: Sampling temperature; None sends none.
        max_tokens: The most tokens a reply may have (``max_tokens``); None sends none. A judge that needs one word
            from a slow local model saves most of its time with a small value.
        **options: :class:`ChatModel`'s deadline and retry options.
    """

    def __init__(self, client: Any = None, model: str = "o3-mini", *, async_client: Any = None,
                 temperature: float | None = 0.0, max_tokens: int | None = None, **options: Any) -> None:
        super().__init__(**options)
        if max_tokens is not None:
            require_positive_int("max_tokens", max_tokens)
        self.max_tokens = max_tokens
        import openai

        if client is None and async_client is None:
            client = openai.OpenAI()  # key from OPENAI_API_KEY, as the SDK does
        if isinstance(client, openai.AsyncOpenAI):
            client, async_client = None, client
        self.client = client.with_options(max_retries=0) if client is not None else None
        self.async_client = async_client.with_options(max_retries=0) if async_client is not None else None
        self.model = model
        self.temperature = None if model.startswith(_REASONING_PREFIXES) else temperature
        self.name = f"openai:{model}"

    def _kwargs(self, messages: Messages, json_mode: bool, top_logprobs: int | None) -> dict[str, Any]:
        kwargs = _request(self.model, messages, json_mode, self.temperature, timeout=self.timeout)
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        if top_logprobs is not None:
            kwargs.update(logprobs=True, top_logprobs=top_logprobs)
        return kwargs

    @staticmethod
    def _reply(resp: Any) -> ChatReply:
        usage = getattr(resp, "usage", None)
        choice = resp.choices[0]
        return ChatReply(
            choice.message.content or "",
            getattr(usage, "prompt_tokens", 0) or 0,
            getattr(usage, "completion_tokens", 0) or 0,
            logprobs=parse_openai_logprobs(choice),
        )

    def _chat(self, messages: Messages, json_mode: bool, top_logprobs: int | None = None) -> ChatReply:
        if self.client is None:
            msg = "this OpenAIChat has only an AsyncOpenAI client: use achat(), or pass an OpenAI client"
            raise InputTypeError(msg)
        return self._reply(self.client.chat.completions.create(**self._kwargs(messages, json_mode, top_logprobs)))

    async def _achat(self, messages: Messages, json_mode: bool, top_logprobs: int | None = None) -> ChatReply:
        if self.async_client is None:
            return await asyncio.to_thread(self._chat, messages, json_mode, top_logprobs)
        kwargs = self._kwargs(messages, json_mode, top_logprobs)
        return self._reply(await self.async_client.chat.completions.create(**kwargs))


class MistralChat(ChatModel):
    """The ``mistralai`` SDK's ``chat.complete`` / ``chat.complete_async``, JSON mode when asked.

    Args:
        client: A ``mistralai.Mistral`` client (default: one built from ``MISTRAL_API_KEY``).
        model: The model name.
        temperature: Sampling temperature; None sends none.
        **options: :class:`ChatModel`'s deadline and retry options.
    """

    def __init__(self, client: Any = None, model: str = "mistral-large-latest", *,
                 temperature: float | None = 0.0, **options: Any) -> None:
        super().__init__(**options)
        if client is None:
            import os

            from mistralai.client import Mistral

            client = Mistral(api_key=os.environ.get("MISTRAL_API_KEY"))
        self.client = client
        self.model = model
        self.temperature = temperature
        self.name = f"mistral:{model}"

    def _kwargs(self, messages: Messages, json_mode: bool) -> dict[str, Any]:
        # retries=None: no SDK retries under ours, even for a client built with a retry_config (one call made 57
        # requests that way); our policy, with one deadline, is the one in force.
        return {**_request(self.model, messages, json_mode, self.temperature, timeout_ms=int(self.timeout * 1000)),
                "retries": None}

    @staticmethod
    def _reply(resp: Any) -> ChatReply:
        usage = getattr(resp, "usage", None)
        content = resp.choices[0].message.content
        text = content if isinstance(content, str) else "".join(getattr(c, "text", "") for c in content or [])
        return ChatReply(text, getattr(usage, "prompt_tokens", 0) or 0, getattr(usage, "completion_tokens", 0) or 0)

    def _chat(self, messages: Messages, json_mode: bool, top_logprobs: int | None = None) -> ChatReply:
        # Mistral's chat API returns no token log-probabilities: the reply says so (logprobs None).
        return self._reply(self.client.chat.complete(**self._kwargs(messages, json_mode)))

    async def _achat(self, messages: Messages, json_mode: bool, top_logprobs: int | None = None) -> ChatReply:
        return self._reply(await self.client.chat.complete_async(**self._kwargs(messages, json_mode)))


def as_chat_model(obj: Any, model: str | None = None, **options: Any) -> ChatModel:
    """A :class:`ChatModel` for a ChatModel, an OpenAI/AsyncOpenAI or Mistral client (plus ``model``), or a
    callable taking ``[{"role", "content"}, ...]`` and returning the reply text (sync or async)."""
    if isinstance(obj, ChatModel):
        return obj
    module = type(obj).__module__
    if module.startswith("openai"):
        return OpenAIChat(obj, model or "o3-mini", **options)
    if module.startswith("mistralai"):
        return MistralChat(obj, model or "mistral-large-latest", **options)
    if callable(obj):
        return CallableChat(obj, **options)
    msg = f"cannot chat with a {type(obj).__name__}: pass an OpenAI/Mistral client, a ChatModel or a callable"
    raise InputTypeError(msg)
