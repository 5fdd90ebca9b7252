"""What a guard does with a verdict: annotate, raise, fall back or filter; fail open or closed.

Framework-free, so the LangChain and LlamaIndex guards apply exactly the same rules:

- ``on_hallucination="annotate"`` (default): pass the answer through with the verdict attached.
- ``"raise"``: raise :class:`~halguard.errors.HallucinationError` carrying the verdict.
- ``"fallback"``: replace the answer with a fixed message (or the result of a fallback runnable/engine).
- ``"filter"``: drop the flagged sentences from the answer and record what was removed in the verdict.
- ``"repair"``: rewrite the flagged sentences from the retrieved context with an LLM (or remove them), check the
  repaired answer again, and drop what that check still flags (:func:`halguard.active.repair.repair_decision`).

``on_unverified`` decides for a check that could not run: ``"fail_open"`` (default) passes the answer
through, annotated as ``unverified``; ``"fail_closed"`` treats it like a hallucination: ``raise`` raises
:class:`~halguard.errors.UnverifiedError`, ``fallback`` falls back, and ``filter`` (which has no verified
sentence to keep) and ``repair`` raise :class:`~halguard.errors.UnverifiedError` too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from halguard.errors import HallucinationError, InvalidInputError, UnverifiedError, verdict_summary
from halguard.schema import PolicyAction, UnsupportedSpan, Verdict

__all__ = [
    "GuardDecision",
    "OnHallucination",
    "OnUnverified",
    "decide",
    "filter_answer",
    "fallback_unchecked",
    "refuse_to_retype",
    "replacement_text",
    "tidy_text",
    "validate_policy",
    "with_fallback_verdict",
]

OnHallucination = Literal["annotate", "raise", "fallback", "filter", "repair"]
OnUnverified = Literal["fail_open", "fail_closed"]
_ON_HALLUCINATION = ("annotate", "raise", "fallback", "filter", "repair")
_ON_UNVERIFIED = ("fail_open", "fail_closed")
DEFAULT_FALLBACK = "I could not find support for an answer to that in the retrieved documents."


def validate_policy(on_hallucination: str, on_unverified: str) -> None:
    """Raise :class:`InvalidInputError` for an unknown policy name."""
    if on_hallucination not in _ON_HALLUCINATION:
        msg = f"on_hallucination must be one of {_ON_HALLUCINATION}, got {on_hallucination!r}"
        raise InvalidInputError(msg)
    if on_unverified not in _ON_UNVERIFIED:
        msg = f"on_unverified must be one of {_ON_UNVERIFIED}, got {on_unverified!r}"
        raise InvalidInputError(msg)


@dataclass(frozen=True)
class GuardDecision:
    """The action for one verdict.

    Attributes:
        action: ``"pass"`` (keep the answer), ``"fallback"``, ``"filter"`` or ``"repair"`` (the guard repairs the
            answer: :func:`halguard.active.repair.repair_decision`); ``"raise"`` never comes back from :func:`decide`,
            which raises instead.
        verdict: The verdict, with ``action`` recorded on it (a copy: the input verdict is not changed).
        answer: The answer to return for ``"filter"`` (the kept sentences); None otherwise.
    """

    action: Literal["pass", "fallback", "filter", "repair"]
    verdict: Verdict
    answer: str | None = None


def filter_answer(answer: str, verdict: Verdict) -> tuple[str, list[UnsupportedSpan]]:
    """Remove the flagged claims (CONTRADICTION / HALLUCINATION) from ``answer``.

    Returns the filtered text (whitespace tidied) and the removed spans, in answer offsets.
    """
    removed = [
        UnsupportedSpan(start=c.start, end=c.end, text=c.text, confidence=c.score, reason=c.status.value)
        for c in sorted(verdict.claims, key=lambda c: c.start)
        if c.status.is_flagged
    ]
    pieces, cursor = [], 0
    for span in removed:
        pieces.append(answer[cursor : span.start])
        cursor = span.end
    pieces.append(answer[cursor:])
    return tidy_text("".join(pieces)), removed


def tidy_text(text: str) -> str:
    """An answer with sentences taken out or replaced, tidied: no runs of spaces, at most one blank line, no
    trailing spaces on a line, no surrounding whitespace."""
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return "\n".join(line.rstrip() for line in text.splitlines()).strip()


def decide(
    verdict: Verdict,
    answer: str,
    *,
    on_hallucination: str = "annotate",
    on_unverified: str = "fail_open",
) -> GuardDecision:
    """Apply the policy to ``verdict``.

    Raises:
        HallucinationError: the answer is hallucinated and ``on_hallucination="raise"``.
        UnverifiedError: the check did not run, ``on_unverified="fail_closed"`` and the policy is
            ``raise``, ``filter`` or ``repair``.
    """
    validate_policy(on_hallucination, on_unverified)
    flagged = verdict.label == "hallucinated"
    closed = verdict.label == "unverified" and on_unverified == "fail_closed"
    if not (flagged or closed) or on_hallucination == "annotate":
        action = PolicyAction(action="annotate")
        return GuardDecision("pass", verdict.model_copy(update={"action": action}))
    if on_hallucination == "raise" or (closed and on_hallucination in ("filter", "repair")):
        record = verdict.model_copy(update={"action": PolicyAction(action="raise")})
        # The message quotes no text (it reaches logs and traces); the claims and error messages are on the verdict.
        if closed:
            msg = (f"halguard could not verify the answer ({verdict_summary(verdict)}) and the policy fails closed; "
                   "the errors are on exc.verdict")
            raise UnverifiedError(msg, verdict=record)
        risk = "" if verdict.score is None else f"risk {verdict.score:.2f}; "
        msg = (f"halguard flagged the answer as hallucinated ({risk}{verdict_summary(verdict)}); the flagged claims "
               "are on exc.verdict")
        raise HallucinationError(msg, verdict=record)
    if on_hallucination == "fallback":
        return GuardDecision("fallback", verdict.model_copy(update={"action": PolicyAction(action="fallback")}))
    if on_hallucination == "repair":
        return GuardDecision("repair", verdict.model_copy(update={"action": PolicyAction(action="repair")}))
    text, removed = filter_answer(answer, verdict)
    action = PolicyAction(action="filter", removed=removed, filtered_answer=text)
    return GuardDecision("filter", verdict.model_copy(update={"action": action}), answer=text)


def replacement_text(decision: GuardDecision, fallback: object) -> str | None:
    """The text that replaces the answer: the kept sentences for ``filter`` (the fallback message when no
    sentence is left); for ``fallback``, the fallback message (the default one when ``fallback`` is not a
    str); for ``repair``, the repaired text."""
    if decision.action == "filter" and decision.answer:
        return decision.answer
    if decision.action == "filter":  # every sentence was flagged: nothing left to return
        return fallback if isinstance(fallback, str) else DEFAULT_FALLBACK
    if decision.action == "fallback":
        return fallback if isinstance(fallback, str) else DEFAULT_FALLBACK
    if decision.action == "repair":  # set by the guard once the repair ran (repair_decision)
        return decision.answer
    return None


def refuse_to_retype(decision: GuardDecision, *, fallback_source: bool) -> None:
    """Raise instead of changing a structured answer's type.

    A structured output (a pydantic model, a dict) has no sentences to drop, and a text fallback message would
    replace it with a str the caller's code does not expect. When the policy would do either, the guard does what
    the policy is for (not returning the unsupported answer) without breaking the caller's types: it raises
    :class:`~halguard.errors.HallucinationError`. A fallback chain or engine (``fallback_source``) may return the
    same type, so it is allowed.

    Raises:
        HallucinationError: ``decision`` is ``filter`` or ``repair``, or ``fallback`` to a fixed message.
    """
    if decision.action in ("filter", "repair") or (decision.action == "fallback" and not fallback_source):
        record = decision.verdict.model_copy(update={"action": PolicyAction(action="raise")})
        policy = decision.action
        msg = (
            f"halguard flagged a structured answer, and on_hallucination={policy!r} cannot replace it without "
            "changing its type; use on_hallucination='raise', or a fallback that returns the same type"
        )
        raise HallucinationError(msg, verdict=record)


FIXED_MESSAGE = "a fixed fallback message is returned as it is, without a check"


def fallback_unchecked(rejected: Verdict, why: str = FIXED_MESSAGE, *, code: str = "fallback_not_checked") -> Verdict:
    """The verdict on a fallback answer that was not checked (a fixed message, a refusal, an unreadable answer)."""
    return Verdict.unverified(code, why, detector=rejected.detector, threshold=rejected.threshold,
                              request=rejected.request)


def declined(rejected: Verdict, answer: str) -> Verdict:
    """The verdict on a fallback answer that declines to answer ("I don't know."): nothing to check."""
    why = f"the fallback declines to answer ({answer[:80]!r}); there is no claim to check"
    return fallback_unchecked(rejected, why, code="non_answer")


def with_fallback_verdict(verdict: Verdict, fallback_verdict: Verdict) -> Verdict:
    """``verdict`` (of the rejected answer) with the check of the answer that replaced it in ``action``."""
    action = (verdict.action or PolicyAction(action="fallback")).model_copy(
        update={"fallback_verdict": fallback_verdict}
    )
    return verdict.model_copy(update={"action": action})
