"""LocalVerifier: the default, offline, key-free grounding check.

For each claim of the answer it finds the most similar evidence chunks anywhere in the context (MiniLM
embeddings, faiss for large contexts) and measures word-level signals against the whole context (invented
names, changed numbers, negation flips, wrong arithmetic). The signals are combined into a calibrated risk per
claim (:mod:`halguard.grounding.scoring`); the answer's risk is its riskiest claim.

The verifier only runs the stages: :func:`~halguard.grounding.job.prepare` (input checks, claims, chunks),
one shared encoding for a whole batch (:mod:`~halguard.grounding.batch_encoding`), then per claim: search and
measure (:mod:`~halguard.grounding.measured_claim`), the many-claims correction
(:mod:`~halguard.grounding.many_claims`), and the claim's verdict (:mod:`~halguard.grounding.claim_verdict`).
Its options are checked by :mod:`~halguard.grounding.verifier_options`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

import numpy as np

from halguard.detector import Detector, check_batch_args
from halguard.errors import InputTypeError
from halguard.grounding.answer_verdict import OperatingPoint, answer_verdict
from halguard.grounding.batch_encoding import embed_jobs, encode_in_slices
from halguard.grounding.blocking import SHORT_ANSWER_FLOORS
from halguard.grounding.calibration import CONTRADICTION_THRESHOLD, Calibration
from halguard.grounding.candidates import candidate_chunks
from halguard.grounding.containment import contained
from halguard.grounding.embedding import DEFAULT_NUM_THREADS, MODEL_NAME, EncodeStats, LocalEmbedder
from halguard.grounding.index import EvidenceIndex
from halguard.grounding.job import Job, Limits, prepare
# The many-claims correction's numbers were defined here before it had its own module: still importable from here.
from halguard.grounding.many_claims import (
    CORRECTION_MAX_CLAIMS,
    MAJORITY_MIN_CLAIMS,
    MAJORITY_UNSUPPORTED,
)
from halguard.grounding.meaning import ClaimChecker
from halguard.grounding.measured_claim import EARLY_DECISION_GRACE_S, MeasuredClaim, measure_claims
from halguard.grounding.profile import SHORT_PROFILES, answer_profile
from halguard.grounding.roles import available as roles_available
from halguard.grounding.scoring import DEFAULT_THRESHOLD, DEFAULT_WEAK_THRESHOLD, ScoringWeights, weak_threshold_for
from halguard.grounding.warming import WARM_ANSWER, WARM_CONTEXT, WARM_QUESTION
from halguard.grounding.verifier_options import check_judging_options, check_size_options, load_calibration
from halguard.schema import Usage, Verdict
from halguard.text.claims import Claim
from halguard.text.wordnet import load as load_word_relations

__all__ = ["CORRECTION_MAX_CLAIMS", "DEFAULT_MAX_QUESTION_CHARS", "DEFAULT_TIME_BUDGET_S", "EARLY_DECISION_GRACE_S",
           "MAJORITY_MIN_CLAIMS", "MAJORITY_UNSUPPORTED", "LocalVerifier"]

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
        max_answer_chars: Longer answers get an ``unverified`` verdict (``answer_too_long``), never a partial check.
        max_context_chars: Larger contexts (all sources together) get an ``unverified`` verdict
            (``context_too_large``): the context is never silently truncated.
        max_question_chars: A longer question gets an ``unverified`` verdict (``question_too_long``). All three
            limits hold as given and once Unicode compatibility forms are folded (U+FDFA folds to 18 characters).
        faiss_min_chunks: From this many chunks on, search with a faiss index.
        batch_size: Encoding batch size. Small batches are faster on CPU (less padding): 8 ran 2.2x faster than 64
            on RAGTruth contexts, with 40% lower RSS.
        weights: The signal weights (see :class:`~halguard.grounding.scoring.ScoringWeights`).
        model_path: A sentence-transformers model directory (default: the bundled all-MiniLM-L6-v2).
        device: Torch device for the model (default: sentence-transformers' choice).
        embedder: An embedder to use instead of the shared one (tests, custom models).
        num_threads: torch intra-op threads while this verifier encodes (default 1: see :data:`DEFAULT_NUM_THREADS`).
            torch's setting is process-wide: set for each encode and put back afterwards. None leaves it alone.
        time_budget_s: Seconds one answer's check may take (``verify_batch``: this many per answer). Past it the
            check stops and the verdict is ``unverified`` with the code ``budget_exceeded``; None: no budget. The
            budget is checked between sentence pieces, encoding slices and claims: a check overruns it by at most
            one such step (about a second at worst on one core).
        citation_mode: ``"strict"`` (default): a claim whose citation markers (``[1]``, ``[S0]``) point at
            sources that do not support it, or at no source at all, is at least ``WEAK_SUPPORT``, with a span on
            the markers, even when another source supports it. ``"lenient"``: a wrong citation is only noted in
            the claim's ``reasons``. Answers without citation markers are checked the same way in both modes.
        candidates_per_claim: Embed only the chunks a lexical pass ranks among the best this many for some claim
            (:mod:`halguard.grounding.candidates`), when the context has at least :data:`CANDIDATE_MIN_CHUNKS`
            chunks; the lexical signals still read the whole context. Default 8; None: embed every chunk.
        meaning: Also read each claim with halguard's meaning model (:mod:`halguard.grounding.meaning`, a MiniLM
            cross-encoder trained in ``training/`` on human-labelled contrast pairs, int8 on CPU) against its best
            evidence, and combine it with the rules (``MEANING_WEIGHTS`` and their own calibration unless
            ``weights`` / ``calibration`` are given). Each claim's ``signals.meaning_support`` then holds its
            P(supported) and a flagged claim's spans follow the words the model marks; a short answer read with its
            question is left to the rules, and a claim with a finding keeps at least the rules' risk. Off by default:
            out of fold it moved the dev AUROCs by +0.075 (SummEdits), +0.003 (HaluEval) and -0.016 (RAGTruth),
            and costs a forward pass per claim (docs/model-card.md).
        roles: Check who did what to whom (:mod:`halguard.grounding.roles`): roles swapped, or a passage's name or
            number attached to the wrong thing, is a ``CONTRADICTION`` with its reason. Default True (adds findings).
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
        roles: bool = True,
    ) -> None:
        weights = check_judging_options(threshold=threshold, weak_threshold=weak_threshold, time_budget_s=time_budget_s,
                                        meaning=meaning, roles=roles, weights=weights, embedder=embedder,
                                        model_path=model_path, device=device, num_threads=num_threads,
                                        citation_mode=citation_mode)
        self.calibration: Calibration | None = load_calibration(calibration, meaning)
        check_size_options(top_k=top_k, sentences_per_chunk=sentences_per_chunk, max_chunk_chars=max_chunk_chars,
                           max_answer_chars=max_answer_chars, max_context_chars=max_context_chars,
                           max_question_chars=max_question_chars, faiss_min_chunks=faiss_min_chunks,
                           batch_size=batch_size, candidates_per_claim=candidates_per_claim)
        self.candidates_per_claim = candidates_per_claim
        self._sample_checked = False  # warm_up has run its sample check (halguard/grounding/warming.py)
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
        self.roles = roles

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
        """Load the models and the word-relations table now, and run a sample check (:mod:`warming`), so the
        first real check pays no first-time cost; returns the models' load time in seconds (the first load's,
        for a model this process already holds)."""
        seconds = self._load()
        if not self._sample_checked:  # once per verifier
            self._sample_checked = True
            self.verify(WARM_ANSWER, WARM_CONTEXT, question=WARM_QUESTION)
        return seconds

    def _load(self) -> float:
        """Load the models and the word-relations table (what a check cannot run without)."""
        _ = self.embedder.model
        load_word_relations()
        if self.roles:
            roles_available()  # loads spaCy's pipeline (about 1 s)
        checker = self.claim_checker.warm_up() if self.claim_checker is not None else 0.0
        return self.embedder.load_seconds + checker

    def prepare(self, contexts: Any, *, question: str | None = None) -> None:
        """Encode ``contexts``' evidence now (cached by text), checking the question: the first answer pays none."""
        self.verify(question or "What do the documents say?", contexts, question=question)

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
            self._load()  # a first load (seconds on a cold disk) is not the check's time
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
        """Run a stage; a blown time budget or a failure inside it becomes ``unverified`` (:mod:`.containment`)."""
        return contained(stage, *args, unverified=self._unverified, time_budget_s=self.time_budget_s)

    def _prepare(self, answer: Any, contexts: Any, question: Any, deadline: float | None) -> Job:
        limits = Limits(self.max_answer_chars, self.max_context_chars, self.sentences_per_chunk, self.max_chunk_chars,
                        self.max_question_chars)
        job = prepare(answer, contexts, question, limits=limits, embedder=self.embedder, deadline=deadline)
        if self.candidates_per_claim is None or len(job.chunks) < CANDIDATE_MIN_CHUNKS:
            return job
        keep = candidate_chunks([c.check_text for c in job.claims], [ch.text for _, ch in job.chunks],
                                self.candidates_per_claim, deadline=deadline,
                                by_meaning=self.embedder.word_vector_ranker)
        return job if keep is None else replace(job, chunks=[job.chunks[i] for i in keep])

    def _embed(self, jobs: list[Job], deadline: float | None = None) -> tuple[dict[str, np.ndarray], Usage]:
        """One encoding for every chunk and claim window of the batch (the retriever's vectors where usable)."""
        return embed_jobs(jobs, self._encode, self.embedder, deadline)

    def _encode(self, texts: list[str], deadline: float | None,
                keep_partial: bool = False) -> tuple[np.ndarray, EncodeStats]:
        """Encode in budget-checked slices (:func:`~halguard.grounding.batch_encoding.encode_in_slices`)."""
        return encode_in_slices(self.embedder, texts, deadline, keep_partial, batch_size=self.batch_size,
                                num_threads=self.num_threads)

    def _score(self, job: Job, vectors: dict[str, np.ndarray], usage: Usage,
               deadline: float | None = None) -> Verdict:
        index = EvidenceIndex(np.vstack([vectors[ch.text] for _, ch in job.chunks]), faiss_min=self.faiss_min_chunks)
        profile = answer_profile(job.answer, [s.text for s in job.sources], question=job.question,
                                 sentences=len(job.claims) + len(job.skipped))
        point = OperatingPoint(profile, *self.operating_point(profile), weights=self.weights,
                               citation_mode=self.citation_mode, calibration=self.calibration,
                               time_budget_s=self.time_budget_s,
                               floors=SHORT_ANSWER_FLOORS if profile in SHORT_PROFILES else frozenset())
        claims, measured = self._measure_claims(job, vectors, index, deadline)
        return answer_verdict(job, claims, measured, index, usage, point, detector=self.name,
                              unverified=self._unverified)

    def _measure_claims(self, job: Job, vectors: dict[str, np.ndarray], index: EvidenceIndex,
                        deadline: float | None) -> tuple[list[Claim], list[MeasuredClaim]]:
        """Each claim measured against the evidence (:func:`~halguard.grounding.measured_claim.measure_claims`)."""
        return measure_claims(job, vectors, index, deadline, top_k=self.top_k, weights=self.weights,
                              checker=self.claim_checker, num_threads=self.num_threads, roles=self.roles,
                              embedder=self.embedder)
