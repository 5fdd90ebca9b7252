"""Issue 25, "Close the bypasses": the LangChain shapes that went around the guard (items 10, 11, 15, 16).

Real langchain / langgraph objects (create_agent, StateGraph, InMemorySaver, InMemoryVectorStore) with fake chat
models, and the real LocalVerifier.
"""

import asyncio
import copy
import itertools
import operator
import uuid
from typing import Annotated, TypedDict

import pytest

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel, FakeMessagesListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableParallel, RunnablePassthrough
from langchain_core.tools import create_retriever_tool, tool
from langchain_core.vectorstores import InMemoryVectorStore
from pydantic import BaseModel

from halguard import HallucinationError, Verdict, get_verdict
from langchain_halguard import HalguardCallbackHandler, with_halguard

DOCS = [
    Document(id="launch", page_content="JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou."),
    Document(id="mirror", page_content="Webb's primary mirror is 6.5 metres across and has 18 segments."),
]
QUESTION = "When did JWST launch?"
GOOD = "JWST was launched on 25 December 2021 on an Ariane 5 rocket."
BAD = "JWST was launched on 25 December 2019 on a Falcon Heavy rocket."
KEPT = "Webb's primary mirror is 6.5 metres across."
MIXED = f"{BAD} {KEPT}"


@pytest.fixture(scope="module")
def retriever():
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents(list(DOCS))
    return store.as_retriever(search_kwargs={"k": 2})  # both documents, whatever the fake vectors say


# -- agents (create_agent with a retriever tool) --------------------------------------------------------------


class ToolCallingFake(FakeMessagesListChatModel):
    """A scripted chat model an agent can bind tools to."""

    def bind_tools(self, tools, **kwargs):
        return self


def search_call(call_id="c1"):
    return AIMessage(content="", tool_calls=[{"name": "search_jwst", "args": {"query": "JWST"}, "id": call_id}])


def agent(retriever, *answers, **options):
    """An agent that searches, then answers; once per answer (turns of one thread, or calls of a batch)."""
    from langchain.agents import create_agent

    script = [m for i, a in enumerate(answers) for m in (search_call(f"c{i}"), AIMessage(content=a))]
    search = create_retriever_tool(retriever, "search_jwst", "Search the JWST documents.")
    return create_agent(ToolCallingFake(responses=script), tools=[search], **options)


def without_ids(value):
    """LangGraph's add_messages sets the id of message objects it is given (the graph's doing, guarded or not)."""
    if isinstance(value, dict):
        return {k: without_ids(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(without_ids(v) for v in value)
    if isinstance(value, BaseMessage):
        return value.model_copy(update={"id": None})
    return value


def _no_verdicts(value):
    """``value`` without the verdicts in it (a state's key, a message's response_metadata, a verdict chunk)."""
    if isinstance(value, Verdict):
        return None
    if isinstance(value, dict):
        return {k: _no_verdicts(v) for k, v in value.items() if k != "halguard"}
    if isinstance(value, (list, tuple)):
        return type(value)(_no_verdicts(v) for v in value)
    if isinstance(value, BaseMessage):
        metadata = {k: v for k, v in value.response_metadata.items() if k != "halguard"}
        return value.model_copy(update={"response_metadata": metadata})
    return value


def shown(chunks):
    """What a stream showed of the answer: its chunks without the verdicts (which quote the claims they judge)."""
    out = []
    for chunk in chunks:
        if isinstance(chunk, tuple) and len(chunk) == 2 and isinstance(chunk[0], str):
            chunk = chunk[1]  # (mode, chunk)
        if isinstance(chunk, tuple) and chunk[1].get("langgraph_node") == "halguard":
            continue
        out.append(_no_verdicts(chunk))
    return str(out)


def user(text=QUESTION):
    return {"messages": [{"role": "user", "content": text}]}


def test_item10_create_agent_dict_messages(verifier, retriever):
    request = user()
    before = copy.deepcopy(request)
    out = with_halguard(agent(retriever, BAD), detector=verifier).invoke(request)
    assert request == before and isinstance(request["messages"][0], dict)  # the caller's dicts untouched
    verdict = out["halguard"]
    assert verdict.label == "hallucinated" and verdict.request.question == QUESTION
    assert {s.text for s in verdict.spans} >= {"2019", "Falcon Heavy"}
    assert [type(m).__name__ for m in out["messages"]] == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
    assert get_verdict(out["messages"][-1]).label == "hallucinated"


@pytest.mark.parametrize("messages", [
    [("user", QUESTION)],
    [QUESTION],
    QUESTION,  # add_messages takes one message as well as a list
    {"role": "user", "content": QUESTION},
    [HumanMessage(content=QUESTION)],
    [{"role": "human", "content": QUESTION}],
    [{"type": "human", "content": QUESTION}],
    [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}],
    [{"role": "system", "content": "Answer from the documents."}, {"role": "user", "content": QUESTION}],
    [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello! Ask me about JWST."},
     {"role": "user", "content": QUESTION}],
    [("human", "Hi"), ("ai", "Hello!"), {"role": "tool", "content": "unrelated", "tool_call_id": "x"},
     HumanMessage(content=[{"type": "text", "text": QUESTION}])],
    [{"role": "user", "content": "Search JWST"},
     {"role": "assistant", "content": "",
      "tool_calls": [{"id": "t0", "name": "search_jwst", "args": {"query": "JWST"}}]},
     {"role": "tool", "content": DOCS[1].page_content, "tool_call_id": "t0"},
     {"role": "assistant", "content": KEPT}, {"role": "user", "content": QUESTION}],
    [{"role": "user", "content": "Search JWST"},
     {"role": "assistant", "content": None, "tool_calls": [
         {"id": "t0", "type": "function", "function": {"name": "search_jwst", "arguments": '{"query": "JWST"}'}}]},
     {"role": "tool", "content": DOCS[1].page_content, "tool_call_id": "t0"},
     {"role": "user", "content": [{"type": "text", "text": "When did JWST"}, {"type": "text", "text": " launch?"}]}],
], ids=["tuple", "str", "bare-str", "bare-dict", "object", "human", "type-key", "blocks", "system", "history",
        "mixed", "ai-dict-tool-calls", "openai-tool-calls"])
def test_item10_every_message_shape(verifier, retriever, messages):
    request = {"messages": messages}
    before = copy.deepcopy(request)
    out = with_halguard(agent(retriever, BAD), detector=verifier).invoke(request)
    assert without_ids(request) == without_ids(before)
    assert out["halguard"].label == "hallucinated" and out["halguard"].request.question == QUESTION
    assert out["messages"][-1].content == BAD


def test_item10_dict_system_prompt_and_the_system_prompt_option(verifier, retriever):
    guarded = with_halguard(agent(retriever, GOOD, system_prompt="Answer from the documents."), detector=verifier)
    out = guarded.invoke(user())
    assert out["halguard"].label == "supported"
    assert out["messages"][0].type == "human"  # create_agent keeps its system prompt out of the state


def test_item10_agent_filter_on_dict_messages(verifier, retriever):
    out = with_halguard(agent(retriever, MIXED), detector=verifier, on_hallucination="filter").invoke(user())
    assert out["messages"][-1].content == KEPT
    assert out["halguard"].action.removed


async def test_item10_agent_ainvoke_and_batch(verifier, retriever):
    out = await with_halguard(agent(retriever, BAD), detector=verifier).ainvoke(user())
    assert out["halguard"].label == "hallucinated"
    # one call at a time: the scripted model answers in order
    outs = with_halguard(agent(retriever, GOOD, BAD), detector=verifier).batch([user(), user()],
                                                                                {"max_concurrency": 1})
    assert [o["halguard"].label for o in outs] == ["supported", "hallucinated"]
    outs = await with_halguard(agent(retriever, BAD, GOOD), detector=verifier).abatch([user(), user()],
                                                                                       {"max_concurrency": 1})
    assert [o["halguard"].label for o in outs] == ["hallucinated", "supported"]


@pytest.mark.parametrize("mode", ["values", "updates", "messages"])
async def test_item10_agent_streams_dict_messages(verifier, retriever, mode):
    seen = []
    chunks = list(with_halguard(agent(retriever, BAD), detector=verifier, on_verdict=seen.append).stream(
        user(), stream_mode=mode))
    achunks = [c async for c in with_halguard(agent(retriever, BAD), detector=verifier,
                                              on_verdict=seen.append).astream(user(), stream_mode=mode)]
    assert [v.label for v in seen] == ["hallucinated", "hallucinated"]
    for got in (chunks, achunks):
        raw = list(agent(retriever, BAD).stream(user(), stream_mode=mode))
        assert len(got) == len(raw) + 1  # the agent's own chunks, then one verdict chunk of the mode's shape
        last = got[-1]
        if mode == "values":
            assert last["messages"][-1].content == BAD and last["halguard"].label == "hallucinated"
        elif mode == "updates":
            assert last == {"halguard": {"halguard": last["halguard"]["halguard"]}}
        else:
            token, metadata = last
            assert token.content == "" and get_verdict(token).label == "hallucinated"
            assert metadata["langgraph_node"] == "halguard"


def test_item10_checkpointer_thread_keeps_what_the_user_was_shown(verifier, retriever):
    from langgraph.checkpoint.memory import InMemorySaver

    graph = agent(retriever, MIXED, GOOD, checkpointer=InMemorySaver())
    guarded = with_halguard(graph, detector=verifier, on_hallucination="filter")
    config = {"configurable": {"thread_id": str(uuid.uuid4())}}
    out = guarded.invoke(user(), config)
    assert out["messages"][-1].content == KEPT
    state = graph.get_state(config)
    assert state.values["messages"][-1].content == KEPT  # the thread keeps the filtered answer, not the raw one
    assert state.values["messages"][-1].id == out["messages"][-1].id and not state.next
    out = guarded.invoke(user("And the launch site?"), config)  # the next turn builds on what the user saw
    contents = [m.content for m in graph.get_state(config).values["messages"]]
    assert KEPT in contents and MIXED not in contents and contents[-1] == GOOD
    assert out["halguard"].label == "supported"


async def test_item10_checkpointer_stream_and_async(verifier, retriever):
    from langgraph.checkpoint.memory import InMemorySaver

    graph = agent(retriever, MIXED, MIXED, checkpointer=InMemorySaver())
    guarded = with_halguard(graph, detector=verifier, on_hallucination="filter")
    config = {"configurable": {"thread_id": "t"}}
    chunks = list(guarded.stream(user(), config, stream_mode="updates"))
    assert "2019" not in shown(chunks) and KEPT in shown(chunks)
    assert graph.get_state(config).values["messages"][-1].content == KEPT
    out = await guarded.ainvoke(user("Again?"), config)
    state = await graph.aget_state(config)
    assert out["messages"][-1].content == state.values["messages"][-1].content == KEPT
    # annotate leaves the thread as the graph wrote it (the answer was not changed)
    plain = agent(retriever, BAD, checkpointer=InMemorySaver())
    with_halguard(plain, detector=verifier).invoke(user(), config)
    assert plain.get_state(config).values["messages"][-1].content == BAD


def test_item10_a_failed_write_back_keeps_the_answer_and_logs(verifier, retriever, monkeypatch, caplog):
    from langgraph.checkpoint.memory import InMemorySaver

    graph = agent(retriever, MIXED, checkpointer=InMemorySaver())

    def broken(*args, **kwargs):
        raise OSError("checkpoint store is read-only")

    monkeypatch.setattr(graph, "update_state", broken)
    config = {"configurable": {"thread_id": "w"}}
    with caplog.at_level("WARNING", logger="langchain_halguard"):
        out = with_halguard(graph, detector=verifier, on_hallucination="filter").invoke(user(), config)
    assert out["messages"][-1].content == KEPT and out["halguard"].action.removed  # what the user gets stands
    assert any("could not write the checked answer" in r.getMessage() for r in caplog.records)


async def test_item10_agent_astream_events(verifier, retriever):
    guarded = with_halguard(agent(retriever, BAD), detector=verifier, name="guarded_agent")
    events = [e async for e in guarded.astream_events(user(), version="v2")]
    (verdict,) = [e["data"] for e in events if e["event"] == "on_custom_event" and e["name"] == "halguard_verdict"]
    assert verdict["label"] == "hallucinated"
    (end,) = [e for e in events if e["event"] == "on_chain_end" and e["name"] == "guarded_agent"]
    # create_agent streams "updates" by default: the guard's last chunk is the verdict as a node's update
    assert end["data"]["output"]["halguard"]["halguard"].label == "hallucinated"


class LaunchFacts(BaseModel):
    date: str
    rocket: str


def structured_agent(retriever, facts, **options):
    from langchain.agents import create_agent
    from langchain.agents.structured_output import ToolStrategy

    answer = AIMessage(content="", tool_calls=[{"name": "LaunchFacts", "args": facts, "id": "s1"}])
    search = create_retriever_tool(retriever, "search_jwst", "Search the JWST documents.")
    return create_agent(ToolCallingFake(responses=[search_call(), answer]), tools=[search],
                        response_format=ToolStrategy(LaunchFacts), **options)


def test_item10_structured_response_keeps_its_type(verifier, retriever):
    out = with_halguard(structured_agent(retriever, {"date": "25 December 2019", "rocket": "Falcon Heavy"}),
                        detector=verifier).invoke(user())
    assert isinstance(out["structured_response"], LaunchFacts)
    assert out["halguard"].label == "hallucinated"
    assert out["halguard"].checked_text.splitlines() == ["date: 25 December 2019", "rocket: Falcon Heavy"]
    good = with_halguard(structured_agent(retriever, {"date": "25 December 2021", "rocket": "Ariane 5"}),
                         detector=verifier).invoke(user())
    assert isinstance(good["structured_response"], LaunchFacts)
    assert good["halguard"].label == "supported" and good["halguard"].score < out["halguard"].score
    assert not [c for c in good["halguard"].claims if c.status.value == "CONTRADICTION"]
    with pytest.raises(HallucinationError, match="structured"):  # "filter" would retype it: refused
        with_halguard(structured_agent(retriever, {"date": "2019", "rocket": "Falcon Heavy"}), detector=verifier,
                      on_hallucination="filter").invoke(user())


def test_item10_a_search_tool_that_is_no_retriever(verifier):
    """A @tool that searches by itself runs no retriever: its tool message is what the answer is checked on."""
    from langchain.agents import create_agent

    @tool
    def search_jwst(query: str) -> str:
        """Search the JWST documents."""
        return DOCS[0].page_content

    for answer, label in ((GOOD, "supported"), (BAD, "hallucinated")):
        graph = create_agent(ToolCallingFake(responses=[search_call(), AIMessage(content=answer)]), tools=[search_jwst])
        out = with_halguard(graph, detector=verifier).invoke(user())
        assert out["halguard"].label == label
        assert out["halguard"].claims[0].evidence[0].source_id == "c1"  # the tool call's id


# -- a LangGraph StateGraph RAG, every stream mode ------------------------------------------------------------


class RagState(TypedDict, total=False):
    question: str
    context: list[Document]
    answer: str
    log: Annotated[list[str], operator.add]


def rag_graph(retriever, answer, **compile_options):
    """retrieve -> generate; the answer streams token by token (GenericFakeChatModel)."""
    from langgraph.config import get_stream_writer
    from langgraph.graph import START, StateGraph

    llm = GenericFakeChatModel(messages=itertools.repeat(AIMessage(content=answer)))

    def retrieve(state):
        get_stream_writer()({"retrieving": state["question"]})
        return {"context": retriever.invoke(state["question"]), "log": ["retrieved"]}

    def generate(state):
        context = "\n".join(d.page_content for d in state["context"])
        return {"answer": llm.invoke(f"{context}\n\nQuestion: {state['question']}").content, "log": ["answered"]}

    return StateGraph(RagState).add_sequence([retrieve, generate]).add_edge(START, "retrieve").compile(
        **compile_options)


def plain(chunk, mode):
    """A chunk without what differs between two runs of one graph (message ids, timestamps, task ids)."""
    if mode == "messages":
        message, metadata = chunk
        return type(message).__name__, message.content, metadata["langgraph_node"]
    if mode == "debug":
        return chunk["type"], chunk["step"], chunk["payload"]["name"]
    return chunk


def plain_list(chunks, modes):
    if isinstance(modes, str):
        return [plain(c, modes) for c in chunks]
    return [(mode, plain(c, mode)) for mode, c in chunks]


STREAM_MODES = [None, "values", "updates", "messages", "custom", "debug", ["updates", "messages"],
                ["values", "custom"]]


@pytest.mark.parametrize("mode", STREAM_MODES, ids=str)
async def test_item11_stategraph_every_stream_mode(verifier, retriever, mode):
    kwargs = {} if mode is None else {"stream_mode": mode}
    modes = mode or "updates"  # a StateGraph's default
    raw = list(rag_graph(retriever, BAD).stream({"question": QUESTION}, **kwargs))
    for run in ("stream", "astream"):
        seen = []
        guarded = with_halguard(rag_graph(retriever, BAD), detector=verifier, question_key="question",
                                on_verdict=seen.append)
        if run == "stream":
            got = list(guarded.stream({"question": QUESTION}, **kwargs))
        else:
            got = [c async for c in guarded.astream({"question": QUESTION}, **kwargs)]
        (verdict,) = seen
        assert verdict.label == "hallucinated" and verdict.request.question == QUESTION
        assert {s.text for s in verdict.spans} >= {"2019", "Falcon Heavy"}
        assert plain_list(got[:len(raw)], modes) == plain_list(raw, modes)  # the graph's chunks, unchanged
        extra = got[len(raw):]
        expected = {"values": 1, "updates": 1, "messages": 1}
        asked = [modes] if isinstance(modes, str) else modes
        assert len(extra) == sum(expected.get(m, 0) for m in asked)  # one verdict chunk per mode that has a place
        for chunk in extra:
            m, data = (modes, chunk) if isinstance(modes, str) else chunk
            holder = {"values": lambda d: d, "updates": lambda d: d["halguard"], "messages": lambda d: d[0]}[m]
            assert get_verdict(holder(data)).label == "hallucinated"


async def test_item11_the_final_state_is_checked(verifier, retriever):
    out = list(with_halguard(rag_graph(retriever, GOOD), detector=verifier, question_key="question").stream(
        {"question": QUESTION}, stream_mode="values"))[-1]
    assert out["answer"] == GOOD and out["log"] == ["retrieved", "answered"]  # the reducer's state, as invoke gives
    assert out["halguard"].label == "supported"
    assert out["halguard"].claims[0].evidence[0].source_id == "launch"


async def test_item11_v2_parts_and_subgraphs(verifier, retriever):
    guarded = with_halguard(rag_graph(retriever, BAD), detector=verifier, question_key="question")
    raw = list(rag_graph(retriever, BAD).stream({"question": QUESTION}, stream_mode="updates", version="v2"))
    got = list(guarded.stream({"question": QUESTION}, stream_mode="updates", version="v2"))
    assert got[:len(raw)] == raw and len(got) == len(raw) + 1
    assert got[-1]["type"] == "updates" and got[-1]["ns"] == ()
    assert got[-1]["data"]["halguard"]["halguard"].label == "hallucinated"
    got = [c async for c in guarded.astream({"question": QUESTION}, stream_mode=["updates", "custom"],
                                           subgraphs=True)]
    assert {(ns, mode) for ns, mode, _ in got} == {((), "updates"), ((), "custom")}
    assert got[-1][2]["halguard"]["halguard"].label == "hallucinated"


@pytest.mark.parametrize("mode", ["values", "updates", "messages", ["updates", "messages", "values", "debug"]],
                         ids=str)
async def test_item11_filter_holds_the_stream_and_replays_the_checked_answer(verifier, retriever, mode):
    for run in ("stream", "astream"):
        guarded = with_halguard(rag_graph(retriever, MIXED), detector=verifier, question_key="question",
                                on_hallucination="filter")
        if run == "stream":
            got = list(guarded.stream({"question": QUESTION}, stream_mode=mode))
        else:
            got = [c async for c in guarded.astream({"question": QUESTION}, stream_mode=mode)]
        assert "2019" not in shown(got) and "Falcon" not in shown(got)  # no chunk holds the removed sentence
        parts = [(mode, c) for c in got] if isinstance(mode, str) else got
        tokens = "".join(c[0].content for m, c in parts if m == "messages")
        updates = [c for m, c in parts if m == "updates"]
        values = [c for m, c in parts if m == "values"]
        if tokens:
            assert tokens == KEPT  # the answer's tokens became one chunk of the checked text
        if updates:
            assert updates[1] == {"generate": {"answer": KEPT, "log": ["answered"]}}
        if values:
            assert values[-1]["answer"] == KEPT and values[-1]["halguard"].action.removed


async def test_item11_fallback_and_raise_with_streams(verifier, retriever):
    guarded = with_halguard(rag_graph(retriever, BAD), detector=verifier, question_key="question",
                            on_hallucination="fallback", fallback="I could not check that.")
    got = [c async for c in guarded.astream({"question": QUESTION}, stream_mode="messages")]
    assert "".join(token.content for token, _ in got) == "I could not check that."
    assert got[0][1]["langgraph_node"] == "generate"  # in the answer's place, with its metadata
    strict = with_halguard(rag_graph(retriever, BAD), detector=verifier, question_key="question",
                           on_hallucination="raise")
    got = []
    with pytest.raises(HallucinationError):
        for chunk in strict.stream({"question": QUESTION}, stream_mode="updates"):
            got.append(chunk)
    assert [list(c) for c in got] == [["retrieve"], ["generate"]]  # "raise": the chunks, then the error


async def test_item11_astream_events(verifier, retriever):
    guarded = with_halguard(rag_graph(retriever, BAD), detector=verifier, question_key="question",
                            name="guarded_rag")
    events = [e async for e in guarded.astream_events({"question": QUESTION}, version="v2")]
    (verdict,) = [e["data"] for e in events if e["event"] == "on_custom_event" and e["name"] == "halguard_verdict"]
    assert verdict["label"] == "hallucinated"
    (end,) = [e for e in events if e["event"] == "on_chain_end" and e["name"] == "guarded_rag"]
    assert isinstance(end["data"]["output"]["halguard"]["halguard"], Verdict)  # the last chunk of "updates"
    assert any(e["event"] == "on_chat_model_stream" for e in events)


async def test_item11_graph_under_with_config_and_as_a_subgraph(verifier, retriever):
    graph = rag_graph(retriever, BAD).with_config({"recursion_limit": 10})
    guarded = with_halguard(graph, detector=verifier, question_key="question")
    chunks = list(guarded.stream({"question": QUESTION}))
    assert list(chunks[0]) == ["retrieve"] and chunks[-1]["halguard"]["halguard"].label == "hallucinated"
    out = await guarded.ainvoke({"question": QUESTION})
    assert out["halguard"].label == "hallucinated" and out["answer"] == BAD


async def test_item11_a_real_subgraph_streams_with_its_namespaces(verifier, retriever):
    """The RAG graph as a node of a parent graph: subgraphs=True shows its chunks under its namespace."""
    from langgraph.graph import START, StateGraph

    def parent(answer):
        return StateGraph(RagState).add_node("rag", rag_graph(retriever, answer)).add_edge(START, "rag").compile()

    for mode in (["updates", "messages"], "values", "custom", "debug", ["tasks", "values"]):
        kwargs = {"stream_mode": mode, "subgraphs": True}
        raw = list(parent(BAD).stream({"question": QUESTION}, **kwargs))
        seen = []
        guarded = with_halguard(parent(BAD), detector=verifier, question_key="question", on_verdict=seen.append)
        got = [c async for c in guarded.astream({"question": QUESTION}, **kwargs)]
        assert [v.label for v in seen] == ["hallucinated"]
        # the same chunks, namespace by namespace (a subgraph's namespace holds its task id, new on each run)
        assert [len(ns) for ns, *_ in got[:len(raw)]] == [len(ns) for ns, *_ in raw]
        assert any(ns for ns, *_ in raw)  # the subgraph's own chunks are there
        asked = [mode] if isinstance(mode, str) else mode
        assert len(got) - len(raw) == sum(m in ("values", "updates", "messages") for m in asked)
        assert all(ns == () for ns, *_ in got[len(raw):])  # the verdict chunks belong to the root graph


def interrupting_graph(retriever, answer):
    """ask (human approval, interrupt()) -> retrieve -> generate, with a checkpointer."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import interrupt

    def ask(state):
        return {"log": [f"approved: {interrupt('search the documents?')}"]}

    return StateGraph(RagState).add_node("ask", ask).add_node("rag", rag_graph(retriever, answer)).add_edge(
        START, "ask").add_edge("ask", "rag").compile(checkpointer=InMemorySaver())


@pytest.mark.parametrize("policy", ["annotate", "filter"])
async def test_item11_an_interrupt_passes_and_the_resumed_run_is_checked(verifier, retriever, policy):
    from langgraph.types import Command

    for run in ("invoke", "stream", "ainvoke", "astream"):
        graph = interrupting_graph(retriever, BAD)
        seen = []
        guarded = with_halguard(graph, detector=verifier, question_key="question", on_hallucination=policy,
                                on_verdict=seen.append)
        config = {"configurable": {"thread_id": run}}
        call = {"invoke": lambda x: guarded.invoke(x, config),
                "stream": lambda x: list(guarded.stream(x, config, stream_mode="values"))}
        if run in call:
            paused, resumed = call[run]({"question": QUESTION}), call[run](Command(resume=True))
        elif run == "ainvoke":
            paused = await guarded.ainvoke({"question": QUESTION}, config)
            resumed = await guarded.ainvoke(Command(resume=True), config)
        else:
            paused = [c async for c in guarded.astream({"question": QUESTION}, config, stream_mode="values")]
            resumed = [c async for c in guarded.astream(Command(resume=True), config, stream_mode="values")]
        paused, resumed = (paused[-1], resumed[-1]) if isinstance(paused, list) else (paused, resumed)
        assert "__interrupt__" in paused and "halguard" not in paused  # no answer yet: as the graph gave it
        assert [v.label for v in seen] == ["hallucinated"]  # the resumed run, once
        assert resumed["halguard"].label == "hallucinated" and resumed["halguard"].request.question == QUESTION


async def test_item11_invoke_version_v2_keeps_its_graph_output(verifier, retriever):
    from langgraph.types import Command, GraphOutput

    guarded = with_halguard(rag_graph(retriever, MIXED), detector=verifier, question_key="question",
                            on_hallucination="filter")
    for out in (guarded.invoke({"question": QUESTION}, version="v2"),
                await guarded.ainvoke({"question": QUESTION}, version="v2")):
        assert isinstance(out, GraphOutput) and out.interrupts == ()
        assert out.value["answer"] == KEPT and out.value["halguard"].label == "hallucinated"
    seen = []
    guarded = with_halguard(interrupting_graph(retriever, BAD), detector=verifier, question_key="question",
                            on_verdict=seen.append)
    config = {"configurable": {"thread_id": "v2"}}
    paused = guarded.invoke({"question": QUESTION}, config, version="v2")
    assert isinstance(paused, GraphOutput) and paused.interrupts and "halguard" not in paused.value and not seen
    resumed = await guarded.ainvoke(Command(resume=True), config, version="v2")
    assert resumed.value["halguard"].label == "hallucinated" and len(seen) == 1


def test_item11_agent_resumed_with_a_command_finds_its_question(verifier, retriever):
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import interrupt

    @tool
    def search_jwst(query: str) -> str:
        """Search the JWST documents (after a human approves)."""
        interrupt("approve the search?")
        return DOCS[0].page_content

    graph = create_agent(ToolCallingFake(responses=[search_call(), AIMessage(content=BAD)]), tools=[search_jwst],
                         checkpointer=InMemorySaver())
    guarded = with_halguard(graph, detector=verifier)
    config = {"configurable": {"thread_id": "a"}}
    assert "halguard" not in guarded.invoke(user(), config)
    from langgraph.types import Command

    out = guarded.invoke(Command(resume=True), config)
    assert out["halguard"].label == "hallucinated" and out["halguard"].request.question == QUESTION


# -- 15. the callback handler's verdicts are there when the await returns -------------------------------------


class StaticRetriever(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager):
        return list(DOCS)


def handler_chain(*answers):
    prompt = ChatPromptTemplate.from_template("Context: {context}\nQuestion: {input}")
    return RunnableParallel(context=StaticRetriever(), input=RunnablePassthrough()).assign(
        answer=prompt | FakeListChatModel(responses=list(answers)) | StrOutputParser()
    )


async def test_item15_ainvoke_verdicts_when_the_await_returns(verifier):
    handler = HalguardCallbackHandler(detector=verifier)
    chain = handler_chain(GOOD, BAD)
    for i in range(20):
        run_id = uuid.uuid4()
        await chain.ainvoke(QUESTION, {"callbacks": [handler], "run_id": run_id})
        assert handler.get_verdict(run_id).label == ("supported" if i % 2 == 0 else "hallucinated")
    assert len(handler.verdicts) == 20


async def test_item15_abatch_verdicts_when_the_await_returns(verifier):
    handler = HalguardCallbackHandler(detector=verifier)
    await handler_chain(GOOD, BAD).abatch([QUESTION] * 20, {"callbacks": [handler], "max_concurrency": 8})
    labels = [v.label for v in handler.verdicts.values()]
    assert len(labels) == 20 and labels.count("hallucinated") == 10


async def test_item15_astream_events_and_astream(verifier):
    handler = HalguardCallbackHandler(detector=verifier)
    chain = handler_chain(BAD)
    async for _ in chain.astream_events(QUESTION, {"callbacks": [handler]}, version="v2"):
        pass
    assert [v.label for v in handler.verdicts.values()] == ["hallucinated"]
    async for _ in chain.astream(QUESTION, {"callbacks": [handler]}):
        pass
    assert len(handler.verdicts) == 2


async def test_item15_sync_invoke_inside_a_running_loop(verifier):
    """A notebook calls invoke with a loop running: the check still ends before invoke returns."""
    handler = HalguardCallbackHandler(detector=verifier)
    run_id = uuid.uuid4()
    handler_chain(BAD).invoke(QUESTION, {"callbacks": [handler], "run_id": run_id})
    assert handler.get_verdict(run_id).label == "hallucinated"
    await asyncio.sleep(0)


async def test_item15_guarded_agent_and_the_handler_agree(verifier, retriever):
    handler = HalguardCallbackHandler(detector=verifier)
    run_id = uuid.uuid4()
    await agent(retriever, BAD).ainvoke(user(), {"callbacks": [handler], "run_id": run_id})
    assert handler.get_verdict(run_id).label == "hallucinated"


# -- 16. the LangGraph checkpointer shape of a conversation ---------------------------------------------------


def thread_graph(retriever, answer, seen=None, checkpointer=None):
    """The docs' conversation: MessagesState + context, retrieve -> generate, compiled with a checkpointer."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, MessagesState, StateGraph

    class State(MessagesState):
        context: list

    llm = FakeListChatModel(responses=[answer])

    def retrieve(state):
        return {"context": retriever.invoke(state["messages"][-1].text)}

    def generate(state):
        if seen is not None:
            seen.append([m.text for m in state["messages"]])  # what this call of the graph saw of the thread
        context = "\n".join(d.page_content for d in state["context"])
        return {"messages": [llm.invoke([("system", f"Answer from: {context}"), *state["messages"]])]}

    return StateGraph(State).add_sequence([retrieve, generate]).add_edge(START, "retrieve").compile(
        checkpointer=checkpointer or InMemorySaver())


def test_item16_thread_samples_stay_out_of_the_users_thread(verifier, retriever):
    seen = []
    graph = thread_graph(retriever, BAD, seen)
    guarded = with_halguard(graph, detector=verifier, consistency="on", num_paraphrases=2)
    config = {"configurable": {"thread_id": "user-1"}}
    out = guarded.invoke(user(), config)
    assert out["halguard"].label == "hallucinated" and len(out["halguard"].consistency.answers) == 3
    assert [m.text for m in graph.get_state(config).values["messages"]] == [QUESTION, BAD]  # exactly the turn
    out = guarded.invoke(user("And its mirror?"), config)
    thread = [m.text for m in graph.get_state(config).values["messages"]]
    assert thread == [QUESTION, BAD, "And its mirror?", BAD]
    # the second turn's samples saw the first turn and their own reworded question, nothing of each other
    turn, *samples = seen[3:]  # the user's turn, then its two samples
    assert turn == [QUESTION, BAD, "And its mirror?"]
    assert len(samples) == 2 and all(s[:2] == [QUESTION, BAD] and len(s) == 3 for s in samples)
    assert all(s[2] != "And its mirror?" for s in samples)  # reworded


async def test_item16_thread_samples_async_stream_and_agent(verifier, retriever):
    from langgraph.checkpoint.memory import InMemorySaver

    graph = thread_graph(retriever, BAD)
    guarded = with_halguard(graph, detector=verifier, consistency="on", num_paraphrases=2)
    config = {"configurable": {"thread_id": "user-2"}}
    out = await guarded.ainvoke(user(), config)
    assert len(out["halguard"].consistency.answers) == 3
    chunks = [c async for c in guarded.astream(user("Again?"), config, stream_mode="values")]
    assert chunks[-1]["halguard"].consistency is not None
    state = await graph.aget_state(config)
    assert [m.text for m in state.values["messages"]] == [QUESTION, BAD, "Again?", BAD]
    # create_agent(..., checkpointer=...): the thread holds one search and one answer
    saver = InMemorySaver()
    graph = agent(retriever, *[BAD] * 3, checkpointer=saver)
    out = with_halguard(graph, detector=verifier, consistency="on", num_paraphrases=2).invoke(user(), config)
    assert len(out["halguard"].consistency.answers) == 3
    kinds = [type(m).__name__ for m in graph.get_state(config).values["messages"]]
    assert kinds == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]


def test_item16_an_unreadable_thread_is_not_sampled_on(verifier, retriever):
    """A checkpointer the guard cannot read before the turn: the samples fail, and so consistency is not a pass."""
    from langgraph.checkpoint.memory import InMemorySaver

    class Flaky(InMemorySaver):
        calls = 0

        def get_tuple(self, config):
            Flaky.calls += 1
            if Flaky.calls == 1:  # the guard's read, before the turn
                raise OSError("database is locked")
            return super().get_tuple(config)

    graph = thread_graph(retriever, GOOD, checkpointer=Flaky())
    config = {"configurable": {"thread_id": "user-3"}}
    out = with_halguard(graph, detector=verifier, consistency="on", num_paraphrases=2).invoke(user(), config)
    verdict = out["halguard"]
    assert verdict.label == "unverified"  # never a pass for a check that did not run
    assert "consistency_unverified" in [e.code for e in verdict.errors]
    assert any("database is locked" in e.message for e in verdict.errors if e.code == "sample_failed")
    assert [m.text for m in graph.get_state(config).values["messages"]] == [QUESTION, GOOD]


def test_item16_docs_lead_with_the_checkpointer_and_run_without_deprecation_warnings(standins):
    import warnings
    from pathlib import Path

    from tests.conftest import python_blocks

    page = Path(__file__).resolve().parents[1] / "docs" / "langchain.md"
    text = page.read_text()
    assert text.index("InMemorySaver()") < text.find("RunnableWithMessageHistory")
    namespace = dict(standins)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # LangChainDeprecationWarning is one
        for block in python_blocks(page):
            exec(compile(block, str(page), "exec"), namespace)
