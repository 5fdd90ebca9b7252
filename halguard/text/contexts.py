"""Retrieved context: normalising what callers pass, and chunking it into overlapping sentence windows."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from halguard.errors import InputTypeError, InvalidInputError
from halguard.text.segment import split_sentences
from halguard.util.cache_budgets import CHUNKS_BYTES
from halguard.util.memo import BytesLRU

__all__ = ["Chunk", "ContextInput", "Source", "chunk_source", "normalize_contexts", "split_long_span"]


@dataclass(frozen=True)
class Source:
    """One retrieved passage: an id (the caller's, or its position) and its text.

    ``embedding`` is the retriever's vector for exactly this text and ``embedding_model`` the model that
    made it. The local verifier reuses the vector instead of re-embedding the passage when the model is its
    own (see :class:`~halguard.LocalVerifier`); other detectors ignore both. Neither takes part in
    equality or hashing.
    """

    id: str
    text: str
    embedding: tuple[float, ...] | None = field(default=None, compare=False, repr=False)
    embedding_model: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.embedding is None:
            return
        try:
            vector = tuple(float(x) for x in self.embedding)
        except (TypeError, ValueError):
            msg = f"source {self.id!r}: embedding must be a sequence of numbers"
            raise InputTypeError(msg) from None  # float()'s error quotes the item, which may be text
        if not vector or not all(math.isfinite(x) for x in vector) or not any(vector):
            msg = f"source {self.id!r}: embedding must be a non-empty, finite, non-zero vector"
            raise InvalidInputError(msg)
        if self.embedding_model is not None and not isinstance(self.embedding_model, str):
            msg = f"source {self.id!r}: embedding_model must be a str, got {type(self.embedding_model).__name__}"
            raise InputTypeError(msg)
        # A tuple copy: the caller's list or array is never kept (or changed) and the Source stays immutable.
        object.__setattr__(self, "embedding", vector)


ContextInput = Union[str, Source, tuple, Mapping]


def _one(item: Any, index: int) -> Source:
    if isinstance(item, Source):
        return item
    if isinstance(item, str):
        return Source(id=str(index), text=item)
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], str):
        return Source(id=str(item[0]), text=item[1])
    if isinstance(item, Mapping):
        text = item.get("text", item.get("page_content"))
        if isinstance(text, str):
            ident = item.get("id", item.get("source_id", index))
            return Source(id=str(index if ident is None else ident), text=text,
                          embedding=item.get("embedding"), embedding_model=item.get("embedding_model"))
    msg = (
        f"context item {index} is {type(item).__name__}; expected a str, an (id, text) tuple, "
        "a halguard.Source or a mapping with 'text' (and optionally 'embedding' and 'embedding_model')"
    )
    raise InputTypeError(msg)


_SOURCE_KEYS = frozenset({"id", "source_id", "text", "page_content", "embedding", "embedding_model", "metadata"})


def _mapping_contexts(contexts: Mapping[Any, Any]) -> list[Any]:
    """A mapping is one passage written as a dict (``{"id": ..., "text": ...}``) or passages keyed by id
    (``{"doc-1": "text", ...}``); iterating it as it is would check against its keys."""
    if isinstance(contexts.get("text", contexts.get("page_content")), str) and set(map(str, contexts)) <= _SOURCE_KEYS:
        return [contexts]
    bad = next((k for k, v in contexts.items() if not isinstance(v, (str, Source))), None)
    if bad is not None:
        msg = (
            "a mapping of contexts must map ids to passage texts (or be one passage with 'text'); "
            f"the value under {bad!r} is {type(contexts[bad]).__name__}"
        )
        raise InputTypeError(msg)
    return [v if isinstance(v, Source) else (str(k), v) for k, v in contexts.items()]


def normalize_contexts(contexts: Any) -> list[Source]:
    """Return the contexts as a new list of :class:`Source`; the caller's objects are never changed.

    ``contexts``: a str; a list of str, ``(id, text)`` pairs, Sources or ``{"id", "text"}`` mappings; or a
    mapping of id -> text.

    Raises:
        InputTypeError: ``contexts`` is not a str or an iterable of supported items.
    """
    if contexts is None:
        return []
    if isinstance(contexts, Mapping):
        contexts = _mapping_contexts(contexts)
    # A lone passage is wrapped. A 2-tuple is one (id, text) pair only when its id is not a str: a tuple of
    # two strings is read as two passages, like any other sequence of strings.
    lone_pair = (
        isinstance(contexts, tuple) and len(contexts) == 2
        and isinstance(contexts[1], str) and not isinstance(contexts[0], str)
    )
    if isinstance(contexts, (str, Source)) or lone_pair:
        contexts = [contexts]
    if isinstance(contexts, (bytes, bytearray)) or not isinstance(contexts, Iterable):
        msg = f"contexts must be a str or a list of passages, got {type(contexts).__name__}"
        raise InputTypeError(msg)
    sources = [_one(item, i) for i, item in enumerate(contexts)]
    seen: dict[str, int] = {}
    out = []
    for s in sources:  # duplicate ids would make evidence references ambiguous
        if s.id in seen:
            seen[s.id] += 1
            s = Source(id=f"{s.id}#{seen[s.id]}", text=s.text, embedding=s.embedding,
                       embedding_model=s.embedding_model)
        else:
            seen[s.id] = 0
        out.append(s)
    return out


@dataclass(frozen=True)
class Chunk:
    """A window of consecutive sentences of one source, with offsets into that source."""

    start: int
    end: int
    text: str


# Chunks of the sources seen lately, bounded by bytes (texts and chunks are both counted; util.cache_budgets).
_cache: BytesLRU[tuple[str, int, int], tuple[Chunk, ...]] = BytesLRU(CHUNKS_BYTES, name=f"{__name__}.chunk_source")


def split_long_span(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """Split an over-long sentence into overlapping windows of at most ``max_chars``, at spaces."""
    spans = []
    step = max(max_chars * 3 // 4, 1)
    s = start
    while s < end:
        e = min(s + max_chars, end)
        if e < end:
            cut = text.rfind(" ", s + step // 2, e)
            e = cut if cut > s else e
        spans.append((s, e))
        if e >= end:
            break
        nxt = s + step
        space = text.find(" ", nxt, e)
        s = space + 1 if 0 <= space < e else min(nxt, e)
    return spans


def chunk_source(text: str, *, sentences_per_chunk: int = 2, max_chars: int = 600,
                 deadline: float | None = None) -> tuple[Chunk, ...]:
    """Chunk a source into its sentences plus windows of ``sentences_per_chunk`` sentences (overlapping).

    Every character of the source lies in some chunk (nothing is dropped), and no chunk is longer than
    ``max_chars``: the granularity of evidence. The model's own limit is in tokens, not characters; the verifier
    cuts a chunk further where its tokenizer says the model would truncate it (``LocalEmbedder.fit``).
    Results are cached per distinct text. ``deadline`` (a ``time.monotonic()`` value): raise
    :class:`~halguard.text.segment.BudgetExceeded` when it passes while the text is being split.
    """
    key = (text, sentences_per_chunk, max_chars)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    units: list[tuple[int, int]] = []
    for s, e in split_sentences(text, deadline=deadline):
        units.extend(split_long_span(text, s, e, max_chars) if e - s > max_chars else [(s, e)])
    chunks: list[Chunk] = []
    # Single sentences match short claims best ("It was completed in 1889."); windows of several catch
    # claims that span a sentence boundary. Both are searched.
    windows = [[u] for u in units]
    if len(units) > 1 and sentences_per_chunk > 1:
        size = min(sentences_per_chunk, len(units))
        windows += [units[i : i + size] for i in range(len(units) - size + 1)]
    for win in windows:
        # Grow the window only while it fits: a window too long for the model falls back to its units.
        if win[-1][1] - win[0][0] <= max_chars:
            chunks.append(Chunk(win[0][0], win[-1][1], text[win[0][0] : win[-1][1]]))
        else:
            chunks.extend(Chunk(s, e, text[s:e]) for s, e in win)
    deduped = tuple(dict.fromkeys(chunks))
    _cache.set(key, deduped)
    return deduped
