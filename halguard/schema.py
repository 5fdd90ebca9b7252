"""The verdict schema: the one object every halguard detector returns and every adapter attaches.

Adapters store ``Verdict.to_metadata()`` under the key :data:`METADATA_KEY` (``"halguard"``), so a
LangChain message, a LlamaIndex response and a JSON log line all carry the same shape.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

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

# 1.1 added Usage.precomputed_texts. 1.2 (additive): Verdict.request, skipped_sources, checked_text,
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


class EvidenceRef(_Model):
    """A piece of a source that was compared with a claim."""

    source_id: str = Field(description="Id of the source (given by the caller, or its index as a string).")
    start: int = Field(ge=0, description="Character offset of the evidence in that source's text.")
    end: int = Field(ge=0, description="End offset (exclusive) in that source's text.")
    text: str = Field(description="The evidence text, source[start:end].")
    similarity: float = Field(description="Cosine similarity between the claim and this evidence.")


class ClaimSignals(_Model):
    """The measurements behind one claim's risk, as the local verifier reports them.

    Spans of the answer are reported as the text they cover. See ``docs/how-it-works.md`` for how each one moves
    the risk.
    """

    similarity: float = Field(description="Cosine similarity of the claim to its best evidence chunk.")
    novel_ratio: float = Field(default=0.0, description="Share of the claim's content words found nowhere in the "
                                                        "context or question.")
    novel_terms: list[str] = Field(default_factory=list, description="Content words found nowhere in the context.")
    missing_entities: list[str] = Field(default_factory=list, description="Names absent from the context.")
    missing_numbers: list[str] = Field(default_factory=list, description="Numbers, dates and amounts absent from "
                                                                         "the context.")
    negation_mismatch: bool = Field(default=False, description="The claim negates what its closest evidence states "
                                                               "(or states what it negates).")
    arithmetic_errors: list[str] = Field(default_factory=list, description="Wrong calculations, explained.")
    record_conflicts: list[str] = Field(default_factory=list, description="Features a JSON record in the context "
                                                                          "marks as absent.")
    antonym_flips: list[str] = Field(default_factory=list, description="Words whose opposite the evidence uses.")
    verbatim: bool = Field(default=False, description="The claim's words appear contiguously in one passage.")
    evidence_overlap: float = Field(default=0.0, description="Share of the claim's content words in its closest "
                                                             "evidence sentence.")
    meaning_support: float | None = Field(default=None, description="P(supported) by halguard's claim-checking "
                                                                    "model against the claim's best evidence; None "
                                                                    "where the model did not read the claim.")
    question_aware: bool = Field(default=False, description="A short answer was checked together with the question.")
    unresolved_citations: list[str] = Field(default_factory=list, description="Citation markers naming no source.")
    miscited: bool = Field(default=False, description="The sources the claim cites do not support it (strict "
                                                      "citation mode).")


class BitsRangeReport(_Model):
    """A value's smallest and largest value over the verifier's prompt variants."""

    min: float
    max: float
    units: str | None = None


class ClaimBudgetReport(_Model):
    """A claim's information budget (the budget verifier): probabilities and bits, each as a min/max range."""

    prior_yes: BitsRangeReport = Field(description="P(supported) with the claim's cited spans redacted.")
    post_yes: BitsRangeReport = Field(description="P(supported) with the cited evidence.")
    required: BitsRangeReport = Field(description="Bits needed to reach the target from the prior.")
    observed: BitsRangeReport = Field(description="Bits the evidence supplied (0 when it lowered the probability).")
    budget_gap: BitsRangeReport = Field(description="required - observed; positive: under budget.")
    target: float = Field(description="The probability the evidence had to support the claim to.")


class ClaimVerdict(_Model):
    """The verdict on one claim (one sentence of the answer)."""

    text: str = Field(description="The claim, exactly answer[start:end].")
    start: int = Field(ge=0, description="Character offset of the claim in the answer.")
    end: int = Field(ge=0, description="End offset (exclusive) in the answer.")
    status: ClaimStatus
    score: float = Field(ge=0.0, le=1.0, description="Hallucination risk of this claim, 0 (safe) to 1.")
    evidence: list[EvidenceRef] = Field(default_factory=list, description="Best evidence, most similar first.")
    cited_sources: list[str] = Field(
        default_factory=list, description="Source ids the claim cites with markers like [S0] or [1]."
    )
    reasons: list[str] = Field(default_factory=list, description="Why the claim got its status, in words.")
    signals: ClaimSignals | None = Field(default=None, description="The measurements behind the score; None when "
                                                                  "the detector measures none.")

    budget: ClaimBudgetReport | None = Field(default=None, description="The information budget, for detectors "
                                                                     "that measure one (BudgetVerifier).")

    @field_validator("signals", mode="before")
    @classmethod
    def _no_signals(cls, value: Any) -> Any:
        return None if value == {} else value  # schema 1.2 wrote an empty dict for "no signals"


class UnsupportedSpan(_Model):
    """A character span of the answer that the evidence does not support."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    confidence: float = Field(ge=0.0, le=1.0)
    reason: str = ""


class SkippedSentence(_Model):
    """A sentence of the answer that was not checked, and why (e.g. a pure hedge or a list intro)."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    reason: str


class SkippedSource(_Model):
    """A retrieved source that was not used as evidence, and why (e.g. the LLM's own intermediate answer)."""

    source_id: str
    reason: str
    text: str = Field(default="", description="The start of the source's text (at most 200 characters).")


class RequestInfo(_Model):
    """Which request a verdict belongs to, so observe-only verdicts can be matched to calls."""

    id: str | None = Field(
        default=None,
        description="The LangChain run id of the guarded (or root) run, or the LlamaIndex span id of the query or "
        "chat call. Pass config={'run_id': uuid} to LangChain to choose it yourself.",
    )
    question: str | None = Field(default=None, description="The question (query, chat message) that was answered.")
    source: str = Field(default="", description="The component that produced the verdict.")


class VerdictError(_Model):
    """Why (part of) a check did not run. ``code`` is stable; ``message`` is for people."""

    code: str
    message: str


class Usage(_Model):
    """What a verdict cost."""

    model_calls: int = Field(default=0, description="Local model forward passes (encode batches).")
    embedded_texts: int = Field(default=0, description="Texts embedded for this verdict (cache misses).")
    cached_texts: int = Field(default=0, description="Texts whose embedding came from the cache.")
    precomputed_texts: int = Field(
        default=0, description="Texts whose embedding the caller passed in (the retriever's vectors, same model)."
    )
    llm_calls: int = Field(default=0, description="Calls to remote or local LLMs.")
    input_tokens: int = 0
    output_tokens: int = 0


    @classmethod
    def from_meter(cls, meter: Any) -> Usage:
        """The LLM calls and tokens a :class:`~halguard.llm.providers.UsageMeter` counted."""
        return cls(llm_calls=meter.calls, input_tokens=meter.input_tokens, output_tokens=meter.output_tokens)

class PolicyAction(_Model):
    """What a guard did with the verdict (set by the LangChain / LlamaIndex guards, not by detectors)."""

    action: Literal["annotate", "raise", "fallback", "filter", "repair"]
    removed: list[UnsupportedSpan] = Field(
        default_factory=list, description="With 'filter': the flagged sentences removed from the answer."
    )
    filtered_answer: str | None = Field(default=None, description="With 'filter' and 'repair': the answer that was "
                                        "returned.")
    fallback_verdict: Verdict | None = Field(
        default=None,
        description="With 'fallback': the check of the answer that was returned instead. A fixed fallback "
        "message is not checked: its verdict is unverified with the code 'fallback_not_checked'.",
    )


class ConceptCheck(_Model):
    """One key concept of a generated sentence, its uncertainty and (when uncertain) its validation."""

    text: str
    start: int = Field(ge=0, description="Offset of the concept in its sentence.")
    end: int = Field(ge=0)
    probability: float | None = Field(default=None, description="The generator's probability of the concept's "
                                      "tokens (min, mean or normalised product); None without log-probabilities.")
    uncertain: bool = Field(description="Below the threshold, or no probability: validated.")
    question: str | None = Field(default=None, description="The yes/no validation question asked.")
    evidence_ids: list[str] = Field(default_factory=list, description="The evidence the question was answered on.")
    p_yes: float | None = Field(default=None, description="P(yes) of the validation answer.")
    outcome: Literal["confident", "validated", "failed", "unverified", "not_checked"]
    reason: str = ""


class SentenceTrace(_Model):
    """What the active loop did with one generated sentence."""

    index: int = Field(ge=0)
    original: str = Field(description="The sentence as generated.")
    final: str | None = Field(description="The sentence in the answer (None: dropped).")
    decision: Literal["confident", "validated", "repaired", "dropped", "repair_failed", "unvalidated", "unverified"]
    concepts: list[ConceptCheck] = Field(default_factory=list)
    evidence_ids: list[str] = Field(default_factory=list, description="The evidence a repair was written from.")
    reason: str = ""
    calls: int = Field(default=0, description="LLM calls spent on this sentence (concepts, questions, answers, "
                       "repair).")


class ActiveTrace(_Model):
    """The trace of active generation (detect and repair while generating): one entry per generated sentence."""

    sentences: list[SentenceTrace] = Field(default_factory=list)
    threshold: float = Field(description="Concepts whose probability is under this are validated.")
    uncertainty: str = Field(description="How a concept's token probabilities are combined: min, mean or product.")
    concept_source: str = Field(description="Who names the key concepts: 'rules' or 'llm'.")
    logprobs: bool = Field(description="Whether the generator returned token log-probabilities (without them every "
                           "concept is validated).")
    generation_calls: int = 0
    extra_calls: int = Field(default=0, description="Calls beyond generation: concepts, questions, answers, repairs "
                             "and continuations after a repair.")
    budget_exhausted: str | None = Field(default=None, description="Why validation stopped early ('calls', "
                                         "'deadline'); sentences after it are 'unvalidated'.")
    seconds: float = 0.0


class RepairChange(_Model):
    """One flagged claim of an answer and what the repair did with it."""

    start: int = Field(ge=0, description="Offset of the claim in the original answer.")
    end: int = Field(ge=0)
    original: str
    replacement: str | None = Field(description="The rewritten sentence; None when it was removed or kept.")
    action: Literal["rewritten", "removed", "kept"]
    reason: str = ""
    evidence_ids: list[str] = Field(default_factory=list)


class RepairReport(_Model):
    """A post-hoc repair: the answer before and after, per flagged claim, and the check before the repair."""

    original_answer: str
    repaired_answer: str
    changes: list[RepairChange] = Field(default_factory=list)
    label_before: VerdictLabel
    score_before: float | None = None
    usage: Usage = Field(default_factory=Usage)


class PremiseRectification(_Model):
    """A question checked for a false premise against the context, and rewritten only when it has one."""

    question: str
    rectified_question: str = Field(description="The question to answer: the original unless the premise is false.")
    outcome: Literal["true_premise", "rectified", "unverified"]
    p_yes: float | None = Field(default=None, description="P(the question's assumptions hold in the context).")
    evidence_ids: list[str] = Field(default_factory=list)
    reason: str = ""
    usage: Usage = Field(default_factory=Usage)


class SampledAnswer(BaseModel):
    """One answer sampled by paraphrase sampling (or the reason there is none)."""

    question: str
    answer: str | None = None
    error: str | None = None
    non_answer: bool = Field(
        default=False,
        description="The answer is a refusal or a non-answer (\"I don't know.\"): recorded, not judged.",
    )
    latency_ms: float = 0.0


class DroppedParaphrase(BaseModel):
    """A rewording of the question that was not used because it asks for something else."""

    paraphrase: str
    reason: str = Field(description="What drifted: a name or number left out, a key word dropped, low similarity.")
    similarity: float = Field(description="MiniLM cosine similarity to the question.")


class HallucinationJudgment(BaseModel):
    """The judge's structured verdict on a set of sampled answers (parsed tolerantly from LLM replies)."""

    hallucination_detected: bool
    confidence_score: float = Field(ge=0.0, le=1.0)
    conflicting_facts: list[Any] = Field(default_factory=list)
    reasoning: str = ""
    summary: str = ""

    @field_validator("hallucination_detected", mode="before")
    @classmethod
    def _boolish(cls, v: Any) -> Any:
        if isinstance(v, str):
            low = v.strip().lower()
            if low in ("true", "yes", "1"):
                return True
            if low in ("false", "no", "0"):
                return False
        return v

    @field_validator("confidence_score", mode="before")
    @classmethod
    def _numberish(cls, v: Any) -> Any:
        if isinstance(v, str):
            text = v.strip().rstrip("%")
            number = float(text)
            return number / 100 if v.strip().endswith("%") or number > 1 else number
        if isinstance(v, (int, float)) and 1 < v <= 100:
            return v / 100  # "85" meant 85%
        return v

    @field_validator("conflicting_facts", mode="before")
    @classmethod
    def _listish(cls, v: Any) -> Any:
        if v is None:
            return []
        return v if isinstance(v, list) else [v]


class ConsistencyReport(BaseModel):
    """What paraphrase sampling found; stored in ``Verdict.consistency``."""

    question: str
    label: Literal["consistent", "inconsistent", "unverified"]
    paraphrases: list[str]
    paraphrase_source: Literal["model", "fallback_templates"]
    dropped_paraphrases: list[DroppedParaphrase] = Field(
        default_factory=list, description="Rewordings that asked for something else (dropped, after one retry).")
    answers: list[SampledAnswer]
    judgment: HallucinationJudgment | None = None
    judge: str = ""
    errors: list[VerdictError] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    paraphrase_ms: float = Field(default=0.0, description="Wall time of the paraphrase call.")
    judge_ms: float = Field(default=0.0, description="Wall time of the judgment (repair included).")
    latency_ms: float = Field(default=0.0, description="Wall time of the whole check.")

    @property
    def hallucination_detected(self) -> bool:
        return self.label == "inconsistent"


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
