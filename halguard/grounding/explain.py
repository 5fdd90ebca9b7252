"""What the verdict says about a claim: its status, the reasons in words, and the unsupported spans."""

from __future__ import annotations

import re
from typing import Any

from halguard.grounding.signals import ClaimMeasurements
from halguard.schema import ClaimStatus, EvidenceRef, UnsupportedSpan
from halguard.text.claims import Claim

__all__ = ["claim_status", "reasons", "unsupported_spans"]

# Unsupported words at most this many characters apart, with only words, spaces and hyphens between them, form
# one phrase: readers (and annotators) mark "a 24-hour bar", not "24-hour" and "bar" separately. 12 characters
# joins across one or two short words; hand-set (phrases instead of whole sentences took RAGTruth span F1 from
# 0.064 to 0.107).
PHRASE_GAP = 12
_PHRASE_GLUE = re.compile(r"[\s\w'’-]*")
# From this P(unsupported) on, a claim's reasons say the claim checker finds it unsupported (even odds).
MEANING_REASON_RISK = 0.5
# The longest evidence sentence quoted in a reason ("negation differs from the evidence: it says ..."); a longer one
# is cut, so a reason stays a line.
_QUOTED_CHARS = 160


def claim_status(risk: float, s: ClaimMeasurements, *, threshold: float, weak_threshold: float,
                 contradiction_threshold: float | None = None, floored: bool = False) -> ClaimStatus:
    """SUPPORTED below ``weak_threshold``, WEAK_SUPPORT below ``threshold``; flagged claims are CONTRADICTION when a
    signal contradicts the evidence (:attr:`ClaimMeasurements.contradicts`), else HALLUCINATION. A contradicting
    claim, or a ``floored`` one (a short answer's floor finding: :data:`halguard.grounding.blocking.
    SHORT_ANSWER_FLOORS`), is flagged from ``contradiction_threshold`` on when that is lower than ``threshold``."""
    if (s.contradicts or floored) and contradiction_threshold is not None and risk >= contradiction_threshold:
        return ClaimStatus.CONTRADICTION if s.contradicts else ClaimStatus.HALLUCINATION
    if risk < weak_threshold:
        return ClaimStatus.SUPPORTED
    if risk < threshold:
        return ClaimStatus.WEAK_SUPPORT
    return ClaimStatus.CONTRADICTION if s.contradicts else ClaimStatus.HALLUCINATION


# The most names or numbers a reason lists ("names not in the context: ..."); the claim's signals keep every span.
_LISTED_ITEMS = 8


def _cut(text: str) -> str:
    return text if len(text) <= _QUOTED_CHARS else text[:_QUOTED_CHARS].rstrip() + " ..."


def _listed(items: list[str]) -> str:
    """Items for a reason, each cut at :data:`_QUOTED_CHARS` and at most :data:`_LISTED_ITEMS` of them: a crafted
    answer's one "name" of thousands of words stays a line."""
    shown = ", ".join(_cut(item) for item in items[:_LISTED_ITEMS])
    return shown + (f" and {len(items) - _LISTED_ITEMS} more" if len(items) > _LISTED_ITEMS else "")


def reasons(s: ClaimMeasurements, answer: str, cited: list[str | None], labels: tuple[str, ...],
            evidence: list[EvidenceRef]) -> list[str]:
    """Why the claim got its risk, in words; the first reason is always the best evidence similarity."""
    out = [f"best evidence similarity {s.similarity:.2f}"]
    placed = set(s.numbers_placed_otherwise)
    numbers = s.named(answer, [sp for sp in s.missing_numbers if sp not in placed], [])
    names = s.named(answer, s.missing_entities, [])
    if numbers:
        out.append("numbers not in the context: " + _listed(numbers))
    if placed:
        out.append("numbers the context gives otherwise: " + ", ".join(answer[a:b] for a, b in sorted(placed)))
    if names:
        out.append("names not in the context: " + _listed(names))
    if s.affirmed_names or s.affirmed_numbers:
        out.append("affirms what only the question states: " + ", ".join(s.affirmed_names + s.affirmed_numbers))
    if s.meaning_risk is not None and s.meaning_risk >= MEANING_REASON_RISK:
        marked = ", ".join(answer[a:b] for a, b in s.meaning_spans[:4])
        out.append(f"the claim checker finds it unsupported (P(supported) {1 - s.meaning_risk:.2f})"
                   + (f": {marked}" if marked else ""))
    if s.novel_terms:
        out.append("words not in the context: " + ", ".join(answer[a:b] for a, b in s.novel_terms[:8]))
    if s.negation_mismatch:
        said = " ".join(s.negated_evidence.split())
        out.append("negation differs from the evidence" + (f': it says "{_cut(said)}"' if said else ""))
    if s.antonym_flips:
        out.append("the opposite of the closest evidence: " + ", ".join(answer[a:b] for a, b in s.antonym_flips))
    denied = set(s.record_denials)
    for spans, asserts, denies in ((s.record_conflicts, "asserts what the record marks absent",
                                    "denies what the record marks there"),
                                   (s.record_unknowns, "asserts what the record leaves unknown",
                                    "denies what the record leaves unknown")):
        for says, said in ((asserts, [sp for sp in spans if sp not in denied]),
                           (denies, [sp for sp in spans if sp in denied])):
            if said:
                out.append(f"{says}: " + ", ".join(answer[a:b] for a, b in said))
    out.extend(f"opening hours: {answer[a:b]!r}, but {why}" for a, b, why in s.hours_conflicts)
    out.extend(f"the other option: {answer[a:b]!r}, but {why}" for a, b, why in s.choice_conflicts)
    out.extend(f"who did what to whom: {why}" for _, _, why in s.role_conflicts)
    out.extend(f"wrong arithmetic: {why}" for _, _, why in s.arithmetic_errors)
    unresolved = [lab for lab, c in zip(labels, cited) if c is None]
    if unresolved:
        out.append("cites unknown sources: " + ", ".join(f"[{lab}]" for lab in unresolved))
    resolved = {c for c in cited if c is not None}
    if resolved and evidence and evidence[0].source_id not in resolved:
        out.append(f"best evidence is in source {evidence[0].source_id}, not in the cited {sorted(resolved)}")
    return out


def unsupported_spans(answer: str, claim: Claim, s: ClaimMeasurements, risk: float,
                      why: list[str]) -> list[UnsupportedSpan]:
    """The unsupported parts of a flagged claim: missing names and numbers, record conflicts, flips and wrong
    calculations as they are, unsupported words joined into phrases; the whole claim when none is known."""
    specific = sorted(
        [(a, b, "number the context gives otherwise" if (a, b) in s.numbers_placed_otherwise
          else "number not in the context") for a, b in s.missing_numbers]
        + [(a, b, "name not in the context") for a, b in s.missing_entities]
        + [(a, b, "the record marks this there" if (a, b) in s.record_denials else "the record marks this absent")
           for a, b in s.record_conflicts]
        + [(a, b, "the record leaves this unknown") for a, b in s.record_unknowns]
        + [(a, b, why) for a, b, why in s.hours_conflicts]
        + [(a, b, why) for a, b, why in s.choice_conflicts]
        + [(a, b, "the opposite of the evidence") for a, b in s.antonym_flips]
        + [(a, b, explanation) for a, b, explanation in s.arithmetic_errors]
    )
    # A role conflict's argument marks its words unless a finding above marks some of them more narrowly ("2019" of
    # "on 25 December 2019" where the passage has 2021): the narrower span says which words; the claim's reasons keep
    # the role's.
    specific = sorted(specific + [(a, b, why) for a, b, why in s.role_conflicts
                                  if not any(a <= st and e <= b for st, e, _ in specific)])
    # The words the claim checker marks, where it marked any: they follow meaning (a swapped role, an added clause);
    # else the words found nowhere in the context.
    marked = s.meaning_spans if s.meaning_spans else s.novel_terms
    words = [(a, b) for a, b in marked if not any(a < e and b > st for st, e, _ in specific)]
    if not specific and not words:
        return [UnsupportedSpan(start=claim.start, end=claim.end, text=claim.text, confidence=round(risk, 4),
                                reason="; ".join(why[1:]) or "weak evidence")]
    merged: list[list[Any]] = []
    for a, b, reason in specific:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b, reason])
    phrases: list[list[Any]] = []
    for a, b in words:
        if phrases and a - phrases[-1][1] <= PHRASE_GAP and _PHRASE_GLUE.fullmatch(answer[phrases[-1][1] : a]):
            phrases[-1][1] = b
        else:
            phrases.append([a, b, "unsupported by the evidence" if s.meaning_spans else "words not in the context"])
    return [UnsupportedSpan(start=a, end=b, text=answer[a:b], confidence=round(risk, 4), reason=reason)
            for a, b, reason in sorted(merged + phrases)]
