"""Active generation and the repair policy in LangChain and LlamaIndex, with scripted models that return token
log-probabilities the way ChatOpenAI / OpenAILike do."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from halguard import HallucinationError, InvalidInputError, get_verdict
from halguard.llm.providers import ChatReply
from tests.test_active import ANSWER, CTX, QUESTION, Scripted

lc = pytest.importorskip("langchain_core")

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.tracers.context import collect_runs
from pydantic import BaseModel

from langchain_halguard import HalguardActiveRAG, with_halguard

ROLES = {"system": "system", "human": "user", "ai": "assistant"}
FIXED = "The Eiffel Tower is in Paris. It was completed in 1889 by Gustave Eiffel's company."


def openai_logprobs(reply) -> dict[str, Any]:
    return {"content": [{"token": t.token, "logprob": t.logprob,
                         "top_logprobs": [{"token": a, "logprob": b} for a, b in t.top]} for t in reply.logprobs]}


class LogprobChat(BaseChatModel):
    """A chat model driven by a :class:`Scripted` script; returns logprobs when bound with ``logprobs=True``."""

    script: Any
    logprobs: bool | None = None
    top_logprobs: int | None = None

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        reply = self.script([{"role": ROLES[m.type], "content": m.content} for m in messages])
        meta = {"logprobs": openai_logprobs(reply)} if kwargs.get("logprobs") and reply.logprobs else {}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply.text, response_metadata=meta))])

    @property
    def _llm_type(self) -> str:
        return "scripted"


class Docs(BaseRetriever):
    queries: list = []

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        self.queries.append(query)
        return [Document(page_content=c, id=f"doc{i}") for i, c in enumerate(CTX)]


def rag(**options) -> HalguardActiveRAG:
    return HalguardActiveRAG(llm=LogprobChat(script=Scripted(continuation="It is made of iron.")),
                             retriever=Docs(queries=[]), **options)


# -- LangChain: HalguardActiveRAG ---------------------------------------------------------------------------------


def test_active_rag_has_the_retrieval_chain_shape_and_repairs():
    out = rag().invoke({"input": QUESTION})
    assert set(out) == {"input", "context", "answer", "halguard"}
    assert out["input"] == QUESTION
    assert out["answer"].startswith(FIXED)
    assert all(isinstance(d, Document) for d in out["context"]) and {d.id for d in out["context"]} == {"doc0", "doc1"}
    verdict = get_verdict(out)
    assert verdict.active.logprobs is True
    assert [s.decision for s in verdict.active.sentences] == ["confident", "repaired", "confident"]
    assert rag().invoke(QUESTION)["answer"] == out["answer"]  # a bare question works too


def test_active_rag_stream_yields_validated_sentences_then_the_verdict():
    chunks = list(rag().stream({"input": QUESTION}))
    assert chunks[0] == {"input": QUESTION}
    sentences = [c for c in chunks if "halguard_sentences" in c]
    assert [c["answer"] for c in sentences] == ["The Eiffel Tower is in Paris.",
                                               " It was completed in 1889 by Gustave Eiffel's company.",
                                               " It is made of iron."]
    assert sentences[1]["halguard_sentences"][0]["decision"] == "repaired"
    assert set(chunks[-1]) == {"context", "halguard"}
    total = chunks[0]
    for c in chunks[1:]:
        total = total + c
    assert total["answer"] == rag().invoke(QUESTION)["answer"]


def test_active_rag_async_and_batch_match_invoke():
    expected = rag().invoke(QUESTION)["answer"]

    async def run():
        chain = rag()
        chunks = [c async for c in chain.astream(QUESTION)]
        return (await chain.ainvoke({"input": QUESTION}))["answer"], "".join(c.get("answer", "") for c in chunks)

    answer, streamed = asyncio.run(run())
    assert answer == expected and streamed == expected
    assert [o["answer"] for o in rag().batch([QUESTION, QUESTION])] == [expected, expected]


def test_active_rag_runs_nest_under_its_own_run():
    with collect_runs() as cb:
        rag().invoke(QUESTION)
    root = cb.traced_runs[0]
    kinds = [r.run_type for r in root.child_runs]
    assert root.name == "HalguardActiveRAG" and "retriever" in kinds and "llm" in kinds


def test_active_rag_bad_input_is_a_halguard_error():
    with pytest.raises(InvalidInputError):
        rag().invoke({"question": QUESTION})


# -- LangChain: on_hallucination="repair" -------------------------------------------------------------------------


def retrieval_chain(answer: str = ANSWER):
    return RunnableLambda(lambda x: {"input": x["input"], "context": [Document(page_content=c) for c in CTX],
                                     "answer": answer})


def test_repair_policy_rewrites_the_answer_and_checks_it_again():
    guarded = with_halguard(retrieval_chain(), on_hallucination="repair", repairer=LogprobChat(script=Scripted()))
    out = guarded.invoke(QUESTION)
    assert out["answer"] == FIXED and out["context"][0].page_content == CTX[0]
    verdict = get_verdict(out)
    assert verdict.label == "supported" and verdict.action.action == "repair"
    assert verdict.repair.original_answer == ANSWER and verdict.repair.label_before == "hallucinated"
    assert [c.action for c in verdict.repair.changes] == ["rewritten"]


def test_repair_policy_on_the_docs_lcel_chain_returns_the_repaired_str():
    def format_docs(docs):
        return "\n\n".join(d.page_content for d in docs)

    lcel = {"context": Docs(queries=[]) | format_docs, "question": RunnablePassthrough()} | RunnableLambda(
        lambda x: ANSWER)
    guarded = with_halguard(lcel, on_hallucination="repair", repairer=LogprobChat(script=Scripted()))
    assert guarded.invoke(QUESTION) == FIXED
    assert "".join(guarded.stream(QUESTION)) == FIXED  # buffered: the unrepaired text is never streamed


def test_repair_policy_needs_a_repairer_and_refuses_structured_outputs():
    with pytest.raises(InvalidInputError):
        with_halguard(retrieval_chain(), on_hallucination="repair")

    class Answer(BaseModel):
        year: int

    structured = RunnableLambda(lambda x: {"input": x["input"], "context": [Document(page_content=c) for c in CTX],
                                           "answer": Answer(year=1899)})
    guarded = with_halguard(structured, on_hallucination="repair", repairer=LogprobChat(script=Scripted()))
    with pytest.raises(HallucinationError):
        guarded.invoke("When was the Eiffel Tower completed? Give the year.")


def test_repair_policy_with_a_failing_repairer_keeps_the_answer_flagged():
    class Down:
        def __call__(self, messages):
            raise RuntimeError("503")

    guarded = with_halguard(retrieval_chain(), on_hallucination="repair", repairer=Down())
    out = guarded.invoke(QUESTION)
    verdict = get_verdict(out)
    # The rewrite failed (the sentence was kept), the second check still flags it, so it is removed.
    assert [c.action for c in verdict.repair.changes] == ["kept"]
    assert out["answer"] == "The Eiffel Tower is in Paris."
    assert verdict.action.action == "repair" and [r.text for r in verdict.action.removed] == [
        "It was completed in 1899 by Gustave Eiffel's company."]


def test_async_repair_policy_matches_sync():
    guarded = with_halguard(retrieval_chain(), on_hallucination="repair", repairer=LogprobChat(script=Scripted()))
    assert asyncio.run(guarded.ainvoke(QUESTION))["answer"] == guarded.invoke(QUESTION)["answer"] == FIXED


# -- LlamaIndex -----------------------------------------------------------------------------------------------------

li = pytest.importorskip("llama_index.core")

from llama_index.core import Settings, VectorStoreIndex
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    LLMMetadata,
)
from llama_index.core.base.response.schema import Response, StreamingResponse
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import CustomLLM, MockLLM
from llama_index.core.schema import NodeWithScore, TextNode

from llamaindex_halguard import HalguardActiveQueryEngine, HalguardChatEngine, HalguardQueryEngine


class LogprobLLM(CustomLLM):
    """A LlamaIndex LLM driven by a :class:`Scripted` script; OpenAI-style ``raw`` choices carry the logprobs."""

    script: Any
    logprobs: bool = False
    top_logprobs: int | None = None

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="scripted", is_chat_model=True)

    def chat(self, messages: list[ChatMessage], **kwargs) -> ChatResponse:
        reply = self.script([{"role": m.role.value, "content": m.content} for m in messages])
        raw = {"choices": [{"logprobs": openai_logprobs(reply)}]} if self.logprobs and reply.logprobs else {}
        return ChatResponse(message=ChatMessage(role="assistant", content=reply.text), raw=raw)

    async def achat(self, messages: list[ChatMessage], **kwargs) -> ChatResponse:
        return self.chat(messages, **kwargs)

    def stream_chat(self, messages: list[ChatMessage], **kwargs):
        response = self.chat(messages, **kwargs)
        yield ChatResponse(message=response.message, delta=response.message.content, raw=response.raw)

    def complete(self, prompt: str, formatted: bool = False, **kwargs) -> CompletionResponse:
        return CompletionResponse(text="")

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs):
        yield CompletionResponse(text="")


@pytest.fixture
def index():
    Settings.llm = MockLLM()
    Settings.embed_model = MockEmbedding(embed_dim=8)
    return VectorStoreIndex([TextNode(text=c, id_=f"n{i}") for i, c in enumerate(CTX)])


def active_engine(index, **options) -> HalguardActiveQueryEngine:
    llm = LogprobLLM(script=Scripted(continuation="It is made of iron."))
    return HalguardActiveQueryEngine(index.as_retriever(similarity_top_k=2), llm, **options)


def test_active_query_engine_repairs_and_reports(index):
    response = active_engine(index).query(QUESTION)
    assert response.response.startswith(FIXED)
    verdict = get_verdict(response)
    assert [s.decision for s in verdict.active.sentences] == ["confident", "repaired", "confident"]
    assert {n.node.node_id for n in response.source_nodes} == {"n0", "n1"}
    assert asyncio.run(active_engine(index).aquery(QUESTION)).response == response.response


def test_active_query_engine_streams_validated_sentences(index):
    response = active_engine(index, streaming=True).query(QUESTION)
    assert isinstance(response, StreamingResponse)
    pieces = list(response.response_gen)
    assert pieces[1] == " It was completed in 1889 by Gustave Eiffel's company."
    assert get_verdict(response).active is not None

    async def run():
        r = await active_engine(index, streaming=True).aquery(QUESTION)
        return "".join([t async for t in r.async_response_gen()]), r

    text, r = asyncio.run(run())
    assert text == "".join(pieces) and get_verdict(r) is not None


class Fixed(BaseQueryEngine):
    def __init__(self) -> None:
        super().__init__(callback_manager=None)

    def _get_prompt_modules(self):
        return {}

    def _query(self, query_bundle):
        return Response(ANSWER, [NodeWithScore(node=TextNode(text=c), score=1.0) for c in CTX])

    async def _aquery(self, query_bundle):
        return self._query(query_bundle)


def test_query_engine_repair_policy(index):
    engine = HalguardQueryEngine(Fixed(), on_hallucination="repair", repairer=LogprobLLM(script=Scripted()))
    response = engine.query(QUESTION)
    assert response.response == FIXED
    verdict = get_verdict(response)
    assert verdict.action.action == "repair" and verdict.repair.label_before == "hallucinated"
    assert asyncio.run(engine.aquery(QUESTION)).response == FIXED
    with pytest.raises(InvalidInputError):
        HalguardQueryEngine(Fixed(), on_hallucination="repair")


def test_chat_engine_repair_policy_rewrites_memory(index):
    script = Scripted()

    def chat_script(messages):
        try:
            return script(messages)  # halguard's own steps (JSON data)
        except (ValueError, IndexError, AssertionError):
            return ChatReply(ANSWER)  # the chat engine's turn

    llm = LogprobLLM(script=chat_script)
    engine = HalguardChatEngine(index.as_chat_engine(chat_mode="context", llm=llm), on_hallucination="repair",
                                repairer=llm)
    response = engine.chat(QUESTION)
    assert response.response == FIXED
    assert get_verdict(response).action.action == "repair"
    assert engine.chat_history[-1].content == FIXED  # the next turn builds on what the user was shown


def test_query_engine_premise_rectifier_rewrites_only_a_false_premise(index):
    false_premise = "Why was the Eiffel Tower completed in Berlin in 1920?"
    rewriter = Scripted(premise=0.1, rewrite=QUESTION)
    engine = HalguardQueryEngine(index.as_query_engine(llm=MockLLM()), premise_rectifier=LogprobLLM(script=rewriter))
    response = engine.query(false_premise)
    premise = response.metadata["halguard_premise"]
    assert premise["outcome"] == "rectified" and premise["rectified_question"] == QUESTION
    assert get_verdict(response).request.question == QUESTION  # the rectified question was answered

    keeper = Scripted(premise=0.9, rewrite="NEVER")
    engine = HalguardQueryEngine(index.as_query_engine(llm=MockLLM()), premise_rectifier=LogprobLLM(script=keeper))
    response = asyncio.run(engine.aquery(QUESTION))
    assert response.metadata["halguard_premise"]["outcome"] == "true_premise"
    assert get_verdict(response).request.question == QUESTION and keeper.steps == ["premise"]
    with pytest.raises(InvalidInputError):
        HalguardQueryEngine(Fixed(), premise_rectifier=LogprobLLM(script=keeper))


def test_active_rag_returns_every_distinct_document_even_with_shared_metadata():
    class SameSource(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager):
            # Chunks of one PDF: no ids, one metadata["source"] (as PyPDFLoader makes them).
            return [Document(page_content=c, metadata={"source": "f.pdf"}) for c in CTX]

    rag = HalguardActiveRAG(llm=LogprobChat(script=Scripted()), retriever=SameSource())
    out = rag.invoke(QUESTION)
    assert sorted(d.page_content for d in out["context"]) == sorted(CTX)


def test_repair_policy_that_removes_everything_returns_the_fallback_message():
    from halguard.policy import DEFAULT_FALLBACK

    guarded = with_halguard(retrieval_chain("Zorblax Quint designed its lifts."), on_hallucination="repair",
                            repairer=LogprobChat(script=Scripted()))
    out = guarded.invoke(QUESTION)
    assert out["answer"] == DEFAULT_FALLBACK
    assert [c.action for c in get_verdict(out).repair.changes] == ["removed"]


def test_repair_policy_fails_closed_when_the_second_check_cannot_run():
    from halguard import Detector, LocalVerifier, UnverifiedError, Verdict

    class SecondCheckFails(Detector):
        name, threshold = "flaky", 0.5

        def __init__(self):
            self.calls, self.inner = 0, LocalVerifier()

        def verify(self, answer, contexts, *, question=None):
            self.calls += 1
            if self.calls == 1:
                return self.inner.verify(answer, contexts, question=question)
            return Verdict.unverified("provider_error", "down", detector=self.name, threshold=self.threshold)

    guarded = with_halguard(retrieval_chain(), on_hallucination="repair", on_unverified="fail_closed",
                            repairer=LogprobChat(script=Scripted()), detector=SecondCheckFails())
    with pytest.raises(UnverifiedError):
        guarded.invoke(QUESTION)
    open_guard = with_halguard(retrieval_chain(), on_hallucination="repair", repairer=LogprobChat(script=Scripted()),
                               detector=SecondCheckFails())
    out = open_guard.invoke(QUESTION)
    assert out["answer"] == FIXED and get_verdict(out).label == "unverified"
