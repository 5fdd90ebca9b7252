"""One claim's verdict: its risk, status, evidence, reasons and unsupported spans, from its measurements."""

from __future__ import annotations

from halguard.grounding import explain
from halguard.grounding.citations import miscited
from halguard.grounding.index import EvidenceIndex
from halguard.grounding.job import Job
from halguard.grounding.measured_claim import MeasuredClaim
from halguard.grounding.scoring import ScoringWeights
from halguard.grounding.signals import foreign
from halguard.schema import ClaimStatus, ClaimVerdict, EvidenceRef, UnsupportedSpan
from halguard.text.claims import Claim, resolve_citation

__all__ = ["claim_verdict"]


def claim_verdict(job: Job, claim: Claim, measured: MeasuredClaim, index: EvidenceIndex, *, claims_in_answer: int,
                  threshold: float, weak_threshold: float, contradiction_threshold: float, weights: ScoringWeights,
                  citation_mode: str, floors: frozenset[str] = frozenset()
                  ) -> tuple[ClaimVerdict, list[UnsupportedSpan]]:
    """One claim's verdict and unsupported spans.

    Args:
        job: The prepared answer the claim belongs to.
        claim: The claim.
        measured: Its evidence search and signals.
        index: The search index over the job's chunks (its vectors check the claim's citations).
        claims_in_answer: The claim count of the many-claims correction.
        threshold: Risk at or above which the claim is flagged.
        weak_threshold: Risk at or above which an unflagged claim is WEAK_SUPPORT.
        contradiction_threshold: Risk from which a contradicted claim is flagged.
        weights: The scoring weights.
        citation_mode: ``"strict"`` or ``"lenient"`` (see :class:`~halguard.grounding.verifier.LocalVerifier`).
        floors: The finding kinds that flag a claim of this answer's shape from ``contradiction_threshold``, as a
            contradiction does (a short answer's: :data:`halguard.grounding.blocking.SHORT_ANSWER_FLOORS`).
    """
    signals, claim_vectors = measured.signals, measured.claim_vectors
    if measured.foreign:
        return _foreign_claim_verdict(job, claim, measured, threshold, weak_threshold, weights)
    risk = weights.risk(signals, claims_in_answer=claims_in_answer)
    status = explain.claim_status(risk, signals, threshold=threshold, weak_threshold=weak_threshold,
                                  contradiction_threshold=contradiction_threshold,
                                  floored=bool(signals.finding_kinds() & floors))
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
    if citation_mode == "strict" and claim.citations and not status.is_flagged:
        wrong_citation = miscited(claim, cited, sources=job.sources, chunks=job.chunks, question=job.question,
                                  claim_vectors=claim_vectors, chunk_vectors=index.embeddings, evidence=evidence,
                                  claims_in_answer=claims_in_answer, weights=weights, threshold=threshold)
    if wrong_citation is not None:
        # Weak support, never flagged by the raise (a shape's weak threshold may equal its threshold).
        status, risk = ClaimStatus.WEAK_SUPPORT, min(max(risk, weak_threshold), max(0.0, threshold - 1e-4))
        # The strict reason says what the lenient notes ("best evidence is in...", "unknown sources") say.
        reasons = [r for r in reasons if not r.startswith(("best evidence is in source", "cites unknown"))]
        reasons.append(wrong_citation)
        spans.extend(UnsupportedSpan(start=a, end=b, text=job.answer[a:b], confidence=round(risk, 4),
                                     reason=wrong_citation) for a, b in claim.citation_spans)
    report = signals.report(job.answer, floors, question_aware=claim.question_aware,
                            unresolved_citations=[lab for lab, c in zip(claim.citations, cited) if c is None],
                            miscited=wrong_citation is not None)
    verdict = ClaimVerdict(text=claim.text, start=claim.start, end=claim.end, status=status, score=round(risk, 4),
                           evidence=evidence, cited_sources=[c for c in cited if c is not None], reasons=reasons,
                           signals=report)
    if status.is_flagged:
        spans.extend(explain.unsupported_spans(job.answer, claim, signals, risk, reasons))
    return verdict, spans


def _foreign_claim_verdict(job: Job, claim: Claim, measured: MeasuredClaim, threshold: float, weak_threshold: float,
                           weights: ScoringWeights) -> tuple[ClaimVerdict, list[UnsupportedSpan]]:
    """A claim in a script the local checks cannot read: flagged for a name or number the passages lack (at
    least at the threshold, in any shape), else WEAK_SUPPORT (which keeps the answer unverified)."""
    signals = measured.signals
    found_missing = bool(signals.missing_numbers or signals.missing_entities)
    reasons = [foreign.REASON, *explain.reasons(signals, job.answer, [], (), [])[1:]]
    if found_missing:
        risk = min(max(measured.risk(weights), threshold), 1.0)
        status = ClaimStatus.CONTRADICTION if signals.contradicts else ClaimStatus.HALLUCINATION
        spans = explain.unsupported_spans(job.answer, claim, signals, risk, reasons)
    else:
        risk, status, spans = min(weak_threshold, threshold), ClaimStatus.WEAK_SUPPORT, []
    report = signals.report(job.answer, question_aware=claim.question_aware)
    verdict = ClaimVerdict(text=claim.text, start=claim.start, end=claim.end, status=status, score=round(risk, 4),
                           reasons=reasons, signals=report)
    return verdict, spans
