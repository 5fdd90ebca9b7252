"""LocalVerifier: the default, offline, key-free grounding check.

For each claim of the answer it finds the most similar evidence chunks anywhere in the context (MiniLM
embeddings, faiss for large contexts) and measures word-level signals against the whole context (invented
names, changed numbers, negation flips, wrong arithmetic). The signals are combined into a calibrated risk per
claim (:mod:`halguard.grounding.scoring`); the answer's risk is its riskiest claim.

The verifier only runs the stages: :func:`~halguard.grounding.job.prepare` (input checks, claims, chunks),
one shared encoding for a whole batch, then per claim: search (:mod:`~halguard.grounding.index`), measure
(:mod:`~halguard.grounding.signals.measure`), score, and explain (:mod:`~halguard.grounding.explain`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from halguard.detector import Detector, check_batch_args
from halguard.errors import InputTypeError, InvalidInputError
from halguard.grounding import explain
from halguard.grounding.calibration import CONTRADICTION_THRESHOLD, Calibration
from halguard.grounding.candidates import candidate_chunks
from halguard.grounding.citations import miscited
from halguard.grounding.embedding import DEFAULT_NUM_THREADS, MODEL_NAME, EncodeStats, LocalEmbedder
from halguard.grounding.index import EvidenceIndex
from halguard.grounding.job import Job, Limits, Unverifiable, prepare, restore_offsets
from halguard.grounding.meaning import ClaimChecker, join_evidence
from halguard.grounding.profile import answer_profile
from halguard.grounding.scoring import (
    DEFAULT_THRESHOLD,
    DEFAULT_WEAK_THRESHOLD,
    DEFAULT_WEIGHTS,
    MEANING_WEIGHTS,
    ScoringWeights,
    weak_threshold_for,
)
from halguard.grounding.signals import ClaimMeasurements, foreign
from halguard.grounding.signals.measure import measure_claim
from halguard.schema import ClaimStatus, ClaimVerdict, EvidenceRef, UnsupportedSpan, Usage, Verdict, VerdictError
from halguard.text.claims import Claim, resolve_citation
from halguard.text.segment import BudgetExceeded, check_deadline
from halguard.text.wordnet import load as load_word_relations
from halguard.util.options import (
    require_fraction,
    require_positive_int,
    require_positive_number,
)

__all__ = ["DEFAULT_MAX_QUESTION_CHARS", "DEFAULT_TIME_BUDGET_S", "LocalVerifier"]

# Seconds one check may take. The slowest answer of the three dev files took 3.1 s (a RAGTruth summary seen for
# the first time, one thread); a guard waits for no more than a few LLM calls' worth.
DEFAULT_TIME_BUDGET_S = 10.0
# Below this many chunks every chunk is embedded: a small context costs little, and the pass would save little.
# Both numbers measured on the dev files (docs/evaluation.md, "Fresh contexts"). benchmarks/bench_candidates.py,
# 8 per claim: the best full-embedding evidence was a candidate for 96% of RAGTruth claims and 87% of SummEdits
# claims in the answers it pruned. halguard bench with the pass from 64 chunks: every dev file's AUROC within 0.002
# of full embedding (from 32 chunks, RAGTruth QA lost 0.014 and mid-size contexts got slower: the pass costs more
# than it saves there). HaluEval has no context that large.
CANDIDATE_MIN_CHUNKS = 64
# A question is a request, not material: the longest question of the dev files has a few hundred characters, and
# a pasted document belongs in the context. 20,000 characters leaves room for a long chat turn while keeping the
# question's share of a check's time and memory small.
DEFAULT_MAX_QUESTION_CHARS = 20_000
DEFAULT_CANDIDATES_PER_CLAIM = 8


# The many-claims correction (see LocalVerifier._claims_corrected_for) counts at most this many claims, so an
# answer stops diluting its own flags as it grows: 150 invented sentences once scored 0.762 against a 0.763
# threshold. On ragtruth_dev and 400 summedits_dev rows (925 answers, all but one with fewer than 20 claims) a cap
# of 20 changes no label; 10 cost 0.002 F1 (+7 false positives).
CORRECTION_MAX_CLAIMS = 20
# An answer of at least MAJORITY_MIN_CLAIMS claims, more than MAJORITY_UNSUPPORTED of which reach the threshold on
# their own, is judged without the correction: "mostly unsupported", the words. Short answers are left
# out: paraphrasing summaries often have most of a few claims above the threshold alone, and applying the rule
# from 2 claims cost RAGTruth 31 false positives (F1 0.728 -> 0.708); from 20 claims it changes no dev label.
MAJORITY_UNSUPPORTED = 0.5
MAJORITY_MIN_CLAIMS = 20
# When the budget runs out among the claims' windows, the claims encoded in time are read for at most this long
# (LocalVerifier._score): a flag among them decides the answer. Hand-set: a tenth of a claim's reading
# for 14,000 tiny sentences, and a small share of the default 10 s budget.
EARLY_DECISION_GRACE_S = 0.5


class _PartlyEncoded(BudgetExceeded):
    """The budget ran out while encoding; ``vectors[k]`` is the vector of text number ``done[k]``."""

    def __init__(self, vectors: np.ndarray, done: list[int], stats: EncodeStats) -> None:
        super().__init__("the time budget ran out while encoding")
        self.vectors, self.done, self.stats = vectors, done, stats


@dataclass(frozen=True)
class _Measured:
    """A claim's search results and signals, before its risk."""

    claim_vectors: np.ndarray
    sims: np.ndarray  # the weakest window's top-k similarities
    idx: np.ndarray  # and their chunk indices
    signals: ClaimMeasurements
    foreign: bool = False  # a claim in a script the local checks cannot read (numbers and names only)


class LocalVerifier(Detector):
    """Grounding check with a local embedding model and rules; no API key, no network.

    Args:
        threshold: Risk at or above which a claim (and so the answer) is flagged, for every answer shape. Default
            None: each shape's own threshold from ``calibration`` (``verdict.threshold`` says which was used).
        weak_threshold: Risk at or above which an unflagged claim is WEAK_SUPPORT instead of SUPPORTED. Default
            None: the shape's from ``calibration`` (with ``threshold`` set: ``min(0.4, threshold)``).
        calibration: Per-shape thresholds and the map from risk to ``verdict.probability``
            (:mod:`halguard.grounding.calibration`): ``"default"`` (the shipped one, fitted on the development
            files), a JSON file written by ``halguard calibrate``, a mapping, a ``Calibration``, or None (threshold
            0.5 and weak threshold 0.4 for every shape, and no probability). An explicit ``threshold`` wins over it
            for the label; the probability still comes from it.
        top_k: Evidence chunks kept per claim.
        sentences_per_chunk: Sentences per evidence window (windows overlap by one sentence).
        max_chunk_chars: Longest evidence chunk; longer sentences are split so the model never truncates.
        max_answer_chars: Longer answers get an ``unverified`` verdict (``answer_too_long``), never a
            partial check.
        max_context_chars: Larger contexts (all sources together) get an ``unverified`` verdict
            (``context_too_large``): the context is never silently truncated.
        max_question_chars: A longer question gets an ``unverified`` verdict (``question_too_long``). All three
            limits hold for the text as given and again once Unicode compatibility forms are folded (one U+FDFA
            folds to 18 characters).
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
        candidates_per_claim: Embed only the chunks a lexical pass ranks among the best this many for some claim
            (:mod:`halguard.grounding.candidates`), when the context has at least
            :data:`CANDIDATE_MIN_CHUNKS` chunks; the lexical signals still read the whole context. Default 8
            (:data:`DEFAULT_CANDIDATES_PER_CLAIM`); None: embed every chunk (the behaviour before the pass).
        meaning: Also read each claim with halguard's claim checker (:mod:`halguard.grounding.meaning`, a MiniLM
            cross-encoder trained in ``training/``, int8 on CPU) against its best evidence, and combine it with the
            rules (``MEANING_WEIGHTS`` and their own calibration unless ``weights`` / ``calibration`` are given).
            Each claim's ``signals.meaning_support`` then holds its P(supported) and a flagged claim's spans follow
            the words the checker marks. Off by default: out of fold it moved the dev AUROCs by +0.003 (HaluEval),
            +0.005 (RAGTruth) and +0.011 (SummEdits) and costs a forward pass per claim (docs/model-card.md).
    """

    def __init__(
        self,
        *,
        threshold: float | None = None,
        weak_threshold: float | None = None,
        calibration: str | os.PathLike[str] | Mapping[str, Any] | Calibration | None = "default",
        top_k: int = 3,
        sentences_per_chunk: int = 2,
        max_chunk_chars: int = 600,
        max_answer_chars: int = 100_000,
        max_context_chars: int = 1_000_000,
        max_question_chars: int = DEFAULT_MAX_QUESTION_CHARS,
        faiss_min_chunks: int = 256,
        batch_size: int = 8,
        weights: ScoringWeights | None = None,
        model_path: str | None = None,
        device: str | None = None,
        embedder: LocalEmbedder | None = None,
        num_threads: int | None = DEFAULT_NUM_THREADS,
        citation_mode: Literal["strict", "lenient"] = "strict",
        time_budget_s: float | None = DEFAULT_TIME_BUDGET_S,
        candidates_per_claim: int | None = DEFAULT_CANDIDATES_PER_CLAIM,
        meaning: bool = False,
    ) -> None:
        for name, value in (("threshold", threshold), ("weak_threshold", weak_threshold)):
            if value is not None:
                require_fraction(name, value)
                if not 0.0 <= value <= 1.0:
                    msg = f"{name} must be a number from 0 to 1, got {value!r}"
                    raise InvalidInputError(msg)
        require_positive_number("time_budget_s", time_budget_s, allow_none=True, unit="seconds")
        if not isinstance(meaning, bool):
            msg = f"meaning must be True or False, got {meaning!r}"
            raise InvalidInputError(msg)
        if weights is None:
            weights = MEANING_WEIGHTS if meaning else DEFAULT_WEIGHTS
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
        if num_threads is not None:
            require_positive_int("num_threads", num_threads)
        if citation_mode not in ("strict", "lenient"):
            msg = f"citation_mode must be 'strict' or 'lenient', got {citation_mode!r}"
            raise InvalidInputError(msg)
        if threshold is not None and weak_threshold is not None and weak_threshold > threshold:
            msg = f"need 0 <= weak_threshold <= threshold <= 1, got {weak_threshold} and {threshold}"
            raise InvalidInputError(msg)
        if isinstance(calibration, str) and calibration == "default":
            self.calibration: Calibration | None = Calibration.default(meaning=meaning)
        elif calibration is None:
            self.calibration = None
        else:
            self.calibration = Calibration.load(calibration)  # CalibrationError is an InvalidInputError
        for name, value in (("top_k", top_k), ("sentences_per_chunk", sentences_per_chunk),
                            ("max_answer_chars", max_answer_chars), ("max_context_chars", max_context_chars),
                            ("max_question_chars", max_question_chars),
                            ("batch_size", batch_size), ("faiss_min_chunks", faiss_min_chunks)):
            require_positive_int(name, value)
        require_positive_int("max_chunk_chars", max_chunk_chars, minimum=50)
        if candidates_per_claim is not None:
            require_positive_int("candidates_per_claim", candidates_per_claim)
        self.candidates_per_claim = candidates_per_claim
        self._fixed_threshold = threshold
        self._fixed_weak_threshold = (weak_threshold_for(threshold) if weak_threshold is None and threshold is not None
                                      else weak_threshold)
        # The operating point of a verdict whose shape is unknown (unverified ones) and of code that asks for one
        # number.
        self.threshold, self.weak_threshold, _ = self.operating_point(None)
        self.top_k = top_k
        self.sentences_per_chunk = sentences_per_chunk
        self.max_chunk_chars = max_chunk_chars
        self.max_answer_chars = max_answer_chars
        self.max_context_chars = max_context_chars
        self.max_question_chars = max_question_chars
        self.faiss_min_chunks = faiss_min_chunks
        self.batch_size = batch_size
        self.weights = weights
        self._model_path = model_path
        self._device = device
        self._embedder = embedder
        self.citation_mode = citation_mode
        self.num_threads = num_threads
        self.time_budget_s = time_budget_s
        self.meaning = meaning
        self.claim_checker: ClaimChecker | None = ClaimChecker.shared() if meaning else None

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"local:{MODEL_NAME}" if self._model_path is None else f"local:{self._model_path}"

    @property
    def embedder(self) -> LocalEmbedder:
        if self._embedder is None:
            self._embedder = LocalEmbedder.shared(self._model_path, device=self._device)
        return self._embedder

    def operating_point(self, profile: str | None) -> tuple[float, float, float]:
        """The ``(threshold, weak_threshold, contradiction_threshold)`` an answer of this shape is judged with.

        Explicit ``threshold`` / ``weak_threshold`` win. A claim the evidence contradicts (a changed number, a
        negation or antonym flip, a record conflict, wrong arithmetic) is flagged from ``contradiction_threshold``
        on: a shape's own threshold, where it is higher, absorbs paraphrase noise, not contradictions
        (:data:`~halguard.grounding.calibration.CONTRADICTION_THRESHOLD`); with an explicit threshold it is that.
        """
        if self.calibration is None:
            threshold, weak = DEFAULT_THRESHOLD, DEFAULT_WEAK_THRESHOLD
        else:
            entry = self.calibration.for_profile(profile)
            threshold, weak = entry.threshold, entry.weak_threshold
        contradiction = min(threshold, CONTRADICTION_THRESHOLD)
        if self._fixed_threshold is not None:
            threshold = contradiction = self._fixed_threshold
        if self._fixed_weak_threshold is not None:  # always set with a fixed threshold (see __init__)
            weak = self._fixed_weak_threshold
        return threshold, min(weak, threshold), contradiction

    def warm_up(self) -> float:
        """Load the models and the word-relations table now (not on the first check); returns the models' load
        time in seconds (the first load's, for a model this process already holds)."""
        _ = self.embedder.model
        load_word_relations()
        checker = self.claim_checker.warm_up() if self.claim_checker is not None else 0.0
        return self.embedder.load_seconds + checker

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
        qs = check_batch_args(answers, contexts, questions)
        t0 = time.perf_counter()
        if self.time_budget_s is not None:
            self.warm_up()  # a first load (seconds on a cold disk) is not the check's time
        deadline = None if self.time_budget_s is None else time.monotonic() + self.time_budget_s * max(len(answers), 1)
        prepared = [self._contained(self._prepare, a, c, q, deadline) for a, c, q in zip(answers, contexts, qs)]
        jobs = [p for p in prepared if isinstance(p, Job)]
        embedded = self._contained(self._embed, jobs, deadline) if jobs else ({}, Usage())
        if isinstance(embedded, Verdict):  # the shared encoding failed or ran out of time: every job with it
            prepared = [embedded.model_copy(deep=True) if isinstance(p, Job) else p for p in prepared]
            embedded = ({}, Usage())
        vectors, usage = embedded
        verdicts = [self._contained(self._score, p, vectors, usage, deadline) if isinstance(p, Job) else p
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
        except Unverifiable as why:
            fields: dict[str, Any] = {"skipped": why.skipped} if why.skipped else {}
            if why.skipped_sources:
                fields["skipped_sources"] = why.skipped_sources
            return restore_offsets(self._unverified(why.code, why.message, **fields), why.original, {})
        except BudgetExceeded:
            return self._unverified(
                "budget_exceeded",
                f"the check did not finish within time_budget_s={self.time_budget_s} s; it was stopped, not "
                "shortened (raise the budget, or check fewer or shorter passages)",
            )
        except Exception as exc:  # noqa: BLE001 - a guardrail turns its own failures into "unverified"
            return self._unverified("internal_error", f"the check failed: {type(exc).__name__}: {str(exc)[:200]}")

    def _prepare(self, answer: Any, contexts: Any, question: Any, deadline: float | None) -> Job:
        limits = Limits(self.max_answer_chars, self.max_context_chars, self.sentences_per_chunk, self.max_chunk_chars,
                        self.max_question_chars)
        job = prepare(answer, contexts, question, limits=limits, embedder=self.embedder, deadline=deadline)
        if self.candidates_per_claim is None or len(job.chunks) < CANDIDATE_MIN_CHUNKS:
            return job
        keep = candidate_chunks([c.check_text for c in job.claims], [ch.text for _, ch in job.chunks],
                                self.candidates_per_claim, deadline=deadline)
        return job if keep is None else replace(job, chunks=[job.chunks[i] for i in keep])

    def _embed(self, jobs: list[Job], deadline: float | None = None) -> tuple[dict[str, np.ndarray], Usage]:
        """One encoding for every chunk and claim window of the batch (the retriever's vectors where usable)."""
        given: dict[str, np.ndarray] = {}
        for job in jobs:
            for text, vec in job.given.items():
                given.setdefault(text, vec)
        chunk_texts = list(dict.fromkeys(ch.text for job in jobs for _, ch in job.chunks if ch.text not in given))
        chunk_set = set(chunk_texts)
        window_texts = list(dict.fromkeys(w for job in jobs for ws in job.windows for w in ws
                                          if w not in given and w not in chunk_set))
        # The evidence first, whole (a claim is only ever judged against all of it), then the claims' windows. A
        # budget that runs out among the windows leaves the claims encoded in full so far: enough to flag an
        # answer whose claims are already unsupported (see _score), never to call one supported.
        vecs, stats = self._encode(chunk_texts, deadline)
        texts = chunk_texts
        try:
            window_vecs, window_stats = self._encode(window_texts, deadline, keep_partial=True)
        except _PartlyEncoded as cut:
            window_texts, window_vecs, window_stats = [window_texts[j] for j in cut.done], cut.vectors, cut.stats
        if len(window_texts):
            vecs = np.vstack([vecs, window_vecs]) if len(texts) else window_vecs
            texts = texts + window_texts
            stats = EncodeStats(computed=stats.computed + window_stats.computed,
                                cached=stats.cached + window_stats.cached,
                                batches=stats.batches + window_stats.batches)
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

    def _encode(self, texts: list[str], deadline: float | None,
                keep_partial: bool = False) -> tuple[np.ndarray, EncodeStats]:
        """Encode in slices, checking the time budget between them (what was encoded stays in the cache).

        With a budget, the slices are single batches (``batch_size`` texts), shortest texts first so each batch pads
        to similar lengths: the budget is checked between batches, so one batch is the most a check overruns it by.
        Eight texts of 256 word pieces take about 0.3 s on one idle core and under 2 s on a machine loaded 2.5
        times over (issue 25: slices of 64 such texts once took 20 s there, and a check ran 27 s on a 10 s budget).
        With ``keep_partial``, a budget that runs out after the first batch raises :class:`_PartlyEncoded` with the
        texts encoded so far, instead of losing them.
        """
        step = self.batch_size
        if deadline is None or len(texts) <= step:
            check_deadline(deadline)
            return self.embedder.encode(texts, batch_size=self.batch_size, num_threads=self.num_threads)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        parts, total = [], EncodeStats()
        for i in range(0, len(order), step):
            try:
                check_deadline(deadline)
            except BudgetExceeded:
                if not keep_partial or not parts:
                    raise
                raise _PartlyEncoded(np.vstack(parts), order[:i], total) from None
            vecs, stats = self.embedder.encode([texts[j] for j in order[i : i + step]],
                                               batch_size=self.batch_size, num_threads=self.num_threads)
            parts.append(vecs)
            total.computed += stats.computed
            total.cached += stats.cached
            total.batches += stats.batches
        out = np.empty((len(texts), parts[0].shape[1]), dtype=parts[0].dtype)
        out[order] = np.vstack(parts)
        return out, total

    def _score(self, job: Job, vectors: dict[str, np.ndarray], usage: Usage,
               deadline: float | None = None) -> Verdict:
        index = EvidenceIndex(np.vstack([vectors[ch.text] for _, ch in job.chunks]), faiss_min=self.faiss_min_chunks)
        profile = answer_profile(job.answer, [s.text for s in job.sources], question=job.question,
                                 sentences=len(job.claims) + len(job.skipped))
        threshold, weak_threshold, contradiction_threshold = self.operating_point(profile)
        complete = all(w in vectors for ws in job.windows for w in ws)
        if not complete:  # the budget ran out among the claims' windows: a short grace to read those encoded
            deadline = time.monotonic() + EARLY_DECISION_GRACE_S
        measured: list[_Measured] = []
        measured_claims: list[Claim] = []
        for claim, windows in zip(job.claims, job.windows):
            if complete:
                check_deadline(deadline)
            elif time.monotonic() > deadline:
                break
            encoded = [vectors[w] for w in windows if w in vectors]
            if len(encoded) < len(windows):  # the budget ran out before this claim was encoded in full
                continue
            measured.append(self._measure_claim(job, claim, np.vstack(encoded), index))
            measured_claims.append(claim)
        if self.claim_checker is not None and complete:
            self._read_meaning(job, measured_claims, measured, deadline)
        # Cut short by the budget, the claims read in time are scored with the correction of the whole answer (the
        # claims not read are still its claims); a flag among them decides the answer, nothing else can.
        cut_short = len(measured) < len(job.claims)
        claims_in_answer = self._claims_corrected_for(measured, threshold, len(job.claims))
        claims: list[ClaimVerdict] = []
        spans: list[UnsupportedSpan] = []
        for claim, m in zip(measured_claims, measured):
            verdict, claim_spans = self._score_claim(job, claim, m, index, claims_in_answer,
                                                     threshold, weak_threshold, contradiction_threshold)
            claims.append(verdict)
            spans.extend(claim_spans)
        flagged = any(c.status.is_flagged or c.score >= threshold for c in claims)
        copies = {"skipped": [s.model_copy() for s in job.skipped], "usage": usage.model_copy(), "profile": profile,
                  "skipped_sources": [s.model_copy() for s in job.skipped_sources]}
        errors = []
        if cut_short:
            # A 99 KB run-on sentence of invented words needed 240 encodings and ran out of a 10 s budget on a
            # loaded machine; its first claims already showed it unsupported.
            message = (f"the check ran out of time_budget_s={self.time_budget_s} s after {len(measured)} of "
                       f"{len(job.claims)} claims; the others were not checked")
            if not flagged:
                verdict = self._unverified("budget_exceeded", message + " and none of those checked is flagged",
                                           **copies)
                return restore_offsets(verdict, job.original, job.normalized_sources)
            errors.append(VerdictError(code="budget_exceeded", message=message))
        unchecked = [c for claim, c in zip(job.claims, claims) if claim.foreign_script and not c.status.is_flagged]
        if unchecked and not flagged:
            # Never "supported" for a sentence whose meaning was not checked: the policy decides (fail open/closed).
            verdict = self._unverified(
                "unchecked_script",
                f"{len(unchecked)} sentence(s) of the answer are in a script the local checks cannot read; their "
                "numbers and names were found in the context, the rest was not checked",
                claims=claims, **copies)
            return restore_offsets(verdict, job.original, job.normalized_sources)
        score = max(c.score for c in claims)
        probability = None if self.calibration is None else self.calibration.for_profile(profile).probability(score)
        verdict = Verdict(
            label="hallucinated" if flagged else "supported",
            hallucination_detected=flagged,
            score=score,
            probability=None if probability is None else round(probability, 4),
            threshold=threshold,
            claims=claims,
            spans=sorted(spans, key=lambda sp: (sp.start, sp.end)),
            detector=self.name,
            errors=errors,
            **copies,
        )
        return restore_offsets(verdict, job.original, job.normalized_sources)

    def _measure_claim(self, job: Job, claim: Claim, claim_vectors: np.ndarray,
                       index: EvidenceIndex) -> _Measured:
        """One claim's evidence search and signals (no risk yet: that depends on the other claims)."""
        sims, idx = index.search(claim_vectors, self.top_k)
        # Every part of a long claim must be supported: its similarity is the weakest part's best match.
        weakest = int(np.argmin(sims[:, 0]))
        best = job.chunks[int(idx[weakest, 0])][1]
        signals = measure_claim(claim, float(sims[weakest, 0]), best.text, job.scope, self.weights)
        return _Measured(claim_vectors, sims[weakest], idx[weakest], signals, claim.foreign_script)

    def _read_meaning(self, job: Job, claims: list[Claim], measured: list[_Measured], deadline: float | None) -> None:
        """The claim checker's reading of each claim against its best evidence chunks (joined in document order),
        into the claim's signals."""
        todo = [(c, m) for c, m in zip(claims, measured) if not m.foreign and len(m.idx)]
        if not todo:
            return
        texts = [s.text for s in job.sources]
        premises = []
        for _, m in todo:
            ranked = [(job.chunks[int(j)][0], job.chunks[int(j)][1].start, job.chunks[int(j)][1].end)
                      for j in m.idx if j >= 0]
            premises.append(join_evidence(ranked, texts))
        scores = self.claim_checker.score(premises, [c.check_text for c, _ in todo], num_threads=self.num_threads,
                                          deadline=deadline)
        for (claim, m), score in zip(todo, scores):
            m.signals.meaning_risk = score.risk
            if claim.check_text == claim.text:  # offsets of the claim's own text: the answer's, shifted
                m.signals.meaning_spans = [(claim.start + a, claim.start + b) for a, b in score.spans]

    def _claims_corrected_for(self, measured: list[_Measured], threshold: float, n_claims: int) -> int:
        """The claim count of the many-claims correction: the answer's ``n_claims``, at most
        :data:`CORRECTION_MAX_CLAIMS`, and none for a long answer most of whose ``measured`` claims are unsupported.

        The correction lowers each claim's risk because the riskiest of many *mostly supported* claims is high by
        chance. Uncapped it grew with every sentence, so volume diluted: 150 invented sentences once scored 0.762
        against a threshold of 0.763, and longer answers only scored lower. When more than half the claims of a
        long answer reach the threshold on their own, that is not chance, and no claim is corrected
        (:data:`MAJORITY_UNSUPPORTED`, :data:`MAJORITY_MIN_CLAIMS`).
        """
        n = len(measured)
        if n >= MAJORITY_MIN_CLAIMS:
            alone = sum(1 for m in measured if self._risk_alone(m) >= threshold)
            if alone > MAJORITY_UNSUPPORTED * n:
                return 1
        return min(n_claims, CORRECTION_MAX_CLAIMS)

    def _risk_alone(self, measured: _Measured, claims_in_answer: int = 1) -> float:
        """A claim's risk; a foreign-script claim's from its names and numbers only (its similarity means nothing)."""
        s = measured.signals
        if measured.foreign:
            if not (s.missing_numbers or s.missing_entities):
                return 0.0
            s = replace(s, similarity=self.weights.similarity_pivot)
        return self.weights.risk(s, claims_in_answer=claims_in_answer)

    def _score_claim(self, job: Job, claim: Claim, measured: _Measured, index: EvidenceIndex,
                     claims_in_answer: int, threshold: float, weak_threshold: float,
                     contradiction_threshold: float) -> tuple[ClaimVerdict, list[UnsupportedSpan]]:
        """One claim's verdict and unsupported spans."""
        signals, claim_vectors = measured.signals, measured.claim_vectors
        if measured.foreign:
            return self._score_foreign(job, claim, measured, threshold, weak_threshold)
        risk = self.weights.risk(signals, claims_in_answer=claims_in_answer)
        status = explain.claim_status(risk, signals, threshold=threshold, weak_threshold=weak_threshold,
                                      contradiction_threshold=contradiction_threshold)
        source_ids = [s.id for s in job.sources]
        evidence = []
        for s, j in zip(measured.sims, measured.idx):
            source_index, chunk = job.chunks[int(j)]
            evidence.append(EvidenceRef(source_id=source_ids[source_index], start=chunk.start, end=chunk.end,
                                        text=chunk.text, similarity=round(float(s), 4)))
        cited = [resolve_citation(lab, source_ids) for lab in claim.citations]
        reasons = explain.reasons(signals, job.answer, cited, claim.citations, evidence)
        spans: list[UnsupportedSpan] = []
        wrong_citation = None
        if self.citation_mode == "strict" and claim.citations and not status.is_flagged:
            wrong_citation = miscited(claim, cited, sources=job.sources, chunks=job.chunks, question=job.question,
                                      claim_vectors=claim_vectors, chunk_vectors=index.embeddings, evidence=evidence,
                                      claims_in_answer=claims_in_answer, weights=self.weights,
                                      threshold=threshold)
        if wrong_citation is not None:
            # Weak support, never flagged by the raise (a shape's weak threshold may equal its threshold).
            status, risk = ClaimStatus.WEAK_SUPPORT, min(max(risk, weak_threshold), max(0.0, threshold - 1e-4))
            # The strict reason says what the lenient notes ("best evidence is in...", "unknown sources") say.
            reasons = [r for r in reasons if not r.startswith(("best evidence is in source", "cites unknown"))]
            reasons.append(wrong_citation)
            spans.extend(UnsupportedSpan(start=a, end=b, text=job.answer[a:b], confidence=round(risk, 4),
                                         reason=wrong_citation) for a, b in claim.citation_spans)
        report = signals.report(job.answer, question_aware=claim.question_aware,
                                unresolved_citations=[lab for lab, c in zip(claim.citations, cited) if c is None],
                                miscited=wrong_citation is not None)
        verdict = ClaimVerdict(text=claim.text, start=claim.start, end=claim.end, status=status, score=round(risk, 4),
                               evidence=evidence, cited_sources=[c for c in cited if c is not None], reasons=reasons,
                               signals=report)
        if status.is_flagged:
            spans.extend(explain.unsupported_spans(job.answer, claim, signals, risk, reasons))
        return verdict, spans

    def _score_foreign(self, job: Job, claim: Claim, measured: _Measured, threshold: float,
                       weak_threshold: float) -> tuple[ClaimVerdict, list[UnsupportedSpan]]:
        """A claim in a script the local checks cannot read: flagged for a name or number the passages lack (at
        least at the threshold, in any shape), else WEAK_SUPPORT (which keeps the answer unverified)."""
        signals = measured.signals
        found_missing = bool(signals.missing_numbers or signals.missing_entities)
        reasons = [foreign.REASON, *explain.reasons(signals, job.answer, [], (), [])[1:]]
        if found_missing:
            risk = min(max(self._risk_alone(measured), threshold), 1.0)
            status = ClaimStatus.CONTRADICTION if signals.contradicts else ClaimStatus.HALLUCINATION
            spans = explain.unsupported_spans(job.answer, claim, signals, risk, reasons)
        else:
            risk, status, spans = min(weak_threshold, threshold), ClaimStatus.WEAK_SUPPORT, []
        report = signals.report(job.answer, question_aware=claim.question_aware)
        verdict = ClaimVerdict(text=claim.text, start=claim.start, end=claim.end, status=status, score=round(risk, 4),
                               reasons=reasons, signals=report)
        return verdict, spans
