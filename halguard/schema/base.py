"""What every part of the verdict schema shares: the schema version, the metadata key, claim statuses and the
models' base class."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["METADATA_KEY", "SCHEMA_VERSION", "ClaimStatus", "VerdictLabel"]

# PolicyAction.fallback_verdict, SampledAnswer.non_answer; Verdict.consistency is a typed ConsistencyReport
# (its JSON is unchanged). 1.3: ClaimVerdict.signals is a typed ClaimSignals (same JSON keys; None for a claim
# whose detector measured no signals, where 1.2 had an empty dict).
# 1.4 (additive): ConsistencyReport.dropped_paraphrases. 1.5 (additive): ClaimVerdict.budget.
# 1.6 (additive): Verdict.active (the active generation trace), Verdict.repair, PolicyAction "repair".
# 1.7 (additive): Verdict.profile. 1.8: Verdict.probability; Verdict.profile names five shapes (records,
# short_answer, long_answer, short_summary, long_summary) where 1.7 had records / short / long.
SCHEMA_VERSION = "1.8"
METADATA_KEY = "halguard"

VerdictLabel = Literal["supported", "hallucinated", "unverified"]


class ClaimStatus(str, Enum):
    """How well one claim of the answer is backed by the retrieved evidence."""

    SUPPORTED = "SUPPORTED"
    """The evidence states the claim."""
    WEAK_SUPPORT = "WEAK_SUPPORT"
    """Related evidence exists but does not clearly state the claim; below the flagging threshold."""
    CONTRADICTION = "CONTRADICTION"
    """The closest evidence says something incompatible (another number, a negation flip)."""
    HALLUCINATION = "HALLUCINATION"
    """Nothing in the evidence supports the claim (invented entities, facts or numbers)."""

    @property
    def is_flagged(self) -> bool:
        """Whether this status flags the claim (CONTRADICTION or HALLUCINATION): the one place that says so."""
        return self in (ClaimStatus.CONTRADICTION, ClaimStatus.HALLUCINATION)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)
