"""Any LlamaIndex LLM as a halguard ChatModel (for paraphrasing and judging)."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms import LLM

from halguard.llm.providers import ChatModel, ChatReply, Messages, as_chat_model, parse_openai_logprobs

__all__ = ["LlamaIndexChat", "to_chat_model"]


class LlamaIndexChat(ChatModel):
    """Wraps a LlamaIndex ``LLM``: ``chat``/``achat``; tokens from the raw response's usage when present.

    Token log-probabilities (``top_logprobs=``) come from LLMs with ``logprobs`` options (``OpenAI``,
    ``OpenAILike`` against any OpenAI-compatible server), read from the raw OpenAI-format response; for others the
    reply has none (``logprobs`` None).
    """

    def __init__(self, llm: Any, **options: Any) -> None:
        super().__init__(**options)
        self.llm = llm
        self.name = f"llamaindex:{getattr(llm.metadata, 'model_name', type(llm).__name__)}"

    @staticmethod
    def _reply(response: Any) -> ChatReply:
        raw = getattr(response, "raw", None)
        usage = (raw.get("usage") if isinstance(raw, dict) else getattr(raw, "usage", None)) or {}
        get = usage.get if isinstance(usage, dict) else lambda k, d=0: getattr(usage, k, d)
        choices = (raw.get("choices") if isinstance(raw, dict) else getattr(raw, "choices", None)) or []
        return ChatReply(response.message.content or "", get("prompt_tokens", 0) or 0, get("completion_tokens", 0) or 0,
                         logprobs=parse_openai_logprobs(choices[0]) if choices else None)

    @staticmethod
    def _messages(messages: Messages) -> list[ChatMessage]:
        return [ChatMessage(role=m["role"], content=m["content"]) for m in messages]

    def _llm(self, top_logprobs: int | None) -> Any:
        """The LLM, as a copy set to return log-probabilities when asked and it has the options."""
        fields = getattr(type(self.llm), "model_fields", {})
        if top_logprobs is None or "logprobs" not in fields:
            return self.llm
        return self.llm.model_copy(update={"logprobs": True, "top_logprobs": top_logprobs})

    def _chat(self, messages: Messages, json_mode: bool, top_logprobs: int | None = None) -> ChatReply:
        return self._reply(self._llm(top_logprobs).chat(self._messages(messages)))

    async def _achat(self, messages: Messages, json_mode: bool, top_logprobs: int | None = None) -> ChatReply:
        return self._reply(await self._llm(top_logprobs).achat(self._messages(messages)))


def to_chat_model(obj: Any) -> Any:
    """LlamaIndex LLMs become :class:`LlamaIndexChat`; ``"local"`` and None pass through; the rest goes to
    :func:`halguard.llm.providers.as_chat_model`."""
    if obj is None or obj == "local":
        return obj
    if isinstance(obj, LLM):
        return LlamaIndexChat(obj)
    return as_chat_model(obj)
