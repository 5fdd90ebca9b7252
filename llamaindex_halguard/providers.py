"""Any LlamaIndex LLM as a halguard ChatModel (for paraphrasing and judging)."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms import LLM

from halguard.llm.providers import ChatModel, ChatReply, Messages, as_chat_model

__all__ = ["LlamaIndexChat", "to_chat_model"]


class LlamaIndexChat(ChatModel):
    """Wraps a LlamaIndex ``LLM``: ``chat``/``achat``; tokens from the raw response's usage when present."""

    def __init__(self, llm: Any, **options: Any) -> None:
        super().__init__(**options)
        self.llm = llm
        self.name = f"llamaindex:{getattr(llm.metadata, 'model_name', type(llm).__name__)}"

    @staticmethod
    def _reply(response: Any) -> ChatReply:
        raw = getattr(response, "raw", None)
        usage = (raw.get("usage") if isinstance(raw, dict) else getattr(raw, "usage", None)) or {}
        get = usage.get if isinstance(usage, dict) else lambda k, d=0: getattr(usage, k, d)
        return ChatReply(response.message.content or "", get("prompt_tokens", 0) or 0, get("completion_tokens", 0) or 0)

    @staticmethod
    def _messages(messages: Messages) -> list[ChatMessage]:
        return [ChatMessage(role=m["role"], content=m["content"]) for m in messages]

    def _chat(self, messages: Messages, json_mode: bool) -> ChatReply:
        return self._reply(self.llm.chat(self._messages(messages)))

    async def _achat(self, messages: Messages, json_mode: bool) -> ChatReply:
        return self._reply(await self.llm.achat(self._messages(messages)))


def to_chat_model(obj: Any) -> Any:
    """LlamaIndex LLMs become :class:`LlamaIndexChat`; ``"local"`` and None pass through; the rest goes to
    :func:`halguard.llm.providers.as_chat_model`."""
    if obj is None or obj == "local":
        return obj
    if isinstance(obj, LLM):
        return LlamaIndexChat(obj)
    return as_chat_model(obj)
