"""RunnableWithHalguard: wrap a RAG chain so every answer it returns is checked against its documents."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForChainRun,
    CallbackManagerForChainRun,
    adispatch_custom_event,
    dispatch_custom_event,
)
from langchain_core.messages import AIMessageChunk, BaseMessage, BaseMessageChunk
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda, RunnableSerializable
from langchain_core.runnables.config import patch_config
from langchain_core.runnables.utils import AddableDict
from pydantic import ConfigDict, Field, PrivateAttr, model_validator

from halguard.api import default_detector
from halguard.combine import combine_verdicts
from halguard.consistency import ParaphraseConsistency
from halguard.detector import Detector
from halguard.errors import InputTypeError, InvalidInputError
from halguard.policy import GuardDecision, decide, replacement_text, validate_policy
from halguard.schema import METADATA_KEY, Verdict, VerdictError
from langchain_halguard._convert import Extracted, attach_verdict, extract

__all__ = ["RunnableWithHalguard", "with_halguard"]

logger = logging.getLogger("langchain_halguard")

VERIFY_RUN_NAME = "halguard_verify"
VERDICT_EVENT = "halguard_verdict"


def validate_options(detector: Any, on_hallucination: str, on_unverified: str) -> None:
    """Fail at construction, not at the first call, on an unknown policy or a non-detector."""
    validate_policy(on_hallucination, on_unverified)
    if not isinstance(detector, Detector):
        msg = f"detector must be a halguard.Detector, got {type(detector).__name__}"
        raise InputTypeError(msg)


def _verify_runnable(detector: Detector) -> Runnable[Extracted, Verdict]:
    """The verification as its own child run, so traces show what was checked and what came out."""

    def _verify(e: Extracted) -> Verdict:
        return detector.verify(e.answer, e.contexts, question=e.question)

    async def _averify(e: Extracted) -> Verdict:
        return await detector.averify(e.answer, e.contexts, question=e.question)

    return RunnableLambda(_verify, afunc=_averify, name=VERIFY_RUN_NAME)


def _add(left: Any, right: Any) -> Any:
    """Accumulate stream chunks the way LangChain does (dicts merge key by key)."""
    if left is None:
        return right
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        merged = AddableDict(left)
        for key, value in right.items():
            merged[key] = _add(merged.get(key), value)
        return merged
    try:
        return left + right
    except TypeError:
        return right


def _langsmith_run_tree() -> Any:
    """The current LangSmith run tree, or None when tracing is off (or langsmith is absent)."""
    try:
        from langsmith.run_helpers import get_current_run_tree
    except ImportError:  # pragma: no cover - langsmith ships with langchain-core
        return None
    return get_current_run_tree()


def _tag_langsmith_run(verdict: Verdict) -> None:
    """Put the label and score on the LangSmith run when tracing is on (custom events don't reach it)."""
    run_tree = _langsmith_run_tree()
    if run_tree is not None:
        run_tree.add_metadata({"halguard_label": verdict.label, "halguard_score": verdict.score})


class RunnableWithHalguard(RunnableSerializable[Any, Any]):
    """A Runnable that runs ``bound`` and checks its answer against the documents it retrieved.

    The wrapped chain's input carries the question (``question_key``, or the input itself when it is a
    str) and its output carries the answer (``answer_key``, or the output itself when it is a str or a
    message) and the retrieved documents (``context_key``, in the output or the input). The verdict is
    added to a dict output under ``output_key`` and to a message's ``response_metadata["halguard"]``.

    Every entry point goes through the guard: ``invoke``/``ainvoke``, ``batch``/``abatch`` (which call
    them), and ``stream``/``astream``/``astream_events``, which yield the inner chunks first and then one
    chunk with the verdict. With ``on_hallucination="fallback"`` or ``"filter"`` the stream is buffered,
    since the answer may be replaced after the check. The check runs as a child run named
    ``halguard_verify``, and a custom event ``halguard_verdict`` carries the verdict.

    Example:
        .. code-block:: python

            from halguard import HallucinationError
            from langchain_halguard import with_halguard

            guarded = with_halguard(rag_chain, on_hallucination="raise")
            safe = guarded.with_fallbacks([apology_chain], exceptions_to_handle=(HallucinationError,))
            result = safe.invoke({"input": "When did JWST launch?"})
    """

    bound: Runnable[Any, Any]
    """The chain to guard."""
    detector: Any = Field(default_factory=default_detector)
    """A :class:`halguard.Detector` (default: the shared LocalVerifier)."""
    question_key: str = "input"
    context_key: str = "context"
    answer_key: str = "answer"
    output_key: str = "halguard"
    on_hallucination: Literal["annotate", "raise", "fallback", "filter"] = "annotate"
    on_unverified: Literal["fail_open", "fail_closed"] = "fail_open"
    fallback: str | Runnable[Any, Any] | None = None
    """With ``on_hallucination="fallback"``: a message, or a Runnable called with the original input."""
    consistency: Literal["off", "on"] = "off"
    """``"on"``: also run paraphrase sampling through ``bound`` and combine (see :mod:`halguard.combine`)."""
    num_paraphrases: int = 3
    paraphraser: Any = None
    """Writes the paraphrases: a LangChain chat model, an OpenAI/Mistral client, a callable; None: templates."""
    judge: Any = "local"
    """``"local"`` (offline) or a LangChain chat model / client / callable used as the judge."""
    cache: Any = None
    """An opt-in :class:`halguard.cache.ResponseCache` for paraphrase, sample and judge requests."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    _sampler: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _check(self) -> RunnableWithHalguard:
        validate_options(self.detector, self.on_hallucination, self.on_unverified)
        if self.consistency == "on":
            from langchain_halguard.providers import to_chat_model

            self._sampler = ParaphraseConsistency(
                to_chat_model(self.paraphraser),
                to_chat_model(self.judge),
                n_paraphrases=self.num_paraphrases,
                cache=self.cache,
                cache_namespace=f"langchain:{self.bound.get_name()}",
            )
        return self

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return name or self.name or f"RunnableWithHalguard<{self.bound.get_name()}>"

    # -- invoke -----------------------------------------------------------------------------------------

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:  # noqa: A002
        return self._call_with_config(self._invoke, input, config, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:  # noqa: A002
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)

    def _invoke(
        self, input_: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig, **kwargs: Any
    ) -> Any:
        output = self.bound.invoke(input_, patch_config(config, callbacks=run_manager.get_child()), **kwargs)
        verdict = self._verify(input_, output, run_manager, config)
        return self._apply(input_, output, verdict, run_manager, config)

    async def _ainvoke(
        self, input_: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig, **kwargs: Any
    ) -> Any:
        output = await self.bound.ainvoke(input_, patch_config(config, callbacks=run_manager.get_child()), **kwargs)
        verdict = await self._averify(input_, output, run_manager, config)
        return await self._aapply(input_, output, verdict, run_manager, config)

    # -- stream -----------------------------------------------------------------------------------------

    @property
    def _buffers_stream(self) -> bool:
        return self.on_hallucination in ("fallback", "filter")

    def transform(self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Any]:  # noqa: A002
        yield from self._transform_stream_with_config(input, self._transform, config, **kwargs)

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any  # noqa: A002
    ) -> AsyncIterator[Any]:
        async for chunk in self._atransform_stream_with_config(input, self._atransform, config, **kwargs):
            yield chunk

    def stream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Any]:  # noqa: A002
        return self.transform(iter([input]), config, **kwargs)

    async def astream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> AsyncIterator[Any]:  # noqa: A002
        async def one() -> AsyncIterator[Any]:
            yield input

        async for chunk in self.atransform(one(), config, **kwargs):
            yield chunk

    def _transform(
        self, inputs: Iterator[Any], run_manager: CallbackManagerForChainRun, config: RunnableConfig, **kwargs: Any
    ) -> Iterator[Any]:
        seen: dict[str, Any] = {"input": None}

        def recorded() -> Iterator[Any]:
            for chunk in inputs:
                seen["input"] = _add(seen["input"], chunk)
                yield chunk

        output = None
        child = patch_config(config, callbacks=run_manager.get_child())
        for chunk in self.bound.transform(recorded(), child, **kwargs):
            output = _add(output, chunk)
            if not self._buffers_stream:
                yield chunk
        verdict = self._verify(seen["input"], output, run_manager, config)
        result = self._apply(seen["input"], output, verdict, run_manager, config)
        yield from self._final_chunks(output, result)

    async def _atransform(
        self,
        inputs: AsyncIterator[Any],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        seen: dict[str, Any] = {"input": None}

        async def recorded() -> AsyncIterator[Any]:
            async for chunk in inputs:
                seen["input"] = _add(seen["input"], chunk)
                yield chunk

        output = None
        child = patch_config(config, callbacks=run_manager.get_child())
        async for chunk in self.bound.atransform(recorded(), child, **kwargs):
            output = _add(output, chunk)
            if not self._buffers_stream:
                yield chunk
        verdict = await self._averify(seen["input"], output, run_manager, config)
        result = await self._aapply(seen["input"], output, verdict, run_manager, config)
        for chunk in self._final_chunks(output, result):
            yield chunk

    def _final_chunks(self, streamed: Any, result: Any) -> Iterator[Any]:
        """After the inner chunks: the whole (possibly replaced) output when buffered, else a verdict chunk."""
        if self._buffers_stream:
            yield result
            return
        if isinstance(streamed, Mapping):
            extra = AddableDict({self.output_key: result[self.output_key]})
            answer = result.get(self.answer_key)
            if isinstance(answer, BaseMessageChunk):
                extra[self.answer_key] = type(answer)(
                    content="", response_metadata={METADATA_KEY: answer.response_metadata[METADATA_KEY]}
                )
            yield extra
        elif isinstance(streamed, BaseMessage):
            chunk_type = type(streamed) if isinstance(streamed, BaseMessageChunk) else AIMessageChunk
            yield chunk_type(content="", response_metadata={METADATA_KEY: result.response_metadata[METADATA_KEY]})
        # A plain str stream has nowhere to put the verdict: it is in the event and the verify run.

    # -- verification and policy ------------------------------------------------------------------------

    def _extract(self, input_: Any, output: Any) -> Extracted:
        return extract(
            input_, output, question_key=self.question_key, context_key=self.context_key, answer_key=self.answer_key
        )

    def _verify(self, input_: Any, output: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig) -> Verdict:
        extracted = self._extract(input_, output)
        child = patch_config(config, callbacks=run_manager.get_child())
        verdict = _verify_runnable(self.detector).invoke(extracted, child)
        if self.consistency == "on":
            verdict = self._sample_sync(input_, extracted, verdict, run_manager, config)
        dispatch_custom_event(VERDICT_EVENT, verdict.to_metadata(), config=child)
        self._report(verdict)
        return verdict

    async def _averify(
        self, input_: Any, output: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> Verdict:
        extracted = self._extract(input_, output)
        child = patch_config(config, callbacks=run_manager.get_child())
        verdict = await _verify_runnable(self.detector).ainvoke(extracted, child)
        if self.consistency == "on":
            verdict = await self._sample_async(input_, extracted, verdict, run_manager, config)
        await adispatch_custom_event(VERDICT_EVENT, verdict.to_metadata(), config=child)
        self._report(verdict)
        return verdict

    # -- paraphrase sampling ---------------------------------------------------------------------------

    def _with_question(self, input_: Any, question: str) -> Any:
        if isinstance(input_, str):
            return question
        if isinstance(input_, Mapping) and self.question_key in input_:
            return {**input_, self.question_key: question}
        msg = f"paraphrase sampling needs the question in the input under '{self.question_key}'"
        raise InvalidInputError(msg)

    def _answers(self, outputs: list[Any]) -> list[Any]:
        return [o if isinstance(o, BaseException) else self._extract_answer(o) for o in outputs]

    def _sample_sync(self, input_: Any, e: Extracted, verdict: Verdict, run_manager: CallbackManagerForChainRun,
                     config: RunnableConfig) -> Verdict:
        if e.question is None:
            return _unsampled(verdict)
        sample_config = patch_config(config, callbacks=run_manager.get_child("halguard:sample"))

        def batch(questions: list[str]) -> list[Any]:
            inputs = [self._with_question(input_, q) for q in questions]
            return self._answers(self.bound.batch(inputs, sample_config, return_exceptions=True))

        report = self._sampler.check(e.question, answer=e.answer, batch_answer_fn=batch)
        return combine_verdicts(verdict, report)

    async def _sample_async(self, input_: Any, e: Extracted, verdict: Verdict,
                            run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig) -> Verdict:
        if e.question is None:
            return _unsampled(verdict)
        sample_config = patch_config(config, callbacks=run_manager.get_child("halguard:sample"))

        async def batch(questions: list[str]) -> list[Any]:
            inputs = [self._with_question(input_, q) for q in questions]
            return self._answers(await self.bound.abatch(inputs, sample_config, return_exceptions=True))

        report = await self._sampler.acheck(e.question, answer=e.answer, batch_answer_fn=batch)
        return combine_verdicts(verdict, report)

    @staticmethod
    def _report(verdict: Verdict) -> None:
        _tag_langsmith_run(verdict)
        if verdict.label != "supported":
            logger.info("halguard verdict %s (score %s): %s", verdict.label, verdict.score,
                        [e.code for e in verdict.errors] or [c.text for c in verdict.flagged_claims])

    def _decide(self, output: Any, verdict: Verdict) -> GuardDecision:
        answer = self._extract_answer(output)
        return decide(verdict, answer, on_hallucination=self.on_hallucination, on_unverified=self.on_unverified)

    def _extract_answer(self, output: Any) -> str:
        value = output.get(self.answer_key) if isinstance(output, Mapping) else output
        return value.text if isinstance(value, BaseMessage) else str(value)

    def _attach(self, output: Any, verdict: Verdict, replacement: str | None = None) -> Any:
        return attach_verdict(
            output, verdict, answer_key=self.answer_key, output_key=self.output_key, replacement=replacement
        )

    def _apply(
        self, input_: Any, output: Any, verdict: Verdict, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        decision = self._decide(output, verdict)
        if decision.action == "fallback" and isinstance(self.fallback, Runnable):
            child = patch_config(config, callbacks=run_manager.get_child("halguard:fallback"))
            return self._attach(self.fallback.invoke(input_, child), decision.verdict)
        return self._attach(output, decision.verdict, self._replacement(decision))

    async def _aapply(
        self,
        input_: Any,
        output: Any,
        verdict: Verdict,
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
    ) -> Any:
        decision = self._decide(output, verdict)
        if decision.action == "fallback" and isinstance(self.fallback, Runnable):
            child = patch_config(config, callbacks=run_manager.get_child("halguard:fallback"))
            return self._attach(await self.fallback.ainvoke(input_, child), decision.verdict)
        return self._attach(output, decision.verdict, self._replacement(decision))

    def _replacement(self, decision: GuardDecision) -> str | None:
        return replacement_text(decision, self.fallback)


def _unsampled(verdict: Verdict) -> Verdict:
    """Paraphrase sampling was asked for but there is no question to paraphrase: not a pass."""
    if verdict.label != "supported":
        return verdict
    error = VerdictError(code="consistency_unverified", message="no question found to paraphrase")
    return verdict.model_copy(update={"label": "unverified", "score": None, "errors": [*verdict.errors, error]})


def with_halguard(runnable: Runnable[Any, Any], **options: Any) -> RunnableWithHalguard:
    """Wrap ``runnable`` in a :class:`RunnableWithHalguard`; ``options`` are its fields.

    Example:
        .. code-block:: python

            guarded = with_halguard(create_retrieval_chain(retriever, qa_chain), on_hallucination="filter")
    """
    return RunnableWithHalguard(bound=runnable, **options)
