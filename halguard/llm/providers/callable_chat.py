"""Any function of a message list as a chat model: :class:`CallableChat` (the LangChain and LlamaIndex adapters
wrap their own model types this way)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from halguard.errors import InputTypeError
from halguard.llm.providers.base import ChatModel, ChatReply, Messages

__all__ = ["CallableChat"]


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
