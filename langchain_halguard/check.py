"""HalguardCheck: a step for chains that already produce ``{question, context, answer}``."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import Runnable, RunnablePassthrough
from pydantic import Field

from langchain_halguard.guard import RunnableWithHalguard

__all__ = ["HalguardCheck"]


class HalguardCheck(RunnableWithHalguard):
    """Check the answer in a ``{question, context, answer}`` dict and return the dict plus the verdict.

    ``chain | HalguardCheck()`` is :class:`RunnableWithHalguard` around a pass-through, so it has the same
    options, policies, events, ``halguard_verify`` child run and streaming behaviour; only the question
    key defaults to ``"question"``.

    Example:
        .. code-block:: python

            rag = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(answer=generate)
            checked = rag | HalguardCheck()
            checked.invoke("When did JWST launch?")["halguard"].label
    """

    bound: Runnable[Any, Any] = Field(default_factory=RunnablePassthrough)
    question_key: str = "question"

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return name or self.name or "HalguardCheck"
