"""An answer's verdict from its measured claims: each claim's verdict, then the answer's label, score, probability
and the reasons a check that did not read every claim is ``unverified``.

The verifier measures; this module judges. A check the budget cut short is scored on the claims read in time with
the correction of the whole answer: a flag among them decides the answer, and nothing else can (never
``supported`` for a claim not read). A sentence in a script the local checks cannot read is never ``supported``
either: without a flag elsewhere the answer is ``unverified`` (``unchecked_script``) and the policy decides.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from halguard.grounding.calibration import Calibration
from halguard.grounding.claim_verdict import claim_verdict
from halguard.grounding.index import EvidenceIndex
from halguard.grounding.job import Job, restore_offsets
from halguard.grounding.many_claims import claims_corrected_for
from halguard.grounding.measured_claim import MeasuredClaim
from halguard.grounding.scoring import ScoringWeights
from halguard.schema import ClaimVerdict, UnsupportedSpan, Usage, Verdict, VerdictError
from halguard.text.claims import Claim

__all__ = ["OperatingPoint", "answer_verdict"]


@dataclass(frozen=True)
class OperatingPoint:
    """How one answer is judged: its shape's thresholds, and the verifier's weights and citation mode; ``floors``:
    the finding kinds that flag a claim of this shape from ``contradiction_threshold`` (a short answer's)."""

    profile: str
    threshold: float
    weak_threshold: float
    contradiction_threshold: float
    weights: ScoringWeights
    citation_mode: str
    calibration: Calibration | None
    time_budget_s: float | None
    floors: frozenset[str] = frozenset()


def answer_verdict(job: Job, claims: list[Claim], measured: list[MeasuredClaim], index: EvidenceIndex,
                   usage: Usage, point: OperatingPoint, *, detector: str,
                   unverified: Callable[..., Verdict]) -> Verdict:
    """The answer's verdict from its claims measured in time (``claims`` and ``measured``, in answer order).

    Args:
        job: The prepared answer.
        claims: The claims that were measured (all of the answer's, unless the budget cut the check short).
        measured: Their measurements.
        index: The evidence index the claims were searched in.
        usage: The encoding's usage (copied into the verdict).
        point: The answer's operating point.
        detector: The verifier's name.
        unverified: Makes the verifier's ``unverified`` verdict from a code, a message and verdict fields.
    """
    cut_short = len(measured) < len(job.claims)
    claims_in_answer = claims_corrected_for(measured, point.threshold, len(job.claims), point.weights)
    verdicts: list[ClaimVerdict] = []
    spans: list[UnsupportedSpan] = []
    for claim, m in zip(claims, measured):
        verdict, claim_spans = claim_verdict(job, claim, m, index, claims_in_answer=claims_in_answer,
                                             threshold=point.threshold, weak_threshold=point.weak_threshold,
                                             contradiction_threshold=point.contradiction_threshold,
                                             weights=point.weights, citation_mode=point.citation_mode,
                                             floors=point.floors)
        verdicts.append(verdict)
        spans.extend(claim_spans)
    flagged = any(c.status.is_flagged or c.score >= point.threshold for c in verdicts)
    copies: dict[str, Any] = {"skipped": [s.model_copy() for s in job.skipped], "usage": usage.model_copy(),
                              "profile": point.profile,
                              "skipped_sources": [s.model_copy() for s in job.skipped_sources]}
    errors = []
    if cut_short:
        # A 99 KB run-on sentence of invented words needed 240 encodings and ran out of a 10 s budget on a
        # loaded machine; its first claims already showed it unsupported.
        message = (f"the check ran out of time_budget_s={point.time_budget_s} s after {len(measured)} of "
                   f"{len(job.claims)} claims; the others were not checked")
        if not flagged:
            verdict = unverified("budget_exceeded", message + " and none of those checked is flagged", **copies)
            return restore_offsets(verdict, job.original, job.normalized_sources)
        errors.append(VerdictError(code="budget_exceeded", message=message))
    unchecked = [c for claim, c in zip(job.claims, verdicts) if claim.foreign_script and not c.status.is_flagged]
    if unchecked and not flagged:
        verdict = unverified(
            "unchecked_script",
            f"{len(unchecked)} sentence(s) of the answer are in a script the local checks cannot read; their "
            "numbers and names were found in the context, the rest was not checked",
            claims=verdicts, **copies)
        return restore_offsets(verdict, job.original, job.normalized_sources)
    score = max(c.score for c in verdicts)
    calibration = point.calibration
    probability = None if calibration is None else calibration.for_profile(point.profile).probability(score)
    verdict = Verdict(
        label="hallucinated" if flagged else "supported",
        hallucination_detected=flagged,
        score=score,
        probability=None if probability is None else round(probability, 4),
        threshold=point.threshold,
        claims=verdicts,
        spans=sorted(spans, key=lambda sp: (sp.start, sp.end)),
        detector=detector,
        errors=errors,
        **copies,
    )
    return restore_offsets(verdict, job.original, job.normalized_sources)
