"""The LangChain shapes users write from the docs, guarded as they are (issue 11).

Real retrievers (InMemoryVectorStore over the local MiniLM), scripted chat models, the real LocalVerifier.
"""
# RunnableWithMessageHistory and InMemoryChatMessageHistory are deprecated in langchain-core 1.7 but still what
# the docs' history tutorials use; the guard must work with them.

import pickle
import uuid

import pytest

from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough
from langchain_core.runnables.history import RunnableWithMessageHistory
from langchain_core.vectorstores import InMemoryVectorStore
from pydantic import BaseModel

from halguard import HallucinationError, InvalidInputError, Verdict, get_verdict
from langchain_halguard import HalguardCallbackHandler, HalguardEmbeddings, with_halguard
from langchain_halguard.guard import RAW_TAG, SAMPLE_TAG

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.deprecation.LangChainDeprecationWarning")

DOCS = [
    Document(id="launch", page_content="JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou."),
    Document(id="mirror", page_content="Webb's primary mirror is 6.5 metres across and has 18 segments."),
    Document(id="orbit", page_content="The telescope orbits the Sun near the L2 point, 1.5 million km from Earth."),
]
QUESTION = "When did JWST launch?"
GOOD = "JWST was launched on 25 December 2021 on an Ariane 5 rocket."
BAD = "JWST was launched on 25 December 2019 on a Falcon Heavy rocket."


@pytest.fixture(scope="module")
def retriever():
    store = InMemoryVectorStore(HalguardEmbeddings())
    store.add_documents(list(DOCS))
    return store.as_retriever(search_kwargs={"k": 3})


def format_docs(docs):
    return "\n\n".join(d.page_content for d in docs)


PROMPT = ChatPromptTemplate.from_template("Answer from the context.\n\n{context}\n\nQuestion: {question}")


def docs_chain(retriever, *answers):
    """The LangChain docs' RAG chain, verbatim: it ends in a str and the documents exist only inside the run."""
    llm = FakeListChatModel(responses=list(answers))
    return {"context": retriever | format_docs, "question": RunnablePassthrough()} | PROMPT | llm | StrOutputParser()


# -- 1. the docs' LCEL chain and create_retrieval_chain ------------------------------------------------


def test_docs_lcel_chain_is_guarded_from_its_retriever_runs(verifier, retriever):
    seen = []
    guarded = with_halguard(docs_chain(retriever, BAD), detector=verifier, on_verdict=seen.append)
    out = guarded.invoke(QUESTION)
    assert out == BAD and isinstance(out, str)  # the user's str comes back unchanged
    (verdict,) = seen
    assert verdict.label == "hallucinated"
    assert {s.text for s in verdict.spans} >= {"2019", "Falcon Heavy"}
    assert verdict.claims[0].evidence[0].source_id == "launch"  # per document, with the document's id
    assert verdict.request.question == QUESTION


def test_docs_lcel_chain_supported_and_raise(verifier, retriever):
    seen = []
    assert with_halguard(docs_chain(retriever, GOOD), detector=verifier, on_verdict=seen.append).invoke(QUESTION) == GOOD
    assert seen[0].label == "supported"
    with pytest.raises(HallucinationError):
        with_halguard(docs_chain(retriever, BAD), detector=verifier, on_hallucination="raise").invoke(QUESTION)


async def test_docs_lcel_chain_async_stream_and_filter(verifier, retriever):
    seen = []
    guarded = with_halguard(docs_chain(retriever, BAD), detector=verifier, on_verdict=seen.append)
    assert await guarded.ainvoke(QUESTION) == BAD
    chunks = [c async for c in with_halguard(docs_chain(retriever, BAD), detector=verifier,
                                             on_verdict=seen.append).astream(QUESTION)]
    assert "".join(chunks) == BAD
    answer = f"{BAD} Webb's primary mirror is 6.5 metres across."
    filtered = with_halguard(docs_chain(retriever, answer), detector=verifier, on_hallucination="filter")
    assert filtered.invoke(QUESTION) == "Webb's primary mirror is 6.5 metres across."
    assert [v.label for v in seen] == ["hallucinated", "hallucinated"]


def test_docs_lcel_chain_batch_keeps_each_calls_documents(verifier, retriever):
    labels = []
    guarded = with_halguard(docs_chain(retriever, GOOD, BAD, GOOD, BAD), detector=verifier,
                            on_verdict=lambda v: labels.append((v.request.id, v.label)))
    outs = guarded.batch([QUESTION] * 4, config={"max_concurrency": 1})
    assert outs == [GOOD, BAD, GOOD, BAD]
    assert [label for _, label in labels] == ["supported", "hallucinated", "supported", "hallucinated"]
    assert len({run_id for run_id, _ in labels}) == 4


def test_a_compression_retriever_counts_once(verifier, retriever):
    """Only the outermost retriever's documents count (a retriever inside a retriever is its input)."""
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.retrievers import BaseRetriever

    class FirstOnly(BaseRetriever):
        base: object

        def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun):
            return self.base.invoke(query, {"callbacks": run_manager.get_child()})[:1]

    seen = []
    chain = {"context": FirstOnly(base=retriever) | format_docs, "question": RunnablePassthrough()} | PROMPT | \
        FakeListChatModel(responses=[GOOD]) | StrOutputParser()
    with_halguard(chain, detector=verifier, on_verdict=seen.append).invoke(QUESTION)
    assert {e.source_id for c in seen[0].claims for e in c.evidence} == {"launch"}


def test_create_retrieval_chain_takes_a_bare_question(verifier, retriever):
    from langchain_classic.chains import create_retrieval_chain
    from langchain_classic.chains.combine_documents import create_stuff_documents_chain

    prompt = ChatPromptTemplate.from_template("Answer from {context}: {input}")
    chain = create_retrieval_chain(retriever, create_stuff_documents_chain(FakeListChatModel(responses=[BAD]), prompt))
    out = with_halguard(chain, detector=verifier).invoke("When did JWST launch?")  # the call in docs/langchain.md
    assert out["input"] == QUESTION and out["answer"] == BAD
    assert out["halguard"].label == "hallucinated"
    # "as_is" passes the str on, which the chain's first step (RunnablePassthrough.assign) rejects
    with pytest.raises(ValueError, match="must be a dict"):
        with_halguard(chain, detector=verifier, str_input="as_is").invoke(QUESTION)


def test_str_input_wrap_and_as_is(verifier):
    seen = []
    chain = RunnableLambda(lambda x: seen.append(x) or {"context": list(DOCS), "answer": GOOD})
    with_halguard(chain, detector=verifier, str_input="wrap").invoke(QUESTION)
    with_halguard(chain, detector=verifier).invoke(QUESTION)  # auto: a lambda takes anything, so as it is
    assert seen == [{"input": QUESTION}, QUESTION]


def test_no_retriever_and_no_documents_is_a_clear_error(verifier):
    chain = RunnableLambda(lambda x: GOOD)
    with pytest.raises(InvalidInputError, match="no retriever ran.*'context'"):
        with_halguard(chain, detector=verifier).invoke({"input": QUESTION})


# -- 2. structured output ------------------------------------------------------------------------------


class LaunchFacts(BaseModel):
    date: str
    rocket: str


def structured_llm(facts: LaunchFacts):
    """A chat model's with_structured_output stand-in: a runnable that returns the pydantic object."""
    return RunnableLambda(lambda _prompt: facts)


def structured_verdicts(retriever, verifier):
    good, bad = LaunchFacts(date="25 December 2021", rocket="Ariane 5"), LaunchFacts(date="2019", rocket="Falcon Heavy")
    verdicts = []
    for facts in (good, bad):
        chain = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
            answer=PROMPT | structured_llm(facts)
        )
        out = with_halguard(chain, detector=verifier, question_key="question").invoke(QUESTION)
        assert out["answer"] is facts  # the user's object, untouched
        assert out["halguard"].checked_text.splitlines()[0] == f"date: {facts.date}"
        verdicts.append(out["halguard"])
    return verdicts


def test_structured_output_grounded_record_is_supported(verifier, retriever):
    good, _ = structured_verdicts(retriever, verifier)
    assert good.label == "supported"


def test_structured_output_answer_is_checked_and_kept(verifier, retriever):
    good, bad = structured_verdicts(retriever, verifier)
    assert bad.label == "hallucinated" and good.score < bad.score
    bad = LaunchFacts(date="2019", rocket="Falcon Heavy")
    seen = []
    bare = {"context": retriever | format_docs, "question": RunnablePassthrough()} | PROMPT | structured_llm(bad)
    out = with_halguard(bare, detector=verifier, on_verdict=seen.append).invoke(QUESTION)
    assert out is bad and seen[0].label == "hallucinated"
    assert {s.text for s in seen[0].spans} >= {"2019", "Falcon Heavy"}


def test_structured_output_filter_raises_instead_of_changing_the_type(verifier, retriever):
    bad = LaunchFacts(date="2019", rocket="Falcon Heavy")
    bare = {"context": retriever | format_docs, "question": RunnablePassthrough()} | PROMPT | structured_llm(bad)
    with pytest.raises(HallucinationError, match="structured"):
        with_halguard(bare, detector=verifier, on_hallucination="filter").invoke(QUESTION)
    good = LaunchFacts(date="25 December 2021", rocket="Ariane 5")
    out = with_halguard(bare, detector=verifier, on_hallucination="fallback",
                        fallback=RunnableLambda(lambda q: good)).invoke(QUESTION)
    assert out is good


# -- 3. history-wrapped chains ------------------------------------------------------------------------


def history_chain(retriever, *answers, consistency="off", **guard):
    store: dict[str, InMemoryChatMessageHistory] = {}

    def session(session_id):
        return store.setdefault(session_id, InMemoryChatMessageHistory())

    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from: {context}"), MessagesPlaceholder("chat_history"), ("human", "{input}")]
    )
    rag = RunnablePassthrough.assign(context=lambda x: retriever.invoke(x["input"])).assign(
        answer=prompt | FakeListChatModel(responses=list(answers)) | StrOutputParser()
    )
    wrapped = RunnableWithMessageHistory(rag, session, input_messages_key="input",
                                         history_messages_key="chat_history", output_messages_key="answer")
    return with_halguard(wrapped, consistency=consistency, **guard), store


def test_history_wrapped_chain_is_guarded(verifier, retriever):
    guarded, store = history_chain(retriever, BAD, detector=verifier)
    config = {"configurable": {"session_id": "u1"}}
    out = guarded.invoke({"input": QUESTION}, config)
    assert out["halguard"].label == "hallucinated"
    assert [m.content for m in store["u1"].messages] == [QUESTION, BAD]


def test_paraphrase_samples_never_reach_the_chat_history(verifier, retriever):
    guarded, store = history_chain(retriever, GOOD, GOOD, GOOD, GOOD, GOOD, GOOD, GOOD, GOOD,
                                   detector=verifier, consistency="on", num_paraphrases=3)
    config = {"configurable": {"session_id": "u1"}}
    out = guarded.invoke({"input": QUESTION}, config)
    assert out["halguard"].consistency.label == "consistent"  # every sample gave the same grounded answer
    assert len(out["halguard"].consistency.answers) == 4
    assert [m.content for m in store["u1"].messages] == [QUESTION, GOOD]  # one turn, two messages
    out = guarded.invoke({"input": "And how big is its mirror?"}, config)
    assert len(store["u1"].messages) == 4
    assert list(store) == ["u1"]  # no throwaway session was created in the user's store


async def test_paraphrase_samples_never_reach_the_chat_history_async(verifier, retriever):
    guarded, store = history_chain(retriever, GOOD, detector=verifier, consistency="on", num_paraphrases=2)
    await guarded.ainvoke({"input": QUESTION}, {"configurable": {"session_id": "a"}})
    assert len(store["a"].messages) == 2


def test_samples_see_the_conversation_so_far(verifier, retriever):
    guarded, store = history_chain(retriever, GOOD, detector=verifier, consistency="on", num_paraphrases=2)
    config = {"configurable": {"session_id": "u1"}}
    guarded.invoke({"input": QUESTION}, config)
    prompts = []
    from langchain_core.callbacks import BaseCallbackHandler

    class Prompts(BaseCallbackHandler):
        def on_chat_model_start(self, serialized, messages, **kw):
            prompts.append([m.content for m in messages[0]])

    guarded.invoke({"input": "And its mirror?"}, {**config, "callbacks": [Prompts()]})
    assert len(prompts) == 1 + 2  # the turn and two samples
    assert all(QUESTION in p for p in prompts)  # each saw the first turn
    assert len(store["u1"].messages) == 4


def test_guard_inside_the_history_wrapper_samples_without_writing(verifier, retriever):
    store: dict[str, InMemoryChatMessageHistory] = {}
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from: {context}"), MessagesPlaceholder("chat_history"), ("human", "{input}")]
    )
    rag = RunnablePassthrough.assign(context=lambda x: retriever.invoke(x["input"])).assign(
        answer=prompt | FakeListChatModel(responses=[GOOD]) | StrOutputParser()
    )
    inside = RunnableWithMessageHistory(
        with_halguard(rag, detector=verifier, consistency="on", num_paraphrases=2),
        lambda sid: store.setdefault(sid, InMemoryChatMessageHistory()),
        input_messages_key="input", history_messages_key="chat_history", output_messages_key="answer",
    )
    out = inside.invoke({"input": QUESTION}, {"configurable": {"session_id": "s"}})
    report = out["halguard"].consistency
    assert report.label == "consistent" and [a.answer for a in report.answers] == [GOOD] * 3  # answer + 2 samples
    assert len(store["s"].messages) == 2


def test_history_deep_inside_a_chain_is_refused_with_sampling(verifier, retriever):
    guarded, _ = history_chain(retriever, GOOD, detector=verifier)
    nested = guarded.bound | RunnableLambda(lambda out: out)
    with pytest.raises(InvalidInputError, match="RunnableWithMessageHistory"):
        with_halguard(nested, detector=verifier, consistency="on")
    with_halguard(nested, detector=verifier)  # without sampling it is fine


# -- 5. agents with a retriever tool ------------------------------------------------------------------


def agent_with_retriever_tool(retriever, final_answer):
    from langchain.agents import create_agent
    from langchain_core.language_models import FakeMessagesListChatModel
    from langchain_core.tools import create_retriever_tool

    class ToolCallingFake(FakeMessagesListChatModel):
        def bind_tools(self, tools, **kwargs):
            return self

    tool = create_retriever_tool(retriever, "search_jwst", "Search the JWST documents.")
    model = ToolCallingFake(responses=[
        AIMessage(content="", tool_calls=[{"name": "search_jwst", "args": {"query": "JWST launch"}, "id": "c1"}]),
        AIMessage(content=final_answer),
    ])
    return create_agent(model, tools=[tool])


def test_agent_with_a_retriever_tool_is_guarded(verifier, retriever):
    agent = agent_with_retriever_tool(retriever, BAD)
    out = with_halguard(agent, detector=verifier).invoke({"messages": [("user", QUESTION)]})
    assert [type(m).__name__ for m in out["messages"]] == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
    verdict = out["halguard"]
    assert verdict.label == "hallucinated" and verdict.request.question == QUESTION
    assert out["messages"][-1].response_metadata["halguard"]["label"] == "hallucinated"
    assert get_verdict(out["messages"][-1]).label == "hallucinated"


def test_agent_answer_without_retrieval_is_unverified(verifier):
    from langchain.agents import create_agent
    from langchain_core.language_models import FakeMessagesListChatModel

    class NoTools(FakeMessagesListChatModel):
        def bind_tools(self, tools, **kwargs):
            return self

    agent = create_agent(NoTools(responses=[AIMessage(content=BAD)]), tools=[])
    out = with_halguard(agent, detector=verifier).invoke({"messages": [("user", QUESTION)]})
    assert out["halguard"].label == "unverified" and out["halguard"].errors[0].code == "no_context"


def test_agent_filter_replaces_only_the_last_answer(verifier, retriever):
    answer = f"{BAD} Webb's primary mirror is 6.5 metres across."
    out = with_halguard(agent_with_retriever_tool(retriever, answer), detector=verifier,
                        on_hallucination="filter").invoke({"messages": [("user", QUESTION)]})
    assert out["messages"][-1].content == "Webb's primary mirror is 6.5 metres across."
    assert len(out["messages"]) == 4


def test_callback_handler_sees_the_agents_tool_retrieval(verifier, retriever):
    handler = HalguardCallbackHandler(detector=verifier)
    run_id = uuid.uuid4()
    agent_with_retriever_tool(retriever, BAD).invoke({"messages": [("user", QUESTION)]},
                                                      {"callbacks": [handler], "run_id": run_id})
    verdict = handler.get_verdict(run_id)
    assert verdict.label == "hallucinated"
    assert verdict.request.id == str(run_id)


# -- 7. streams that filter: the raw tokens can be left out -------------------------------------------


async def test_astream_events_raw_tokens_are_tagged_and_can_be_excluded(verifier, retriever):
    answer = f"{BAD} Webb's primary mirror is 6.5 metres across."
    llm = GenericFakeChatModel(messages=iter([AIMessage(content=answer)]))
    chain = {"context": retriever | format_docs, "question": RunnablePassthrough()} | PROMPT | llm | StrOutputParser()
    guarded = with_halguard(chain, detector=verifier, on_hallucination="filter", name="guarded")
    events = [e async for e in guarded.astream_events(QUESTION, version="v2")]
    raw = [e for e in events if e["event"] == "on_chat_model_stream"]
    assert raw and all(RAW_TAG in e["tags"] for e in raw)  # the unchecked tokens are marked
    llm2 = GenericFakeChatModel(messages=iter([AIMessage(content=answer)]))
    chain2 = {"context": retriever | format_docs, "question": RunnablePassthrough()} | PROMPT | llm2 | StrOutputParser()
    guarded2 = with_halguard(chain2, detector=verifier, on_hallucination="filter", name="guarded")
    safe = [e async for e in guarded2.astream_events(QUESTION, version="v2", exclude_tags=[RAW_TAG, SAMPLE_TAG])]
    assert not [e for e in safe if e["event"] in ("on_chat_model_stream", "on_llm_stream")]
    streamed = "".join(e["data"]["chunk"] for e in safe if e["event"] == "on_chain_stream" and e["name"] == "guarded")
    assert streamed == "Webb's primary mirror is 6.5 metres across."
    assert "2019" not in str([e["data"] for e in safe if e["event"].endswith("_stream")])  # no raw token anywhere


# -- 8. one verdict shape per place -------------------------------------------------------------------


def test_verdict_shapes_and_get_verdict(verifier, retriever):
    chain = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
        answer=PROMPT | FakeListChatModel(responses=[BAD])
    )
    out = with_halguard(chain, detector=verifier, question_key="question").invoke(QUESTION)
    assert isinstance(out["halguard"], Verdict)  # a Python output carries the object
    meta = out["answer"].response_metadata["halguard"]
    assert isinstance(meta, dict) and meta["label"] == "hallucinated"  # message metadata stays JSON
    assert get_verdict(out) == out["halguard"]
    assert get_verdict(out["answer"]).model_dump(exclude={"action"}) == out["halguard"].model_dump(exclude={"action"})
    assert Verdict.from_metadata(meta).label == "hallucinated"
    assert get_verdict("plain text") is None


# -- 9. fallbacks keep the output's shape and the verdict ---------------------------------------------


def test_fallback_runnable_returning_a_str_keeps_the_dict_and_the_verdict(verifier, retriever):
    chain = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
        answer=PROMPT | FakeListChatModel(responses=[BAD]) | StrOutputParser()
    )
    apology = RunnableLambda(lambda q: "I could not find that in the documents.")
    out = with_halguard(chain, detector=verifier, question_key="question", on_hallucination="fallback",
                        fallback=apology).invoke(QUESTION)
    assert set(out) == {"context", "question", "answer", "halguard"}
    assert out["answer"] == "I could not find that in the documents."
    verdict = out["halguard"]
    assert verdict.label == "hallucinated"  # the verdict of what was rejected
    assert verdict.action.action == "fallback"
    assert verdict.action.fallback_verdict.label == "unverified"  # a non-answer has nothing to check
    assert verdict.action.fallback_verdict.errors[0].code == "non_answer"


def test_fallback_chain_answer_is_verified_against_its_own_documents(verifier, retriever):
    chain = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
        answer=PROMPT | FakeListChatModel(responses=[BAD]) | StrOutputParser()
    )
    backup = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
        answer=PROMPT | FakeListChatModel(responses=[GOOD]) | StrOutputParser()
    )
    out = with_halguard(chain, detector=verifier, question_key="question", on_hallucination="fallback",
                        fallback=backup).invoke(QUESTION)
    assert out["answer"] == GOOD
    assert out["halguard"].label == "hallucinated"
    assert out["halguard"].action.fallback_verdict.label == "supported"


def test_fallback_message_is_marked_unchecked_and_keeps_a_message_answer(verifier, retriever):
    chain = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
        answer=PROMPT | FakeListChatModel(responses=[BAD])
    )
    out = with_halguard(chain, detector=verifier, question_key="question", on_hallucination="fallback",
                        fallback="Sorry.").invoke(QUESTION)
    assert isinstance(out["answer"], AIMessage) and out["answer"].content == "Sorry."
    assert out["halguard"].action.fallback_verdict.errors[0].code == "fallback_not_checked"
    str_out = with_halguard(docs_chain(retriever, BAD), detector=verifier, on_hallucination="fallback",
                            fallback=RunnableLambda(lambda q: AIMessage(content="Sorry."))).invoke(QUESTION)
    assert str_out == "Sorry."  # a str chain still returns a str


# -- 10. correlation ----------------------------------------------------------------------------------


def test_run_id_and_question_on_the_verdict(verifier, retriever):
    run_id = uuid.uuid4()
    out = with_halguard(RunnableParallel(context=retriever, input=RunnablePassthrough()).assign(
        answer=lambda x: GOOD), detector=verifier).invoke(QUESTION, {"run_id": run_id})
    assert out["halguard"].request.id == str(run_id)
    assert out["halguard"].request.question == QUESTION
    assert out["halguard"].request.source == "langchain:RunnableWithHalguard"


# -- 13. schemas, pickling, serialisation -------------------------------------------------------------


def test_the_wrapped_chains_schemas_are_exposed(verifier, retriever):
    from langchain_classic.chains import create_retrieval_chain
    from langchain_classic.chains.combine_documents import create_stuff_documents_chain

    chain = create_retrieval_chain(retriever, create_stuff_documents_chain(
        FakeListChatModel(responses=[GOOD]), ChatPromptTemplate.from_template("{context} {input}")))
    guarded = with_halguard(chain, detector=verifier)
    assert guarded.get_input_jsonschema() == chain.get_input_jsonschema()
    assert guarded.InputType == chain.InputType
    out_schema = guarded.get_output_jsonschema()
    assert set(out_schema["properties"]) == set(chain.get_output_jsonschema()["properties"]) | {"halguard"}
    str_chain = docs_chain(retriever, GOOD)
    assert with_halguard(str_chain, detector=verifier).get_output_jsonschema()["type"] == "string"
    history, _ = history_chain(retriever, GOOD, detector=verifier)
    assert [s.id for s in history.config_specs] == ["session_id"]


def _echo_chain():
    return RunnableLambda(_answer_with_docs)  # module-level functions pickle; LCEL's generic classes don't


def _answer_with_docs(_):
    return {"context": list(DOCS), "answer": GOOD}


def test_the_guard_pickles_and_still_works(verifier):
    guarded = with_halguard(_echo_chain(), detector=verifier)
    guarded.invoke({"input": QUESTION})  # the model is loaded: still picklable
    copy = pickle.loads(pickle.dumps(guarded))
    assert copy.invoke({"input": QUESTION})["halguard"].label == "supported"
    sampled = pickle.loads(pickle.dumps(with_halguard(_echo_chain(), detector=verifier, consistency="on")))
    report = sampled.invoke({"input": QUESTION})["halguard"].consistency  # the unpickled sampler ran
    assert report.label == "consistent" and [a.answer for a in report.answers] == [GOOD] * 4


def test_dumpd_gives_langchains_not_implemented_record(verifier):
    from langchain_core.load import dumpd

    record = dumpd(with_halguard(_echo_chain(), detector=verifier))
    assert record["type"] == "not_implemented"
    assert record["id"][-1] == "RunnableWithHalguard"


# -- internal failures --------------------------------------------------------------------------------


def test_an_internal_failure_is_unverified_not_a_raw_exception(retriever):
    from halguard import Detector

    class Exploding(Detector):
        name = "exploding"

        def verify(self, answer, contexts, *, question=None):
            raise RecursionError("maximum recursion depth exceeded")

    seen = []
    out = with_halguard(docs_chain(retriever, GOOD), detector=Exploding(), on_verdict=seen.append).invoke(QUESTION)
    assert out == GOOD and seen[0].label == "unverified" and seen[0].errors[0].code == "internal_error"
    from halguard import UnverifiedError

    closed = with_halguard(docs_chain(retriever, GOOD), detector=Exploding(), on_hallucination="raise",
                           on_unverified="fail_closed")
    safe = closed.with_fallbacks([RunnableLambda(lambda q: "fallback")], exceptions_to_handle=(HallucinationError,))
    assert safe.invoke(QUESTION) == "fallback"
    with pytest.raises(UnverifiedError):
        closed.invoke(QUESTION)


def test_on_verdict_errors_do_not_break_the_call(verifier, retriever):
    def broken(verdict):
        raise RuntimeError("logging backend down")

    assert with_halguard(docs_chain(retriever, GOOD), detector=verifier, on_verdict=broken).invoke(QUESTION) == GOOD


# -- concurrency: each call reads its own retriever runs ----------------------------------------------


async def test_concurrent_calls_each_check_against_their_own_documents(verifier):
    from langchain_core.retrievers import BaseRetriever

    class ByTopic(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager):
            return [d for d in DOCS if d.id in query]

    def answer(prompt_value):
        text = prompt_value.to_string()
        return next(d.page_content for d in DOCS if d.page_content in text)

    chain = {"context": ByTopic() | format_docs, "question": RunnablePassthrough()} | PROMPT | \
        RunnableLambda(answer)
    seen = {}
    guarded = with_halguard(chain, detector=verifier, on_verdict=lambda v: seen.setdefault(v.request.question, v))
    questions = [f"Tell me about {d.id} (request {i})" for i in range(8) for d in DOCS]
    outs = await guarded.abatch(questions, config={"max_concurrency": 12})
    assert len(outs) == len(seen) == len(questions)
    for q in questions:
        topic = q.split()[3]
        assert {e.source_id for c in seen[q].claims for e in c.evidence} == {topic}  # no other call's documents
        assert seen[q].label == "supported"


@pytest.mark.parametrize("mode", ["updates", "values"])
def test_agent_streams_are_checked(verifier, retriever, mode):
    guarded = with_halguard(agent_with_retriever_tool(retriever, BAD), detector=verifier)
    chunks = list(guarded.stream({"messages": [("user", QUESTION)]}, stream_mode=mode))
    assert len(chunks) > 1  # the graph's chunks (model, tools, model) come before the verdict
    # one last chunk of the mode's own shape: an update of a node named "halguard", or the checked final state
    last = chunks[-1]
    if mode == "updates":
        assert list(last) == ["halguard"] and last["halguard"]["halguard"].label == "hallucinated"
    else:
        assert last["messages"][-1].content == BAD and last["halguard"].label == "hallucinated"
    assert all("halguard" not in c for c in chunks[:-1])  # the graph's own chunks pass through as they were
