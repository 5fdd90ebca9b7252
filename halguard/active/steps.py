"""The active methods written once, run sync or async.

A method is a generator that *yields* what it needs (:class:`Ask` an LLM, :class:`Retrieve` evidence) and is
*sent* the result (a :class:`~halguard.llm.providers.ChatReply`, a list of sources, or :class:`Refused`); it may
also yield :class:`Emit` (a sentence that is final, for streaming). :func:`drive` and :func:`adrive` run such a
generator with a chat model, a retriever and one answer's :class:`Budget`, so the sync and async paths cannot
drift apart: they share every decision and differ only in how a call is awaited.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from halguard.errors import HalguardError
from halguard.llm.envelope import Envelope, bind_cache
from halguard.llm.providers import ChatModel, ChatReply, UsageMeter
from halguard.text.contexts import Source, normalize_contexts

__all__ = ["Ask", "Budget", "Emit", "Refused", "Retrieve", "Step", "adrive", "adrive_stream", "drive", "drive_stream",
           "run_to_end"]

GENERATION = ("generate",)  # the purposes that are not "extra" (the answer a plain chain would have cost too)


@dataclass(frozen=True)
class Ask:
    """Ask the chat model. ``purpose`` names the step (generate, continue, concepts, question, validate, repair,
    premise, rewrite); every purpose but ``generate`` counts against the extra-call budget. ``envelope``: the
    call's boundary and nonce (the messages were built with it; a cache sees the request through it)."""

    messages: list[dict[str, str]]
    purpose: str
    top_logprobs: int | None = None
    envelope: Envelope | None = None


@dataclass(frozen=True)
class Retrieve:
    """Ask the app's retriever for evidence on ``query``."""

    query: str


@dataclass(frozen=True)
class Emit:
    """A sentence that is final (streamed as soon as it is decided)."""

    text: str
    trace: Any
    lead: str = ""


@dataclass(frozen=True)
class Refused:
    """What a step got instead of a result: ``"calls"`` or ``"deadline"`` (the budget), or a failure's reason."""

    reason: str

    @property
    def budget(self) -> bool:
        return self.reason in ("calls", "deadline")


Step = Ask | Retrieve | Emit


@dataclass
class Budget:
    """One answer's budget (a fresh one per answer: never shared between calls)."""

    max_extra_calls: int
    timeout_s: float
    t0: float = field(default_factory=time.monotonic)
    generation_calls: int = 0
    extra_calls: int = 0
    meter: UsageMeter = field(default_factory=UsageMeter)

    def remaining(self) -> float:
        return self.timeout_s - (time.monotonic() - self.t0)

    def admit(self, step: Ask) -> Refused | None:
        if self.remaining() <= 0:
            return Refused("deadline")
        if step.purpose not in GENERATION and self.extra_calls >= self.max_extra_calls:
            return Refused("calls")
        if step.purpose in GENERATION:
            self.generation_calls += 1
        else:
            self.extra_calls += 1
        return None


def _sources(value: Any) -> list[Source] | Refused:
    try:
        return normalize_contexts(value) if value is not None else []
    except HalguardError as exc:
        return Refused(f"retriever returned unusable documents: {exc}")


def _bound(step: Ask, chat: ChatModel, cache: Any) -> Any:
    """The cache for this step's call (the one given, else the model's own), seen through its envelope."""
    cache = cache if cache is not None else chat.cache
    return cache if step.envelope is None else bind_cache(cache, step.envelope)


def _ask_sync(step: Ask, chat: ChatModel, budget: Budget, cache: Any) -> ChatReply | Refused:
    # Called directly, in the caller's thread (no pool of our own to queue in under concurrency): a call started
    # before the deadline is bounded by the chat model's own timeout, so an answer can overrun its timeout_s by
    # at most that. The async twin cancels the call at the deadline.
    refused = budget.admit(step)
    if refused is not None:
        return refused
    try:
        return chat.chat(step.messages, meter=budget.meter, top_logprobs=step.top_logprobs,
                         cache=_bound(step, chat, cache))
    except HalguardError as exc:
        return Refused(f"provider error: {exc}")


async def _ask_async(step: Ask, chat: ChatModel, budget: Budget, cache: Any) -> ChatReply | Refused:
    refused = budget.admit(step)
    if refused is not None:
        return refused
    try:
        return await asyncio.wait_for(chat.achat(step.messages, meter=budget.meter, top_logprobs=step.top_logprobs,
                                                 cache=_bound(step, chat, cache)), max(budget.remaining(), 0.001))
    except asyncio.TimeoutError:
        return Refused("deadline")
    except HalguardError as exc:
        return Refused(f"provider error: {exc}")


def _retrieve_sync(step: Retrieve, retrieve: Callable[[str], Any] | None, budget: Budget) -> Any:
    # The app's retriever runs in the caller's thread, bounded by its own timeouts (the async twin also stops
    # waiting at the answer's deadline).
    if retrieve is None:
        return Refused("no retriever")
    if budget.remaining() <= 0:
        return Refused("deadline")
    try:
        return _sources(retrieve(step.query))
    except Exception as exc:  # noqa: BLE001 - the app's retriever failing is a reason, not a crash of the check
        return Refused(f"retriever error: {type(exc).__name__}: {exc}")


async def _retrieve_async(step: Retrieve, aretrieve: Callable[[str], Any] | None, budget: Budget) -> Any:
    if aretrieve is None:
        return Refused("no retriever")
    if budget.remaining() <= 0:
        return Refused("deadline")
    try:
        return _sources(await asyncio.wait_for(aretrieve(step.query), max(budget.remaining(), 0.001)))
    except asyncio.TimeoutError:
        return Refused("deadline")
    except Exception as exc:  # noqa: BLE001
        return Refused(f"retriever error: {type(exc).__name__}: {exc}")


def drive_stream(steps: Generator[Step, Any, Any], *, chat: ChatModel, budget: Budget, cache: Any = None,
                 retrieve: Callable[[str], Any] | None = None) -> Generator[Emit, None, Any]:
    """Run ``steps`` synchronously, yielding its :class:`Emit`\\ s; returns the generator's return value."""
    try:
        step = next(steps)
        while True:
            if isinstance(step, Emit):
                yield step
                result: Any = None
            elif isinstance(step, Ask):
                result = _ask_sync(step, chat, budget, cache)
            else:
                result = _retrieve_sync(step, retrieve, budget)
            step = steps.send(result)
    except StopIteration as stop:
        return stop.value


def run_to_end(runner: Generator[Any, None, Any]) -> Any:
    """Exhaust a generator, dropping what it yields, and return its return value."""
    while True:
        try:
            next(runner)
        except StopIteration as stop:
            return stop.value


def drive(steps: Generator[Step, Any, Any], **io: Any) -> Any:
    """Run ``steps`` synchronously to the end and return its value (emits are dropped)."""
    return run_to_end(drive_stream(steps, **io))


async def adrive_stream(steps: Generator[Step, Any, Any], out: list[Any], *, chat: ChatModel, budget: Budget,
                        cache: Any = None, aretrieve: Callable[[str], Any] | None = None) -> AsyncIterator[Emit]:
    """Async twin of :func:`drive_stream`: yields the emits; the return value is appended to ``out``."""
    try:
        step = next(steps)
        while True:
            if isinstance(step, Emit):
                yield step
                result: Any = None
            elif isinstance(step, Ask):
                result = await _ask_async(step, chat, budget, cache)
            else:
                result = await _retrieve_async(step, aretrieve, budget)
            step = steps.send(result)
    except StopIteration as stop:
        out.append(stop.value)


async def adrive(steps: Generator[Step, Any, Any], **io: Any) -> Any:
    """Async twin of :func:`drive`."""
    out: list[Any] = []
    async for _ in adrive_stream(steps, out, **io):
        pass
    return out[0]

