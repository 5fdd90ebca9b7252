"""The verdict schema: the one object every halguard detector returns and every adapter attaches.

Adapters store ``Verdict.to_metadata()`` under the key :data:`METADATA_KEY` (``"halguard"``), so a
LangChain message, a LlamaIndex response and a JSON log line all carry the same shape.

One module per part (:mod:`.base`, :mod:`.claims`, :mod:`.requests`, :mod:`.reports`, :mod:`.verdict`); every
name imports from ``halguard.schema``.
"""

from __future__ import annotations

from halguard.schema.base import METADATA_KEY, SCHEMA_VERSION, ClaimStatus, VerdictLabel
from halguard.schema.claims import (
    BitsRangeReport,
    ClaimBudgetReport,
    ClaimSignals,
    ClaimVerdict,
    EvidenceRef,
    SkippedSentence,
    SkippedSource,
    UnsupportedSpan,
)
from halguard.schema.reports import (
    ActiveTrace,
    ConceptCheck,
    ConsistencyReport,
    DroppedParaphrase,
    HallucinationJudgment,
    PremiseRectification,
    RepairChange,
    RepairReport,
    SampledAnswer,
    SentenceTrace,
)
from halguard.schema.requests import RequestInfo, Usage, VerdictError
from halguard.schema.verdict import PolicyAction, Verdict, get_verdict

__all__ = [
    "METADATA_KEY",
    "SCHEMA_VERSION",
    "BitsRangeReport",
    "ClaimBudgetReport",
    "ClaimSignals",
    "ClaimStatus",
    "ActiveTrace",
    "ClaimVerdict",
    "ConceptCheck",
    "ConsistencyReport",
    "DroppedParaphrase",
    "EvidenceRef",
    "HallucinationJudgment",
    "PolicyAction",
    "PremiseRectification",
    "RepairChange",
    "RepairReport",
    "RequestInfo",
    "SampledAnswer",
    "SentenceTrace",
    "SkippedSentence",
    "SkippedSource",
    "UnsupportedSpan",
    "Usage",
    "Verdict",
    "VerdictError",
    "VerdictLabel",
    "get_verdict",
]

