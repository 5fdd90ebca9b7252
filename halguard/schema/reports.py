"""The reports of the methods beyond grounding: active generation, repair, premises, paraphrase sampling."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from halguard.schema.base import VerdictLabel, _Model
from halguard.schema.requests import Usage, VerdictError

__all__ = ["ActiveTrace", "ConceptCheck", "ConsistencyReport", "DroppedParaphrase", "HallucinationJudgment",
           "PremiseRectification", "RepairChange", "RepairReport", "SampledAnswer", "SentenceTrace"]


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
