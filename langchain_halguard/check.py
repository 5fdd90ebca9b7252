"""HalguardCheck: a step for chains that already produce ``{question, context, answer}``."""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.runnables import Runnable, RunnableConfig, RunnablePassthrough, RunnableSerializable
from pydantic import ConfigDict, Field, model_validator

from halguard.api import default_detector
from langchain_halguard.guard import RunnableWithHalguard, validate_options

__all__ = ["HalguardCheck"]


class HalguardCheck(RunnableSerializable[dict[str, Any], dict[str, Any]]):
    """Check the answer in a ``{question, context, answer}`` dict and return the dict plus the verdict.

    ``chain | HalguardCheck()`` is the same guard as :class:`RunnableWithHalguard` around a pass-through,
    with the same policies, events, ``halguard_verify`` child run and streaming behaviour.

    Example:
        .. code-block:: python

            rag = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(answer=generate)
            checked = rag | HalguardCheck()
            checked.invoke("When did JWST launch?")["halguard"].label
    """

    detector: Any = Field(default_factory=default_detector)
    question_key: str = "question"
    context_key: str = "context"
    answer_key: str = "answer"
    output_key: str = "halguard"
    on_hallucination: Literal["annotate", "raise", "fallback", "filter"] = "annotate"
    on_unverified: Literal["fail_open", "fail_closed"] = "fail_open"
    fallback: str | Runnable[Any, Any] | None = None

    model_config = ConfigDict(arbitrary_types_allowed=True)

    @model_validator(mode="after")
    def _check(self) -> HalguardCheck:
        validate_options(self.detector, self.on_hallucination, self.on_unverified)
        return self

    @property
    def _guard(self) -> RunnableWithHalguard:
        return RunnableWithHalguard(
            bound=RunnablePassthrough(),
            name=self.get_name(),
            detector=self.detector,
            question_key=self.question_key,
            context_key=self.context_key,
            answer_key=self.answer_key,
            output_key=self.output_key,
            on_hallucination=self.on_hallucination,
            on_unverified=self.on_unverified,
            fallback=self.fallback,
        )

    def invoke(self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> dict[str, Any]:  # noqa: A002
        return self._guard.invoke(input, config, **kwargs)

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any  # noqa: A002
    ) -> dict[str, Any]:
        return await self._guard.ainvoke(input, config, **kwargs)

    def transform(self, input, config: RunnableConfig | None = None, **kwargs: Any):  # noqa: A002, ANN001, ANN201
        yield from self._guard.transform(input, config, **kwargs)

    async def atransform(self, input, config: RunnableConfig | None = None, **kwargs: Any):  # noqa: A002, ANN001, ANN201
        async for chunk in self._guard.atransform(input, config, **kwargs):
            yield chunk

    def stream(self, input, config: RunnableConfig | None = None, **kwargs: Any):  # noqa: A002, ANN001, ANN201
        return self._guard.stream(input, config, **kwargs)

    async def astream(self, input, config: RunnableConfig | None = None, **kwargs: Any):  # noqa: A002, ANN001, ANN201
        async for chunk in self._guard.astream(input, config, **kwargs):
            yield chunk
