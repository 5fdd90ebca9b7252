"""One answer made ready for scoring: input checks, normalised text, claims, evidence chunks and what to embed.

Everything here is cheap next to the embedding; the verifier prepares every answer of a batch, embeds all their
texts at once, then scores each (:mod:`halguard.grounding.verifier`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from halguard.errors import InputTypeError
from halguard.grounding.embedding import LocalEmbedder, same_model
from halguard.grounding.signals.scope import Scope, scope_of
from halguard.schema import SkippedSentence, SkippedSource, Verdict
from halguard.text.claims import Claim, extract_claims
from halguard.text.contexts import Chunk, Source, chunk_source, normalize_contexts, split_long_span
from halguard.text.normalize import FoldedTooLong, Normalized, is_blank, normalize_text
from halguard.text.script import is_mostly_latin, looks_binary
from halguard.text.segment import BudgetExceeded, check_deadline
from halguard.util.safejson import MAX_JSON_DEPTH, json_depth

__all__ = ["Job", "Limits", "Unverifiable", "check_context_length", "check_text_lengths", "prepare", "read_inputs",
           "read_sources", "restore_offsets"]


@dataclass(frozen=True)
class Limits:
    """The sizes a check works with (see :class:`~halguard.grounding.verifier.LocalVerifier`)."""

    max_answer_chars: int
    max_context_chars: int
    sentences_per_chunk: int
    max_chunk_chars: int
    max_question_chars: int


class Unverifiable(Exception):
    """The answer cannot be checked as given: the verdict is ``unverified`` with ``code`` (not a failure)."""

    def __init__(self, code: str, message: str, *, skipped: list[SkippedSentence] | None = None,
                 original: Normalized | None = None, skipped_sources: list[SkippedSource] | None = None) -> None:
        super().__init__(message)
        self.code, self.message = code, message
        self.skipped = skipped or []
        self.skipped_sources = skipped_sources or []
        self.original = original  # the way back to the caller's answer, for the skipped sentences' offsets


@dataclass
class Job:
    """One answer prepared for scoring (everything but the embeddings)."""

    answer: str  # normalised
    question: str | None
    sources: list[Source]
    chunks: list[tuple[int, Chunk]]  # (source index, chunk)
    claims: list[Claim]
    windows: list[list[str]]  # per claim, the texts embedded for it
    skipped: list[SkippedSentence]
    scope: Scope  # the whole context (and the question)
    given: dict[str, np.ndarray]  # chunk text -> the retriever's vector for it (same model)
    original: Normalized  # the answer as given, and the way back from the normalised one
    normalized_sources: dict[str, Normalized] = field(default_factory=dict)  # source id -> the way back
    skipped_sources: list[SkippedSource] = field(default_factory=list)  # passages that could not be read


def read_inputs(answer: Any, contexts: Any, question: Any) -> list[Source]:
    """The caller's passages (blank ones dropped: only whitespace and invisible format characters), once the answer
    is a str and the question a str or None.

    Raises:
        InputTypeError: the answer is not a str, the question not a str or None, or a context has a bad type.
    """
    if not isinstance(answer, str):
        msg = f"answer must be a str, got {type(answer).__name__}"
        raise InputTypeError(msg)
    if question is not None and not isinstance(question, str):
        msg = f"question must be a str or None, got {type(question).__name__}"
        raise InputTypeError(msg)
    return [s for s in normalize_contexts(contexts) if not is_blank(s.text)]


def prepare(answer: Any, contexts: Any, question: Any, *, limits: Limits, embedder: LocalEmbedder,
            deadline: float | None = None) -> Job:
    """Check the input and prepare one answer.

    Raises:
        InputTypeError: the answer is not a str, the question not a str or None, or a context has a bad type.
        Unverifiable: the answer cannot be checked (empty, too long, binary, not in Latin script, no context,
            too much context, no checkable claim).
        BudgetExceeded: the deadline passed.
    """
    sources = read_inputs(answer, contexts, question)
    _check_sizes(answer, question, sources, limits)
    # The checks read normalised text (no zero-width characters, compatibility forms folded); restore_offsets puts
    # every offset back on the caller's text. The size limits hold for the folded text too.
    try:
        original = normalize_text(answer, max_chars=limits.max_answer_chars)
    except FoldedTooLong as exc:
        raise Unverifiable("answer_too_long", f"{exc}: over max_answer_chars; it was not checked") from exc
    answer = original.text
    if question:
        try:
            question = normalize_text(question, max_chars=limits.max_question_chars).text
        except FoldedTooLong as exc:
            raise Unverifiable("question_too_long", f"the question {exc}: over max_question_chars") from exc
    sources, normalized, skipped_sources = read_sources(sources, limits, deadline)
    split = extract_claims(answer, question, deadline=deadline)
    skipped = [SkippedSentence(start=s, end=e, text=answer[s:e], reason=r) for s, e, r in split.skipped]
    if not split.claims:
        raise Unverifiable("no_checkable_claims",
                           "every sentence of the answer was skipped as trivial (hedges, list intros, fragments)",
                           skipped=skipped, original=original, skipped_sources=skipped_sources)
    chunks = [
        (i, ch)
        for i, src in enumerate(sources)
        for ch in chunk_source(src.text, sentences_per_chunk=limits.sentences_per_chunk,
                               max_chars=limits.max_chunk_chars, deadline=deadline)
    ]
    chunks = _fitted_chunks(chunks, embedder, deadline)
    windows = [
        [w for s, e in split_long_span(c.check_text, 0, len(c.check_text), limits.max_chunk_chars)
         for w in _fitted(c.check_text[s:e], embedder)]
        for c in split.claims
    ]
    return Job(answer, question, sources, chunks, split.claims, windows, skipped, scope_of(sources, question),
               _given_vectors(sources, chunks, embedder.model_name), original,
               {src.id: n for src, n in zip(sources, normalized) if n.changed}, skipped_sources)


def _unreadable(source: Source) -> str | None:
    """Why a passage cannot be used as evidence at all, or None (cheap tests, before any reading)."""
    if looks_binary(source.text):
        return "not text: the passage looks like binary data"
    stripped = source.text.lstrip()
    if stripped[:1] in ("[", "{") and json_depth(stripped, stop_at=MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        return f"unreadable: JSON nested deeper than {MAX_JSON_DEPTH} levels"
    return None


def read_sources(sources: list[Source], limits: Limits,
                  deadline: float | None) -> tuple[list[Source], list[Normalized], list[SkippedSource]]:
    """The passages the checks can read (folded), their ways back, and the ones skipped with the reason.

    One passage that cannot be read (binary data, a crafted structure, a failure while reading it) is skipped and
    listed: it must not take the check of the answer against the other passages down with it. Reading here means
    what the later stages do per passage (folding, splitting into evidence chunks, its words and records), so a
    failure that a passage causes surfaces here, where it can be pinned on that passage.
    """
    kept: list[Source] = []
    ways_back: list[Normalized] = []
    skipped: list[SkippedSource] = []
    room = limits.max_context_chars
    for src in sources:
        check_deadline(deadline)
        why = _unreadable(src)
        if why is None:
            try:
                n = normalize_text(src.text, max_chars=room)
                if not n.text.strip():  # only format characters (zero-width, soft hyphens) and spaces: no passage
                    continue
                chunk_source(n.text, sentences_per_chunk=limits.sentences_per_chunk, max_chars=limits.max_chunk_chars,
                             deadline=deadline)
                scope_of([Source(src.id, n.text)], None)  # memoised per passage: the answer's scope reuses it
            except FoldedTooLong as exc:
                raise Unverifiable(
                    "context_too_large",
                    f"the context has more than max_context_chars={limits.max_context_chars:,} characters once "
                    "Unicode compatibility forms are folded; it is never truncated, so the answer was not checked",
                ) from exc
            except (BudgetExceeded, Unverifiable):
                raise
            except Exception as exc:  # noqa: BLE001 - one unreadable passage is skipped, not the whole check
                why = f"unreadable: {type(exc).__name__}: {str(exc)[:120]}"
            else:
                room -= len(n.text)
                kept.append(Source(src.id, n.text, embedding=src.embedding, embedding_model=src.embedding_model)
                            if n.changed else src)
                ways_back.append(n)
                continue
        skipped.append(SkippedSource(source_id=src.id, reason=why, text=src.text[:200]))
    if not kept:
        raise Unverifiable("no_context", "no readable retrieved context to check the answer against "
                           "(see skipped_sources)" if skipped else "no retrieved context to check the answer against",
                           skipped_sources=skipped)
    return kept, ways_back, skipped


def check_text_lengths(answer: str, question: str | None, *, max_answer_chars: int, max_question_chars: int) -> None:
    """The answer's and the question's limits, on the text as given (before folding, which only lengthens it).

    Raises:
        Unverifiable: ``answer_too_long`` or ``question_too_long``.
    """
    if len(answer) > max_answer_chars:
        raise Unverifiable(
            "answer_too_long",
            f"the answer has {len(answer):,} characters, over max_answer_chars={max_answer_chars:,}; "
            "it was not checked (raise the limit to check it in full)",
        )
    if question is not None and len(question) > max_question_chars:
        raise Unverifiable(
            "question_too_long",
            f"the question has {len(question):,} characters, over max_question_chars={max_question_chars:,}; "
            "the answer was not checked (pass long material as context, or raise the limit)",
        )


def check_context_length(sources: list[Source], *, max_context_chars: int) -> None:
    """The passages' limit in all, on the text as given: never truncated.

    Raises:
        Unverifiable: ``context_too_large``.
    """
    total = sum(len(s.text) for s in sources)
    if total > max_context_chars:
        raise Unverifiable(
            "context_too_large",
            f"the context has {total:,} characters, over max_context_chars={max_context_chars:,}; "
            "it is never truncated, so the answer was not checked (raise the limit)",
        )


def _check_sizes(answer: str, question: str | None, sources: list[Source], limits: Limits) -> None:
    """Limits on the text as given (before folding, which could only make it longer)."""
    if not answer.strip():
        raise Unverifiable("empty_answer", "the answer is empty; there is nothing to check")
    check_text_lengths(answer, question, max_answer_chars=limits.max_answer_chars,
                       max_question_chars=limits.max_question_chars)
    if looks_binary(answer):
        raise Unverifiable("not_text", "the answer looks like binary data, not text")
    if not is_mostly_latin(answer, min_letters=8):
        raise Unverifiable("unsupported_language",
                           "the answer is mostly in a non-Latin script; the local model is English-only")
    if not sources:
        raise Unverifiable("no_context", "no retrieved context to check the answer against")
    check_context_length(sources, max_context_chars=limits.max_context_chars)


def _fitted(text: str, embedder: LocalEmbedder) -> list[str]:
    """``text``, or its windows when it has more word pieces than the model reads."""
    spans = embedder.fit(text)
    return [text] if spans is None else [text[s:e] for s, e in spans]


def _fitted_chunks(chunks: list[tuple[int, Chunk]], embedder: LocalEmbedder,
                   deadline: float | None) -> list[tuple[int, Chunk]]:
    """Evidence chunks cut further where the model would truncate them (see ``LocalEmbedder.fit``)."""
    out: list[tuple[int, Chunk]] = []
    for n, (i, ch) in enumerate(chunks):
        if n % 256 == 0:
            check_deadline(deadline)
        spans = embedder.fit(ch.text)
        if spans is None:
            out.append((i, ch))
        else:
            out.extend((i, Chunk(ch.start + s, ch.start + e, ch.text[s:e])) for s, e in spans)
    return out


def _given_vectors(sources: list[Source], chunks: list[tuple[int, Chunk]], model: str) -> dict[str, np.ndarray]:
    """The retriever's vectors that stand for one of our chunks: same model, and the chunk is the passage.

    Evidence chunks are sentences and sentence windows, so a passage's vector is used where the passage
    is one chunk (a sentence, or a window of up to ``sentences_per_chunk`` sentences); a longer passage is
    still embedded window by window, as it is never summarised by one vector.
    """
    given: dict[str, np.ndarray] = {}
    for i, ch in chunks:
        src = sources[i]
        if src.embedding is not None and same_model(src.embedding_model, model) and ch.text == src.text.strip():
            vec = np.asarray(src.embedding, dtype=np.float32)
            given.setdefault(ch.text, vec / np.linalg.norm(vec))
    return given


def restore_offsets(verdict: Verdict, answer: Normalized | None, sources: dict[str, Normalized]) -> Verdict:
    """Offsets and texts on the caller's answer and sources again, after checks on their normalised forms."""
    if (answer is None or not answer.changed) and not sources:
        return verdict
    for item in [*verdict.claims, *verdict.spans, *verdict.skipped]:
        if answer is not None and answer.changed:
            item.start, item.end = answer.span(item.start, item.end)
            item.text = answer.original[item.start : item.end]
    for claim in verdict.claims:
        for ev in claim.evidence:
            source = sources.get(ev.source_id)
            if source is not None:
                ev.start, ev.end = source.span(ev.start, ev.end)
                ev.text = source.original[ev.start : ev.end]
    return verdict
