"""False-premise questions: check the question's assumptions against the context, and rewrite it only when
they fail (the "Stitch in Time" paper's variant).

One yes/no call asks whether the context supports the question's assumptions (``VERDICT <nonce> yes``, P(yes) from
the verdict token's probabilities; the question and the passages are data in the call's block:
:mod:`halguard.llm.envelope`). Only a "no" (P(yes) under ``premise_yes``) leads to a second call that rewrites
the question (its reply bound to that call's nonce: ``QUESTION <nonce> ...``); a "yes", an unreadable or unbound
answer, or a failed call leave the question exactly as it was, so a true premise is never rewritten by this step.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from halguard.active.evidence import EvidencePool
from halguard.active.prompts import bound_text, premise_check_messages, premise_rewrite_messages
from halguard.active.settings import DEFAULT_ACTIVE_SETTINGS, ActiveSettings
from halguard.active.steps import Ask, Budget, Refused, Step, adrive, drive
from halguard.errors import InputTypeError, InvalidInputError
from halguard.llm.envelope import Envelope
from halguard.llm.providers import as_chat_model
from halguard.llm.yesno import read_yes_no
from halguard.schema import PremiseRectification, Usage
from halguard.text.contexts import normalize_contexts

__all__ = ["arectify_premise", "rectify_premise"]

TOP_LOGPROBS = 10


def _steps(question: str, pool: EvidencePool, settings: ActiveSettings) -> Generator[Step, Any, dict[str, Any]]:
    evidence = pool.best(question, k=settings.evidence_passages, max_chars=settings.evidence_chars) or pool.context(
        settings.evidence_chars)
    ids = list(dict.fromkeys(sid for sid, _ in evidence))
    keep = {"rectified_question": question, "evidence_ids": ids}
    if not evidence:
        return {**keep, "outcome": "unverified", "reason": "no context to check the question against"}
    envelope = Envelope.new()
    reply = yield Ask(premise_check_messages(question, evidence, envelope), "premise", top_logprobs=TOP_LOGPROBS,
                      envelope=envelope)
    if isinstance(reply, Refused):
        return {**keep, "outcome": "unverified", "reason": f"the premise check did not run: {reply.reason}"}
    yn = read_yes_no(reply, nonce=envelope.nonce, word_yes=settings.yes_no_word, word_no=1 - settings.yes_no_word)
    if yn.p_yes is None:
        return {**keep, "outcome": "unverified", "reason": f"{yn.code}: {yn.reason}"}
    if yn.p_yes >= settings.premise_yes:
        return {**keep, "outcome": "true_premise", "p_yes": round(yn.p_yes, 4),
                "reason": f"the context supports the question's assumptions (P(yes) from {yn.source})"}
    envelope = Envelope.new()
    rewrite = yield Ask(premise_rewrite_messages(question, evidence, envelope), "rewrite", envelope=envelope)
    text, refused = ("", rewrite.reason) if isinstance(rewrite, Refused) else bound_text(rewrite.text, envelope.nonce,
                                                                                        "QUESTION")
    if not text or len(text) > 3 * len(question) + 200:
        why = refused or "the rewrite was unusable"
        return {**keep, "outcome": "unverified", "p_yes": round(yn.p_yes, 4),
                "reason": f"the premise looks false, but the question was not rewritten: {why}"}
    return {**keep, "rectified_question": text, "outcome": "rectified" if text != question else "true_premise",
            "p_yes": round(yn.p_yes, 4), "reason": f"the context does not support the question's assumptions "
            f"(P(yes) from {yn.source})"}


def _pool(question: Any, contexts: Any) -> EvidencePool:
    if not isinstance(question, str):
        msg = f"question must be a str, got {type(question).__name__}"
        raise InputTypeError(msg)
    if not question.strip():
        msg = "question must not be empty"
        raise InvalidInputError(msg)
    pool = EvidencePool()
    pool.add(normalize_contexts(contexts))
    return pool


def _result(question: str, data: dict[str, Any], budget: Budget) -> PremiseRectification:
    m = budget.meter
    return PremiseRectification(question=question, **data, usage=Usage.from_meter(m))


def rectify_premise(question: str, contexts: Any, *, llm: Any, settings: ActiveSettings = DEFAULT_ACTIVE_SETTINGS,
                    cache: Any = None) -> PremiseRectification:
    """Check ``question``'s assumptions against ``contexts``; rewrite it only when the check says they fail.

    Returns:
        The :class:`~halguard.schema.PremiseRectification`: ``rectified_question`` is the question to answer
        (the original unless ``outcome == "rectified"``).
    """
    pool = _pool(question, contexts)
    budget = Budget(settings.max_extra_calls, settings.timeout_s)
    data = drive(_steps(question, pool, settings), chat=as_chat_model(llm), budget=budget, cache=cache)
    return _result(question, data, budget)


async def arectify_premise(question: str, contexts: Any, *, llm: Any,
                           settings: ActiveSettings = DEFAULT_ACTIVE_SETTINGS, cache: Any = None) -> PremiseRectification:
    """Async twin of :func:`rectify_premise`."""
    pool = _pool(question, contexts)
    budget = Budget(settings.max_extra_calls, settings.timeout_s)
    data = await adrive(_steps(question, pool, settings), chat=as_chat_model(llm), budget=budget, cache=cache)
    return _result(question, data, budget)
