"""A guard's verdict in the caller's OpenTelemetry trace: attributes on the current span, and an event.

For Arize Phoenix, Langfuse and any other OTel backend. The current span (the app's request, a LangChain or
LlamaIndex instrumentor's chain span) gets:

- the verdict as OpenInference span feedback (``evaluations.<i>.evaluation.name / label / score / explanation /
  annotator_kind / identifier``, the convention Phoenix shows as an evaluation), ``<i>`` the next free index;
- ``halguard.*`` attributes: label, score, probability, threshold, detector, action, flagged claim count, error
  codes, request id;
- a ``halguard.verdict`` event with the same ``halguard.*`` attributes, at the time the verdict was made.

Optional: without ``opentelemetry-api`` installed (``pip install "halguard[otel]"``), or with no recording span,
nothing is done and nothing is imported again. Texts (the question, the answer, the claims, the contexts, error
messages) are never put in the trace: the explanation names flagged claims by their position and a check that did
not run by its error codes (:func:`halguard.errors.verdict_summary`), and the exceptions a guard raises quote no
text either, so the exception event the OTel SDK records on a span they leave holds none.
"""

from __future__ import annotations

import logging
from typing import Any

from halguard.errors import verdict_summary
from halguard.schema import Verdict

__all__ = ["EVALUATION_NAME", "VERDICT_EVENT_NAME", "record_verdict", "verdict_attributes"]

logger = logging.getLogger("halguard.telemetry")

EVALUATION_NAME = "halguard"
VERDICT_EVENT_NAME = "halguard.verdict"
_MAX_EVALUATIONS = 64  # how far the next free ``evaluations.<i>`` index is looked for on a readable span
_trace: Any = None  # the opentelemetry.trace module; False once known to be missing


def _otel() -> Any:
    global _trace
    if _trace is None:
        try:
            from opentelemetry import trace
        except ImportError:
            trace = False
        _trace = trace
    return _trace


def verdict_attributes(verdict: Verdict) -> dict[str, Any]:
    """The ``halguard.*`` attributes of a verdict (OTel attribute types only: str, bool, int, float, lists)."""
    attributes: dict[str, Any] = {
        "halguard.label": verdict.label,
        "halguard.detector": verdict.detector,
        "halguard.threshold": float(verdict.threshold),
        "halguard.flagged_claims": len(verdict.flagged_claims),
        "halguard.claims": len(verdict.claims),
    }
    if verdict.score is not None:
        attributes["halguard.score"] = float(verdict.score)
    if verdict.probability is not None:
        attributes["halguard.probability"] = float(verdict.probability)
    if verdict.action is not None:
        attributes["halguard.action"] = verdict.action.action
    if verdict.errors:
        attributes["halguard.error_codes"] = [e.code for e in verdict.errors]
    if verdict.request is not None and verdict.request.id:
        attributes["halguard.request_id"] = verdict.request.id
    return attributes


def _next_index(span: Any) -> int:
    """The first ``evaluations.<i>`` index the span does not use yet (0 when its attributes cannot be read)."""
    existing = getattr(span, "attributes", None) or {}
    for i in range(_MAX_EVALUATIONS):
        if f"evaluations.{i}.evaluation.name" not in existing:
            return i
    return _MAX_EVALUATIONS


def record_verdict(verdict: Verdict) -> bool:
    """Record ``verdict`` on the current OTel span; True when it was recorded. Never raises."""
    trace = _otel()
    if not trace:
        return False
    try:
        span = trace.get_current_span()
        if not span.is_recording():
            return False
        attributes = verdict_attributes(verdict)
        prefix = f"evaluations.{_next_index(span)}.evaluation."
        feedback: dict[str, Any] = {
            prefix + "name": EVALUATION_NAME,
            prefix + "label": verdict.label,
            prefix + "explanation": verdict_summary(verdict),
            prefix + "annotator_kind": "CODE",
        }
        if verdict.score is not None:
            feedback[prefix + "score"] = float(verdict.score)
        if verdict.request is not None and verdict.request.id:
            feedback[prefix + "identifier"] = verdict.request.id
        span.set_attributes({**feedback, **attributes})
        span.add_event(VERDICT_EVENT_NAME, attributes=attributes)
    except Exception:  # noqa: BLE001 - tracing must never break the request it traces
        logger.debug("halguard could not record the verdict on the current span", exc_info=True)
        return False
    return True
