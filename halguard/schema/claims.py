"""One claim's verdict and what it is made of: evidence, signals, budgets, spans; what was skipped."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from halguard.schema.base import ClaimStatus, _Model

__all__ = ["BitsRangeReport", "ClaimBudgetReport", "ClaimSignals", "ClaimVerdict", "EvidenceRef", "SkippedSentence",
           "SkippedSource", "UnsupportedSpan"]


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
    paraphrased: list[str] = Field(default_factory=list, description="Words the context never uses that the claim's "
                                   "evidence says in other words, as 'claim word = evidence word (cosine)', or "
                                   "'(same participants)' for a verb its evidence says with a related verb.")
    missing_entities: list[str] = Field(default_factory=list, description="Names absent from the context.")
    missing_numbers: list[str] = Field(default_factory=list, description="Numbers, dates and amounts absent from "
                                                                         "the context.")
    changed_numbers: list[str] = Field(default_factory=list, description="Numbers absent from the context whose "
                                                                         "closest evidence states other numbers.")
    negation_mismatch: bool = Field(default=False, description="The claim negates what its closest evidence states "
                                                               "(or states what it negates).")
    arithmetic_errors: list[str] = Field(default_factory=list, description="Wrong calculations, explained.")
    record_conflicts: list[str] = Field(default_factory=list, description="Features a JSON record in the context "
                                                                          "marks as absent.")
    record_unknowns: list[str] = Field(default_factory=list, description="Features a JSON record in the context "
                                                                         "leaves unknown (\"None\").")
    hours_conflicts: list[str] = Field(default_factory=list, description="Opening hours a JSON record in the "
                                                                         "context lists otherwise, explained.")
    choice_conflicts: list[str] = Field(default_factory=list, description="The option of a choice question (\"A "
                                                                          "or B?\") the answer picks where the "
                                                                          "context gives the other one the first, "
                                                                          "most, ... of what is asked, explained.")
    antonym_flips: list[str] = Field(default_factory=list, description="Words whose opposite the evidence uses.")
    role_conflicts: list[str] = Field(default_factory=list, description="Who did what to whom, wrong: roles "
                                                                        "swapped, or a name or number of the passage "
                                                                        "attached to the wrong thing, explained.")
    name_swapped: bool = Field(default=False, description="A name the context lacks in an otherwise copied "
                                                          "sentence.")
    findings: list[str] = Field(default_factory=list, description="The claim's finding kinds (halguard.grounding."
                                                                  "blocking.FINDING_PRECISION names them).")
    blocking: list[str] = Field(default_factory=list, description="Those of its finding kinds that block (measured "
                                                                  "precise enough: a CONTRADICTION).")
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
