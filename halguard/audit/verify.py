"""Verify a batch of audit records into output rows: what both engines run (in-process, or once per Ray actor).

:class:`BatchVerifier` builds its detector once (the local model loads once per process or actor) and turns each
batch of :class:`~halguard.audit.records.AuditRecord` into one answer row per record, with the claims as a JSON
column that the writer splits into the claims table. A check that fails for any reason is an ``unverified`` row
with the reason: rows are never dropped.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import time
from collections.abc import Callable, Sequence
from typing import Any

from halguard.audit.records import AuditRecord
from halguard.detector import Detector
from halguard.detectors import check_detector_name, check_detector_options, make_detector
from halguard.errors import InvalidInputError
from halguard.schema import Verdict

__all__ = ["ANSWER_COLUMNS", "DEFAULT_LLM_CONCURRENCY", "BatchVerifier", "DetectorSpec"]

# Calls in flight at once per process for the LLM detectors (each call has its own deadline and retries).
DEFAULT_LLM_CONCURRENCY = 4
# What the claims column keeps per claim: the best evidence only (the report shows it beside the claim).
_EVIDENCE_CHARS = 600

ANSWER_COLUMNS = ("row_id", "id", "file", "line", "question", "answer", "sources", "model", "timestamp", "cluster",
                  "label", "score", "probability", "profile", "threshold", "error_code", "error_message",
                  "claims_total", "claims_flagged", "spans_json", "claims_json", "detector", "latency_ms",
                  "worker_pid", "worker_rss_mb")


class DetectorSpec:
    """How a process builds its detector: a name for :func:`halguard.detectors.make_detector` (``local``,
    ``naive``, ``llm-judge``, ``pas2``, ``budget``, ``nli:<model>``, ``hhem:<model>``, ``minicheck:<model>``,
    ``spans:<model>``) with its options (``options``: those it takes by name, checked now), or a zero-argument
    factory (picklable: Ray ships it to each actor)."""

    def __init__(self, name: str | Callable[[], Detector] = "local", *, threshold: float | None = None,
                 llm_url: str | None = None, llm_model: str | None = None,
                 llm_concurrency: int = DEFAULT_LLM_CONCURRENCY, options: dict[str, Any] | None = None) -> None:
        if not callable(name):
            try:
                check_detector_name(name)
            except InvalidInputError as exc:
                msg = f"{exc}, or pass a factory"
                raise InvalidInputError(msg) from exc
            options = check_detector_options(name, dict(options or {}))
        elif options:
            msg = "options go with a detector name; a factory builds its detector with its own"
            raise InvalidInputError(msg)
        self.options = dict(options or {})
        if llm_concurrency < 1:
            msg = f"llm_concurrency must be at least 1, got {llm_concurrency}"
            raise InvalidInputError(msg)
        self.name, self.threshold, self.llm_url, self.llm_model = name, threshold, llm_url, llm_model
        self.llm_concurrency = llm_concurrency

    def build(self) -> Detector:
        if callable(self.name):
            detector = self.name()
            if not isinstance(detector, Detector):
                msg = f"the detector factory returned a {type(detector).__name__}, not a halguard Detector"
                raise InvalidInputError(msg)
            return detector
        return make_detector(self.name, self.threshold, llm_url=self.llm_url, llm_model=self.llm_model,
                             **self.options)



class BatchVerifier:
    """One detector per process; ``__call__`` verifies a batch of records into output rows."""

    def __init__(self, spec: DetectorSpec) -> None:
        from halguard.grounding.naive import NaiveSimilarity
        from halguard.grounding.verifier import LocalVerifier

        self.spec = spec
        self.detector = spec.build()
        self.detector.warm_up()
        # The local detectors check a batch with shared encodings; any other detector (an LLM judge, PAS2, the
        # budget cascade, yours) is called per answer, llm_concurrency at a time.
        self.batched = isinstance(self.detector, (LocalVerifier, NaiveSimilarity))

    def __call__(self, records: Sequence[AuditRecord]) -> list[dict[str, Any]]:
        start = time.perf_counter()
        verdicts = self._verdicts(records)
        per_row_ms = (time.perf_counter() - start) * 1000 / max(len(records), 1)
        rss = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # KiB on Linux
        return [_row(r, v, per_row_ms, rss) for r, v in zip(records, verdicts)]

    def _verdicts(self, records: Sequence[AuditRecord]) -> list[Verdict]:
        if self.batched:
            try:
                return self.detector.verify_batch([r.answer for r in records], [r.contexts for r in records],
                                                  questions=[r.question for r in records])
            except Exception:  # noqa: BLE001 - one bad row must not sink its batch: check them one by one
                return [self._one(r) for r in records]
        return asyncio.run(self._concurrently(records))

    def _one(self, record: AuditRecord) -> Verdict:
        try:
            return self.detector.verify(record.answer, record.contexts, question=record.question)
        except Exception as exc:  # noqa: BLE001 - an audit records every failure as unverified, never drops a row
            return self._failed(exc)

    async def _concurrently(self, records: Sequence[AuditRecord]) -> list[Verdict]:
        gate = asyncio.Semaphore(self.spec.llm_concurrency)

        async def one(record: AuditRecord) -> Verdict:
            async with gate:
                try:
                    return await self.detector.averify(record.answer, record.contexts, question=record.question)
                except Exception as exc:  # noqa: BLE001 - as in _one
                    return self._failed(exc)

        return list(await asyncio.gather(*(one(r) for r in records)))

    def _failed(self, exc: Exception) -> Verdict:
        code = "bad_input" if isinstance(exc, (TypeError, ValueError)) else "internal_error"  # InvalidInputError too
        return Verdict.unverified(code, f"{type(exc).__name__}: {str(exc)[:300]}", detector=self.detector.name,
                                  threshold=self.detector.threshold)


def _row(record: AuditRecord, verdict: Verdict, latency_ms: float, rss_mb: float) -> dict[str, Any]:
    claims = []
    for c in verdict.claims:
        best = c.evidence[0] if c.evidence else None
        claims.append({"text": c.text, "start": c.start, "end": c.end, "status": c.status.value, "score": c.score,
                       "evidence_source": best.source_id if best else None,
                       "evidence_text": best.text[:_EVIDENCE_CHARS] if best else None,
                       "evidence_similarity": best.similarity if best else None, "reasons": list(c.reasons)})
    spans = [{"start": s.start, "end": s.end, "reason": s.reason} for s in verdict.spans]
    error = verdict.errors[0] if verdict.errors else None
    return {
        "row_id": record.row_id, "id": record.id, "file": record.file, "line": record.line, "question": record.question,
        "answer": record.answer, "sources": record.sources, "model": record.model, "timestamp": record.timestamp,
        "cluster": record.cluster, "label": verdict.label, "score": verdict.score,
        "probability": verdict.probability, "profile": verdict.profile, "threshold": verdict.threshold,
        "error_code": error.code if error else None, "error_message": error.message if error else None,
        "claims_total": len(verdict.claims), "claims_flagged": sum(1 for c in verdict.claims if c.status.is_flagged),
        "spans_json": json.dumps(spans), "claims_json": json.dumps(claims), "detector": verdict.detector,
        "latency_ms": round(verdict.latency_ms or latency_ms, 3), "worker_pid": os.getpid(), "worker_rss_mb": rss_mb,
    }
