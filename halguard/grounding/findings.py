"""Deterministic findings: names and numbers of an answer that the passages lack or state otherwise, found by the
local verifier's own rules without any model, and the rule that no LLM step turns them into ``supported``.

A judge model that obeys a note in its data and copies its call's nonce into a well-formed reply says whatever the
note dictates; no prompt construction stops a model that obeys. What the system around it can do is refuse to let
such a "yes" stand against a finding that needs no model: a name the passages never state, a number (a year, a date,
an amount) they do not contain or state otherwise, a feature a JSON record in them marks as absent, a wrong
calculation. :func:`deterministic_findings` finds those with the signals the :class:`~halguard.LocalVerifier`
measures (:func:`~halguard.grounding.signals.measure.measure_claim`: the same claims, the same scope, names and
numbers looked up in the passages only, never in the question), with the closest evidence picked lexically
(:func:`~halguard.grounding.candidates.lexical_ranker`) instead of by embeddings, so it runs in milliseconds with no
model. :func:`overrule` applies them to an LLM step's verdict: a ``supported`` with a finding becomes
``hallucinated``, the claim's reasons name the finding, and ``errors`` records ``llm_overruled`` with the step that
said supported.

What the rules do not see an obedient model can still pass: a paraphrased fabrication with no new name or number, a
negation or a swapped role (those signals need the embedding search or the parser and are left to the local
verifier), a meaning change in the passages' own words.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from halguard.grounding.candidates import lexical_ranker
from halguard.grounding.job import (
    Limits,
    Unverifiable,
    check_context_length,
    check_text_lengths,
    read_inputs,
    read_sources,
)
from halguard.grounding.scoring import BLOCKING_FINDINGS, DEFAULT_WEIGHTS
from halguard.grounding.signals import ClaimMeasurements
from halguard.grounding.signals.measure import measure_claim
from halguard.grounding.signals.scope import scope_of
from halguard.schema import ClaimStatus, ClaimVerdict, UnsupportedSpan, Verdict, VerdictError
from halguard.text.claims import TOO_SHORT, Claim, asked_sentence_of, extract_claims
from halguard.text.contexts import Source, chunk_source
from halguard.text.lexical import affirms
from halguard.text.normalize import FoldedTooLong, Normalized, normalize_text
from halguard.text.segment import BudgetExceeded

__all__ = ["FINDINGS_LIMITS", "FINDINGS_TIME_BUDGET_S", "FINDINGS_UNCHECKED", "LLM_OVERRULED", "ClaimFindings",
           "Finding", "Findings", "deterministic_findings", "overrule", "overruled_reasons", "rewrite_refusal"]

LLM_OVERRULED = "llm_overruled"
"""The reason code of a verdict whose LLM step said supported against a deterministic finding."""
FINDINGS_UNCHECKED = "findings_unchecked"
"""The reason code of an LLM ``supported`` that could not be checked against the rules (input over the limits, the
time budget, a failure inside the rules): ``unverified``, never supported."""

# The local verifier's default sizes (LocalVerifier's max_answer_chars, max_context_chars, sentences_per_chunk,
# max_chunk_chars, max_question_chars): an input it would check is an input these rules check.
FINDINGS_LIMITS = Limits(max_answer_chars=100_000, max_context_chars=1_000_000, sentences_per_chunk=2,
                         max_chunk_chars=600, max_question_chars=20_000)
# The local verifier's default time budget (DEFAULT_TIME_BUDGET_S): the rules alone take milliseconds on the dev
# files' answers, so only a pathological input reaches it.
FINDINGS_TIME_BUDGET_S = 10.0

FindingKind = Literal["missing_name", "missing_number", "changed_number", "record_conflict", "record_unknown",
                      "hours_conflict", "choice_conflict", "wrong_arithmetic"]
# The kinds the passages state otherwise, by the local verifier's name for each: a CONTRADICTION where that kind is
# measured precise enough to block (scoring.BLOCKING_FINDINGS, issue 44), else a HALLUCINATION. Either way the
# finding stands against an LLM's "supported".
_STATED_OTHERWISE = {"changed_number": frozenset({"changed_numbers", "changed_number_in_copy"}),
                     "record_conflict": frozenset({"record_conflicts"}),
                     "hours_conflict": frozenset({"hours_conflicts"}),
                     "choice_conflict": frozenset({"choice_conflicts"}),
                     "wrong_arithmetic": frozenset({"arithmetic_errors"})}


@dataclass(frozen=True)
class Finding:
    """One deterministic finding: ``text`` is ``answer[start:end]`` (for a "Yes." that affirms a question's name or
    number, the span is the answer's sentence and ``text`` the affirmed term)."""

    kind: FindingKind
    start: int
    end: int
    text: str
    reason: str
    # The passages state otherwise (a changed number, a record conflict, wrong arithmetic) and the local verifier's
    # kind for it blocks (halguard.grounding.blocking.BLOCKING_FINDINGS: measured precise on the dev rows).
    blocks: bool = False

    @property
    def contradicts(self) -> bool:
        """Whether this finding is a CONTRADICTION: the passages state otherwise and its kind blocks."""
        return self.blocks


@dataclass(frozen=True)
class ClaimFindings:
    """A claim (a sentence of the answer, offsets in the answer as given) and its findings."""

    start: int
    end: int
    text: str
    findings: tuple[Finding, ...]

    @property
    def status(self) -> ClaimStatus:
        return ClaimStatus.CONTRADICTION if any(f.contradicts for f in self.findings) else ClaimStatus.HALLUCINATION


@dataclass(frozen=True)
class Findings:
    """The claims with findings (none: the rules found nothing), or why the rules could not run (``unchecked``)."""

    claims: tuple[ClaimFindings, ...] = ()
    unchecked: VerdictError | None = None

    @property
    def all(self) -> list[Finding]:
        return [f for c in self.claims for f in c.findings]

    def inside(self, start: int, end: int) -> list[Finding]:
        """The findings within ``[start, end)`` of the answer."""
        return [f for f in self.all if start <= f.start and f.end <= end]


def deterministic_findings(answer: str, contexts: Any, *, question: str | None = None,
                           time_budget_s: float | None = FINDINGS_TIME_BUDGET_S) -> Findings:
    """The names and numbers of ``answer`` that ``contexts`` lack or state otherwise, per claim, with offsets.

    The question is read only as the local verifier reads it: to split the answer into claims, to see what a
    "Yes." affirms and which options a choice question offers. Its names and numbers are never evidence. Never
    raises for content: an input over :data:`FINDINGS_LIMITS`, the time budget or a failure inside the rules gives
    ``Findings(unchecked=...)``.

    Raises:
        InputTypeError: ``answer`` is not a str, ``question`` not a str or None, or a context has a bad type.
    """
    sources = read_inputs(answer, contexts, question)
    deadline = None if time_budget_s is None else time.monotonic() + time_budget_s
    try:
        return Findings(tuple(_find(answer, sources, question, deadline)))
    except Unverifiable as exc:
        return Findings(unchecked=VerdictError(code=exc.code, message=exc.message))
    except FoldedTooLong as exc:
        return Findings(unchecked=VerdictError(code="answer_too_long", message=f"{exc}: over the rules' limits"))
    except BudgetExceeded:
        return Findings(unchecked=VerdictError(code="budget_exceeded", message=f"the rules ran past {time_budget_s} s"))
    except Exception as exc:  # noqa: BLE001 - a guard turns its own failures into a reason, never a crash
        return Findings(unchecked=VerdictError(code="internal_error", message=f"{type(exc).__name__}: {exc}"[:300]))


def _find(answer: str, sources: list[Source], question: str | None, deadline: float | None) -> list[ClaimFindings]:
    limits = FINDINGS_LIMITS
    check_text_lengths(answer, question, max_answer_chars=limits.max_answer_chars,
                       max_question_chars=limits.max_question_chars)
    check_context_length(sources, max_context_chars=limits.max_context_chars)
    original = normalize_text(answer, max_chars=limits.max_answer_chars)
    if question:
        question = normalize_text(question, max_chars=limits.max_question_chars).text
    try:
        sources = read_sources(sources, limits, deadline)[0]
    except Unverifiable as exc:
        if exc.code != "no_context":
            raise
        sources = []  # nothing to find a name or number in: every one the answer states is missing
    split = extract_claims(original.text, question, deadline=deadline)
    claims = split.claims + (_skipped_affirmations(original.text, question, split.skipped) if question else [])
    if not claims:
        return []
    chunks = [ch.text for src in sources
              for ch in chunk_source(src.text, sentences_per_chunk=limits.sentences_per_chunk,
                                     max_chars=limits.max_chunk_chars, deadline=deadline)]
    ranker = lexical_ranker(chunks)
    scope = scope_of(sources, question)
    out = []
    for claim in claims:
        scores = ranker(claim.check_text)
        # The claim's closest evidence, as the local verifier's search would find it, here by shared rare words.
        best = min(scores.items(), key=lambda kv: (-kv[1], kv[0]))[0] if scores else None
        measured = measure_claim(claim, 0.0, chunks[best] if best is not None else "", scope, DEFAULT_WEIGHTS)
        found = _claim_findings(claim, measured, original)
        if found:
            start, end = original.span(claim.start, claim.end)
            out.append(ClaimFindings(start, end, answer[start:end], tuple(found)))
    return out


def _skipped_affirmations(text: str, question: str, skipped: list[tuple[int, int, str]]) -> list[Claim]:
    """The "Yes." sentences the claim split skipped as too short (one sentence of several: "Yes. As noted, ..."),
    as claims read with the question: a "Yes." claims what the question asks, whatever follows it."""
    asked = asked_sentence_of(question)
    return [Claim(start=s, end=e, text=text[s:e], check_text=text[s:e], question_aware=True, asked=asked)
            for s, e, why in skipped if why == TOO_SHORT and affirms(text[s:e])]


def _claim_findings(claim: Claim, m: ClaimMeasurements, original: Normalized) -> list[Finding]:
    """The findings among one claim's measurements, on the answer as given."""
    answer = original.original

    blocking = m.finding_kinds() & BLOCKING_FINDINGS

    def finding(kind: FindingKind, s: int, e: int, reason: str) -> Finding:
        s, e = original.span(s, e)
        return Finding(kind, s, e, answer[s:e], reason.format(t=repr(answer[s:e])),
                       blocks=bool(_STATED_OTHERWISE.get(kind, frozenset()) & blocking))

    out = [finding("missing_name", s, e, "{t}: a name the passages do not contain")
           for s, e in m.missing_entities if (s, e) != m.affirmed_span]
    number = ("changed_number", "{t}: a number the passages state otherwise (its closest passage has other numbers)"
              ) if m.evidence_has_numbers else ("missing_number", "{t}: a number the passages do not contain")
    out += [finding(number[0], s, e, number[1]) for s, e in m.missing_numbers if (s, e) != m.affirmed_span]
    denied = set(m.record_denials)
    out += [finding("record_conflict", s, e, "{t}: denied, a feature a record in the passages marks as there"
                    if (s, e) in denied else "{t}: a feature a record in the passages marks as absent")
            for s, e in m.record_conflicts]
    out += [finding("record_unknown", s, e, ("{t}: denied, " if (s, e) in denied else "{t}: ")
                    + "a feature a record in the passages leaves unknown") for s, e in m.record_unknowns]
    out += [finding("hours_conflict", s, e, "{t}: opening hours " + why) for s, e, why in m.hours_conflicts]
    out += [finding("choice_conflict", s, e, "{t}: the other option, as " + why) for s, e, why in m.choice_conflicts]
    out += [finding("wrong_arithmetic", s, e, why) for s, e, why in m.arithmetic_errors]
    if m.affirmed_span is not None:  # "Yes." to "Was it built in Berlin?" claims Berlin
        s, e = original.span(*m.affirmed_span)
        out += [Finding("missing_name", s, e, name, f"the answer affirms {name!r} from the question; the passages "
                        "do not contain it") for name in m.affirmed_names]
        out += [Finding("missing_number", s, e, num, f"the answer affirms {num!r} from the question; the passages "
                        "do not contain it") for num in m.affirmed_numbers]
    return sorted(out, key=lambda f: (f.start, f.end))


def overrule(verdict: Verdict, findings: Findings, *, step: str) -> Verdict:
    """``verdict`` (an LLM step's) with the findings standing: a ``supported`` with a finding is ``hallucinated``.

    Each claim with a finding inside is flagged (CONTRADICTION when the passages state otherwise, else
    HALLUCINATION), its reasons naming the finding and that ``step`` said supported; a finding outside every claim
    adds its own claim; each finding is a span; ``errors`` gets :data:`LLM_OVERRULED`. A ``supported`` the rules
    could not check (``findings.unchecked``) is ``unverified`` with :data:`FINDINGS_UNCHECKED`. Any other verdict
    comes back as it is.
    """
    if verdict.label != "supported":
        return verdict
    if findings.unchecked is not None:
        why = findings.unchecked
        error = VerdictError(code=FINDINGS_UNCHECKED, message=f"{step} said supported, but the names and numbers of "
                             f"the answer could not be checked against the passages ({why.code}: {why.message})")
        return verdict.model_copy(update={"label": "unverified", "hallucination_detected": False, "score": None,
                                          "probability": None, "errors": [*verdict.errors, error]})
    found = findings.all
    if not found:
        return verdict
    score = round(max(verdict.score or 0.0, verdict.threshold), 4)
    claims: list[ClaimVerdict] = []
    placed: set[Finding] = set()
    for c in verdict.claims:
        inside = [f for f in found if c.start <= f.start and f.end <= c.end]
        placed.update(inside)
        if inside and not c.status.is_flagged:
            status = ClaimStatus.CONTRADICTION if any(f.contradicts for f in inside) else ClaimStatus.HALLUCINATION
            c = c.model_copy(update={"status": status, "score": max(c.score, score),
                                     "reasons": [*c.reasons, *overruled_reasons(inside, step)]})
        claims.append(c)
    for fc in findings.claims:
        rest = [f for f in fc.findings if f not in placed]
        if rest:
            claims.append(ClaimVerdict(text=fc.text, start=fc.start, end=fc.end, status=fc.status, score=score,
                                       reasons=overruled_reasons(rest, step)))
    spans = [*verdict.spans, *(UnsupportedSpan(start=f.start, end=f.end, text=f.text, confidence=score,
                                               reason=f.reason) for f in found)]
    error = VerdictError(code=LLM_OVERRULED, message=f"{step} said supported; overruled by the rules: "
                         + "; ".join(f.reason for f in found)[:500])
    return verdict.model_copy(update={
        "label": "hallucinated", "hallucination_detected": True, "score": score,
        "claims": sorted(claims, key=lambda c: (c.start, c.end)),
        "spans": sorted(spans, key=lambda s: (s.start, s.end)),
        "errors": [*verdict.errors, error]})


def overruled_reasons(found: Sequence[Finding], step: str) -> list[str]:
    """The reasons a claim overruled by ``found`` carries: each finding's, then which step said supported."""
    return [*(f.reason for f in found), f"{step} said supported; the finding stands ({LLM_OVERRULED})"]


def rewrite_refusal(rewrite: str, passages: Any, question: str | None = None) -> str | None:
    """Why an LLM's rewrite of a sentence cannot be taken, or None: it states a name or number the passages lack or
    state otherwise (:data:`LLM_OVERRULED`), or the rules could not check it (:data:`FINDINGS_UNCHECKED`). A
    rewrite is the model's own text, never evidence: it is accepted only when it passes the rules."""
    findings = deterministic_findings(rewrite, passages, question=question or None)
    if findings.unchecked is not None:
        return f"{FINDINGS_UNCHECKED}: the rules could not check it ({findings.unchecked.code})"
    if findings.claims:
        return f"{LLM_OVERRULED}: " + "; ".join(f.reason for f in findings.all)
    return None
