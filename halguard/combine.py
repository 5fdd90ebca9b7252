"""One verdict from grounding and paraphrase sampling.

The rule, in order:

1. grounding ``unverified`` -> ``unverified`` (a check that did not run is never outvoted);
2. grounding ``hallucinated`` -> ``hallucinated``;
3. consistency ``inconsistent`` -> ``hallucinated``, score ``max(grounding risk, judge confidence)``;
4. consistency ``unverified`` -> ``unverified`` (it was asked for and did not run), with its errors;
5. otherwise ``supported``.

The report is always kept in ``Verdict.consistency``; its LLM calls and tokens are added to ``usage``. A failed
paraphraser (``paraphrase_failed``: the samples used template rewordings) is added to ``Verdict.errors`` whatever
the label, so a ``supported`` that rests on templates says so.
"""

from __future__ import annotations

from halguard.schema import ConsistencyReport, Verdict, VerdictError

__all__ = ["combine_verdicts", "unsampled"]


def combine_verdicts(grounding: Verdict, report: ConsistencyReport) -> Verdict:
    usage = grounding.usage.model_copy(update={
        "llm_calls": grounding.usage.llm_calls + report.usage.llm_calls,
        "input_tokens": grounding.usage.input_tokens + report.usage.input_tokens,
        "output_tokens": grounding.usage.output_tokens + report.usage.output_tokens,
    })
    update: dict = {"consistency": report, "usage": usage,
                    "latency_ms": grounding.latency_ms + report.latency_ms}
    degraded = [e for e in report.errors if e.code == "paraphrase_failed"]
    if degraded and report.label != "unverified":
        update["errors"] = [*grounding.errors, *degraded]
    if grounding.label in ("unverified", "hallucinated"):
        return grounding.model_copy(update=update)
    if report.label == "inconsistent":
        confidence = report.judgment.confidence_score if report.judgment else 1.0
        update.update(label="hallucinated", hallucination_detected=True,
                      score=max(grounding.score or 0.0, confidence))
    elif report.label == "unverified":
        errors = [VerdictError(code="consistency_unverified", message="paraphrase sampling did not run in full"),
                  *report.errors]
        update.update(label="unverified", hallucination_detected=False, score=None,
                      errors=[*grounding.errors, *errors])
    return grounding.model_copy(update=update)


def unsampled(grounding: Verdict) -> Verdict:
    """Paraphrase sampling was asked for but there is no question to paraphrase: not a pass (rule 4)."""
    if grounding.label != "supported":
        return grounding
    error = VerdictError(code="consistency_unverified", message="no question found to paraphrase")
    return grounding.model_copy(update={"label": "unverified", "score": None, "hallucination_detected": False,
                                        "errors": [*grounding.errors, error]})
