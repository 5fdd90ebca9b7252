"""RunnableWithHalguard: wrap a RAG chain so every answer it returns is checked against its documents."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Literal, Optional

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.runnables import Runnable, RunnableConfig, RunnableSerializable
from langchain_core.runnables.config import patch_config
from langchain_core.runnables.utils import ConfigurableFieldSpec
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, create_model, model_validator

from halguard.api import default_detector, resolve_detector
from halguard.consistency.sampling import ParaphraseConsistency
from halguard.errors import HalguardError, InvalidInputError, verdict_summary
from halguard.guard import GuardCore
from halguard.policy import validate_policy
from halguard.schema import Verdict
from langchain_halguard._call import FALLBACK_TAG, SAMPLE_TAG, VERDICT_EVENT, VERIFY_RUN_NAME, GuardedCall
from langchain_halguard._call import wants_dict_input
from langchain_halguard._graph import (
    GraphStream,
    awrite_back,
    find_graph,
    interrupted,
    rewrap,
    split_output,
    write_back,
)
from langchain_halguard._graph_thread import GraphThread, find_thread
from langchain_halguard._history import HistoryWrapper, find_history_wrapper
from langchain_halguard._retrieved import RetrievedDocuments
from langchain_halguard._sentences import SentenceStream
from langchain_halguard._stream import ChainStream, add_chunks

__all__ = [
    "FALLBACK_TAG",
    "RAW_TAG",
    "SAMPLE_TAG",
    "VERDICT_EVENT",
    "VERIFY_RUN_NAME",
    "RunnableWithHalguard",
    "with_halguard",
]

logger = logging.getLogger("langchain_halguard")

RAW_TAG = "halguard:raw"
"""Tag of the wrapped chain's run (and, inherited, every run inside it): its events are the unchecked answer."""

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

    The wrapped chain's input carries the question (``question_key``, the input itself when it is a str, or the
    last human message of a ``{"messages": [...]}`` input). Its output carries the answer (``answer_key``, the
    output itself when it is a str, a message or a structured output, or an agent's last AI message). The
    documents come from ``context_key`` in the output or the input, or from the retriever runs inside the
    chain, so the LangChain docs' chain that ends in ``StrOutputParser()`` is guarded as it is. The verdict is
    added to a dict output under ``output_key`` and to a message's ``response_metadata["halguard"]``; a str or
    structured output is returned unchanged (its verdict is in the ``halguard_verdict`` event, ``on_verdict``
    and the ``halguard_verify`` run).

    Every entry point goes through the guard: ``invoke``/``ainvoke``, ``batch``/``abatch`` (which call
    them), and ``stream``/``astream``/``astream_events``, which yield the inner chunks first and then one
    chunk with the verdict. With ``on_hallucination="fallback"`` or ``"filter"`` the stream is buffered,
    since the answer may be replaced after the check; the wrapped chain's own events (its chat model's tokens
    included) carry the tag ``halguard:raw``, so a UI can leave them out with
    ``astream_events(..., exclude_tags=["halguard:raw", "halguard:sample"])``.

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
    """A :class:`halguard.Detector` or a detector name (``"nli:<model>"``; default: the shared LocalVerifier)."""
    question_key: str = "input"
    """Where the question is in a dict input (also the key a str input is wrapped under)."""
    context_key: str = "context"
    """Where the retrieved documents are in the output or the input (else the chain's retriever runs are read)."""
    answer_key: Optional[str] = "answer"  # noqa: UP045 - pydantic field on Python 3.10
    """Where the answer is in a dict output; None: the whole output is the answer (a structured output)."""
    output_key: str = "halguard"
    """The key a dict output gets the verdict under (``verdict.to_metadata()``)."""
    str_input: Literal["auto", "as_is", "wrap"] = "auto"
    """A str input: ``"wrap"`` passes it as ``{question_key: text}``; ``"as_is"`` passes the str; ``"auto"`` wraps it
    when the chain's input schema is an object with ``question_key`` (``create_retrieval_chain``)."""
    on_hallucination: Literal["annotate", "raise", "fallback", "filter", "repair"] = "annotate"
    """What a hallucinated answer gets: the verdict attached (``annotate``), ``HallucinationError`` (``raise``), the
    ``fallback`` in its place, its flagged sentences removed (``filter``), or rewritten from the retrieved documents
    by ``repairer`` and checked again (``repair``; see :func:`halguard.active.repair.repair_decision`)."""
    on_unverified: Literal["fail_open", "fail_closed"] = "fail_open"
    """What an answer that could not be checked gets: passed with its verdict, or ``UnverifiedError``."""
    stream_unchecked: Literal["hold", "send"] = "hold"
    """Sentences a stream's budget left unchecked, under filter/fallback/raise: held back, or sent (``"send"``)."""
    fallback: str | Runnable[Any, Any] | None = None
    """With ``on_hallucination="fallback"``: a message, or a Runnable called with the (wrapped) input; its answer
    goes in the answer's place and is checked too (``verdict.action.fallback_verdict``)."""
    on_verdict: Optional[Callable[[Verdict], Any]] = None  # noqa: UP045
    """Called with every verdict (after the policy, so ``verdict.action`` is set); errors in it are logged."""
    consistency: Literal["off", "on"] = "off"
    """``"on"``: also run paraphrase sampling through ``bound`` and combine (see :mod:`halguard.combine`)."""
    num_paraphrases: int = 3
    """How many reworded questions are sampled with ``consistency="on"`` (1 to 10)."""
    paraphraser: Any = None
    """Writes the paraphrases: a LangChain chat model, an OpenAI/Mistral client, a callable; None: templates."""
    judge: Any = "local"
    """``"local"`` (offline) or a LangChain chat model / client / callable used as the judge."""
    cache: Any = None
    """An opt-in :class:`halguard.llm.cache.ResponseCache` for paraphrase, sample, judge and repair requests."""
    warm_up: bool = False
    """Load what the detector's first check would load when the guard is built, not at the first request."""
    streaming: Literal["whole", "sentence"] = "whole"
    """How ``stream`` releases a chain's text answer: ``"whole"`` (held back until the check when the policy may
    change it, else passed through and annotated at the end) or ``"sentence"``: each sentence once it is complete
    and checked, a flagged one dropped (``filter``) or replaced by the fallback that ends the stream
    (``fallback``). A graph's stream, a structured answer, ``repair`` and ``consistency="on"`` are checked whole."""
    repairer: Any = None
    """With ``on_hallucination="repair"``: the model that rewrites flagged sentences (a LangChain chat model, an
    OpenAI/Mistral client, a callable)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    # What happens between reading the answer and returning it (halguard.guard): built once, shared by every call.
    _core: GuardCore = PrivateAttr()
    # The user's conversation that paraphrase samples must stay out of: a history wrapper's session, or a graph's
    # checkpointed thread (each gives a snapshot before the turn and a sampler on a throwaway copy of it).
    _history: HistoryWrapper | GraphThread | None = PrivateAttr(default=None)
    # Whether bound / fallback take a dict: a property of the runnable, not of a call (a schema costs ~2.5 ms).
    _takes_dict: dict[str, bool] = PrivateAttr(default_factory=dict)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            # pydantic wraps errors raised in validators; a halguard error is clearer on its own.
            ours = [e.get("ctx", {}).get("error") for e in exc.errors()]
            original = next((err for err in ours if isinstance(err, HalguardError)), None)
            if original is not None:
                raise original from None
            raise

    @model_validator(mode="after")
    def _check(self) -> RunnableWithHalguard:
        from langchain_halguard.providers import to_chat_model

        validate_policy(self.on_hallucination, self.on_unverified)
        self.detector = resolve_detector(self.detector)  # a name is built now: fail at construction, not at a call
        if self.on_hallucination == "repair" and self.repairer is None:
            msg = "on_hallucination='repair' needs repairer= (the chat model that rewrites flagged sentences)"
            raise InvalidInputError(msg)
        self._history = find_history_wrapper(self.bound, sampling=self.consistency == "on")
        if self._history is None and self.consistency == "on":
            self._history = find_thread(self.bound)
        sampler = None
        if self.consistency == "on":
            sampler = ParaphraseConsistency(
                paraphraser=to_chat_model(self.paraphraser),
                judge=to_chat_model(self.judge),
                n_paraphrases=self.num_paraphrases,
                cache=self.cache,
                cache_namespace=f"langchain:{self.bound.get_name()}",
            )
        self._core = GuardCore(
            self.detector, on_hallucination=self.on_hallucination, on_unverified=self.on_unverified,
            fallback_message=self.fallback if isinstance(self.fallback, str) else None,
            repairer=to_chat_model(self.repairer) if self.on_hallucination == "repair" else None,
            sampler=sampler, cache=self.cache, on_verdict=self.on_verdict, warm_up=self.warm_up,
            stream_unchecked=self.stream_unchecked,
        )
        return self

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return name or self.name or f"RunnableWithHalguard<{self.bound.get_name()}>"

    # -- the wrapped chain's schemas ---------------------------------------------------------------------

    @property
    def InputType(self) -> Any:  # noqa: N802 - LangChain's name
        return self.bound.InputType

    @property
    def OutputType(self) -> Any:  # noqa: N802
        return self.bound.OutputType

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        return self.bound.get_input_schema(config)

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The wrapped chain's output schema; a dict output gains the verdict under ``output_key``."""
        schema = self.bound.get_output_schema(config)
        if self.answer_key is None or not getattr(schema, "model_fields", None):
            return schema
        try:
            return create_model(  # type: ignore[call-overload]
                f"{schema.__name__}WithHalguard", __base__=schema, **{self.output_key: (Optional[Verdict], None)}
            )
        except Exception:  # noqa: BLE001 - a schema that cannot be extended is shown as it is
            return schema

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        return self.bound.config_specs

    # -- invoke -----------------------------------------------------------------------------------------

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:  # noqa: A002
        return self._call_with_config(self._invoke, input, config, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:  # noqa: A002
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)

    def _invoke(
        self, input_: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig, **kwargs: Any
    ) -> Any:
        inner = self._inner_input(input_)
        retrieved = RetrievedDocuments()
        history = self._history.snapshot(config) if self._samples_history else None
        wrapper, output = split_output(
            self.bound.invoke(inner, self._child(config, run_manager, RAW_TAG, retrieved), **kwargs)
        )
        if self._paused(wrapper or output):
            return rewrap(wrapper, output)
        call = GuardedCall(self, input_, inner, retrieved, history, run_manager, config)
        result = call.respond(output, call.decide(output))
        self._write_back(config, output, result)
        return rewrap(wrapper, result)

    async def _ainvoke(
        self, input_: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig, **kwargs: Any
    ) -> Any:
        inner = self._inner_input(input_)
        retrieved = RetrievedDocuments()
        history = await self._history.asnapshot(config) if self._samples_history else None
        wrapper, output = split_output(
            await self.bound.ainvoke(inner, self._child(config, run_manager, RAW_TAG, retrieved), **kwargs)
        )
        if self._paused(wrapper or output):
            return rewrap(wrapper, output)
        call = GuardedCall(self, input_, inner, retrieved, history, run_manager, config)
        result = call.respond(output, await call.adecide(output))
        await self._awrite_back(config, output, result)
        return rewrap(wrapper, result)

    def _inner_input(self, input_: Any, which: Literal["bound", "fallback"] = "bound") -> Any:
        """A bare question wrapped as ``{question_key: question}`` when the chain takes a dict (see ``str_input``)."""
        if not isinstance(input_, str) or self.str_input == "as_is":
            return input_
        if self.str_input == "wrap":
            return {self.question_key: input_}
        takes_dict = self._takes_dict.get(which)
        if takes_dict is None:
            takes_dict = self._takes_dict[which] = wants_dict_input(getattr(self, which), self.question_key)
        return {self.question_key: input_} if takes_dict else input_

    @property
    def _samples_history(self) -> bool:
        return self.consistency == "on" and self._history is not None

    @staticmethod
    def _child(config: RunnableConfig, run_manager: Any, tag: str | None = None,
               retrieved: RetrievedDocuments | None = None) -> RunnableConfig:
        """A child config: nested under the guard's run, tagged, and (for the wrapped chain) watching retrievers."""
        callbacks = run_manager.get_child()
        if tag is not None:  # inherited, so every run inside (a chat model's token events too) carries it
            callbacks.add_tags([tag], inherit=True)
        if retrieved is not None:
            callbacks.add_handler(retrieved, inherit=True)
        return patch_config(config, callbacks=callbacks)

    # -- stream -----------------------------------------------------------------------------------------

    @property
    def _buffers_stream(self) -> bool:
        return self._core.changes_answers

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

    def _stream(self, config: RunnableConfig, kwargs: dict[str, Any],
                make_call: Any) -> ChainStream | GraphStream | SentenceStream:
        found = find_graph(self.bound)
        by_sentence = self.streaming == "sentence" and self.on_hallucination != "repair" and self.consistency == "off"
        if found is None and by_sentence:
            return SentenceStream(self._core, make_call, kwargs, output_key=self.output_key,
                                  answer_key=self.answer_key)
        if found is None:
            return ChainStream(kwargs, hold=self._buffers_stream, output_key=self.output_key,
                                answer_key=self.answer_key)
        graph, bound_kwargs = found
        return GraphStream(graph, {**bound_kwargs, **kwargs}, config, hold=self._buffers_stream,
                           output_key=self.output_key, answer_key=self.answer_key)

    def _transform(
        self, inputs: Iterator[Any], run_manager: CallbackManagerForChainRun, config: RunnableConfig, **kwargs: Any
    ) -> Iterator[Any]:
        seen: dict[str, Any] = {"original": None, "input": None}

        def recorded() -> Iterator[Any]:
            for chunk in inputs:
                seen["original"] = add_chunks(seen["original"], chunk)
                chunk = self._inner_input(chunk)
                seen["input"] = add_chunks(seen["input"], chunk)
                yield chunk

        retrieved = RetrievedDocuments()
        history = self._history.snapshot(config) if self._samples_history else None
        stream = self._stream(config, kwargs, lambda: GuardedCall(self, seen["original"], seen["input"], retrieved,
                                                                  history, run_manager, config))
        child = self._child(config, run_manager, RAW_TAG, retrieved)
        for chunk in self.bound.transform(recorded(), child, **stream.inner_kwargs):
            yield from stream.add(chunk)
            if isinstance(stream, SentenceStream) and stream.stopped:
                break  # the fallback went out: the chain's stream is not read further
        if isinstance(stream, SentenceStream):
            yield from stream.finish()
            return
        output = stream.output()
        if self._paused(output):
            yield from stream.unchecked()
            return
        call = GuardedCall(self, seen["original"], seen["input"], retrieved, history, run_manager, config)
        result = call.respond(output, call.decide(output))
        self._write_back(config, output, result)
        yield from stream.final(output, result)

    async def _atransform(
        self,
        inputs: AsyncIterator[Any],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        seen: dict[str, Any] = {"original": None, "input": None}

        async def recorded() -> AsyncIterator[Any]:
            async for chunk in inputs:
                seen["original"] = add_chunks(seen["original"], chunk)
                chunk = self._inner_input(chunk)
                seen["input"] = add_chunks(seen["input"], chunk)
                yield chunk

        retrieved = RetrievedDocuments()
        history = await self._history.asnapshot(config) if self._samples_history else None
        stream = self._stream(config, kwargs, lambda: GuardedCall(self, seen["original"], seen["input"], retrieved,
                                                                  history, run_manager, config))
        child = self._child(config, run_manager, RAW_TAG, retrieved)
        async for chunk in self.bound.atransform(recorded(), child, **stream.inner_kwargs):
            if isinstance(stream, SentenceStream):
                async for out in stream.aadd(chunk):
                    yield out
                if stream.stopped:
                    break
                continue
            for out in stream.add(chunk):
                yield out
        if isinstance(stream, SentenceStream):
            async for out in stream.afinish():
                yield out
            return
        output = stream.output()
        if self._paused(output):
            for chunk in stream.unchecked():
                yield chunk
            return
        call = GuardedCall(self, seen["original"], seen["input"], retrieved, history, run_manager, config)
        result = call.respond(output, await call.adecide(output))
        await self._awrite_back(config, output, result)
        for chunk in stream.final(output, result):
            yield chunk

    # -- a graph's thread -----------------------------------------------------------------------------------

    def _paused(self, output: Any) -> bool:
        """A graph that stopped at ``interrupt()`` for human input has not answered yet: it comes back as it is,
        with no verdict, and the run that resumes it (``Command(resume=...)`` through the guard) is checked."""
        if find_graph(self.bound) is None or not interrupted(output):
            return False
        logger.debug("halguard: the graph paused at an interrupt; nothing to check until it is resumed")
        return True

    def _write_back(self, config: RunnableConfig, output: Any, result: Any) -> None:
        """A graph with a checkpointer: the thread keeps the answer the user was shown (see ``_graph.py``)."""
        found = find_graph(self.bound)
        if found is not None:
            write_back(found[0], config, output, result, self.answer_key)

    async def _awrite_back(self, config: RunnableConfig, output: Any, result: Any) -> None:
        found = find_graph(self.bound)
        if found is not None:
            await awrite_back(found[0], config, output, result, self.answer_key)

    def _report(self, verdict: Verdict) -> None:
        _tag_langsmith_run(verdict)
        if verdict.label != "supported":
            logger.info("halguard verdict %s: %s", verdict.label, verdict_summary(verdict))  # positions, codes: no text



def with_halguard(runnable: Runnable[Any, Any], **options: Any) -> RunnableWithHalguard:
    """Wrap ``runnable`` in a :class:`RunnableWithHalguard`; ``options`` are its fields.

    Example:
        .. code-block:: python

            guarded = with_halguard(create_retrieval_chain(retriever, qa_chain), on_hallucination="filter")
            guarded.invoke("When did JWST launch?")  # a str is passed as {"input": ...} (str_input="auto")
    """
    return RunnableWithHalguard(bound=runnable, **options)
