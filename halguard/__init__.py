"""halguard: hallucination guardrails for retrieval-augmented generation.

Quick use::

    import halguard

    verdict = halguard.verify(answer, contexts, question=question)
    if verdict.hallucination_detected:
        for span in verdict.spans:
            print(span.text, span.reason)
"""

from halguard.active import (
    ActiveGenerator,
    ActiveResult,
    ActiveSettings,
    RepairResult,
    arectify_premise,
    arepair,
    rectify_premise,
    repair,
)
from halguard.api import averify, default_detector, verify
from halguard.budget import detect_hallucination
from halguard.combine import combine_verdicts
from halguard.consistency import ConsistencyJudge, LocalConsistencyJudge, ParaphraseConsistency
from halguard.consistency.paraphrases import ParaphraseThresholds
from halguard.detector import Detector
from halguard.errors import (
    CalibrationError,
    HalguardError,
    HallucinationError,
    InputTypeError,
    InvalidInputError,
    ModelLoadError,
    ModelNotAvailableError,
    ProviderError,
    UnverifiedError,
)
from halguard.grounding.calibration import Calibration
from halguard.grounding.scoring import ScoringWeights
from halguard.grounding.verifier import LocalVerifier
from halguard.llm.cache import ResponseCache
from halguard.llm.providers import CallableChat, ChatModel, MistralChat, OpenAIChat
from halguard.schema import (
    METADATA_KEY,
    SCHEMA_VERSION,
    ActiveTrace,
    ClaimStatus,
    ClaimVerdict,
    ConsistencyReport,
    DroppedParaphrase,
    EvidenceRef,
    HallucinationJudgment,
    PolicyAction,
    PremiseRectification,
    RepairChange,
    RepairReport,
    RequestInfo,
    SampledAnswer,
    SentenceTrace,
    SkippedSentence,
    SkippedSource,
    UnsupportedSpan,
    Usage,
    Verdict,
    VerdictError,
    get_verdict,
)
from halguard.text.contexts import Source

__version__ = "0.1.0"

__all__ = [
    "METADATA_KEY",
    "SCHEMA_VERSION",
    "ActiveGenerator",
    "ActiveResult",
    "ActiveSettings",
    "ActiveTrace",
    "Calibration",
    "CalibrationError",
    "CallableChat",
    "ChatModel",
    "ClaimStatus",
    "ClaimVerdict",
    "ConsistencyJudge",
    "ConsistencyReport",
    "Detector",
    "DroppedParaphrase",
    "EvidenceRef",
    "HalguardError",
    "HallucinationError",
    "HallucinationJudgment",
    "InputTypeError",
    "InvalidInputError",
    "LocalConsistencyJudge",
    "LocalVerifier",
    "MistralChat",
    "ModelLoadError",
    "ModelNotAvailableError",
    "OpenAIChat",
    "ParaphraseConsistency",
    "ParaphraseThresholds",
    "PolicyAction",
    "PremiseRectification",
    "ProviderError",
    "RepairChange",
    "RepairReport",
    "RepairResult",
    "RequestInfo",
    "ResponseCache",
    "SampledAnswer",
    "ScoringWeights",
    "SentenceTrace",
    "SkippedSentence",
    "SkippedSource",
    "Source",
    "UnsupportedSpan",
    "UnverifiedError",
    "Usage",
    "Verdict",
    "VerdictError",
    "__version__",
    "arectify_premise",
    "arepair",
    "averify",
    "combine_verdicts",
    "default_detector",
    "detect_hallucination",
    "get_verdict",
    "rectify_premise",
    "repair",
    "verify",
]
