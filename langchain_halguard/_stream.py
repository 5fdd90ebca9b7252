"""A chain's stream (not a graph's) through the guard: chunks added up, held back or passed on, then the verdict."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from langchain_core.messages import AIMessageChunk, BaseMessage, BaseMessageChunk
from langchain_core.runnables.utils import AddableDict

from halguard.schema import METADATA_KEY

__all__ = ["ChainStream", "add_chunks"]


def add_chunks(left: Any, right: Any) -> Any:
    """Accumulate stream chunks the way LangChain does (dicts merge key by key)."""
    if left is None:
        return right
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        merged = AddableDict(left)
        for key, value in right.items():
            merged[key] = add_chunks(merged.get(key), value)
        return merged
    try:
        return left + right
    except TypeError:
        return right


class ChainStream:
    """One streamed call of a chain (not a graph): its chunks added up are its output.

    After the check: with a held-back stream (a policy that may change the answer) the whole checked output as one
    chunk; otherwise one chunk that adds the verdict to what was streamed (a dict's ``output_key``, a message's
    ``response_metadata``). A plain str stream has nowhere to put the verdict: it is in the ``halguard_verdict``
    event, ``on_verdict`` and the ``halguard_verify`` run.
    """

    def __init__(self, kwargs: dict[str, Any], *, hold: bool, output_key: str, answer_key: str | None) -> None:
        self.inner_kwargs = kwargs
        self.hold = hold
        self.output_key = output_key
        self.answer_key = answer_key
        self.total: Any = None

    def add(self, chunk: Any) -> Iterator[Any]:
        self.total = add_chunks(self.total, chunk)
        if not self.hold:
            yield chunk

    def output(self) -> Any:
        return self.total

    def unchecked(self) -> Iterator[Any]:
        """The held-back output as it was, when there is nothing to check (a chain's output is never paused)."""
        if self.hold:
            yield self.total

    def final(self, output: Any, result: Any) -> Iterator[Any]:
        if self.hold:
            yield result
        elif isinstance(output, Mapping):
            extra = AddableDict({self.output_key: result[self.output_key]})
            answer = result.get(self.answer_key) if self.answer_key else None
            if isinstance(answer, BaseMessageChunk):
                extra[self.answer_key] = type(answer)(
                    content="", response_metadata={METADATA_KEY: answer.response_metadata[METADATA_KEY]}
                )
            yield extra
        elif isinstance(output, BaseMessage):
            chunk_type = type(output) if isinstance(output, BaseMessageChunk) else AIMessageChunk
            yield chunk_type(content="", response_metadata={METADATA_KEY: result.response_metadata[METADATA_KEY]})
