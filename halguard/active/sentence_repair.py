"""Repairing a generated sentence whose concept failed validation, while the answer is generated: the model
rewrites it from the evidence of the failed concept, or it is dropped when no evidence supports it.

A rewrite is accepted only when the rules find no name or number in it that the passages lack or state otherwise
(:mod:`halguard.grounding.findings`): the model's rewrite is not evidence. Written as a generator of
:mod:`~halguard.active.steps` (Ask), so it runs sync or async. Post-hoc repair of an
answer already written is :mod:`halguard.active.repair`.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from halguard.active.prompts import read_repair, repair_messages
from halguard.active.steps import Ask, Refused, Step
from halguard.grounding.findings import rewrite_refusal
from halguard.llm.envelope import Envelope
from halguard.schema import ConceptCheck, SentenceTrace

__all__ = ["repair_sentence"]


def repair_sentence(index: int, sentence: str, question: str, *, failed: ConceptCheck, checks: list[ConceptCheck],
                    evidence: list[tuple[str, str]], reason: str, calls: int,
                    max_growth: float, passages: Any = ()) -> Generator[Step, Any, SentenceTrace]:
    """The trace of a sentence whose concept ``failed`` validation: repaired, dropped, or kept (repair failed).

    Args:
        index: The sentence's place in the answer.
        sentence: The sentence.
        question: The user's question.
        failed: The concept that failed validation.
        checks: Every concept check of the sentence.
        evidence: The failed concept's evidence, ``(source id, text)`` pairs; none: the sentence is dropped.
        reason: What the trace's reason starts with.
        calls: The calls the sentence took so far.
        max_growth: How much longer than the sentence a rewrite may be (``ActiveSettings.max_repair_growth``).
        passages: Every passage seen (the rules look a rewrite's names and numbers up in them).
    """
    ids = list(dict.fromkeys(sid for sid, _ in evidence))
    if not evidence:
        return SentenceTrace(index=index, original=sentence, final=None, decision="dropped", concepts=checks,
                             reason=reason + f"no evidence about {failed.text!r}", calls=calls)
    envelope = Envelope.new()
    reply = yield Ask(repair_messages(sentence, evidence, question, envelope), "repair", envelope=envelope)
    calls += 1
    if isinstance(reply, Refused):
        return SentenceTrace(index=index, original=sentence, final=sentence, decision="repair_failed",
                             concepts=checks, evidence_ids=ids, calls=calls,
                             reason=reason + f"{failed.text!r} failed validation; the repair did not run "
                             f"({reply.reason})")
    kind, fixed, why = read_repair(reply.text, sentence, max_growth, envelope.nonce)
    refusal = rewrite_refusal(fixed, passages, question) if fixed is not None else None
    if refusal is not None:
        kind, fixed, why = "refused", None, refusal
    if kind == "none":
        return SentenceTrace(index=index, original=sentence, final=None, decision="dropped", concepts=checks,
                             evidence_ids=ids, calls=calls,
                             reason=reason + f"{failed.text!r} failed validation and the evidence supports "
                             "nothing of the sentence")
    if fixed is None:
        return SentenceTrace(index=index, original=sentence, final=sentence, decision="repair_failed",
                             concepts=checks, evidence_ids=ids, calls=calls,
                             reason=reason + f"{failed.text!r} failed validation; the repair was "
                             f"{_unusable(kind, why)}")
    return SentenceTrace(index=index, original=sentence, final=fixed, decision="repaired", concepts=checks,
                         evidence_ids=ids, calls=calls,
                         reason=reason + f"{failed.text!r} failed validation (P(yes) {failed.p_yes})")


def _unusable(kind: str, why: str) -> str:
    """How a repair reply that gave no rewrite is described in a trace."""
    if kind == "empty":
        return "empty"
    return f"refused ({why})" if kind == "refused" else "not a rewrite of the sentence"
