"""The verdict: the one object every halguard detector returns, the policy action a guard took on it, and
:func:`get_verdict` to read it back from wherever a guard attached it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from halguard.schema.base import METADATA_KEY, SCHEMA_VERSION, VerdictLabel, _Model
from halguard.schema.claims import ClaimVerdict, SkippedSentence, SkippedSource, UnsupportedSpan
from halguard.schema.reports import ActiveTrace, ConsistencyReport, RepairReport
from halguard.schema.requests import RequestInfo, Usage, VerdictError

__all__ = ["PolicyAction", "Verdict", "get_verdict"]


class PolicyAction(_Model):
    """What a guard did with the verdict (set by the LangChain / LlamaIndex guards, not by detectors)."""

    action: Literal["annotate", "raise", "fallback", "filter", "repair"]
    removed: list[UnsupportedSpan] = Field(
        default_factory=list, description="With 'filter': the flagged sentences removed from the answer."
    )
    filtered_answer: str | None = Field(default=None, description="With 'filter' and 'repair': the answer that was "
                                        "returned; with 'fallback' in a sentence stream: what was sent (the "
                                        "sentences before the flagged one, then the message).")
    fallback_verdict: Verdict | None = Field(
        default=None,
        description="With 'fallback': the check of the answer that was returned instead. A fixed fallback "
        "message is not checked: its verdict is unverified with the code 'fallback_not_checked'.",
    )


class Verdict(_Model):
    """The result of checking one answer against its retrieved context.

    ``label`` is ``"unverified"`` whenever the check could not run in full (no context, an empty or
    oversized answer, a provider error...): never ``"supported"`` for a check that did not happen.
    """

    schema_version: str = SCHEMA_VERSION
    label: VerdictLabel
    hallucination_detected: bool = Field(description="True only when label is 'hallucinated'.")
    score: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Hallucination risk of the answer (None when unverified)."
    )
    threshold: float = Field(ge=0.0, le=1.0, description="Risk at or above which the answer is flagged.")
    claims: list[ClaimVerdict] = Field(default_factory=list)
    skipped: list[SkippedSentence] = Field(default_factory=list)
    spans: list[UnsupportedSpan] = Field(default_factory=list)
    errors: list[VerdictError] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    latency_ms: float = 0.0
    detector: str = Field(description="Which detector produced the verdict, e.g. 'local:all-MiniLM-L6-v2'.")
    consistency: ConsistencyReport | None = Field(
        default=None, description="Paraphrase-sampling (PAS2) report, when that check ran."
    )
    action: PolicyAction | None = Field(default=None, description="What a guard did with this verdict.")
    request: RequestInfo | None = Field(
        default=None, description="The request this verdict belongs to (set by the guards and handlers)."
    )
    skipped_sources: list[SkippedSource] = Field(
        default_factory=list, description="Retrieved sources not used as evidence, and why."
    )
    checked_text: str | None = Field(
        default=None,
        description="The text that was checked, when it is not the answer as returned (a structured output is "
        "checked as 'field: value' lines); claim and span offsets refer to it.",
    )
    probability: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Calibrated probability that the answer is hallucinated, for its "
        "shape (halguard.grounding.calibration): holds for data like the calibration rows. None when unverified or "
        "without a calibration.")
    profile: Literal["records", "short_answer", "long_answer", "short_summary", "long_summary"] | None = Field(
        default=None, description="The answer's shape, decided from the input alone: 'records' (a JSON passage), "
        "'short_summary' / 'long_summary' (no question, or one asking for a summary) or 'short_answer' / "
        "'long_answer' (at most two sentences or more); set by the local verifier, it picks the operating point.")
    active: ActiveTrace | None = Field(default=None, description="Active generation's trace, when the answer was "
                                       "generated with detect-and-repair.")
    repair: RepairReport | None = Field(default=None, description="A post-hoc repair of the answer "
                                        "(on_hallucination='repair'); this verdict checks the repaired answer.")

    @classmethod
    def unverified(
        cls,
        code: str,
        message: str,
        *,
        detector: str,
        threshold: float,
        **fields: Any,
    ) -> Verdict:
        """Build a verdict for a check that could not run."""
        errors = [VerdictError(code=code, message=message), *fields.pop("errors", [])]
        return cls(
            label="unverified",
            hallucination_detected=False,
            score=None,
            threshold=threshold,
            errors=errors,
            detector=detector,
            **fields,
        )

    @property
    def is_supported(self) -> bool:
        return self.label == "supported"

    @property
    def is_unverified(self) -> bool:
        return self.label == "unverified"

    @property
    def flagged_claims(self) -> list[ClaimVerdict]:
        """Claims whose status is CONTRADICTION or HALLUCINATION."""
        return [c for c in self.claims if c.status.is_flagged]

    def to_metadata(self) -> dict[str, Any]:
        """The JSON-safe dict that adapters attach under ``"halguard"``."""
        return self.model_dump(mode="json")

    @classmethod
    def from_metadata(cls, data: dict[str, Any] | Verdict) -> Verdict:
        """The :class:`Verdict` back from :meth:`to_metadata`'s dict (a Verdict is returned as it is)."""
        return data if isinstance(data, Verdict) else cls.model_validate(data)


PolicyAction.model_rebuild()


def get_verdict(obj: Any) -> Verdict | None:
    """The verdict a guard attached to ``obj``, as a :class:`Verdict`, or None when there is none.

    One call for every place halguard puts a verdict: a Verdict itself; a dict output (``out["halguard"]``);
    a message's ``response_metadata["halguard"]``; a LlamaIndex response's or node's ``metadata["halguard"]``;
    an evaluation result's ``verdict``. Python outputs carry :class:`Verdict` objects; framework metadata, which
    must stay JSON, carries ``Verdict.to_metadata()`` dicts; this reads either.
    """
    if isinstance(obj, Verdict):
        return obj
    candidates: list[Any] = []
    if isinstance(obj, dict):
        candidates.append(obj.get(METADATA_KEY))
    for attr in ("response_metadata", "metadata"):
        meta = getattr(obj, attr, None)
        if isinstance(meta, dict):
            candidates.append(meta.get(METADATA_KEY))
    candidates.append(getattr(obj, "verdict", None))
    for value in candidates:
        if isinstance(value, Verdict):
            return value
        if isinstance(value, dict) and "label" in value and "detector" in value:
            return Verdict.model_validate(value)
    return None
