"""ReferenceDetector: a classifier read as its authors read it (``reading="reference"`` of ``nli:``, ``hhem:`` and
``minicheck:``): the whole answer against the whole context, one verdict for the answer.

The passages are one document (joined with newlines, blank ones kept) and the answer one hypothesis, read as the
family's own code reads a pair (:mod:`halguard.models.readings`):

- ``nli:`` as sentence-transformers' ``CrossEncoder.predict`` (the pair truncated ``longest_first`` to the window),
  softmaxed, P(supported) by the label map;
- ``hhem:`` as ``HHEMv2ForSequenceClassification.predict`` (its prompt untruncated; longer than
  ``max_length`` pieces, the verdict is ``unverified``: a guard bounds what one pass costs);
- ``minicheck:`` as ``MiniCheck.score`` (sentence chunks of the document, the highest support).

Its risk is 1 - P(supported); the answer is flagged at or above the threshold (0.5 unless a calibration or the
caller says otherwise), as one claim spanning the answer: these models judge the whole text and point at no words.
halguard's rules are not added: this is the authors' reading alone (``reading="evidence"`` is halguard's, claim by
claim).
"""

from __future__ import annotations

import os
import time
from typing import Any

from halguard.detector import Detector
from halguard.errors import InputTypeError, InvalidInputError
from halguard.grounding.calibration import Calibration
from halguard.grounding.embedding import DEFAULT_NUM_THREADS
from halguard.grounding.job import Unverifiable, check_context_length, check_text_lengths, read_inputs
from halguard.grounding.profile import answer_profile
from halguard.grounding.scoring import DEFAULT_THRESHOLD, DEFAULT_WEAK_THRESHOLD
from halguard.grounding.verifier import DEFAULT_MAX_QUESTION_CHARS, DEFAULT_TIME_BUDGET_S
from halguard.models.entailment import EntailmentScorer
from halguard.schema import ClaimStatus, ClaimVerdict, Verdict
from halguard.text.contexts import normalize_contexts
from halguard.text.segment import BudgetExceeded, check_deadline
from halguard.util.options import require_positive_int, require_positive_number

__all__ = ["ReferenceDetector"]

_REASON = "the model, reading the whole answer against the whole context as its authors do, finds it unsupported"


class _TooLong(Exception):  # noqa: N818 - internal signal, turned into an "unverified" verdict
    pass


class ReferenceDetector(Detector):
    """The authors' reading of an entailment-style model over a whole answer.

    Args:
        scorer: The loaded model (:class:`~halguard.models.entailment.EntailmentScorer`, any family).
        threshold: Risk at or above which the answer is flagged (default: the calibration's, or 0.5).
        weak_threshold: Risk from which an unflagged answer is WEAK_SUPPORT (default 0.4).
        calibration: A file from ``halguard calibrate``, a mapping, a Calibration, or None.
        num_threads: torch threads while the model runs (default 1; None: torch's setting).
        time_budget_s: Seconds one check may take (checked between forward passes); past it: ``unverified``.
        max_answer_chars, max_context_chars, max_question_chars: Larger inputs are ``unverified``.
        sentences: MiniCheck's sentence splitter (default NLTK's punkt, as its authors; checked at construction).
    """

    def __init__(self, scorer: EntailmentScorer, *, threshold: float | None = None,
                 weak_threshold: float | None = None, calibration: str | os.PathLike[str] | Any | None = None,
                 num_threads: int | None = DEFAULT_NUM_THREADS, time_budget_s: float | None = DEFAULT_TIME_BUDGET_S,
                 max_answer_chars: int = 100_000, max_context_chars: int = 1_000_000,
                 max_question_chars: int = DEFAULT_MAX_QUESTION_CHARS, sentences: Any = None) -> None:
        from halguard.grounding.verifier_options import load_calibration

        for label, value in (("threshold", threshold), ("weak_threshold", weak_threshold)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not 0.0 <= value <= 1.0):
                msg = f"{label} must be a number from 0 to 1, got {value!r}"
                raise InvalidInputError(msg)
        for label, value in (("max_answer_chars", max_answer_chars), ("max_context_chars", max_context_chars),
                             ("max_question_chars", max_question_chars)):
            require_positive_int(label, value)
        if num_threads is not None:
            require_positive_int("num_threads", num_threads)
        require_positive_number("time_budget_s", time_budget_s, allow_none=True, unit="seconds")
        self.scorer = scorer
        self.model_name = scorer.name
        self.calibration: Calibration | None = (None if calibration is None
                                                else load_calibration(calibration, meaning=False))
        self._fixed_threshold, self._fixed_weak = threshold, weak_threshold
        self.threshold = threshold if threshold is not None else DEFAULT_THRESHOLD
        self.num_threads, self.time_budget_s = num_threads, time_budget_s
        self.max_answer_chars, self.max_context_chars = max_answer_chars, max_context_chars
        self.max_question_chars = max_question_chars
        self._sentences = sentences
        if scorer.pair_inputs.family.startswith("minicheck") and sentences is None:
            from halguard.models.readings.minicheck import punkt_sentences

            self._sentences = punkt_sentences()

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"{self.scorer.family}:{self.model_name}"

    @classmethod
    def class_name(cls) -> str:
        return "ReferenceDetector"

    def warm_up(self) -> float:
        """Loaded at construction: returns the seconds that took."""
        return self.scorer.load_seconds

    def operating_point(self, profile: str | None) -> tuple[float, float]:
        """``(threshold, weak_threshold)`` for an answer of this shape (explicit ones win over the calibration)."""
        if self.calibration is None:
            threshold, weak = DEFAULT_THRESHOLD, DEFAULT_WEAK_THRESHOLD
        else:
            entry = self.calibration.for_profile(profile)
            threshold, weak = entry.threshold, entry.weak_threshold
        if self._fixed_threshold is not None:
            threshold = self._fixed_threshold
            weak = min(DEFAULT_WEAK_THRESHOLD, threshold) if self._fixed_weak is None else weak
        if self._fixed_weak is not None:
            weak = self._fixed_weak
        return threshold, min(weak, threshold)

    def _unverified(self, code: str, message: str) -> Verdict:
        return Verdict.unverified(code, message, detector=self.name, threshold=self.threshold)

    def verify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        """Check ``answer`` against ``contexts``: bad types raise, anything that cannot be checked is ``unverified``.

        Raises:
            InputTypeError: The answer is not a str, the question not a str or None, or a context has a bad type.
        """
        started = time.perf_counter()
        sources = read_inputs(answer, contexts, question)
        verdict = self._check(answer, contexts, sources, question)
        verdict.latency_ms = round((time.perf_counter() - started) * 1000, 3)
        return verdict

    def _check(self, answer: str, contexts: Any, sources: list, question: str | None) -> Verdict:
        if not answer.strip():
            return self._unverified("empty_answer", "the answer is empty; there is nothing to check")
        try:
            check_text_lengths(answer, question, max_answer_chars=self.max_answer_chars,
                               max_question_chars=self.max_question_chars)
            if not sources:
                return self._unverified("no_context", "no retrieved context to check the answer against")
            check_context_length(sources, max_context_chars=self.max_context_chars)
        except Unverifiable as exc:
            return self._unverified(exc.code, exc.message)
        document = "\n".join(s.text for s in normalize_contexts(contexts))
        deadline = None if self.time_budget_s is None else time.monotonic() + self.time_budget_s
        try:
            with self.scorer.running(self.num_threads):
                support = self._support(document, answer, deadline)
        except _TooLong as why:
            return self._unverified("context_too_long", str(why))
        except BudgetExceeded:
            return self._unverified("budget_exceeded", f"the check did not finish within time_budget_s="
                                    f"{self.time_budget_s} s; it was stopped, not shortened")
        except (InputTypeError, InvalidInputError):
            raise
        except Exception as exc:  # noqa: BLE001 - a guardrail turns its own failures into "unverified"
            return self._unverified("internal_error", f"the model failed: {type(exc).__name__}: {exc}")
        return self._verdict(answer, [s.text for s in sources], question, 1.0 - support)

    def _support(self, document: str, answer: str, deadline: float | None) -> float:
        """P(supported) of the whole answer, as the family's authors compute it."""
        from halguard.models.readings.minicheck import document_chunks

        scorer, family = self.scorer, self.scorer.pair_inputs.family
        check_deadline(deadline)
        if family == "cross-encoder":
            return scorer.support([document], [answer])[0]
        if family == "hhem":
            text = scorer.pair_inputs.text(document, answer)
            pieces = len(scorer.tokenizer(text, verbose=False)["input_ids"])
            if pieces > scorer.max_length:
                msg = (f"HHEM reads the whole context untruncated: {pieces:,} pieces, over max_length="
                       f"{scorer.max_length:,} (reading='evidence' reads long contexts in windows)")
                raise _TooLong(msg)
            return scorer.support([document], [answer], truncate=False)[0]
        chunks = document_chunks(document, family=family, tokenizer=scorer.tokenizer, split=self._sentences,
                                 max_input_length=scorer.max_length)
        best = 0.0
        for start in range(0, len(chunks), scorer.batch_size):
            check_deadline(deadline)
            batch = chunks[start:start + scorer.batch_size]
            best = max(best, *scorer.support(batch, [answer] * len(batch)))
        return best

    def _verdict(self, answer: str, passages: list[str], question: str | None, risk: float) -> Verdict:
        profile = answer_profile(answer, passages, question=question)
        threshold, weak = self.operating_point(profile)
        flagged = risk >= threshold
        status = (ClaimStatus.HALLUCINATION if flagged else ClaimStatus.WEAK_SUPPORT if risk >= weak
                  else ClaimStatus.SUPPORTED)
        claim = ClaimVerdict(text=answer, start=0, end=len(answer), status=status, score=round(risk, 6),
                             reasons=[_REASON] if flagged else [])
        probability = None if self.calibration is None else self.calibration.for_profile(profile).probability(risk)
        return Verdict(label="hallucinated" if flagged else "supported", hallucination_detected=flagged, score=risk,
                       threshold=threshold, claims=[claim], spans=[], detector=self.name, profile=profile,
                       probability=probability)
