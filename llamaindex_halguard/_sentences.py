"""A LlamaIndex token stream released sentence by sentence (``streaming="sentence"`` on the engine guards).

Each sentence goes out once it is complete and checked (:class:`halguard.guard.sentences.SentenceGate`); when the
stream ends the whole answer's outcome is handed to ``on_end`` (the guard puts the verdict in the response's
metadata). With ``fallback``, the fallback message goes out at the first flagged sentence; ``drain`` then reads
the rest of the engine's stream without sending it, for engines that write the answer to memory as it streams.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Callable, Generator, Iterable
from typing import Any

from halguard.guard import GuardOutcome
from halguard.guard.sentences import SentenceGate

__all__ = ["areleased_tokens", "released_tokens"]


def released_tokens(gate: SentenceGate, tokens: Iterable[str], on_end: Callable[[str, GuardOutcome], Any], *,
                    drain: bool = False) -> Generator[str, None, None]:
    """The checked sentences of ``tokens``; ``on_end(text sent, outcome)`` once the stream is done."""
    sent: list[str] = []
    stream = iter(tokens)
    for token in stream:
        for sentence in gate.feed(token):
            if sentence.text:
                sent.append(sentence.text)
                yield sentence.text
        if gate.closed:
            break
    rest, outcome = gate.close()
    for sentence in rest:
        if sentence.text:
            sent.append(sentence.text)
            yield sentence.text
    if drain:
        for _ in stream:
            pass
    on_end("".join(sent), outcome)


async def areleased_tokens(gate: SentenceGate, tokens: AsyncIterable[str],
                           on_end: Callable[[str, GuardOutcome], Any], *,
                           drain: bool = False) -> AsyncGenerator[str, None]:
    """Async twin of :func:`released_tokens` (``on_end`` may be a coroutine function)."""
    sent: list[str] = []
    stream = tokens.__aiter__()
    async for token in stream:
        for sentence in await gate.afeed(token):
            if sentence.text:
                sent.append(sentence.text)
                yield sentence.text
        if gate.closed:
            break
    rest, outcome = await gate.aclose()
    for sentence in rest:
        if sentence.text:
            sent.append(sentence.text)
            yield sentence.text
    if drain:
        async for _ in stream:
            pass
    done = on_end("".join(sent), outcome)
    if hasattr(done, "__await__"):
        await done
