"""Signals: one module per thing a claim can get wrong against its evidence.

- :mod:`.words`: content words, names and numbers found nowhere in the context;
- :mod:`.closest`: the evidence sentence a claim restates, which the negation and copy checks compare it with;
- :mod:`.negation`: a "not" on one side only, against the closest evidence sentence;
- :mod:`.antonyms`: the opposite word of the evidence ("rose" / "fell");
- :mod:`.arithmetic`: a wrong calculation;
- :mod:`.records`: a feature that a JSON record in the context marks as absent;
- :mod:`.verbatim`: the claim copied word for word from one passage;
- :mod:`.paraphrase`: a novel word its evidence says in other words, by the model's reading;
- :mod:`halguard.grounding.roles`: who did what to whom, from a dependency parse (its own package);
- :mod:`.measure`: all of them for one claim, as :class:`ClaimMeasurements`.

:mod:`halguard.grounding.scoring` turns the measurements into a risk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from halguard.grounding.blocking import BLOCKING_FINDINGS, COPY_OVERLAP
from halguard.schema import ClaimSignals

__all__ = ["ClaimMeasurements"]


@dataclass
class ClaimMeasurements:
    """The measurements behind one claim's risk, with spans as offsets in the answer.

    The verdict reports them as :class:`~halguard.schema.ClaimSignals` (:meth:`report`).
    """

    similarity: float
    novel_ratio: float
    novel_terms: list[tuple[int, int]] = field(default_factory=list)
    # The novel terms that are light words (halguard.text.light_words: "stands", "versus", "daily"), weighed with
    # ScoringWeights.novel_light_term; a subset of novel_terms.
    light_novel_terms: list[tuple[int, int]] = field(default_factory=list)
    missing_entities: list[tuple[int, int]] = field(default_factory=list)
    missing_numbers: list[tuple[int, int]] = field(default_factory=list)
    # Those of missing_numbers that stand in the passages, not as the claim places them: a date they write otherwise,
    # a count they give to something else (halguard.text.counts). For the reasons' words only.
    numbers_placed_otherwise: list[tuple[int, int]] = field(default_factory=list)
    evidence_has_numbers: bool = False
    negation_mismatch: bool = False
    # The evidence sentence the negation flips (the claim's closest, or the one a negated clause aligns with). For the
    # reasons' words only.
    negated_evidence: str = ""
    arithmetic_errors: list[tuple[int, int, str]] = field(default_factory=list)
    content_words: int = 0
    record_conflicts: list[tuple[int, int]] = field(default_factory=list)
    # Features asserted that a JSON record leaves unknown ("WiFi": "None"): nothing says they are there.
    record_unknowns: list[tuple[int, int]] = field(default_factory=list)
    # Those of record_conflicts and record_unknowns that the claim denies ("does not offer takeout" against
    # "RestaurantsTakeOut": true), not asserts. For the reasons' words only.
    record_denials: list[tuple[int, int]] = field(default_factory=list)
    # Opening hours a JSON record lists otherwise (:mod:`.hours`): offsets in the answer and the reason in words.
    hours_conflicts: list[tuple[int, int, str]] = field(default_factory=list)
    # The option a choice question's answer picks where the passages give the other one the first / most ... of what
    # the question asks (:mod:`.choice`): offsets in the answer and the reason in words.
    choice_conflicts: list[tuple[int, int, str]] = field(default_factory=list)
    antonym_flips: list[tuple[int, int]] = field(default_factory=list)
    # Who did what to whom, wrong (halguard.grounding.roles): offsets in the answer and the reason in words.
    role_conflicts: list[tuple[int, int, str]] = field(default_factory=list)
    # Those of role_conflicts that put a number of the passages where they give another number (no time of day): a
    # finding kind of its own (moved_numbers), measured apart from the names and descriptions moved.
    moved_numbers: list[tuple[int, int]] = field(default_factory=list)
    verbatim: bool = False  # the claim's words appear, in order and contiguously, in one passage
    evidence_overlap: float = 0.0  # share of the claim's content words found in its closest evidence sentence
    # and in its whole best evidence chunk (two sentences: "It was completed in 1889." after "The Eiffel Tower ...")
    window_overlap: float = 0.0
    # A name the passages lack in a copied sentence: every other content word of the claim (at least two) is in its
    # closest evidence sentence ("Orion was built by Boeing." against "... by Lockheed Martin.").
    name_swapped: bool = False
    # A short answer that affirms its question ("Yes.") claims the question's names and numbers: those the
    # passages lack, by their text. Each kind adds the claim's own span once to missing_entities / missing_numbers.
    affirmed_names: list[str] = field(default_factory=list)
    affirmed_numbers: list[str] = field(default_factory=list)
    affirmed_span: tuple[int, int] | None = None
    # The claim checker's P(unsupported) against the claim's best evidence, and the claim's words it marks
    # (offsets in the answer); None where the model did not read the claim (no model, foreign script).
    meaning_risk: float | None = None
    meaning_spans: list[tuple[int, int]] = field(default_factory=list)
    # Words the context never uses that the claim's evidence says in other words, by the model's reading
    # (:mod:`.paraphrase`): offsets in the answer, the evidence word and the cosine of their states (-1: a verb its
    # evidence frame says with a related verb of the same participants, halguard.grounding.roles.verbs). Not novel.
    paraphrased: list[tuple[int, int, str, float]] = field(default_factory=list)

    def finding_kinds(self) -> frozenset[str]:
        """The finding kinds this claim holds, by the names of :data:`halguard.grounding.blocking.FINDING_PRECISION`
        (``changed_numbers``: numbers the passages lack where the closest evidence has other numbers;
        ``changed_number_in_copy``: such a number in a claim that otherwise copies its evidence, at least
        :data:`~halguard.grounding.blocking.COPY_OVERLAP` of its content words in its closest evidence sentence or
        its best evidence chunk)."""
        kinds = {kind for kind, value in (
            ("arithmetic_errors", self.arithmetic_errors), ("negation_mismatch", self.negation_mismatch),
            ("record_conflicts", self.record_conflicts), ("antonym_flips", self.antonym_flips),
            ("role_conflicts", self.role_conflicts), ("missing_entities", self.missing_entities),
            ("missing_numbers", self.missing_numbers), ("name_swapped", self.name_swapped),
            ("record_unknowns", self.record_unknowns), ("hours_conflicts", self.hours_conflicts),
            ("choice_conflicts", self.choice_conflicts), ("moved_numbers", self.moved_numbers)) if value}
        if self.missing_numbers and self.evidence_has_numbers:
            kinds.add("changed_numbers")
            if self.verbatim or max(self.evidence_overlap, self.window_overlap) >= COPY_OVERLAP:
                kinds.add("changed_number_in_copy")
        return frozenset(kinds)

    @property
    def contradicts(self) -> bool:
        """A CONTRADICTION: the claim holds a finding of a kind measured precise enough to block
        (:data:`halguard.grounding.blocking.BLOCKING_FINDINGS`: claim-level precision of at least
        :data:`~halguard.grounding.blocking.BLOCKING_PRECISION` on the span-labelled dev rows). A finding of any other
        kind (a negation flip, a role conflict, ...) is a weighted signal of the risk, not a contradiction."""
        return bool(self.finding_kinds() & BLOCKING_FINDINGS)

    def named(self, answer: str, spans: list[tuple[int, int]], affirmed: list[str]) -> list[str]:
        """The text of each span, the affirmed question terms for the claim's own span (see ``affirmed_names``)."""
        out = [answer[s:e] for s, e in spans if (s, e) != self.affirmed_span]
        return out + affirmed if affirmed else out

    def report(self, answer: str, floors: frozenset[str] = frozenset(), **extra: object) -> ClaimSignals:
        """The measurements as the verdict reports them (spans as the answer's text), plus ``extra`` fields;
        ``floors``: the finding kinds that also block in the answer's shape (a short answer's floors)."""
        return ClaimSignals(
            similarity=round(self.similarity, 4),
            novel_ratio=round(self.novel_ratio, 4),
            novel_terms=[answer[s:e] for s, e in self.novel_terms],
            paraphrased=[f"{answer[s:e]} = {word} ({sim:.2f})" if sim >= 0 else f"{answer[s:e]} = {word} (same "
                         "participants)" for s, e, word, sim in self.paraphrased],
            missing_entities=self.named(answer, self.missing_entities, self.affirmed_names),
            missing_numbers=self.named(answer, self.missing_numbers, self.affirmed_numbers),
            changed_numbers=self.named(answer, self.missing_numbers, []) if self.evidence_has_numbers else [],
            negation_mismatch=self.negation_mismatch,
            arithmetic_errors=[why for _, _, why in self.arithmetic_errors],
            record_conflicts=[answer[s:e] for s, e in self.record_conflicts],
            record_unknowns=[answer[s:e] for s, e in self.record_unknowns],
            hours_conflicts=[f"{answer[s:e]}: {why}" for s, e, why in self.hours_conflicts],
            choice_conflicts=[f"{answer[s:e]}: {why}" for s, e, why in self.choice_conflicts],
            antonym_flips=[answer[s:e] for s, e in self.antonym_flips],
            role_conflicts=[why for _, _, why in self.role_conflicts],
            name_swapped=self.name_swapped,
            findings=sorted(self.finding_kinds()),
            blocking=sorted(self.finding_kinds() & (BLOCKING_FINDINGS | floors)),
            verbatim=self.verbatim,
            evidence_overlap=round(self.evidence_overlap, 4),
            meaning_support=None if self.meaning_risk is None else round(1.0 - self.meaning_risk, 4),
            **extra,
        )
