"""Any LangChain chat model as a halguard ChatModel (for paraphrasing and judging)."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from halguard.llm.providers import ChatModel, ChatReply, Messages, as_chat_model, parse_openai_logprobs

__all__ = ["LangChainChat", "to_chat_model"]


class LangChainChat(ChatModel):
    """Wraps a ``BaseChatModel``: ``invoke``/``ainvoke`` with the messages; tokens from ``usage_metadata``.

    JSON mode is asked for in the prompts halguard sends; models that support a native JSON mode can be
    bound first (e.g. ``model.bind(response_format={"type": "json_object"})``). Token log-probabilities
    (``top_logprobs=``) come from models with ``logprobs`` options (``ChatOpenAI``, also against any
    OpenAI-compatible ``base_url``); for others the reply has none (``logprobs`` None).
    """

    def __init__(self, model: Any, *, config: Any = None, **options: Any) -> None:
        super().__init__(**options)
        self.model = model
        self.config = config  # a RunnableConfig for the model's runs (e.g. a parent run's child callbacks)
        self.name = f"langchain:{getattr(model, 'model_name', None) or getattr(model, 'model', None) or type(model).__name__}"

    @staticmethod
    def _reply(message: Any) -> ChatReply:
        usage = getattr(message, "usage_metadata", None) or {}
        text = message.text if isinstance(message, AIMessage) else str(getattr(message, "content", message))
        metadata = getattr(message, "response_metadata", None) or {}
        return ChatReply(text, usage.get("input_tokens", 0), usage.get("output_tokens", 0),
                         logprobs=parse_openai_logprobs({"logprobs": metadata.get("logprobs")}))

    def _model(self, top_logprobs: int | None) -> Any:
        """The model, bound to return log-probabilities when asked and it has the options (ChatOpenAI does)."""
        fields = getattr(type(self.model), "model_fields", {})
        if top_logprobs is None or "logprobs" not in fields:
            return self.model
        return self.model.bind(logprobs=True, top_logprobs=top_logprobs)

    def _chat(self, messages: Messages, json_mode: bool, top_logprobs: int | None = None) -> ChatReply:
        return self._reply(self._model(top_logprobs).invoke([(m["role"], m["content"]) for m in messages],
                                                            self.config))

    async def _achat(self, messages: Messages, json_mode: bool, top_logprobs: int | None = None) -> ChatReply:
        return self._reply(await self._model(top_logprobs).ainvoke([(m["role"], m["content"]) for m in messages],
                                                                   self.config))


def to_chat_model(obj: Any) -> Any:
    """LangChain chat models become :class:`LangChainChat`; ``"local"`` and None pass through; the rest
    goes to :func:`halguard.llm.providers.as_chat_model`."""
    if obj is None or obj == "local":
        return obj
    if isinstance(obj, BaseChatModel):
        return LangChainChat(obj)
    return as_chat_model(obj)
