"""halguard: hallucination guardrails for retrieval-augmented generation.

Quick use::

    import halguard

    verdict = halguard.verify(answer, contexts, question=question)
    if verdict.hallucination_detected:
        for span in verdict.spans:
            print(span.text, span.reason)
"""

from halguard.api import averify, default_detector, verify
from halguard.detector import Detector
from halguard.errors import (
    HalguardError,
    HallucinationError,
    InputTypeError,
    InvalidInputError,
    ModelLoadError,
    UnverifiedError,
)
from halguard.features import ScoringWeights
from halguard.schema import (
    METADATA_KEY,
    SCHEMA_VERSION,
    ClaimStatus,
    ClaimVerdict,
    EvidenceRef,
    SkippedSentence,
    UnsupportedSpan,
    Usage,
    Verdict,
    VerdictError,
)
from halguard.sources import Source
from halguard.verifier import LocalVerifier

__version__ = "0.1.0"

__all__ = [
    "METADATA_KEY",
    "SCHEMA_VERSION",
    "ClaimStatus",
    "ClaimVerdict",
    "Detector",
    "EvidenceRef",
    "HalguardError",
    "HallucinationError",
    "InputTypeError",
    "InvalidInputError",
    "LocalVerifier",
    "ModelLoadError",
    "ScoringWeights",
    "SkippedSentence",
    "Source",
    "UnsupportedSpan",
    "UnverifiedError",
    "Usage",
    "Verdict",
    "VerdictError",
    "__version__",
    "averify",
    "default_detector",
    "verify",
]
