"""A chain's stream released sentence by sentence (``with_halguard(..., streaming="sentence")``).

The chain streams text: a str, message chunks, or dicts with the answer under ``answer_key`` (other keys, such
as ``create_retrieval_chain``'s ``context``, pass through as they come). Each sentence goes out once it is
complete and checked (:class:`halguard.guard.sentences.SentenceGate`), as a chunk of the stream's own type; the
last chunk carries the whole answer's verdict (a dict's ``output_key``, a message's ``response_metadata``). A
stream that is not text (a structured output) is checked whole at its end, as with ``streaming="whole"``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

from langchain_core.messages import AIMessageChunk, BaseMessageChunk
from langchain_core.runnables.utils import AddableDict

from halguard.guard import GuardCore, GuardOutcome
from halguard.guard.sentences import ReleasedSentence, SentenceGate
from halguard.schema import METADATA_KEY
from langchain_halguard._call import GuardedCall
from langchain_halguard._stream import ChainStream, add_chunks

__all__ = ["SentenceStream"]


class SentenceStream:
    """One streamed call, released by sentence.

    Args:
        core: The guard's core.
        make_call: Builds the call's :class:`~langchain_halguard._call.GuardedCall` (once the input is known).
        kwargs: The inner chain's stream keyword arguments.
        output_key: Where a dict output gets the verdict.
        answer_key: Where a dict output holds the answer.
    """

    def __init__(self, core: GuardCore, make_call: Callable[[], GuardedCall], kwargs: dict[str, Any], *,
                 output_key: str, answer_key: str | None) -> None:
        self.core, self.make_call, self.inner_kwargs = core, make_call, kwargs
        self.output_key, self.answer_key = output_key, answer_key
        self.total: Any = None
        self.gate: SentenceGate | None = None
        self.message: BaseMessageChunk | None = None  # the first message chunk (its id and type for ours)
        self.text_stream = True  # False once a chunk is not text: then it is checked whole at the end

    @property
    def stopped(self) -> bool:
        """The fallback went out: the chain's stream is not read further."""
        return self.gate is not None and self.gate.closed

    # -- the chain's chunks -----------------------------------------------------------------------------------

    def _split(self, chunk: Any) -> tuple[str | None, Any]:
        """The answer text in ``chunk`` and what passes through as it is (None: nothing)."""
        if isinstance(chunk, str):
            return chunk, None
        if isinstance(chunk, BaseMessageChunk):
            self.message = self.message or chunk
            return chunk.text, None
        if isinstance(chunk, Mapping) and self.answer_key is not None:
            rest = {k: v for k, v in chunk.items() if k != self.answer_key}
            answer = chunk.get(self.answer_key)
            if isinstance(answer, BaseMessageChunk):
                self.message = self.message or answer
                answer = answer.text
            if answer is None or isinstance(answer, str):
                return answer, (AddableDict(rest) if rest else None)
        self.text_stream = False
        return None, chunk

    def _shaped(self, text: str, **metadata: Any) -> Any:
        """``text`` as a chunk of the stream's type (a message chunk keeps the stream's id and type)."""
        message = None
        if self.message is not None:
            message = type(self.message)(content=text, id=self.message.id, response_metadata=metadata)
        elif metadata:
            message = AIMessageChunk(content=text, response_metadata=metadata)
        if isinstance(self.total, Mapping):
            return AddableDict({self.answer_key: message if message is not None else text})
        return message if message is not None else text

    def _released(self, sentences: list[ReleasedSentence]) -> Iterator[Any]:
        for sentence in sentences:
            if sentence.text:
                yield self._shaped(sentence.text)

    def _gate(self, *, asynchronous: bool = False) -> SentenceGate:
        """The stream's gate, made at its first text (the documents are known by then)."""
        if self.gate is None:
            call = self.make_call()
            hooks = call.ahooks() if asynchronous else call.hooks()
            self.gate = SentenceGate(self.core, call.request(self.total), hooks)
        return self.gate

    def add(self, chunk: Any) -> Iterator[Any]:
        self.total = add_chunks(self.total, chunk)
        text, rest = self._split(chunk)
        if rest is not None:
            yield rest
        if text and self.text_stream:
            yield from self._released(self._gate().feed(text))

    async def aadd(self, chunk: Any) -> AsyncIterator[Any]:
        """Async twin of :meth:`add`."""
        self.total = add_chunks(self.total, chunk)
        text, rest = self._split(chunk)
        if rest is not None:
            yield rest
        if text and self.text_stream:
            for out in self._released(await self._gate(asynchronous=True).afeed(text)):
                yield out

    def output(self) -> Any:
        return self.total

    # -- the end ----------------------------------------------------------------------------------------------

    def finish(self) -> Iterator[Any]:
        """The last sentence and the whole answer's verdict (a stream that was not text: checked whole)."""
        if self.total is None:
            return
        if not self.text_stream or self.gate is None and not self._has_text():
            call = self.make_call()
            yield from self._whole_chunks(call, self.core.run(call.request(self.total), call.hooks()))
            return
        rest, outcome = self._gate().close()
        yield from self._released(rest)
        yield from self._verdict(outcome)

    async def afinish(self) -> AsyncIterator[Any]:
        """Async twin of :meth:`finish`."""
        if self.total is None:
            return
        if not self.text_stream or self.gate is None and not self._has_text():
            call = self.make_call()
            outcome = await self.core.arun(call.request(self.total), call.ahooks())
            for chunk in self._whole_chunks(call, outcome):
                yield chunk
            return
        rest, outcome = await self._gate(asynchronous=True).aclose()
        for chunk in self._released(rest):
            yield chunk
        for chunk in self._verdict(outcome):
            yield chunk

    def _has_text(self) -> bool:
        return isinstance(self.total, (str, BaseMessageChunk)) or (
            isinstance(self.total, Mapping) and self.answer_key in self.total)

    def _whole_chunks(self, call: GuardedCall, outcome: GuardOutcome) -> Iterator[Any]:
        stream = ChainStream(self.inner_kwargs, hold=False, output_key=self.output_key, answer_key=self.answer_key)
        yield from stream.final(self.total, call.respond(self.total, outcome))

    def _verdict(self, outcome: GuardOutcome) -> Iterator[Any]:
        verdict = outcome.verdict
        if isinstance(self.total, Mapping):
            extra = AddableDict({self.output_key: verdict})
            if self.message is not None:
                extra[self.answer_key] = self._shaped("", **{METADATA_KEY: verdict.to_metadata()})
            yield extra
        elif self.message is not None:
            yield self._shaped("", **{METADATA_KEY: verdict.to_metadata()})
