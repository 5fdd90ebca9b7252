"""LocalVerifier: the default, offline, key-free grounding check.

For each claim of the answer it finds the most similar evidence chunks anywhere in the context
(MiniLM embeddings, faiss for large contexts) and measures word-level signals against the whole
context (invented names, changed numbers, negation flips, wrong arithmetic). The signals are combined
into a calibrated risk per claim (see :mod:`halguard.grounding.scoring`); the answer's risk is its riskiest claim.
"""

from __future__ import annotations

import math
import os
import re
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from halguard.grounding.signals.arithmetic import check_arithmetic
from halguard.text.claims import Claim, extract_claims, resolve_citation
from halguard.detector import Detector, _questions, _same_length
from halguard.grounding.embedding import DEFAULT_NUM_THREADS, MODEL_NAME, EncodeStats, LocalEmbedder, same_model
from halguard.errors import InputTypeError, InvalidInputError
from halguard.grounding.scoring import DEFAULT_WEIGHTS, ClaimSignals, ScoringWeights
from halguard.grounding.index import EvidenceIndex
from halguard.grounding.signals.antonyms import antonym_flips
from halguard.util.memo import memoize_text
from halguard.text.normalize import Normalized, normalize_text
from halguard.text.lexical import (
    content_terms,
    entity_mentions,
    is_enumerator,
    negation_flip,
    number_mentions,
    number_values,
    term_set,
)
from halguard.grounding.signals.records import absent_feature_mentions, absent_features
from halguard.text.segment import BudgetExceeded, check_deadline, split_sentences
from halguard.schema import (
    ClaimStatus,
    ClaimVerdict,
    EvidenceRef,
    SkippedSentence,
    UnsupportedSpan,
    Usage,
    Verdict,
)
from halguard.text.contexts import Chunk, Source, chunk_source, normalize_contexts, split_long_span

__all__ = ["DEFAULT_TIME_BUDGET_S", "LocalVerifier"]

# Seconds one check may take. The slowest answer of the three dev files took 3.1 s (a RAGTruth summary seen for
# the first time, one thread); a guard waits for no more than a few LLM calls' worth.
DEFAULT_TIME_BUDGET_S = 10.0
# Texts per encoding slice when a budget is set: ~64 sentences take about a second on one core at worst.
_ENCODE_SLICE = 64


# Per-source memos, bounded by bytes (a megabyte passage is a megabyte of key): 64 MiB holds the word sets of
# a few hundred typical RAG contexts, so passages a process sees again are not re-read.
@memoize_text(64 * 2**20)
def _source_terms(text: str) -> frozenset[str]:
    return frozenset(term_set(text))


@memoize_text(16 * 2**20)
def _source_numbers(text: str) -> frozenset[float]:
    return frozenset(number_values(text))


@memoize_text(64 * 2**20)
def _word_string(text: str) -> str:
    """The text's words, lower-cased and joined by single spaces, padded: for word-for-word matching."""
    return " " + " ".join(m.lower() for m in _WORDS.findall(text)) + " "


_WORDS = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class _Scope:
    """What a claim's words are looked up in: the whole context, or only the sources it cites."""

    terms: frozenset[str]
    numbers: frozenset[float]
    absent: frozenset[str]  # features a JSON record in these sources marks as absent
    sources: tuple[Source, ...]


def _scope(sources: Sequence[Source], question: str | None) -> _Scope:
    terms: set[str] = set()
    numbers: set[float] = set()
    for src in sources:
        terms |= _source_terms(src.text)
        numbers |= _source_numbers(src.text)
    if question:
        terms |= term_set(question)
        numbers |= number_values(question)
    absent = frozenset().union(*(absent_features(src.text) for src in sources))
    return _Scope(frozenset(terms), frozenset(numbers), absent, tuple(sources))


@dataclass
class _Job:
    """One answer prepared for scoring (everything but the embeddings)."""

    answer: str
    question: str | None
    sources: list[Source]
    chunks: list[tuple[int, Chunk]]  # (source index, chunk)
    claims: list[Claim]
    windows: list[list[str]]  # per claim, the texts embedded for it
    skipped: list[SkippedSentence]
    scope: _Scope  # the whole context (and the question)
    given: dict[str, np.ndarray]  # chunk text -> the retriever's vector for it (same model)
    original: Normalized  # the answer as given, and the way back from the normalised one
    normalized_sources: dict[str, Normalized]  # source id -> the way back, for sources normalisation changed


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _looks_binary(text: str) -> bool:
    sample = text[:20_000]
    if "\x00" in sample:
        return True
    control = sum(1 for ch in sample if unicodedata.category(ch) in ("Cc", "Cs", "Co") and ch not in "\n\r\t")
    return control > 0.05 * len(sample)


def _mostly_non_latin(text: str) -> bool:
    letters = [ch for ch in text[:20_000] if ch.isalpha()]
    if len(letters) < 8:
        return False
    latin = sum(1 for ch in letters if ord(ch) < 0x250)
    return latin < 0.5 * len(letters)


class LocalVerifier(Detector):
    """Grounding check with a local embedding model and rules; no API key, no network.

    Args:
        threshold: Risk at or above which a claim (and so the answer) is flagged.
        weak_threshold: Risk at or above which an unflagged claim is WEAK_SUPPORT instead of SUPPORTED.
        top_k: Evidence chunks kept per claim.
        sentences_per_chunk: Sentences per evidence window (windows overlap by one sentence).
        max_chunk_chars: Longest evidence chunk; longer sentences are split so the model never truncates.
        max_answer_chars: Longer answers get an ``unverified`` verdict (``answer_too_long``), never a
            partial check.
        max_context_chars: Larger contexts (all sources together) get an ``unverified`` verdict
            (``context_too_large``): the context is never silently truncated.
        faiss_min_chunks: From this many chunks on, search with a faiss index.
        batch_size: Encoding batch size. Small batches are faster on CPU (less padding of mixed-length
            texts) and use less memory: 8 ran 2.2x faster than 64 on RAGTruth contexts, with 40% lower RSS.
        weights: The signal weights (see :class:`~halguard.grounding.scoring.ScoringWeights`).
        model_path: A sentence-transformers model directory (default: the bundled all-MiniLM-L6-v2).
        device: Torch device for the model (default: sentence-transformers' choice).
        embedder: An embedder to use instead of the shared one (tests, custom models).
        num_threads: torch intra-op threads while this verifier encodes (default 1; see
            :data:`halguard.grounding.embedding.DEFAULT_NUM_THREADS` for why). torch's setting is process-wide: it is set
            for each encode and put back afterwards. None leaves torch's setting alone (yours, or every core).
        time_budget_s: Seconds one answer's check may take (``verify_batch``: this many per answer). Past it the
            check stops and the verdict is ``unverified`` with the code ``budget_exceeded``; None: no budget. The
            budget is checked between sentence pieces, encoding slices and claims, so a check overruns it by at
            most one such step (about a second at worst on one core).
        citation_mode: ``"strict"`` (default): a claim whose citation markers (``[1]``, ``[S0]``) point at
            sources that do not support it, or at no source at all, is at least ``WEAK_SUPPORT``, with a span on
            the markers, even when another source supports it (a claim no source supports is flagged as
            always). ``"lenient"``: a wrong citation is only noted in the claim's ``reasons``. Answers without
            citation markers are checked the same way in both modes.
    """

    def __init__(
        self,
        *,
        threshold: float = 0.5,
        weak_threshold: float = 0.4,
        top_k: int = 3,
        sentences_per_chunk: int = 2,
        max_chunk_chars: int = 600,
        max_answer_chars: int = 100_000,
        max_context_chars: int = 1_000_000,
        faiss_min_chunks: int = 256,
        batch_size: int = 8,
        weights: ScoringWeights = DEFAULT_WEIGHTS,
        model_path: str | None = None,
        device: str | None = None,
        embedder: LocalEmbedder | None = None,
        num_threads: int | None = DEFAULT_NUM_THREADS,
        citation_mode: Literal["strict", "lenient"] = "strict",
        time_budget_s: float | None = DEFAULT_TIME_BUDGET_S,
    ) -> None:
        for name, value in (("threshold", threshold), ("weak_threshold", weak_threshold)):
            if not _is_number(value):
                msg = f"{name} must be a number from 0 to 1, got {value!r}"
                raise InvalidInputError(msg)
        if time_budget_s is not None and (not _is_number(time_budget_s) or time_budget_s <= 0):
            msg = f"time_budget_s must be a positive number of seconds or None, got {time_budget_s!r}"
            raise InvalidInputError(msg)
        if not isinstance(weights, ScoringWeights):
            msg = f"weights must be a halguard.ScoringWeights, got {type(weights).__name__}"
            raise InvalidInputError(msg)
        if embedder is not None and not isinstance(embedder, LocalEmbedder):
            msg = f"embedder must be a halguard LocalEmbedder, got {type(embedder).__name__}"
            raise InvalidInputError(msg)
        for name, value in (("model_path", model_path), ("device", device)):
            if value is not None and not isinstance(value, (str, os.PathLike)):
                msg = f"{name} must be a str or None, got {type(value).__name__}"
                raise InvalidInputError(msg)
        if num_threads is not None and (isinstance(num_threads, bool) or not isinstance(num_threads, int)
                                        or num_threads < 1):
            msg = f"num_threads must be a positive int or None, got {num_threads!r}"
            raise InvalidInputError(msg)
        if citation_mode not in ("strict", "lenient"):
            msg = f"citation_mode must be 'strict' or 'lenient', got {citation_mode!r}"
            raise InvalidInputError(msg)
        if not 0.0 <= weak_threshold <= threshold <= 1.0:
            msg = f"need 0 <= weak_threshold <= threshold <= 1, got {weak_threshold} and {threshold}"
            raise InvalidInputError(msg)
        for name, value in (
            ("top_k", top_k),
            ("sentences_per_chunk", sentences_per_chunk),
            ("max_chunk_chars", max_chunk_chars),
            ("max_answer_chars", max_answer_chars),
            ("max_context_chars", max_context_chars),
            ("batch_size", batch_size),
            ("faiss_min_chunks", faiss_min_chunks),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                msg = f"{name} must be a positive int, got {value!r}"
                raise InvalidInputError(msg)
        if max_chunk_chars < 50:
            msg = f"max_chunk_chars must be at least 50, got {max_chunk_chars}"
            raise InvalidInputError(msg)
        self.threshold = threshold
        self.weak_threshold = weak_threshold
        self.top_k = top_k
        self.sentences_per_chunk = sentences_per_chunk
        self.max_chunk_chars = max_chunk_chars
        self.max_answer_chars = max_answer_chars
        self.max_context_chars = max_context_chars
        self.faiss_min_chunks = faiss_min_chunks
        self.batch_size = batch_size
        self.weights = weights
        self._model_path = model_path
        self._device = device
        self._embedder = embedder
        self.citation_mode = citation_mode
        self.num_threads = num_threads
        self.time_budget_s = time_budget_s

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"local:{MODEL_NAME}" if self._model_path is None else f"local:{self._model_path}"

    @property
    def embedder(self) -> LocalEmbedder:
        if self._embedder is None:
            self._embedder = LocalEmbedder.shared(self._model_path, device=self._device)
        return self._embedder

    def warm_up(self) -> float:
        """Load the model now (not on the first check); returns the load time in seconds."""
        _ = self.embedder.model
        return self.embedder.load_seconds

    # -- public API ---------------------------------------------------------------------------------

    def verify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        """Check one answer. See :meth:`verify_batch`."""
        return self.verify_batch([answer], [contexts], questions=[question])[0]

    def verify_batch(
        self,
        answers: Sequence[str],
        contexts: Sequence[Any],
        *,
        questions: Sequence[str | None] | None = None,
    ) -> list[Verdict]:
        """Check many answers at once, encoding all their claims and evidence in shared batches.

        Each verdict's ``latency_ms`` is the batch's wall time divided by the number of answers, and its
        ``usage`` is that of the batch's shared encoding.

        Raises:
            InputTypeError: an answer is not a str, a question is not a str or None, or a context item
                has an unsupported type.
            InvalidInputError: the sequences have different lengths.
        """
        if isinstance(answers, str):
            msg = "verify_batch takes a list of answers; use verify() for one answer"
            raise InputTypeError(msg)
        _same_length(answers, contexts)
        qs = _questions(questions, len(answers))
        t0 = time.perf_counter()
        if self.time_budget_s is not None:
            self.warm_up()  # a first load (seconds on a cold disk) is not the check's time
        deadline = None if self.time_budget_s is None else time.monotonic() + self.time_budget_s * max(len(answers), 1)
        prepared = [self._contained(self._prepare, a, c, q, deadline) for a, c, q in zip(answers, contexts, qs)]
        jobs = [p for p in prepared if isinstance(p, _Job)]
        embedded = self._contained(self._embed, jobs, deadline) if jobs else ({}, Usage())
        if isinstance(embedded, Verdict):  # the shared encoding failed or ran out of time: every job with it
            prepared = [embedded.model_copy(deep=True) if isinstance(p, _Job) else p for p in prepared]
            embedded = ({}, Usage())
        vectors, usage = embedded
        verdicts = [self._contained(self._score, p, vectors, usage, deadline) if isinstance(p, _Job) else p
                    for p in prepared]
        elapsed = (time.perf_counter() - t0) * 1000 / max(len(answers), 1)
        for v in verdicts:
            v.latency_ms = round(elapsed, 3)
        return verdicts

    # -- stages ----------------------------------------------------------------------------------------

    def _unverified(self, code: str, message: str, **fields: Any) -> Verdict:
        return Verdict.unverified(code, message, detector=self.name, threshold=self.threshold, **fields)

    def _contained(self, stage: Any, *args: Any) -> Any:
        """Run a stage; a blown time budget or a failure inside it becomes an ``unverified`` verdict.

        Bad input (:class:`InputTypeError`, :class:`InvalidInputError`) still raises: it is the caller's to fix.
        """
        try:
            return stage(*args)
        except (InputTypeError, InvalidInputError):
            raise
        except BudgetExceeded:
            return self._unverified(
                "budget_exceeded",
                f"the check did not finish within time_budget_s={self.time_budget_s} s; it was stopped, not "
                "shortened (raise the budget, or check fewer or shorter passages)",
            )
        except Exception as exc:  # noqa: BLE001 - a guardrail turns its own failures into "unverified"
            return self._unverified("internal_error", f"the check failed: {type(exc).__name__}: {str(exc)[:200]}")

    def _prepare(self, answer: Any, contexts: Any, question: Any, deadline: float | None = None) -> _Job | Verdict:
        if not isinstance(answer, str):
            msg = f"answer must be a str, got {type(answer).__name__}"
            raise InputTypeError(msg)
        if question is not None and not isinstance(question, str):
            msg = f"question must be a str or None, got {type(question).__name__}"
            raise InputTypeError(msg)
        sources = [s for s in normalize_contexts(contexts) if s.text.strip()]
        if not answer.strip():
            return self._unverified("empty_answer", "the answer is empty; there is nothing to check")
        if len(answer) > self.max_answer_chars:
            return self._unverified(
                "answer_too_long",
                f"the answer has {len(answer):,} characters, over max_answer_chars={self.max_answer_chars:,}; "
                "it was not checked (raise the limit to check it in full)",
            )
        if _looks_binary(answer):
            return self._unverified("not_text", "the answer looks like binary data, not text")
        if _mostly_non_latin(answer):
            return self._unverified(
                "unsupported_language",
                "the answer is mostly in a non-Latin script; the local model is English-only",
            )
        if not sources:
            return self._unverified("no_context", "no retrieved context to check the answer against")
        total = sum(len(s.text) for s in sources)
        if total > self.max_context_chars:
            return self._unverified(
                "context_too_large",
                f"the context has {total:,} characters, over max_context_chars={self.max_context_chars:,}; "
                "it is never truncated, so the answer was not checked (raise the limit)",
            )
        # The checks read normalised text (no zero-width characters, compatibility forms folded); _restore puts
        # every offset back on the caller's text.
        original = normalize_text(answer)
        answer = original.text
        question = normalize_text(question).text if question else question
        normalized = [normalize_text(src.text) for src in sources]
        sources = [Source(src.id, n.text, embedding=src.embedding, embedding_model=src.embedding_model)
                   if n.changed else src for src, n in zip(sources, normalized)]
        split = extract_claims(answer, question, deadline=deadline)
        skipped = [SkippedSentence(start=s, end=e, text=answer[s:e], reason=r) for s, e, r in split.skipped]
        if not split.claims:
            return self._restore(self._unverified(
                "no_checkable_claims",
                "every sentence of the answer was skipped as trivial (hedges, list intros, fragments)",
                skipped=skipped,
            ), original, {})
        chunks = [
            (i, ch)
            for i, src in enumerate(sources)
            for ch in chunk_source(
                src.text, sentences_per_chunk=self.sentences_per_chunk, max_chars=self.max_chunk_chars,
                deadline=deadline,
            )
        ]
        chunks = self._fitted_chunks(chunks, deadline)
        windows = [
            [w for s, e in split_long_span(c.check_text, 0, len(c.check_text), self.max_chunk_chars)
             for w in self._fitted(c.check_text[s:e])]
            for c in split.claims
        ]
        return _Job(answer, question, sources, chunks, split.claims, windows, skipped, _scope(sources, question),
                    self._given_vectors(sources, chunks), original,
                    {src.id: n for src, n in zip(sources, normalized) if n.changed})

    def _fitted(self, text: str) -> list[str]:
        """``text``, or its windows when it has more word pieces than the model reads."""
        spans = self.embedder.fit(text)
        return [text] if spans is None else [text[s:e] for s, e in spans]

    def _fitted_chunks(self, chunks: list[tuple[int, Chunk]], deadline: float | None) -> list[tuple[int, Chunk]]:
        """Evidence chunks cut further where the model would truncate them (see ``LocalEmbedder.fit``)."""
        out: list[tuple[int, Chunk]] = []
        for n, (i, ch) in enumerate(chunks):
            if n % 256 == 0:
                check_deadline(deadline)
            spans = self.embedder.fit(ch.text)
            if spans is None:
                out.append((i, ch))
            else:
                out.extend((i, Chunk(ch.start + s, ch.start + e, ch.text[s:e])) for s, e in spans)
        return out

    @staticmethod
    def _restore(verdict: Verdict, answer: Normalized, sources: dict[str, Normalized]) -> Verdict:
        """Offsets and texts on the caller's answer and sources again, after checks on their normalised forms."""
        if not answer.changed and not sources:
            return verdict
        for item in [*verdict.claims, *verdict.spans, *verdict.skipped]:
            if answer.changed:
                item.start, item.end = answer.span(item.start, item.end)
                item.text = answer.original[item.start : item.end]
        for claim in verdict.claims:
            for ev in claim.evidence:
                source = sources.get(ev.source_id)
                if source is not None:
                    ev.start, ev.end = source.span(ev.start, ev.end)
                    ev.text = source.original[ev.start : ev.end]
        return verdict

    def _given_vectors(self, sources: list[Source], chunks: list[tuple[int, Chunk]]) -> dict[str, np.ndarray]:
        """The retriever's vectors that stand for one of our chunks: same model, and the chunk is the passage.

        Evidence chunks are sentences and sentence windows, so a passage's vector is used where the passage
        is one chunk (a sentence, or a window of up to ``sentences_per_chunk`` sentences); a longer passage is
        still embedded window by window, as it is never summarised by one vector.
        """
        given: dict[str, np.ndarray] = {}
        model = self.embedder.model_name
        for i, ch in chunks:
            src = sources[i]
            if src.embedding is not None and same_model(src.embedding_model, model) and ch.text == src.text.strip():
                vec = np.asarray(src.embedding, dtype=np.float32)
                given.setdefault(ch.text, vec / np.linalg.norm(vec))
        return given

    def _embed(self, jobs: list[_Job], deadline: float | None = None) -> tuple[dict[str, np.ndarray], Usage]:
        given: dict[str, np.ndarray] = {}
        for job in jobs:
            for text, vec in job.given.items():
                given.setdefault(text, vec)
        texts = list(dict.fromkeys(
            [ch.text for job in jobs for _, ch in job.chunks if ch.text not in given]
            + [w for job in jobs for ws in job.windows for w in ws if w not in given]
        ))
        vecs, stats = self._encode(texts, deadline)
        dim = vecs.shape[1] if len(texts) else self.embedder.dimension
        wrong = next((v for v in given.values() if len(v) != dim), None)
        if wrong is not None:
            msg = (
                f"a precomputed embedding has {len(wrong)} dimensions but {self.embedder.model_name} makes {dim}: "
                "the vectors come from another model than the one named in embedding_model"
            )
            raise InvalidInputError(msg)
        usage = Usage(model_calls=stats.batches, embedded_texts=stats.computed, cached_texts=stats.cached,
                      precomputed_texts=len(given))
        return {**given, **dict(zip(texts, vecs))}, usage

    def _encode(self, texts: list[str], deadline: float | None) -> tuple[np.ndarray, EncodeStats]:
        """Encode in slices, checking the time budget between them (what was encoded stays in the cache)."""
        if deadline is None or len(texts) <= _ENCODE_SLICE:
            check_deadline(deadline)
            return self.embedder.encode(texts, batch_size=self.batch_size, num_threads=self.num_threads)
        parts, total = [], EncodeStats()
        for i in range(0, len(texts), _ENCODE_SLICE):
            check_deadline(deadline)
            vecs, stats = self.embedder.encode(texts[i : i + _ENCODE_SLICE], batch_size=self.batch_size,
                                               num_threads=self.num_threads)
            parts.append(vecs)
            total.computed += stats.computed
            total.cached += stats.cached
            total.batches += stats.batches
        return np.vstack(parts), total

    def _score(self, job: _Job, vectors: dict[str, np.ndarray], usage: Usage,
               deadline: float | None = None) -> Verdict:
        index = EvidenceIndex(np.vstack([vectors[ch.text] for _, ch in job.chunks]), faiss_min=self.faiss_min_chunks)
        source_ids = [s.id for s in job.sources]
        claim_verdicts: list[ClaimVerdict] = []
        spans: list[UnsupportedSpan] = []
        for claim, windows in zip(job.claims, job.windows):
            check_deadline(deadline)
            claim_vectors = np.vstack([vectors[w] for w in windows])
            sims, idx = index.search(claim_vectors, self.top_k)
            # Every part of a long claim must be supported: its similarity is the weakest part's best match.
            weakest = int(np.argmin(sims[:, 0]))
            best = job.chunks[int(idx[weakest, 0])][1]
            signals = self._signals(job, claim, float(sims[weakest, 0]), best, job.scope)
            risk = self.weights.risk(signals, claims_in_answer=len(job.claims))
            status = self._status(risk, signals)
            evidence = [
                EvidenceRef(
                    source_id=source_ids[job.chunks[int(j)][0]],
                    start=job.chunks[int(j)][1].start,
                    end=job.chunks[int(j)][1].end,
                    text=job.chunks[int(j)][1].text,
                    similarity=round(float(s), 4),
                )
                for s, j in zip(sims[weakest], idx[weakest])
            ]
            cited = [resolve_citation(lab, source_ids) for lab in claim.citations]
            reasons = self._reasons(signals, job.answer, cited, claim.citations, evidence)
            miscited = None
            if self.citation_mode == "strict" and claim.citations and status not in _FLAGGED:
                miscited = self._miscited(job, claim, cited, claim_vectors, index.embeddings, evidence)
            if miscited is not None:
                status, risk = ClaimStatus.WEAK_SUPPORT, max(risk, self.weak_threshold)
                # The strict reason says what the lenient notes ("best evidence is in...", "unknown sources") say.
                reasons = [r for r in reasons if not r.startswith(("best evidence is in source", "cites unknown"))]
                reasons.append(miscited)
                spans.extend(UnsupportedSpan(start=a, end=b, text=job.answer[a:b], confidence=round(risk, 4),
                                             reason=miscited) for a, b in claim.citation_spans)
            claim_verdicts.append(
                ClaimVerdict(
                    text=claim.text,
                    start=claim.start,
                    end=claim.end,
                    status=status,
                    score=round(risk, 4),
                    evidence=evidence,
                    cited_sources=[c for c in cited if c is not None],
                    reasons=reasons,
                    signals={**signals.as_dict(job.answer), "question_aware": claim.question_aware,
                             "unresolved_citations": [lab for lab, c in zip(claim.citations, cited) if c is None],
                             "miscited": miscited is not None},
                )
            )
            if status in _FLAGGED:
                spans.extend(self._spans(job.answer, claim, signals, risk, reasons))
        score = max(c.score for c in claim_verdicts)
        flagged = score >= self.threshold
        verdict = Verdict(
            label="hallucinated" if flagged else "supported",
            hallucination_detected=flagged,
            score=score,
            threshold=self.threshold,
            claims=claim_verdicts,
            skipped=[s.model_copy() for s in job.skipped],
            spans=sorted(spans, key=lambda sp: (sp.start, sp.end)),
            usage=usage.model_copy(),
            detector=self.name,
        )
        return self._restore(verdict, job.original, job.normalized_sources)

    def _miscited(self, job: _Job, claim: Claim, cited: list[str | None], claim_vectors: np.ndarray,
                  chunk_vectors: np.ndarray, evidence: list[EvidenceRef]) -> str | None:
        """Why the claim's citations are wrong, or None when the sources it cites support it.

        The claim is scored again against its cited sources alone (same signals, same weights): the citation is
        wrong when that score would flag the claim, which the whole context does not. A marker naming no source
        at all is wrong too.
        """
        labels = ", ".join(f"[{lab}]" for lab in claim.citations)
        if any(c is None for c in cited):
            unknown = ", ".join(f"[{lab}]" for lab, c in zip(claim.citations, cited) if c is None)
            return f"cites {unknown}, which names none of the {len(job.sources)} sources"
        wanted = set(cited)
        rows = [k for k, (i, _) in enumerate(job.chunks) if job.sources[i].id in wanted]
        sims = claim_vectors @ chunk_vectors[rows].T  # windows x cited chunks
        best_per_window = sims.max(axis=1)
        weakest = int(np.argmin(best_per_window))
        best = job.chunks[rows[int(np.argmax(sims[weakest]))]][1]
        scope = _scope([src for src in job.sources if src.id in wanted], job.question)
        signals = self._signals(job, claim, float(best_per_window[weakest]), best, scope)
        if self.weights.risk(signals, claims_in_answer=len(job.claims)) < self.threshold:
            return None
        elsewhere = evidence[0].source_id if evidence else "another source"
        return f"the cited source {labels} does not support this claim; the best evidence is in source {elsewhere}"

    def _signals(self, job: _Job, claim: Claim, similarity: float, best: Chunk, scope: _Scope) -> ClaimSignals:
        answer = job.answer
        base = claim.start
        hidden = [*claim.citation_spans, *([claim.hedge_span] if claim.hedge_span else [])]
        masked = _mask(claim.text, [(s - base, e - base) for s, e in hidden])
        findings = check_arithmetic(masked)
        arithmetic = [(base + f.start, base + f.end, f.explanation) for f in findings if not f.ok]
        ok_results = {round(v, 6) for f in findings if f.ok for v in number_values(masked[f.start : f.end])}
        terms = content_terms(masked)
        novel = [(base + s, base + e) for s, e, st in terms if st not in scope.terms]
        entities = []
        for s, e in entity_mentions(masked):
            words = content_terms(masked[s:e]) or [(0, 0, masked[s:e].lower())]
            present = sum(1 for _, _, st in words if st in scope.terms)
            if present * 2 < len(words) or (present == 0):
                entities.append((base + s, base + e))
        missing_numbers = []
        for m in number_mentions(masked):
            if is_enumerator(masked, m.start, m.end):
                continue
            values = {round(m.value, 6), round(abs(m.value), 6)}
            if m.alt is not None:
                values.add(round(m.alt, 6))
            if not values & scope.numbers and not values & ok_results:
                missing_numbers.append((base + m.start, base + m.end))
        # Compare negation with the evidence sentence that shares most words with the claim, not the whole
        # window: the window's other sentence may carry an unrelated "not".
        claim_terms = {st for _, _, st in terms}
        closest = max(
            (best.text[a:b] for a, b in split_sentences(best.text)),
            key=lambda sent: len(claim_terms & term_set(sent)),
            default=best.text,
        )
        closest_terms = term_set(closest)
        overlap = len(claim_terms & closest_terms) / len(claim_terms) if claim_terms else 0.0
        # Scoped on the negated word (see negation_flip): on RAGTruth an unscoped check was right 1 time in 20.
        negation = similarity >= 0.7 and negation_flip(masked, closest)
        opposites = [(base + s, base + e) for s, e in antonym_flips(masked, closest)] if similarity >= 0.6 else []
        conflicts = [(base + s, base + e) for s, e, _ in absent_feature_mentions(masked, scope.absent)]
        # An answer copied word for word from one passage is matched exactly, however low the embedding
        # similarity of "question + answer" to that passage (multi-hop questions: "In what year ...? 1994").
        words = _word_string(masked)
        verbatim = bool(terms or number_mentions(masked)) and any(
            words in _word_string(src.text) for src in scope.sources
        )
        return ClaimSignals(
            similarity=similarity,
            novel_ratio=len(novel) / len(terms) if terms else 0.0,
            novel_terms=novel,
            missing_entities=entities,
            missing_numbers=missing_numbers,
            evidence_has_numbers=bool(number_mentions(best.text)),
            negation_mismatch=negation,
            antonym_flips=opposites,
            verbatim=verbatim,
            evidence_overlap=overlap,
            arithmetic_errors=arithmetic,
            content_words=len(terms),
            record_conflicts=conflicts,
        )

    def _status(self, risk: float, s: ClaimSignals) -> ClaimStatus:
        if risk < self.weak_threshold:
            return ClaimStatus.SUPPORTED
        if risk < self.threshold:
            return ClaimStatus.WEAK_SUPPORT
        return ClaimStatus.CONTRADICTION if s.contradicts else ClaimStatus.HALLUCINATION

    @staticmethod
    def _reasons(
        s: ClaimSignals, answer: str, cited: list[str | None], labels: tuple[str, ...], evidence: list[EvidenceRef]
    ) -> list[str]:
        out = [f"best evidence similarity {s.similarity:.2f}"]
        if s.missing_numbers:
            out.append("numbers not in the context: " + ", ".join(answer[a:b] for a, b in s.missing_numbers))
        if s.missing_entities:
            out.append("names not in the context: " + ", ".join(answer[a:b] for a, b in s.missing_entities))
        if s.novel_terms:
            out.append("words not in the context: " + ", ".join(answer[a:b] for a, b in s.novel_terms[:8]))
        if s.negation_mismatch:
            out.append("negation differs from the closest evidence")
        if s.antonym_flips:
            out.append("the opposite of the closest evidence: " + ", ".join(answer[a:b] for a, b in s.antonym_flips))
        if s.record_conflicts:
            out.append("asserts what the record marks absent: " + ", ".join(answer[a:b] for a, b in s.record_conflicts))
        out.extend(f"wrong arithmetic: {why}" for _, _, why in s.arithmetic_errors)
        unresolved = [lab for lab, c in zip(labels, cited) if c is None]
        if unresolved:
            out.append("cites unknown sources: " + ", ".join(f"[{lab}]" for lab in unresolved))
        resolved = {c for c in cited if c is not None}
        if resolved and evidence and evidence[0].source_id not in resolved:
            out.append(f"best evidence is in source {evidence[0].source_id}, not in the cited {sorted(resolved)}")
        return out

    @staticmethod
    def _spans(answer: str, claim: Claim, s: ClaimSignals, risk: float, reasons: list[str]) -> list[UnsupportedSpan]:
        """The unsupported parts of a flagged claim: missing names and numbers, record conflicts and wrong
        calculations as they are, unsupported words joined into phrases; the whole claim when none is known."""
        specific = sorted(
            [(a, b, "number not in the context") for a, b in s.missing_numbers]
            + [(a, b, "name not in the context") for a, b in s.missing_entities]
            + [(a, b, "the record marks this absent") for a, b in s.record_conflicts]
            + [(a, b, "the opposite of the evidence") for a, b in s.antonym_flips]
            + [(a, b, why) for a, b, why in s.arithmetic_errors]
        )
        words = [(a, b) for a, b in s.novel_terms if not any(a < e and b > st for st, e, _ in specific)]
        if not specific and not words:
            return [UnsupportedSpan(start=claim.start, end=claim.end, text=claim.text, confidence=round(risk, 4),
                                    reason="; ".join(reasons[1:]) or "weak evidence")]
        merged: list[list[Any]] = []
        for a, b, why in specific:
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b, why])
        phrases: list[list[Any]] = []
        for a, b in words:
            # Unsupported words a few characters apart with no punctuation between them form one phrase:
            # readers (and annotators) mark "a 24-hour bar", not "24-hour" and "bar" separately.
            if phrases and a - phrases[-1][1] <= _PHRASE_GAP and _PHRASE_GLUE.fullmatch(answer[phrases[-1][1] : a]):
                phrases[-1][1] = b
            else:
                phrases.append([a, b, "words not in the context"])
        return [UnsupportedSpan(start=a, end=b, text=answer[a:b], confidence=round(risk, 4), reason=why)
                for a, b, why in sorted(merged + phrases)]


_FLAGGED = (ClaimStatus.CONTRADICTION, ClaimStatus.HALLUCINATION)
_PHRASE_GAP = 12
_PHRASE_GLUE = re.compile(r"[\s\w'’-]*")


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    """Blank out citation markers, keeping offsets (so '[S2]' is not read as the number 2)."""
    chars = list(text)
    for s, e in spans:
        for i in range(max(s, 0), min(e, len(chars))):
            chars[i] = " "
    return "".join(chars)
