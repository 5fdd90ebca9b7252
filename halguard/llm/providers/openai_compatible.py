"""OpenAI and every OpenAI-compatible server (vLLM, llama.cpp, Ollama, ...): :class:`OpenAIChat` over the ``openai``
SDK, and the reading of OpenAI-format token log-probabilities."""

from __future__ import annotations

import asyncio
import math
from typing import Any

from halguard.errors import InputTypeError
from halguard.llm.providers.base import ChatModel, ChatReply, Messages, TokenLogprob, _request
from halguard.util.options import require_positive_int

__all__ = ["OpenAIChat", "parse_openai_logprobs"]


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


_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")


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
