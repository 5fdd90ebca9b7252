"""Mistral: :class:`MistralChat` over the ``mistralai`` SDK."""

from __future__ import annotations

from typing import Any

from halguard.llm.providers.base import ChatModel, ChatReply, Messages, _request

__all__ = ["MistralChat"]


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
