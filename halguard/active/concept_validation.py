"""Validating one uncertain concept of a generated sentence: the model writes a yes/no question about it, the
evidence is found (the app's retriever queried with the question, else the best windows of what was seen), and the
model answers it from that evidence alone; P(yes) decides, except against the rules: a concept the model validated
that holds a name or number every passage seen lacks or states otherwise (:mod:`halguard.grounding.findings`, no
model) fails (``llm_overruled`` in its reason).

Written as a generator of :mod:`~halguard.active.steps` (Ask/Retrieve), so it runs sync or async.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from halguard.active.evidence import EvidencePool
from halguard.active.prompts import bound_text, question_messages, validation_messages
from halguard.active.settings import ActiveSettings
from halguard.active.steps import Ask, Refused, Retrieve, Step
from halguard.grounding.findings import FINDINGS_UNCHECKED, LLM_OVERRULED, deterministic_findings
from halguard.llm.envelope import Envelope
from halguard.llm.yesno import read_yes_no
from halguard.schema import ConceptCheck

__all__ = ["MAX_QUESTION_CHARS", "TOP_LOGPROBS_YES_NO", "validate_concept"]

TOP_LOGPROBS_YES_NO = 10
MAX_QUESTION_CHARS = 300  # a validation question is one short line; a longer one is cut, then checked for its "?"


def validate_concept(ch: ConceptCheck, sentence: str, question: str, pool: EvidencePool, *,
                     settings: ActiveSettings, can_retrieve: bool) -> Generator[Step, Any, tuple[Any, int]]:
    """Ask, answer and judge one concept's validation question; ``ch`` gets the outcome, question and evidence.

    Args:
        ch: The concept (its ``outcome``, ``reason``, ``question``, ``evidence_ids`` and ``p_yes`` are set).
        sentence: The sentence the concept is in.
        question: The user's question (the topic of the validation question).
        pool: Every passage seen so far; the retrieved ones are added to it.
        settings: The evidence sizes and the yes/no threshold.
        can_retrieve: Whether the app's retriever is queried with the validation question.

    Returns:
        (evidence or the :class:`~halguard.active.steps.Refused` step, calls made).
    """
    s, calls = settings, 1
    envelope = Envelope.new()
    reply = yield Ask(question_messages(sentence, ch.text, question, envelope), "question", envelope=envelope)
    if isinstance(reply, Refused):
        return reply, calls
    written, why = bound_text(reply.text, envelope.nonce, "QUESTION")
    asked = (written or "")[:MAX_QUESTION_CHARS]
    if not asked.endswith("?") or len(asked) < 8:
        asked = f"Is it true that {sentence.rstrip('.!? ')}?"
        ch.reason = (f"the model's question was unusable{f' ({why})' if why else ''}; the sentence is asked as it "
                     "is. ")
    ch.question = asked
    among = None
    if can_retrieve:
        found = yield Retrieve(asked)
        if isinstance(found, list):
            among = {src.id for src in pool.add(found)} | {src.id for src in found}
    # The question and the sentence: a wrong value shares nothing with the evidence, its topic words do.
    query = f"{asked} {sentence}"
    evidence = pool.best(query, k=s.evidence_passages, max_chars=s.evidence_chars, among=among)
    if not evidence and among is not None:  # the retriever found nothing new: the context may still say it
        evidence = pool.best(query, k=s.evidence_passages, max_chars=s.evidence_chars)
    ch.evidence_ids = list(dict.fromkeys(sid for sid, _ in evidence))
    if not evidence:
        ch.outcome, ch.reason = "failed", ch.reason + "no evidence mentions it"
        return evidence, calls
    envelope = Envelope.new()
    answer = yield Ask(validation_messages(asked, evidence, envelope), "validate",
                       top_logprobs=TOP_LOGPROBS_YES_NO, envelope=envelope)
    calls += 1
    if isinstance(answer, Refused):
        return answer, calls
    yn = read_yes_no(answer, nonce=envelope.nonce, word_yes=s.yes_no_word, word_no=1 - s.yes_no_word)
    if yn.p_yes is None:
        ch.outcome, ch.reason = "unverified", ch.reason + f"{yn.code}: {yn.reason}"
        return evidence, calls
    ch.p_yes = round(yn.p_yes, 4)
    ch.outcome = "validated" if yn.p_yes >= s.validation_yes else "failed"
    ch.reason += f"P(yes) from {yn.source}"
    if ch.outcome == "validated":
        _against_the_rules(ch, sentence, question, pool)
    return evidence, calls


def _against_the_rules(ch: ConceptCheck, sentence: str, question: str, pool: EvidencePool) -> None:
    """A validated concept fails when the rules find a name or number in it that the passages lack or state
    otherwise: the model's "yes" does not stand against them (and is ``unverified`` when they could not run)."""
    findings = deterministic_findings(sentence, pool.sources, question=question or None)
    if findings.unchecked is not None:
        ch.outcome = "unverified"
        ch.reason += f"; {FINDINGS_UNCHECKED}: the rules could not check it ({findings.unchecked.message})"
        return
    found = [f for f in findings.all if f.start < ch.end and ch.start < f.end]
    if found:
        ch.outcome = "failed"
        ch.reason += f"; the model said yes, but {'; '.join(f.reason for f in found)} ({LLM_OVERRULED})"
