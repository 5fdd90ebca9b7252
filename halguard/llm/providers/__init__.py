"""A small provider layer: "chat, optionally in JSON mode", sync and async, with retries and usage counts.

One module per provider on a shared base (:mod:`.base`: :class:`ChatModel`, the reply types, retries and usage):
:class:`CallableChat` (any function of a message list; :mod:`.callable_chat`, since a submodule named
``callable`` would shadow the builtin here), :class:`OpenAIChat` (the ``openai`` SDK and OpenAI-compatible
servers; :mod:`.openai_compatible`), :class:`MistralChat` (the ``mistralai`` SDK; :mod:`.mistral`).
:func:`as_chat_model` turns whatever the caller passed into one of them. No framework imports: the LangChain and
LlamaIndex adapters wrap their own model types as :class:`CallableChat`.
"""

from __future__ import annotations

from typing import Any

from halguard.errors import InputTypeError, ProviderError
from halguard.llm.providers.base import SYNC_WORKERS, ChatModel, ChatReply, Messages, TokenLogprob, UsageMeter
from halguard.llm.providers.callable_chat import CallableChat
from halguard.llm.providers.mistral import MistralChat
from halguard.llm.providers.openai_compatible import OpenAIChat, parse_openai_logprobs

__all__ = [
    "SYNC_WORKERS",
    "CallableChat",
    "ChatModel",
    "ChatReply",
    "Messages",
    "MistralChat",
    "OpenAIChat",
    "ProviderError",
    "TokenLogprob",
    "UsageMeter",
    "as_chat_model",
    "parse_openai_logprobs",
]


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
