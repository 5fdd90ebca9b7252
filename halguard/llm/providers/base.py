"""The provider layer's shared base: :class:`ChatModel` (deadline, retries, usage, sync and async twins), the reply
types, and what every provider needs.

Retries: 429, 5xx, timeouts and connection errors are retried with exponential backoff (honouring a
``Retry-After`` header); anything else raises :class:`ProviderError` at once. API keys are never read or
logged here: the SDK clients get them from arguments or their usual environment variables.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import math
import random
import threading
import time
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from typing import Any

from halguard.errors import InvalidInputError, ProviderError

__all__ = ["SYNC_WORKERS", "ChatModel", "ChatReply", "Messages", "TokenLogprob", "UsageMeter"]

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




def _request(model: str, messages: Messages, json_mode: bool, temperature: float | None,
             **timeout: Any) -> dict[str, Any]:
    """Chat-completion arguments both SDKs share (they name the timeout differently)."""
    kwargs: dict[str, Any] = {"model": model, "messages": messages, **timeout}
    if json_mode:
        kwargs["response_format"] = {"type": "json_object"}
    if temperature is not None:
        kwargs["temperature"] = temperature
    return kwargs
