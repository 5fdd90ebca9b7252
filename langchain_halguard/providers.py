"""Any LangChain chat model as a halguard ChatModel (for paraphrasing and judging)."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from halguard.llm.providers import ChatModel, ChatReply, Messages, as_chat_model

__all__ = ["LangChainChat", "to_chat_model"]


class LangChainChat(ChatModel):
    """Wraps a ``BaseChatModel``: ``invoke``/``ainvoke`` with the messages; tokens from ``usage_metadata``.

    JSON mode is asked for in the prompts halguard sends; models that support a native JSON mode can be
    bound first (e.g. ``model.bind(response_format={"type": "json_object"})``).
    """

    def __init__(self, model: Any, **options: Any) -> None:
        super().__init__(**options)
        self.model = model
        self.name = f"langchain:{getattr(model, 'model_name', None) or getattr(model, 'model', None) or type(model).__name__}"

    @staticmethod
    def _reply(message: Any) -> ChatReply:
        usage = getattr(message, "usage_metadata", None) or {}
        text = message.text if isinstance(message, AIMessage) else str(getattr(message, "content", message))
        return ChatReply(text, usage.get("input_tokens", 0), usage.get("output_tokens", 0))

    def _chat(self, messages: Messages, json_mode: bool) -> ChatReply:
        return self._reply(self.model.invoke([(m["role"], m["content"]) for m in messages]))

    async def _achat(self, messages: Messages, json_mode: bool) -> ChatReply:
        return self._reply(await self.model.ainvoke([(m["role"], m["content"]) for m in messages]))


def to_chat_model(obj: Any) -> Any:
    """LangChain chat models become :class:`LangChainChat`; ``"local"`` and None pass through; the rest
    goes to :func:`halguard.llm.providers.as_chat_model`."""
    if obj is None or obj == "local":
        return obj
    if isinstance(obj, BaseChatModel):
        return LangChainChat(obj)
    return as_chat_model(obj)
