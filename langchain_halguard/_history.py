"""Paraphrase sampling through ``RunnableWithMessageHistory`` without writing the user's chat history.

``RunnableWithMessageHistory`` writes every invocation into the session it loads. Sampling answers the
paraphrased questions through the same chain, so going through the wrapper as it is would add the paraphrases
and their answers to the user's session. Instead the guard reads the session once before the turn, and samples
through a copy of the wrapper whose session factory returns a throwaway in-memory copy of that history: the
samples see the conversation so far, and nothing they say is kept.
"""

from __future__ import annotations

import functools
from typing import Any

from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig
from langchain_core.runnables.history import RunnableWithMessageHistory

from halguard.errors import InvalidInputError

__all__ = ["HistoryWrapper", "find_history_wrapper"]

_CHILD_ATTRS = ("bound", "steps", "steps__", "first", "middle", "last", "runnable", "fallbacks", "mapper", "default",
                "branches")


def _children(runnable: Any) -> list[Any]:
    found: list[Any] = []
    for attr in _CHILD_ATTRS:
        value = getattr(runnable, attr, None)
        if isinstance(value, Runnable):
            found.append(value)
        elif isinstance(value, dict):
            found.extend(v for v in value.values() if isinstance(v, Runnable))
        elif isinstance(value, (list, tuple)):
            for v in value:
                if isinstance(v, Runnable):
                    found.append(v)
                elif isinstance(v, tuple):  # RunnableBranch: (condition, runnable) pairs
                    found.extend(x for x in v if isinstance(x, Runnable))
    return found


def _contains_history(runnable: Any, depth: int = 0) -> bool:
    if depth > 50:  # composition is shallow in practice; a bound keeps a pathological graph from recursing
        return False
    if isinstance(runnable, RunnableWithMessageHistory):
        return True
    return any(_contains_history(child, depth + 1) for child in _children(runnable))


class HistoryWrapper:
    """The ``RunnableWithMessageHistory`` at the top of a guarded chain (under ``with_config`` bindings)."""

    def __init__(self, bound: Runnable[Any, Any], history: RunnableWithMessageHistory) -> None:
        self.bound = bound
        self.history = history

    def _session(self, config: RunnableConfig) -> Any:
        # The wrapper's own lookup of the session (its checks and error messages included).
        return self.history._merge_configs(config)["configurable"]["message_history"]  # noqa: SLF001

    def snapshot(self, config: RunnableConfig) -> list[BaseMessage]:
        """The session's messages before the turn."""
        return list(self._session(config).messages)

    async def asnapshot(self, config: RunnableConfig) -> list[BaseMessage]:
        return list(await self._session(config).aget_messages())

    def sampler(self, messages: list[BaseMessage]) -> Runnable[Any, Any]:
        """The guarded chain with the session factory replaced by a throwaway copy of ``messages``."""
        factory = self.history.get_session_history

        @functools.wraps(factory)  # the same parameters, so the wrapper calls it the same way
        def throwaway(*args: Any, **kwargs: Any) -> InMemoryChatMessageHistory:
            return InMemoryChatMessageHistory(messages=list(messages))

        copy = self.history.model_copy(update={"get_session_history": throwaway})
        return _replace(self.bound, self.history, copy)


def _replace(runnable: Runnable[Any, Any], old: Runnable[Any, Any], new: Runnable[Any, Any]) -> Runnable[Any, Any]:
    if runnable is old:
        return new
    assert isinstance(runnable, RunnableBinding)  # find_history_wrapper only walks bindings
    return runnable.model_copy(update={"bound": _replace(runnable.bound, old, new)})


def find_history_wrapper(bound: Runnable[Any, Any], *, sampling: bool) -> HistoryWrapper | None:
    """The history wrapper to sample around, or None when the chain keeps no history.

    Raises:
        InvalidInputError: with ``sampling``, a ``RunnableWithMessageHistory`` sits inside the chain where the
            guard cannot keep samples out of the session (not at the top of it).
    """
    top: Any = bound
    while isinstance(top, RunnableBinding) and not isinstance(top, RunnableWithMessageHistory):
        top = top.bound
    if isinstance(top, RunnableWithMessageHistory):
        return HistoryWrapper(bound, top)
    if sampling and _contains_history(bound):
        msg = (
            "consistency='on' samples paraphrased questions through the chain, and a RunnableWithMessageHistory "
            "inside it would write them into the user's chat history. Put the guard directly around the history "
            "wrapper (with_halguard(RunnableWithMessageHistory(chain, ...), consistency='on')) or inside it "
            "(RunnableWithMessageHistory(with_halguard(chain, consistency='on'), ...))."
        )
        raise InvalidInputError(msg)
    return None

