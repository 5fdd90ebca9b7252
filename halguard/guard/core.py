"""GuardCore: check an answer, sample, apply the policy, fall back or repair; sync and async twins.

The LangChain and LlamaIndex guards read a :class:`~halguard.guard.GuardRequest` out of their framework's
objects, hand it to :meth:`GuardCore.run` (or :meth:`GuardCore.arun`) with per-call
:class:`~halguard.guard.GuardHooks` (how to re-ask the app, ask the fallback, trace a check, report a verdict),
and put the :class:`~halguard.guard.GuardOutcome` back into the framework's objects. Everything between is here,
once: a failure inside a check is ``unverified`` (:mod:`halguard.failures`), never a raw exception.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from typing import Any

from halguard.active.repair import arepair_decision, repair_decision
from halguard.api import resolve_detector
from halguard.combine import combine_verdicts, unsampled
from halguard.detector import Detector
from halguard.errors import HallucinationError, InvalidInputError
from halguard.util.verdict_callback import check_on_verdict
from halguard.failures import acheck_answer, check_answer, log_failure
from halguard.guard.outcome import GuardOutcome
from halguard.guard.request import CheckPurpose, FallbackAnswer, GuardHooks, GuardRequest
from halguard.policy import (
    GuardDecision,
    decide,
    declined,
    fallback_unchecked,
    refuse_to_retype,
    replacement_text,
    validate_policy,
    with_fallback_verdict,
)
from halguard.schema import RequestInfo, Verdict
from halguard.telemetry import record_verdict
from halguard.text.claims import is_non_answer

__all__ = ["GuardCore"]

logger = logging.getLogger("halguard.guard")

_NO_HOOKS = GuardHooks()


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class _BaseGuardCore:
    """The guard's options and the steps that do no I/O, shared by the sync and async twins."""

    def __init__(self, detector: Detector | None = None, *, on_hallucination: str = "annotate",
                 on_unverified: str = "fail_open", fallback_message: str | None = None, repairer: Any = None,
                 sampler: Any = None, cache: Any = None, on_verdict: Any = None, warm_up: bool = False,
                 stream_unchecked: str = "hold") -> None:
        validate_policy(on_hallucination, on_unverified)
        if stream_unchecked not in STREAM_UNCHECKED:
            msg = f"stream_unchecked must be one of {STREAM_UNCHECKED}, got {stream_unchecked!r}"
            raise InvalidInputError(msg)
        # What a sentence stream does with text its time or length budget left unchecked, under a policy that may
        # change the answer: "hold" (not sent: dropped by filter, the fallback by fallback, stopped by raise) or
        # "send" (sent, as on_unverified="fail_open" sends an unverified whole answer).
        self.stream_unchecked = stream_unchecked
        if on_hallucination == "repair" and repairer is None:
            msg = "on_hallucination='repair' needs repairer= (the chat model that rewrites flagged sentences)"
            raise InvalidInputError(msg)
        self.detector = resolve_detector(detector)
        self.on_hallucination = on_hallucination
        self.on_unverified = on_unverified
        self.fallback_message = fallback_message
        self.repairer = repairer
        self.sampler = sampler
        self.cache = cache
        self.on_verdict = check_on_verdict(on_verdict, "the guard")
        if warm_up:  # the first request pays no load (the model, the tables, a sample check)
            self.detector.warm_up()

    @property
    def changes_answers(self) -> bool:
        """Whether the policy may replace the answer (so a stream must be held back until the check)."""
        return self.on_hallucination in ("fallback", "filter", "repair")

    def detector_for(self, request: GuardRequest) -> Detector:
        return request.detector if request.detector is not None else self.detector

    @staticmethod
    def stamp(verdict: Verdict, request: GuardRequest) -> Verdict:
        """The verdict with its request recorded: id, question, source, the skipped sources, the checked text."""
        update: dict[str, Any] = {
            "request": RequestInfo(id=request.request_id, question=request.question, source=request.source),
        }
        if request.skipped_sources:
            update["skipped_sources"] = [*verdict.skipped_sources, *request.skipped_sources]
        if request.structured:
            update["checked_text"] = request.answer
        return verdict.model_copy(update=update)

    def notify(self, verdict: Verdict) -> None:
        """Report the final verdict: on the caller's OpenTelemetry span (when there is one), and to ``on_verdict``.
        A reporting hook must not break the request it reports on."""
        record_verdict(verdict)
        if self.on_verdict is None:
            return
        try:
            self.on_verdict(verdict)
        except Exception as exc:  # noqa: BLE001
            log_failure(logger, "halguard's on_verdict callback", exc, level=logging.ERROR)

    def decide(self, verdict: Verdict, request: GuardRequest, *, fallback_source: bool) -> GuardDecision:
        """The policy's decision; for ``raise`` (and rather than change a structured answer's type) it raises,
        after ``on_verdict`` has seen the verdict."""
        try:
            decision = decide(verdict, request.answer, on_hallucination=self.on_hallucination,
                              on_unverified=self.on_unverified)
            if request.structured:
                refuse_to_retype(decision, fallback_source=fallback_source)
        except HallucinationError as exc:  # UnverifiedError too
            self.notify_raised(exc)
            raise
        return decision

    def notify_raised(self, exc: HallucinationError) -> None:
        """Report the verdict a policy raises with, as :meth:`notify` reports one it returns."""
        if exc.verdict is not None:
            self.notify(exc.verdict)

    def _fixed(self, decision: GuardDecision) -> GuardOutcome:
        """The outcome without a fallback source: the answer stands, filtered, or a fixed message (unchecked)."""
        verdict = decision.verdict
        if decision.action == "fallback":
            verdict = with_fallback_verdict(verdict, fallback_unchecked(verdict))
        return GuardOutcome(decision.action, verdict, replacement_text(decision, self.fallback_message))

    @staticmethod
    def _unchecked_fallback(rejected: Verdict, answer: FallbackAnswer) -> Verdict | None:
        """The verdict on a fallback answer that needs no check (unreadable, or a refusal), else None."""
        if answer.verdict is not None or answer.request is None:
            return answer.verdict or fallback_unchecked(rejected, "the fallback's answer could not be read")
        if is_non_answer(answer.request.answer, answer.request.question):
            return declined(rejected, answer.request.answer)
        return None

    def _done(self, outcome: GuardOutcome) -> GuardOutcome:
        self.notify(outcome.verdict)
        return outcome


STREAM_UNCHECKED = ("hold", "send")


class GuardCore(_BaseGuardCore):
    """Checks answers and applies the policy for one guard (framework-free; the adapters translate).

    Args:
        detector: The detector (default: the shared LocalVerifier).
        on_hallucination: ``"annotate" | "raise" | "fallback" | "filter" | "repair"`` (:mod:`halguard.policy`).
        on_unverified: ``"fail_open" | "fail_closed"``.
        fallback_message: The fixed fallback message (None: the default one, or the fallback chain's answer).
        repairer: With ``"repair"``: the chat model (:func:`halguard.llm.as_chat_model`) that rewrites flagged
            sentences.
        sampler: A :class:`~halguard.consistency.sampling.ParaphraseConsistency` to sample with; None: no sampling.
        cache: The :class:`~halguard.llm.cache.ResponseCache` the repair uses.
        on_verdict: Called with every verdict once the policy is applied (errors in it are logged).
        warm_up: Load what the detector's first check would load now (``Detector.warm_up``), not at the first
            request.

    Raises:
        InvalidInputError: an unknown policy, or ``"repair"`` without a repairer.
        InputTypeError: ``detector`` is not a Detector.
    """

    # -- the check ----------------------------------------------------------------------------------------------

    def check(self, request: GuardRequest) -> Verdict:
        """Check ``request`` with its detector and stamp it; bad input raises, any other failure is
        ``unverified`` (``internal_error``)."""
        verdict = check_answer(self.detector_for(request), request.answer, request.contexts,
                               question=request.detector_question)
        return self.stamp(verdict, request)

    async def acheck(self, request: GuardRequest) -> Verdict:
        """Async twin of :meth:`check`."""
        verdict = await acheck_answer(self.detector_for(request), request.answer, request.contexts,
                                      question=request.detector_question)
        return self.stamp(verdict, request)

    def _traced(self, request: GuardRequest, hooks: GuardHooks, purpose: CheckPurpose) -> Verdict:
        return self.check(request) if hooks.traced is None else hooks.traced(self.check, request, purpose)

    async def _atraced(self, request: GuardRequest, hooks: GuardHooks, purpose: CheckPurpose) -> Verdict:
        if hooks.traced is None:
            return await self.acheck(request)
        return await _maybe_await(hooks.traced(self.acheck, request, purpose))

    def verify(self, request: GuardRequest, hooks: GuardHooks = _NO_HOOKS) -> Verdict:
        """Check the answer, sample when the guard has a sampler, and report the verdict (``hooks.on_checked``)."""
        verdict = self._traced(request, hooks, "answer")
        if self.sampler is not None:
            verdict = self._sample(request, verdict, hooks)
        if hooks.on_checked is not None:
            hooks.on_checked(verdict)
        return verdict

    async def averify(self, request: GuardRequest, hooks: GuardHooks = _NO_HOOKS) -> Verdict:
        """Async twin of :meth:`verify`."""
        verdict = await self._atraced(request, hooks, "answer")
        if self.sampler is not None:
            verdict = await self._asample(request, verdict, hooks)
        if hooks.on_checked is not None:
            await _maybe_await(hooks.on_checked(verdict))
        return verdict

    def _sample(self, request: GuardRequest, verdict: Verdict, hooks: GuardHooks) -> Verdict:
        if request.question is None:
            return unsampled(verdict)
        with hooks.around_app() if hooks.around_app is not None else contextlib.nullcontext():
            report = self.sampler.check(request.question, hooks.ask, answer=request.answer,
                                        batch_answer_fn=hooks.ask_batch)
        return combine_verdicts(verdict, report)

    async def _asample(self, request: GuardRequest, verdict: Verdict, hooks: GuardHooks) -> Verdict:
        if request.question is None:
            return unsampled(verdict)
        with hooks.around_app() if hooks.around_app is not None else contextlib.nullcontext():
            report = await self.sampler.acheck(request.question, hooks.ask, answer=request.answer,
                                               batch_answer_fn=hooks.ask_batch)
        return combine_verdicts(verdict, report)

    # -- the policy ---------------------------------------------------------------------------------------------

    def apply(self, request: GuardRequest, verdict: Verdict, hooks: GuardHooks = _NO_HOOKS) -> GuardOutcome:
        """The policy for ``verdict``: pass, filter, repair (checked again), or fall back (the fallback's answer
        checked too). Raises for ``raise`` (:meth:`decide`)."""
        decision = self.decide(verdict, request, fallback_source=hooks.fallback is not None)
        if decision.action == "repair":
            try:
                text, repaired = repair_decision(decision, request.answer, request.contexts, llm=self.repairer,
                                                 question=request.question, detector=self.detector_for(request),
                                                 cache=self.cache, on_unverified=self.on_unverified)
            except HallucinationError as exc:  # the repair's check did not run and the policy fails closed
                self.notify_raised(exc)
                raise
            return self._done(GuardOutcome("repair", repaired, text))
        if decision.action == "fallback" and hooks.fallback is not None:
            answer: FallbackAnswer = hooks.fallback(decision.verdict)
            checked = self._unchecked_fallback(decision.verdict, answer)
            if checked is None:
                checked = self._traced(answer.request, hooks, "fallback")  # type: ignore[arg-type]
            return self._done(self._fell_back(decision, answer, checked))
        return self._done(self._fixed(decision))

    async def aapply(self, request: GuardRequest, verdict: Verdict, hooks: GuardHooks = _NO_HOOKS) -> GuardOutcome:
        """Async twin of :meth:`apply`."""
        decision = self.decide(verdict, request, fallback_source=hooks.fallback is not None)
        if decision.action == "repair":
            try:
                text, repaired = await arepair_decision(decision, request.answer, request.contexts,
                                                        llm=self.repairer, question=request.question,
                                                        detector=self.detector_for(request), cache=self.cache,
                                                        on_unverified=self.on_unverified)
            except HallucinationError as exc:
                self.notify_raised(exc)
                raise
            return self._done(GuardOutcome("repair", repaired, text))
        if decision.action == "fallback" and hooks.fallback is not None:
            answer = await _maybe_await(hooks.fallback(decision.verdict))
            checked = self._unchecked_fallback(decision.verdict, answer)
            if checked is None:
                checked = await self._atraced(answer.request, hooks, "fallback")
            return self._done(self._fell_back(decision, answer, checked))
        return self._done(self._fixed(decision))

    @staticmethod
    def _fell_back(decision: GuardDecision, answer: FallbackAnswer, checked: Verdict) -> GuardOutcome:
        """The fallback's answer in the answer's place: the rejected answer's verdict, with the check of what
        replaced it under ``action.fallback_verdict``."""
        return GuardOutcome("fallback", with_fallback_verdict(decision.verdict, checked), fallback=answer)

    def run(self, request: GuardRequest, hooks: GuardHooks = _NO_HOOKS) -> GuardOutcome:
        """:meth:`verify`, then :meth:`apply`."""
        return self.apply(request, self.verify(request, hooks), hooks)

    async def arun(self, request: GuardRequest, hooks: GuardHooks = _NO_HOOKS) -> GuardOutcome:
        """Async twin of :meth:`run`."""
        return await self.aapply(request, await self.averify(request, hooks), hooks)
