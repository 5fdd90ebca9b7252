"""Every tuned number of active detection and repair, in one place, with where it comes from."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_ACTIVE_SETTINGS", "ActiveSettings"]


@dataclass(frozen=True)
class ActiveSettings:
    """Thresholds and budgets of :class:`~halguard.active.ActiveGenerator`, :func:`~halguard.active.repair` and
    :func:`~halguard.active.rectify_premise`.

    Attributes:
        concept_threshold: A concept whose probability is under this is validated. 0.55 is the threshold the
            "Stitch in Time" paper used with GPT-3.5 (its appendix: recall against threshold); not re-tuned here.
        validation_yes: A validation answer with P(yes) under this fails. 0.5: the argmax of the two words.
        premise_yes: A premise check with P(yes) under this rewrites the question. 0.5, likewise; the rewrite is
            only ever asked for when the check says no, so a true premise is left alone.
        max_extra_calls: LLM calls beyond the first generation, per answer (concept, question, answer, repair and
            continuation calls). 24 covers ~4 uncertain concepts in each of 6 sentences; the paper's ~3.2 concepts
            per sentence at temperature 0 were mostly confident.
        timeout_s: Seconds per answer, generation included; past it, sentences are kept unvalidated.
        max_sentences: Sentences generated per answer (a guard against a model that does not stop).
        evidence_passages: Passages given to a validation question or a repair (the best ranked).
        evidence_chars: Characters of evidence per prompt, all passages together (a small model's context).
        yes_no_word: The probability a bare "yes" stands for when the server returns no log-probabilities.
        max_repair_growth: A repair longer than this many times the sentence (plus 200 characters) is refused as
            not a repair (a model that rewrote the whole answer).
    """

    concept_threshold: float = 0.55
    validation_yes: float = 0.5
    premise_yes: float = 0.5
    max_extra_calls: int = 24
    timeout_s: float = 120.0
    max_sentences: int = 12
    evidence_passages: int = 3
    evidence_chars: int = 4000
    yes_no_word: float = 0.99
    max_repair_growth: float = 3.0

    def __post_init__(self) -> None:
        from halguard.errors import InvalidInputError
        from halguard.util.options import is_number, require_positive_int, require_positive_number

        for name in ("concept_threshold", "validation_yes", "premise_yes", "yes_no_word"):
            value = getattr(self, name)
            if not (is_number(value) and 0 <= value <= 1):
                msg = f"{name} must be a number from 0 to 1, got {value!r}"
                raise InvalidInputError(msg)
        for name in ("max_sentences", "evidence_passages"):
            require_positive_int(name, getattr(self, name))
        if isinstance(self.max_extra_calls, bool) or not isinstance(self.max_extra_calls, int) or self.max_extra_calls < 0:
            msg = f"max_extra_calls must be an int of 0 or more, got {self.max_extra_calls!r}"
            raise InvalidInputError(msg)
        # A window is up to 600 characters (the verifier's chunk size): less evidence room would fit none.
        require_positive_int("evidence_chars", self.evidence_chars, minimum=600)
        require_positive_number("timeout_s", self.timeout_s, unit="seconds")
        require_positive_number("max_repair_growth", self.max_repair_growth)


DEFAULT_ACTIVE_SETTINGS = ActiveSettings()
