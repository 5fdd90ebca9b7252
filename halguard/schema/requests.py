"""What a check was asked and what it cost: the request, errors, usage."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from halguard.schema.base import _Model

__all__ = ["RequestInfo", "Usage", "VerdictError"]


class RequestInfo(_Model):
    """Which request a verdict belongs to, so observe-only verdicts can be matched to calls."""

    id: str | None = Field(
        default=None,
        description="The LangChain run id of the guarded (or root) run, or the LlamaIndex span id of the query or "
        "chat call. Pass config={'run_id': uuid} to LangChain to choose it yourself.",
    )
    question: str | None = Field(default=None, description="The question (query, chat message) that was answered.")
    source: str = Field(default="", description="The component that produced the verdict.")


class VerdictError(_Model):
    """Why (part of) a check did not run. ``code`` is stable; ``message`` is for people."""

    code: str
    message: str


class Usage(_Model):
    """What a verdict cost."""

    model_calls: int = Field(default=0, description="Local model forward passes (encode batches).")
    embedded_texts: int = Field(default=0, description="Texts embedded for this verdict (cache misses).")
    cached_texts: int = Field(default=0, description="Texts whose embedding came from the cache.")
    precomputed_texts: int = Field(
        default=0, description="Texts whose embedding the caller passed in (the retriever's vectors, same model)."
    )
    llm_calls: int = Field(default=0, description="Calls to remote or local LLMs.")
    input_tokens: int = 0
    output_tokens: int = 0


    @classmethod
    def from_meter(cls, meter: Any) -> Usage:
        """The LLM calls and tokens a :class:`~halguard.llm.providers.UsageMeter` counted."""
        return cls(llm_calls=meter.calls, input_tokens=meter.input_tokens, output_tokens=meter.output_tokens)
