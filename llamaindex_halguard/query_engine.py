"""HalguardQueryEngine: wrap any query engine; every answer is verified against its source nodes."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator
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

from halguard.api import default_detector
from halguard.detector import Detector
from halguard.combine import combine_verdicts
from halguard.consistency import ParaphraseConsistency
from halguard.errors import InputTypeError, InvalidInputError
from halguard.policy import GuardDecision, decide, replacement_text, validate_policy
from halguard.schema import METADATA_KEY, Verdict
from llamaindex_halguard._convert import annotate_nodes, nodes_to_contexts
from llamaindex_halguard.events import dispatch_verdict
from llamaindex_halguard.providers import to_chat_model

__all__ = ["HalguardQueryEngine"]


class HalguardQueryEngine(BaseQueryEngine):
    """A query engine that verifies the inner engine's answer against ``response.source_nodes``.

    The verdict is merged into ``response.metadata["halguard"]`` (a dict, ``Verdict.to_metadata()``), each
    source node gets a copy annotated with the claims it supports, a
    :class:`~llamaindex_halguard.HalguardVerdictEvent` is dispatched, and the policy applies:
    ``on_hallucination="annotate" | "raise" | "fallback" | "filter"`` and
    ``on_unverified="fail_open" | "fail_closed"`` (same rules as the LangChain guard, see
    :mod:`halguard.policy`). ``fallback`` is a message or another query engine.

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
        cache: An opt-in :class:`halguard.cache.ResponseCache` for paraphrase, sample and judge requests.
        embedding_model: The embedding model the index was built with (e.g.
            ``"sentence-transformers/all-MiniLM-L6-v2"``). When it is the local verifier's model, the source
            nodes' stored embeddings are reused instead of recomputed (see
            "Reusing the retriever's vectors" in the README for when a vector qualifies).
        callback_manager: LlamaIndex callback manager (default: the inner engine's).
    """

    def __init__(
        self,
        query_engine: BaseQueryEngine,
        detector: Detector | None = None,
        on_hallucination: str = "annotate",
        *,
        on_unverified: str = "fail_open",
        fallback: str | BaseQueryEngine | None = None,
        consistency: str = "off",
        num_paraphrases: int = 3,
        paraphraser: Any = None,
        judge: Any = "local",
        cache: Any = None,
        embedding_model: str | None = None,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        if not isinstance(query_engine, BaseQueryEngine):
            msg = f"query_engine must be a LlamaIndex BaseQueryEngine, got {type(query_engine).__name__}"
            raise InputTypeError(msg)
        validate_policy(on_hallucination, on_unverified)
        detector = detector if detector is not None else default_detector()
        if not isinstance(detector, Detector):
            msg = f"detector must be a halguard.Detector, got {type(detector).__name__}"
            raise InputTypeError(msg)
        if consistency not in ("off", "on"):
            msg = f"consistency must be 'off' or 'on', got {consistency!r}"
            raise InvalidInputError(msg)
        self._sampler = (
            ParaphraseConsistency(
                to_chat_model(paraphraser),
                to_chat_model(judge),
                n_paraphrases=num_paraphrases,
                cache=cache,
                cache_namespace=f"llamaindex:{type(query_engine).__name__}",
            )
            if consistency == "on"
            else None
        )
        self._engine = query_engine
        self._detector = detector
        self.on_hallucination = on_hallucination
        self.on_unverified = on_unverified
        self.fallback = fallback
        self.embedding_model = embedding_model
        super().__init__(callback_manager or getattr(query_engine, "callback_manager", None))

    def _get_prompt_modules(self) -> PromptMixinType:
        return {"query_engine": self._engine}

    # -- sync ------------------------------------------------------------------------------------------

    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        response = self._engine.query(query_bundle)
        if isinstance(response, StreamingResponse):
            return self._wrap_stream(query_bundle, response)
        verdict = self._verify(query_bundle, _text(response), response.source_nodes)
        return self._apply(query_bundle, response, verdict)

    def _apply(self, query_bundle: QueryBundle, response: Any, verdict: Verdict) -> Response:
        decision = self._decide(verdict, _text(response))
        if decision.action == "fallback" and isinstance(self.fallback, BaseQueryEngine):
            return self._finish(_as_response(self.fallback.query(query_bundle)), decision.verdict)
        return self._finish(response, decision.verdict, self._replacement(decision))

    def _wrap_stream(self, query_bundle: QueryBundle, response: StreamingResponse) -> StreamingResponse:
        if self.on_hallucination in ("fallback", "filter"):
            final = self._apply(query_bundle, response.get_response(), self._verify_stream(query_bundle, response))
            return StreamingResponse(iter([final.response or ""]), final.source_nodes, final.metadata, final.response)

        def tokens() -> Generator[str, None, None]:
            parts = []
            for token in response.response_gen:
                parts.append(token)
                yield token
            text = "".join(parts)
            verdict = self._verify(query_bundle, text, response.source_nodes)
            done = self._apply(query_bundle, Response(text, response.source_nodes, response.metadata), verdict)
            wrapped.response_txt = text
            wrapped.metadata = done.metadata
            wrapped.source_nodes = done.source_nodes

        wrapped = StreamingResponse(tokens(), response.source_nodes, response.metadata)
        return wrapped

    def _verify_stream(self, query_bundle: QueryBundle, response: StreamingResponse) -> Verdict:
        return self._verify(query_bundle, response.get_response().response or "", response.source_nodes)

    # -- async -----------------------------------------------------------------------------------------

    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        response = await self._engine.aquery(query_bundle)
        if isinstance(response, AsyncStreamingResponse):
            return await self._awrap_stream(query_bundle, response)
        if isinstance(response, StreamingResponse):  # some engines stream synchronously even in aquery
            return self._wrap_stream(query_bundle, response)
        verdict = await self._averify(query_bundle, _text(response), response.source_nodes)
        return await self._aapply(query_bundle, response, verdict)

    async def _aapply(self, query_bundle: QueryBundle, response: Any, verdict: Verdict) -> Response:
        decision = self._decide(verdict, _text(response))
        if decision.action == "fallback" and isinstance(self.fallback, BaseQueryEngine):
            return self._finish(_as_response(await self.fallback.aquery(query_bundle)), decision.verdict)
        return self._finish(response, decision.verdict, self._replacement(decision))

    async def _awrap_stream(self, query_bundle: QueryBundle, response: AsyncStreamingResponse) -> AsyncStreamingResponse:
        if self.on_hallucination in ("fallback", "filter"):
            text = "".join([t async for t in response.async_response_gen()])
            verdict = await self._averify(query_bundle, text, response.source_nodes)
            final = await self._aapply(query_bundle, Response(text, response.source_nodes, response.metadata), verdict)

            async def replay() -> AsyncGenerator[str, None]:
                yield final.response or ""

            return AsyncStreamingResponse(replay(), final.source_nodes, final.metadata)

        async def tokens() -> AsyncGenerator[str, None]:
            parts = []
            async for token in response.async_response_gen():
                parts.append(token)
                yield token
            text = "".join(parts)
            verdict = await self._averify(query_bundle, text, response.source_nodes)
            done = await self._aapply(query_bundle, Response(text, response.source_nodes, response.metadata), verdict)
            wrapped.metadata = done.metadata
            wrapped.source_nodes = done.source_nodes

        wrapped = AsyncStreamingResponse(tokens(), response.source_nodes, response.metadata)
        return wrapped

    # -- shared ----------------------------------------------------------------------------------------

    def _verify(self, query_bundle: QueryBundle, text: str, nodes: list) -> Verdict:
        contexts = nodes_to_contexts(nodes, embedding_model=self.embedding_model)
        verdict = self._detector.verify(text, contexts, question=query_bundle.query_str)
        if self._sampler is not None:
            report = self._sampler.check(query_bundle.query_str, self._sample_answer, answer=text)
            verdict = combine_verdicts(verdict, report)
        dispatch_verdict(verdict, query_bundle.query_str, source="HalguardQueryEngine")
        return verdict

    async def _averify(self, query_bundle: QueryBundle, text: str, nodes: list) -> Verdict:
        contexts = nodes_to_contexts(nodes, embedding_model=self.embedding_model)
        verdict = await self._detector.averify(text, contexts, question=query_bundle.query_str)
        if self._sampler is not None:
            report = await self._sampler.acheck(query_bundle.query_str, self._asample_answer, answer=text)
            verdict = combine_verdicts(verdict, report)
        dispatch_verdict(verdict, query_bundle.query_str, source="HalguardQueryEngine")
        return verdict

    def _sample_answer(self, question: str) -> str:
        """A paraphrased query through the inner engine (streams are read to the end)."""
        return _as_response(self._engine.query(QueryBundle(question))).response or ""

    async def _asample_answer(self, question: str) -> str:
        response = await self._engine.aquery(QueryBundle(question))
        if isinstance(response, AsyncStreamingResponse):
            return "".join([t async for t in response.async_response_gen()])
        return _as_response(response).response or ""

    def _decide(self, verdict: Verdict, text: str) -> GuardDecision:
        return decide(verdict, text, on_hallucination=self.on_hallucination, on_unverified=self.on_unverified)

    def _replacement(self, decision: GuardDecision) -> str | None:
        return replacement_text(decision, self.fallback)

    @staticmethod
    def _finish(response: Any, verdict: Verdict, replacement: str | None = None) -> Response:
        """A new Response with the verdict merged into its metadata and annotated copies of its nodes."""
        response = _as_response(response)
        return Response(
            response=replacement if replacement is not None else response.response,
            source_nodes=annotate_nodes(list(response.source_nodes), verdict),
            metadata={**(response.metadata or {}), METADATA_KEY: verdict.to_metadata()},
        )


def _text(response: Any) -> str:
    if isinstance(response, PydanticResponse):
        return str(response)
    return getattr(response, "response", None) or ""


def _as_response(response: Any) -> Response:
    if isinstance(response, Response):
        return response
    if isinstance(response, StreamingResponse):
        return response.get_response()
    if isinstance(response, PydanticResponse):
        return Response(str(response), response.source_nodes, response.metadata)
    msg = f"cannot verify a {type(response).__name__} response"
    raise InputTypeError(msg)
