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
from typing import Any

from halguard.grounding.embedding import DEFAULT_NUM_THREADS
from halguard.grounding.job import Unverifiable
from halguard.grounding.model_detector import ModelDetector
from halguard.grounding.profile import answer_profile
from halguard.grounding.verifier import DEFAULT_MAX_QUESTION_CHARS, DEFAULT_TIME_BUDGET_S
from halguard.models.entailment import EntailmentScorer
from halguard.schema import ClaimStatus, ClaimVerdict, Verdict
from halguard.text.segment import check_deadline

__all__ = ["ReferenceDetector"]

_REASON = "the model, reading the whole answer against the whole context as its authors do, finds it unsupported"


class ReferenceDetector(ModelDetector):
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
        self._set_options(threshold=threshold, weak_threshold=weak_threshold, calibration=calibration,
                          num_threads=num_threads, time_budget_s=time_budget_s, max_answer_chars=max_answer_chars,
                          max_context_chars=max_context_chars, max_question_chars=max_question_chars)
        self.scorer = scorer
        self.model_name = scorer.name
        self.load_seconds = scorer.load_seconds
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

    def _read(self, answer: str, sources: list, passages: list[str], question: str | None,
              deadline: float | None) -> Verdict:
        with self.scorer.running(self.num_threads):
            support = self._support("\n".join(passages), answer, deadline)
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
                raise Unverifiable("context_too_long", msg)
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
