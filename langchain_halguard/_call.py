"""One guarded call in LangChain's terms: its answer as a GuardRequest, its hooks, and the outcome put back.

The guard core (:mod:`halguard.guard`) decides; this module only translates. The check runs as the
``halguard_verify`` child run, samples run through the chain (or a throwaway copy of its history) tagged
``halguard:sample``, a fallback chain runs tagged ``halguard:fallback``, and the verdict is sent as the
``halguard_verdict`` custom event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.callbacks import adispatch_custom_event, dispatch_custom_event
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda

from halguard.errors import InputTypeError, InvalidInputError
from halguard.guard import FallbackAnswer, GuardHooks, GuardOutcome, GuardRequest, evidence_of
from halguard.guard.sentences import SentenceGate
from halguard.policy import fallback_unchecked
from halguard.schema import Verdict
from langchain_halguard._convert import (
    MESSAGES_KEY,
    Extracted,
    answer_text,
    attach_verdict,
    extract,
    find_answer,
    message_list,
    replace_answer,
    with_last_question,
)
from langchain_halguard._graph import find_graph
from langchain_halguard._retrieved import RetrievedDocuments

__all__ = [
    "FALLBACK_TAG",
    "SAMPLE_TAG",
    "SOURCE",
    "VERDICT_EVENT",
    "VERIFY_RUN_NAME",
    "GuardedCall",
    "wants_dict_input",
]

SOURCE = "langchain:RunnableWithHalguard"
"""What the verdicts' ``request.source`` says."""
VERIFY_RUN_NAME = "halguard_verify"
VERDICT_EVENT = "halguard_verdict"
SAMPLE_TAG = "halguard:sample"
"""Tag of the paraphrase-sampling runs."""
FALLBACK_TAG = "halguard:fallback"
"""Tag of the fallback runnable's run."""


class GuardedCall:
    """One call through a :class:`~langchain_halguard.RunnableWithHalguard` (never shared between calls).

    Args:
        guard: The :class:`~langchain_halguard.RunnableWithHalguard` (not imported here: it imports this module).
        original: The guard's own input (a fallback chain gets it, wrapped as it needs it).
        inner: The wrapped chain's input.
        retrieved: The documents the wrapped chain's retrievers returned.
        history: The conversation snapshot paraphrase samples run on (None: the chain itself).
        run_manager: The guard's run manager.
        config: The guard's config.
    """

    def __init__(self, guard: Any, original: Any, inner: Any, retrieved: RetrievedDocuments,
                 history: Any, run_manager: Any, config: RunnableConfig) -> None:
        self.guard = guard
        self.original, self.inner, self.retrieved = original, inner, retrieved
        self.history, self.run_manager, self.config = history, run_manager, config

    def child(self, tag: str | None = None, retrieved: RetrievedDocuments | None = None) -> RunnableConfig:
        return self.guard._child(self.config, self.run_manager, tag, retrieved)

    # -- in ---------------------------------------------------------------------------------------------

    def _extract(self, input_: Any, output: Any, retrieved: RetrievedDocuments | None) -> Extracted:
        g = self.guard
        docs = retrieved.documents() if retrieved is not None and retrieved.ran else None
        return extract(input_, output, question_key=g.question_key, context_key=g.context_key,
                       answer_key=g.answer_key, retrieved=docs)

    def _as_request(self, e: Extracted) -> GuardRequest:
        return e.request(request_id=str(self.run_manager.run_id), source=SOURCE)

    def request(self, output: Any) -> GuardRequest:
        """What the wrapped chain's output is checked on (bad input raises: the caller's mistake, not a verdict)."""
        return self._as_request(self._extract(self.inner, output, self.retrieved))

    def _as_streamed(self, request: GuardRequest) -> bool:
        """Whether ``invoke`` decides as the sentence stream does: ``streaming="sentence"`` with ``fallback`` on a
        text answer of a chain (issue 48: ``invoke`` returns what ``stream`` shows, the sentences before the flagged
        one and then the message, and its verdict records that)."""
        g = self.guard
        return (g.streaming == "sentence" and g.on_hallucination == "fallback" and g.consistency == "off"
                and isinstance(g.fallback, str | None) and isinstance(request.answer, str) and not request.structured
                and find_graph(g.bound) is None)

    def decide(self, output: Any) -> GuardOutcome:
        """The guard's outcome for the wrapped chain's ``output`` (the whole answer checked, or as streamed)."""
        request, core = self.request(output), self.guard._core
        if not self._as_streamed(request):
            return core.run(request, self.hooks())
        gate = SentenceGate(core, request, self.hooks())
        gate.feed(request.answer)
        return gate.close()[1]

    async def adecide(self, output: Any) -> GuardOutcome:
        """Async twin of :meth:`decide`."""
        request, core = self.request(output), self.guard._core
        if not self._as_streamed(request):
            return await core.arun(request, self.ahooks())
        gate = SentenceGate(core, request, self.ahooks())
        await gate.afeed(request.answer)
        return (await gate.aclose())[1]

    # -- hooks ------------------------------------------------------------------------------------------

    def hooks(self) -> GuardHooks:
        """The check as the ``halguard_verify`` run, samples and the fallback through LangChain."""
        def traced(check: Any, request: GuardRequest, purpose: str) -> Verdict:
            tag = FALLBACK_TAG if purpose == "fallback" else None
            return RunnableLambda(check, name=VERIFY_RUN_NAME).invoke(request, self.child(tag))

        def ask_batch(questions: list[str]) -> list[Any]:
            inputs = [self._with_question(q) for q in questions]
            runnable = self._sampling_runnable()
            return self._answers(runnable.batch(inputs, self.child(SAMPLE_TAG), return_exceptions=True))

        def on_checked(verdict: Verdict) -> None:
            dispatch_custom_event(VERDICT_EVENT, verdict.to_metadata(), config=self.child())
            self.guard._report(verdict)

        def fallback(rejected: Verdict) -> FallbackAnswer:
            fb_input, retrieved = self.guard._inner_input(self.original, "fallback"), RetrievedDocuments()
            fallback_chain = self.guard.fallback
            result = fallback_chain.invoke(fb_input, self.child(FALLBACK_TAG, retrieved))
            return self._fallback_answer(fb_input, result, retrieved, rejected)

        has_chain = isinstance(self.guard.fallback, Runnable)
        return GuardHooks(ask_batch=ask_batch, fallback=fallback if has_chain else None, traced=traced,
                          on_checked=on_checked)

    def ahooks(self) -> GuardHooks:
        """Async twin of :meth:`hooks`."""
        async def traced(check: Any, request: GuardRequest, purpose: str) -> Verdict:
            tag = FALLBACK_TAG if purpose == "fallback" else None
            return await RunnableLambda(check, name=VERIFY_RUN_NAME).ainvoke(request, self.child(tag))

        async def ask_batch(questions: list[str]) -> list[Any]:
            inputs = [self._with_question(q) for q in questions]
            runnable = self._sampling_runnable()
            return self._answers(await runnable.abatch(inputs, self.child(SAMPLE_TAG), return_exceptions=True))

        async def on_checked(verdict: Verdict) -> None:
            await adispatch_custom_event(VERDICT_EVENT, verdict.to_metadata(), config=self.child())
            self.guard._report(verdict)

        async def fallback(rejected: Verdict) -> FallbackAnswer:
            fb_input, retrieved = self.guard._inner_input(self.original, "fallback"), RetrievedDocuments()
            result = await self.guard.fallback.ainvoke(fb_input,  # type: ignore[union-attr]
                                                       self.child(FALLBACK_TAG, retrieved))
            return self._fallback_answer(fb_input, result, retrieved, rejected)

        has_chain = isinstance(self.guard.fallback, Runnable)
        return GuardHooks(ask_batch=ask_batch, fallback=fallback if has_chain else None, traced=traced,
                          on_checked=on_checked)

    def _fallback_answer(self, fb_input: Any, result: Any, retrieved: RetrievedDocuments,
                         rejected: Verdict) -> FallbackAnswer:
        """What the fallback's answer is checked on: its own documents, else the ones the rejected answer had."""
        try:
            return FallbackAnswer(result, self._as_request(self._extract(fb_input, result, retrieved)))
        except (InvalidInputError, InputTypeError) as exc:
            try:
                answer = answer_text(result, self.guard.answer_key)
            except (InvalidInputError, InputTypeError):
                why = f"the fallback's answer could not be read: {exc}"
                return FallbackAnswer(result, verdict=fallback_unchecked(rejected, why))
            question = rejected.request.question if rejected.request else None
            return FallbackAnswer(result, GuardRequest(question, answer, evidence_of(rejected), source=SOURCE,
                                                       request_id=str(self.run_manager.run_id)))

    # -- paraphrase sampling ------------------------------------------------------------------------------

    def _with_question(self, question: str) -> Any:
        input_, key = self.inner, self.guard.question_key
        if isinstance(input_, str):
            return question
        if isinstance(input_, Mapping) and key in input_:
            return {**input_, key: question}
        if isinstance(input_, Mapping) and input_.get(MESSAGES_KEY) is not None:
            return {**input_, MESSAGES_KEY: with_last_question(message_list(input_[MESSAGES_KEY]), question)}
        msg = f"paraphrase sampling needs the question in the input under '{key}'"
        raise InvalidInputError(msg)

    def _answers(self, outputs: list[Any]) -> list[Any]:
        out: list[Any] = []
        for o in outputs:
            if isinstance(o, BaseException):
                out.append(o)
                continue
            try:
                out.append(answer_text(o, self.guard.answer_key))
            except (InvalidInputError, InputTypeError) as exc:
                out.append(exc)
        return out

    def _sampling_runnable(self) -> Runnable[Any, Any]:
        """Samples go through the chain; through a history wrapper or a graph's thread, on a throwaway copy."""
        g = self.guard
        return g._history.sampler(self.history) if g._samples_history and self.history is not None else g.bound

    # -- out --------------------------------------------------------------------------------------------

    def respond(self, output: Any, outcome: GuardOutcome) -> Any:
        """The outcome in the output's shape: the verdict attached, the answer replaced where the policy says."""
        answer_key = self.guard.answer_key
        replacement = outcome.text
        if outcome.fallback is not None:  # the fallback chain's answer in the original answer's place
            result = outcome.fallback.result
            answer = find_answer(result, answer_key) if _has_answer(result, answer_key) else result
            output, replacement = replace_answer(output, answer_key, answer), None
        return attach_verdict(output, outcome.verdict, answer_key=answer_key, output_key=self.guard.output_key,
                              replacement=replacement)


def _has_answer(result: Any, answer_key: str | None) -> bool:
    try:
        find_answer(result, answer_key)
    except InvalidInputError:
        return False
    return isinstance(result, Mapping)


def wants_dict_input(runnable: Runnable[Any, Any], key: str) -> bool:
    """Whether ``runnable`` takes a dict with ``key`` (so a bare question must be wrapped as ``{key: question}``)."""
    try:
        schema = runnable.get_input_jsonschema()
    except Exception:  # noqa: BLE001 - a runnable whose schema cannot be built: pass the input as it is
        return False
    return schema.get("type") == "object" and key in (schema.get("properties") or {})
