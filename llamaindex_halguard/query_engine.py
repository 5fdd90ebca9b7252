"""HalguardQueryEngine: wrap any query engine; every answer is verified against its source nodes."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator
from dataclasses import replace
from typing import Any

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import (
    RESPONSE_TYPE,
    AsyncStreamingResponse,
    PydanticResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.callbacks import CallbackManager
from llama_index.core.prompts.mixin import PromptMixinType
from llama_index.core.schema import QueryBundle

from halguard.active.premise import arectify_premise, rectify_premise
from halguard.consistency.sampling import ParaphraseConsistency
from halguard.detector import Detector
from halguard.errors import HallucinationError, InputTypeError, InvalidInputError
from halguard.guard import FallbackAnswer, GuardHooks, GuardOutcome, GuardRequest, evidence_of
from halguard.guard.sentences import SentenceGate
from halguard.schema import METADATA_KEY, PremiseRectification, Verdict
from llamaindex_halguard._convert import accumulating, annotate_nodes, guarding, nodes_to_contexts
from llamaindex_halguard._guard import LlamaIndexGuard
from llamaindex_halguard._request import answer_text
from llamaindex_halguard._sentences import areleased_tokens, released_tokens
from llamaindex_halguard.providers import to_chat_model

__all__ = ["HalguardQueryEngine"]

SOURCE = "HalguardQueryEngine"
PREMISE_KEY = "halguard_premise"
"""Where ``premise_rectifier``'s outcome goes in ``response.metadata``."""


class HalguardQueryEngine(BaseQueryEngine):
    """A query engine that verifies the inner engine's answer against ``response.source_nodes``.

    The verdict is merged into ``response.metadata["halguard"]`` (a dict, ``Verdict.to_metadata()``; read it back
    with :func:`halguard.get_verdict`), each source node gets a copy annotated with the claims it supports, a
    :class:`~llamaindex_halguard.HalguardVerdictEvent` is dispatched, and the policy applies:
    ``on_hallucination="annotate" | "raise" | "fallback" | "filter" | "repair"`` and
    ``on_unverified="fail_open" | "fail_closed"`` (same rules as the LangChain guard, see
    :mod:`halguard.policy`). ``fallback`` is a message or another query engine; the fallback's answer is
    checked too (``verdict.action.fallback_verdict``).

    The response keeps its type: a ``PydanticResponse`` (``as_query_engine(output_cls=Model)``) stays one, with
    the same model object; its fields are checked as ``field: value`` lines. Source nodes that are the LLM's own
    intermediate answers (``SubQuestionQueryEngine``'s "Sub question: ... Response: ...") are not evidence: they
    are listed in ``verdict.skipped_sources`` and the answer is checked against the leaf nodes.

    ``response_mode="accumulate"`` and ``"compact_accumulate"`` join one answer per chunk as "Response 1: ...",
    separated by a line of dashes. That framing is LlamaIndex's, not a claim: it is left out of the check (listed
    in ``verdict.skipped``) while each part's answer is checked, and the response keeps it. It is recognised when
    the inner engine's synthesizer accumulates, or, for engines whose synthesizer cannot be read, in its full shape
    (two parts or more, numbered in order, joined by the separator line).

    Streaming responses are wrapped: the verdict is computed when the stream is exhausted and is then in
    ``response.metadata["halguard"]``. With ``"fallback"`` or ``"filter"`` the stream is buffered (the
    answer may be replaced); with ``"raise"`` the error comes at the end of the stream.

    Args:
        query_engine: The engine to wrap.
        detector: A halguard Detector (default: the shared LocalVerifier).
        on_hallucination: What to do with a hallucinated answer.
        on_unverified: Whether an answer that could not be checked passes (``fail_open``) or not.
        fallback: With ``"fallback"``: a message, or a query engine to ask instead.
        consistency: ``"on"``: also run paraphrase sampling (PAS2): paraphrased ``QueryBundle``s go through
            the inner engine and a judge compares the answers; combined per :mod:`halguard.combine`.
        num_paraphrases: Paraphrases per query.
        paraphraser: Writes them: a LlamaIndex LLM, an OpenAI/Mistral client or a callable; None: templates.
        judge: ``"local"`` (offline) or a LlamaIndex LLM / client / callable.
        cache: An opt-in :class:`halguard.llm.cache.ResponseCache` for paraphrase, sample and judge requests.
        embedding_model: The embedding model the index was built with (e.g.
            ``"sentence-transformers/all-MiniLM-L6-v2"``). When it is the local verifier's model, the source
            nodes' stored embeddings are reused instead of recomputed (see "Reusing the retriever's vectors").
        callback_manager: LlamaIndex callback manager (default: the inner engine's).
        repairer: With ``on_hallucination="repair"``: the LLM that rewrites flagged sentences from the source nodes
            (a LlamaIndex LLM, an OpenAI/Mistral client, a callable); the repaired answer is checked again.
        premise_rectifier: An LLM that checks the question's assumptions against the nodes retrieved for it before
            the inner engine answers (:func:`halguard.active.rectify_premise`), and rewrites a false-premise
            question; a true premise is never rewritten. Needs an inner engine with ``retrieve`` (a
            ``RetrieverQueryEngine``). The outcome is in ``response.metadata["halguard_premise"]``.
        streaming: ``"whole"`` or ``"sentence"``: a streaming response sends each sentence once it is complete and
            checked (``filter`` drops a flagged one, ``fallback`` sends the message and stops); the verdict is in
            its metadata when the stream ends. ``repair`` and ``consistency="on"`` streams are checked whole.
        warm_up: Load what the detector's first check would load now, not at the first request.
    """

    def __init__(
        self,
        query_engine: BaseQueryEngine,
        *,
        detector: Detector | None = None,
        on_hallucination: str = "annotate",
        on_unverified: str = "fail_open",
        fallback: str | BaseQueryEngine | None = None,
        consistency: str = "off",
        num_paraphrases: int = 3,
        paraphraser: Any = None,
        judge: Any = "local",
        cache: Any = None,
        embedding_model: str | None = None,
        callback_manager: CallbackManager | None = None,
        repairer: Any = None,
        premise_rectifier: Any = None,
        streaming: str = "whole",
        warm_up: bool = False,
    ) -> None:
        if not isinstance(query_engine, BaseQueryEngine):
            msg = f"query_engine must be a LlamaIndex BaseQueryEngine, got {type(query_engine).__name__}"
            raise InputTypeError(msg)
        if consistency not in ("off", "on"):
            msg = f"consistency must be 'off' or 'on', got {consistency!r}"
            raise InvalidInputError(msg)
        if streaming not in ("whole", "sentence"):
            msg = f"streaming must be 'whole' or 'sentence', got {streaming!r}"
            raise InvalidInputError(msg)
        # repair and paraphrase sampling need the whole answer: their streams are checked whole
        self._by_sentence = streaming == "sentence" and on_hallucination != "repair" and consistency == "off"
        sampler = (
            ParaphraseConsistency(
                paraphraser=to_chat_model(paraphraser),
                judge=to_chat_model(judge),
                n_paraphrases=num_paraphrases,
                cache=cache,
                cache_namespace=f"llamaindex:{type(query_engine).__name__}",
            )
            if consistency == "on"
            else None
        )
        self._guard = LlamaIndexGuard(detector, on_hallucination, on_unverified, embedding_model, SOURCE,
                                      repairer=repairer, fallback=fallback, sampler=sampler,
                                      warm_up=warm_up)
        self._engine = query_engine
        self._rectifier = to_chat_model(premise_rectifier) if premise_rectifier is not None else None
        if self._rectifier is not None and type(query_engine).retrieve is BaseQueryEngine.retrieve:
            msg = "premise_rectifier needs an inner engine with retrieve() (e.g. index.as_query_engine())"
            raise InvalidInputError(msg)
        self._detector = self._guard.detector
        self.on_hallucination = on_hallucination
        self.on_unverified = on_unverified
        self.fallback = fallback
        self.embedding_model = embedding_model
        super().__init__(callback_manager or getattr(query_engine, "callback_manager", None))

    def _get_prompt_modules(self) -> PromptMixinType:
        return {"query_engine": self._engine}

    # -- sync ------------------------------------------------------------------------------------------

    def _rectified(self, query_bundle: QueryBundle, premise: PremiseRectification | None) -> QueryBundle:
        if premise is None or premise.outcome != "rectified":
            return query_bundle
        return QueryBundle(premise.rectified_question)

    def _premise(self, query_bundle: QueryBundle) -> PremiseRectification | None:
        if self._rectifier is None:
            return None
        with guarding():
            nodes = self._engine.retrieve(query_bundle)
        return rectify_premise(query_bundle.query_str, nodes_to_contexts(nodes), llm=self._rectifier)

    async def _apremise(self, query_bundle: QueryBundle) -> PremiseRectification | None:
        if self._rectifier is None:
            return None
        with guarding():
            nodes = await self._engine.aretrieve(query_bundle)
        return await arectify_premise(query_bundle.query_str, nodes_to_contexts(nodes), llm=self._rectifier)

    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        premise = self._premise(query_bundle)
        return _with_premise(self._answer_query(self._rectified(query_bundle, premise)), premise)

    def _answer_query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        with guarding():
            response = self._engine.query(query_bundle)
        if isinstance(response, StreamingResponse):
            return self._wrap_stream(query_bundle, response)
        return self._check(query_bundle, response)

    def _check(self, query_bundle: QueryBundle, response: Any) -> Any:
        """The guard's response for the inner engine's (read) response: checked, and the policy applied."""
        request = self._request(query_bundle, _answer(response), response.source_nodes)
        return self._respond(response, request, self._guard.core.run(request, self._hooks(query_bundle)))

    def _hooks(self, query_bundle: QueryBundle) -> GuardHooks:
        def fallback(rejected: Verdict) -> FallbackAnswer:
            with guarding():
                answer = _read(self.fallback.query(query_bundle))  # type: ignore[union-attr]
            return FallbackAnswer(answer, self._fallback_request(rejected, answer))

        has_engine = isinstance(self.fallback, BaseQueryEngine)
        return self._guard.hooks(ask=self._sample_answer, fallback=fallback if has_engine else None)

    def _wrap_stream(self, query_bundle: QueryBundle, response: StreamingResponse) -> StreamingResponse:
        if self._by_sentence:
            return self._sentence_stream(query_bundle, response)
        if self._guard.core.changes_answers:
            final = self._check(query_bundle, response.get_response())
            return StreamingResponse(iter([final.response or ""]), final.source_nodes, final.metadata, final.response)

        def tokens() -> Generator[str, None, None]:
            parts = []
            for token in response.response_gen:
                parts.append(token)
                yield token
            text = "".join(parts)
            done = self._check(query_bundle, Response(text, response.source_nodes, response.metadata))
            wrapped.response_txt = text
            wrapped.metadata = done.metadata
            wrapped.source_nodes = done.source_nodes

        wrapped = StreamingResponse(tokens(), response.source_nodes, response.metadata)
        return wrapped

    # -- async -----------------------------------------------------------------------------------------

    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        premise = await self._apremise(query_bundle)
        return _with_premise(await self._aanswer_query(self._rectified(query_bundle, premise)), premise)

    async def _aanswer_query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        with guarding():
            response = await self._engine.aquery(query_bundle)
        if isinstance(response, AsyncStreamingResponse):
            return await self._awrap_stream(query_bundle, response)
        if isinstance(response, StreamingResponse):  # some engines stream synchronously even in aquery
            return self._wrap_stream(query_bundle, response)
        return await self._acheck(query_bundle, response)

    async def _acheck(self, query_bundle: QueryBundle, response: Any) -> Any:
        """Async twin of :meth:`_check`."""
        request = self._request(query_bundle, _answer(response), response.source_nodes)
        return self._respond(response, request, await self._guard.core.arun(request, self._ahooks(query_bundle)))

    def _ahooks(self, query_bundle: QueryBundle) -> GuardHooks:
        async def fallback(rejected: Verdict) -> FallbackAnswer:
            with guarding():
                answer = await _aread(await self.fallback.aquery(query_bundle))  # type: ignore[union-attr]
            return FallbackAnswer(answer, self._fallback_request(rejected, answer))

        has_engine = isinstance(self.fallback, BaseQueryEngine)
        return self._guard.hooks(ask=self._asample_answer, fallback=fallback if has_engine else None)

    async def _awrap_stream(self, query_bundle: QueryBundle, response: AsyncStreamingResponse) -> AsyncStreamingResponse:
        if self._by_sentence:
            return self._asentence_stream(query_bundle, response)
        if self._guard.core.changes_answers:
            text = "".join([t async for t in response.async_response_gen()])
            final = await self._acheck(query_bundle, Response(text, response.source_nodes, response.metadata))

            async def replay() -> AsyncGenerator[str, None]:
                yield final.response or ""

            return AsyncStreamingResponse(replay(), final.source_nodes, final.metadata)

        async def tokens() -> AsyncGenerator[str, None]:
            parts = []
            async for token in response.async_response_gen():
                parts.append(token)
                yield token
            text = "".join(parts)
            done = await self._acheck(query_bundle, Response(text, response.source_nodes, response.metadata))
            wrapped.metadata = done.metadata
            wrapped.source_nodes = done.source_nodes

        wrapped = AsyncStreamingResponse(tokens(), response.source_nodes, response.metadata)
        return wrapped

    # -- sentence by sentence ------------------------------------------------------------------------

    def _gate(self, query_bundle: QueryBundle, response: Any) -> SentenceGate:
        request = self._request(query_bundle, "", response.source_nodes)
        return SentenceGate(self._guard.core, request, self._guard.hooks())

    def _sentence_stream(self, query_bundle: QueryBundle, response: StreamingResponse) -> StreamingResponse:
        """Each sentence once it is complete and checked; the verdict in the metadata once the stream ends."""
        def on_end(text: str, outcome: GuardOutcome) -> None:
            _record_outcome(wrapped, response, text, outcome)

        tokens = released_tokens(self._gate(query_bundle, response), response.response_gen, on_end)
        wrapped = StreamingResponse(tokens, response.source_nodes, response.metadata)
        return wrapped

    def _asentence_stream(self, query_bundle: QueryBundle, response: AsyncStreamingResponse) -> AsyncStreamingResponse:
        """Async twin of :meth:`_sentence_stream`."""
        def on_end(text: str, outcome: GuardOutcome) -> None:
            _record_outcome(wrapped, response, text, outcome)

        tokens = areleased_tokens(self._gate(query_bundle, response), response.async_response_gen(), on_end)
        wrapped = AsyncStreamingResponse(tokens, response.source_nodes, response.metadata)
        return wrapped

    # -- shared ----------------------------------------------------------------------------------------

    def _request(self, query_bundle: QueryBundle, answer: Any, nodes: Any) -> GuardRequest:
        """The inner engine's answer made ready; its synthesizer says whether the answer carries accumulate framing."""
        return self._guard.request(query_bundle.query_str, answer, nodes, accumulated=accumulating(self._engine))

    def _sample_answer(self, question: str) -> str:
        """A paraphrased query through the inner engine (streams are read to the end)."""
        return answer_text(_answer(_read(self._engine.query(QueryBundle(question)))))

    async def _asample_answer(self, question: str) -> str:
        return answer_text(_answer(await _aread(await self._engine.aquery(QueryBundle(question)))))

    def _fallback_request(self, rejected: Verdict, fallback: Any) -> GuardRequest:
        """The fallback's answer against its own nodes, or the rejected answer's nodes when it has none."""
        question = rejected.request.question if rejected.request else None
        nodes = fallback.source_nodes
        engine = self.fallback if isinstance(self.fallback, BaseQueryEngine) else None
        request = self._guard.request(question, _answer(fallback), nodes, accumulated=accumulating(engine))
        if not request.contexts and not nodes:
            request = replace(request, contexts=evidence_of(rejected))
        return request

    @staticmethod
    def _respond(response: Any, request: GuardRequest, outcome: GuardOutcome) -> Any:
        """The outcome as a response of the same type: the verdict in its metadata, the text the policy chose."""
        if outcome.fallback is not None:
            fallback = outcome.fallback.result
            if request.structured and not isinstance(fallback, PydanticResponse):
                msg = "the fallback engine returned text for a structured answer; it would change the response's type"
                raise HallucinationError(msg, verdict=outcome.verdict)
            return _with_verdict(fallback, outcome.verdict)
        return _with_verdict(response, outcome.verdict, outcome.text)


def _record_outcome(wrapped: Any, response: Any, text: str, outcome: GuardOutcome) -> None:
    """A sentence stream has ended: the text sent and the verdict go on the response the caller holds."""
    wrapped.response_txt = text
    wrapped.metadata = {**(response.metadata or {}), METADATA_KEY: outcome.verdict.to_metadata()}
    wrapped.source_nodes = annotate_nodes(list(response.source_nodes), outcome.verdict)


def _with_premise(response: Any, premise: PremiseRectification | None) -> Any:
    """The response with the premise check's outcome in its metadata (a stream's metadata too)."""
    if premise is not None:
        response.metadata = {**(response.metadata or {}), PREMISE_KEY: premise.model_dump(mode="json")}
    return response


def _answer(response: Any) -> Any:
    """The answer a response carries: the pydantic object of a PydanticResponse, else the text."""
    if isinstance(response, PydanticResponse):
        return response.response
    return getattr(response, "response", None) or ""


def _read(response: Any) -> Any:
    """A response with its answer available: streams are read to the end."""
    if isinstance(response, StreamingResponse):
        return response.get_response()
    if isinstance(response, (Response, PydanticResponse)):
        return response
    msg = f"cannot verify a {type(response).__name__} response"
    raise InputTypeError(msg)


async def _aread(response: Any) -> Any:
    if isinstance(response, AsyncStreamingResponse):
        text = "".join([t async for t in response.async_response_gen()])
        return Response(text, response.source_nodes, response.metadata)
    return _read(response)


def _with_verdict(response: Any, verdict: Verdict, replacement: str | None = None) -> Any:
    """A new response of the same type with the verdict merged into its metadata and annotated node copies."""
    response = _read(response)
    metadata = {**(response.metadata or {}), METADATA_KEY: verdict.to_metadata()}
    nodes = annotate_nodes(list(response.source_nodes), verdict)
    if isinstance(response, PydanticResponse):
        return PydanticResponse(response=response.response, source_nodes=nodes, metadata=metadata)
    return Response(response=replacement if replacement is not None else response.response, source_nodes=nodes,
                    metadata=metadata)
