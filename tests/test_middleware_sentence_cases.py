"""HalguardMiddleware(streaming="sentence") in the shapes that broke it: every sentence flagged, text said next to a
tool call, a model that fails mid-stream under retry or fallback middleware, a one-chunk answer past the cut."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk  # noqa: E402
from langchain_core.outputs import ChatGenerationChunk  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402

from halguard import UnverifiedError, get_verdict  # noqa: E402
from halguard.policy import DEFAULT_FALLBACK  # noqa: E402
from langchain_halguard import HalguardMiddleware  # noqa: E402
from tests.jwst import BAD, GOOD, KEPT, ToolCallingFake, search_tool  # noqa: E402

QUESTION = "When was JWST launched, and how big is its mirror?"
PREAMBLE = "Let me look that up."


@pytest.fixture(scope="module")
def search():
    return search_tool()


class Streaming(ToolCallingFake):
    """Streams each scripted message word by word, then its tool calls; ``fail_at``: (reply index, word index)
    where the stream breaks once (a provider fault mid-stream)."""

    fail_at: tuple[int, int] | None = None
    failed: bool = False

    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        index = self.i
        message = self.responses[index]
        words = message.content.split(" ") if message.content else []
        for i, word in enumerate(words):
            if self.fail_at == (index, i) and not self.failed:
                self.failed = True
                msg = "connection reset mid-stream"
                raise ConnectionError(msg)
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=word if i == 0 else " " + word))
            if run_manager:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk
        if message.tool_calls:
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": 0}
                for c in message.tool_calls]))
        self.i = (self.i + 1) % len(self.responses)


def call(text=""):
    return AIMessage(content=text, tool_calls=[{"name": "search_jwst", "args": {"query": "JWST"}, "id": "c1"}])


def user():
    return {"messages": [{"role": "user", "content": QUESTION}]}


def relayed(chunks):
    return "".join(c[0].content for c in chunks if c[1].get("langgraph_node") == "model" and c[0].content)


def run(graph, thread):
    config = {"configurable": {"thread_id": thread}}
    chunks = list(graph.stream(user(), config, stream_mode="messages"))
    return relayed(chunks), graph.get_state(config).values


def test_filter_with_every_sentence_flagged_streams_the_fallback_message(verifier, search):
    answer = f"{BAD} The mirror is 9 metres across and made of gold bricks."
    mw = HalguardMiddleware(detector=verifier, streaming="sentence", on_hallucination="filter")
    graph = create_agent(Streaming(responses=[call(), AIMessage(content=answer)]), tools=[search], middleware=[mw],
                         checkpointer=InMemorySaver())
    streamed, state = run(graph, "all-flagged")
    assert streamed == DEFAULT_FALLBACK  # not '', and not an empty message left in the thread
    assert state["messages"][-1].content == DEFAULT_FALLBACK
    whole = create_agent(ToolCallingFake(responses=[call(), AIMessage(content=answer)]), tools=[search],
                         middleware=[HalguardMiddleware(detector=verifier, on_hallucination="filter")])
    assert whole.invoke(user())["messages"][-1].content == DEFAULT_FALLBACK  # the same as invoke()


@pytest.mark.parametrize("policy", ["raise", "fallback"])
def test_text_said_next_to_a_tool_call_is_not_checked_as_the_answer(verifier, search, policy):
    mw = HalguardMiddleware(detector=verifier, streaming="sentence", on_hallucination=policy,
                            on_unverified="fail_closed", fallback="Sorry.")
    graph = create_agent(Streaming(responses=[call(PREAMBLE), AIMessage(content=f"{GOOD} {KEPT}")]), tools=[search],
                         middleware=[mw], checkpointer=InMemorySaver())
    streamed, state = run(graph, f"preamble-{policy}")  # no UnverifiedError, no fallback mid-run
    assert streamed == f"{PREAMBLE}{GOOD} {KEPT}"
    assert state["messages"][1].content == PREAMBLE and state["messages"][-1].content == f"{GOOD} {KEPT}"
    assert state["halguard"]["label"] == "supported"


def test_with_check_intermediate_the_preamble_is_checked_as_whole_mode_checks_it(verifier, search):
    mw = HalguardMiddleware(detector=verifier, streaming="sentence", on_hallucination="raise",
                            on_unverified="fail_closed", check_intermediate=True)
    graph = create_agent(Streaming(responses=[call(PREAMBLE), AIMessage(content=GOOD)]), tools=[search],
                         middleware=[mw])
    with pytest.raises(UnverifiedError):  # no evidence before the first tool: what streaming="whole" does too
        list(graph.stream(user(), stream_mode="messages"))


@pytest.mark.parametrize("retry", ["retry", "fallback_model"])
def test_a_model_failing_mid_stream_leaves_no_tokens_behind(verifier, search, retry):
    from langchain.agents.middleware import ModelFallbackMiddleware, ModelRetryMiddleware

    answer = f"{GOOD} {KEPT}"
    model = Streaming(responses=[call(), AIMessage(content=answer)], fail_at=(1, 3))
    if retry == "retry":
        inner = ModelRetryMiddleware(max_retries=2, initial_delay=0.0, jitter=False)
    else:
        inner = ModelFallbackMiddleware(Streaming(responses=[AIMessage(content=answer)]))
    mw = HalguardMiddleware(detector=verifier, streaming="sentence", on_hallucination="filter")
    graph = create_agent(model, tools=[search], middleware=[mw, inner], checkpointer=InMemorySaver())
    streamed, state = run(graph, f"fault-{retry}")
    assert streamed == answer  # "JWST was launched on" from the failed attempt is never sent nor joined
    final = state["messages"][-1]
    assert final.content == answer and get_verdict(final).label == "supported"


def test_a_one_chunk_answer_past_the_cut_drops_only_the_fabrication(verifier, search):
    grounded = [GOOD, KEPT] * 9
    answer = " ".join([*grounded[:9], BAD, *grounded[9:]])
    model = ToolCallingFake(responses=[call(), AIMessage(content=answer)])  # a model that does not stream
    mw = HalguardMiddleware(detector=verifier, streaming="sentence", on_hallucination="filter")
    graph = create_agent(model, tools=[search], middleware=[mw], checkpointer=InMemorySaver())

    async def arun():
        config = {"configurable": {"thread_id": "one-chunk"}}
        chunks = [c async for c in graph.astream(user(), config, stream_mode="messages")]
        return relayed(chunks), (await graph.aget_state(config)).values

    streamed, state = asyncio.run(arun())
    assert "Falcon" not in streamed and "Falcon" not in state["messages"][-1].content
    assert streamed.count("Ariane") == 9 and state["messages"][-1].content == streamed.strip()
    assert state["halguard"]["action"]["action"] == "filter"


@pytest.mark.parametrize("subgraphs", [False, True])
def test_a_guarded_agent_as_a_node_of_a_parent_graph(verifier, search, subgraphs):
    from langgraph.graph import END, START, MessagesState, StateGraph

    answer = f"{GOOD} {BAD} {KEPT}"
    mw = HalguardMiddleware(detector=verifier, streaming="sentence", on_hallucination="filter")
    agent = create_agent(Streaming(responses=[call(), AIMessage(content=answer)]), tools=[search], middleware=[mw])
    parent = StateGraph(MessagesState)
    parent.add_node("agent", agent)
    parent.add_edge(START, "agent")
    parent.add_edge("agent", END)
    graph = parent.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": f"parent-{subgraphs}"}}
    chunks = list(graph.stream(user(), config, stream_mode="messages", subgraphs=subgraphs))
    if subgraphs:
        chunks = [c[1] for c in chunks]
    # With subgraphs=True the sentences come as the relay's tokens; without, LangGraph sends the subgraph's checked
    # message whole. Either way: only checked text.
    ai = "".join(c[0].content for c in chunks if c[0].type in ("ai", "AIMessageChunk") and c[0].content)
    assert ai == f"{GOOD} {KEPT}"
    assert graph.get_state(config).values["messages"][-1].content == f"{GOOD} {KEPT}"


def test_astream_events_show_only_checked_sentences(verifier, search):
    answer = f"{GOOD} {BAD} {KEPT}"
    mw = HalguardMiddleware(detector=verifier, streaming="sentence", on_hallucination="filter")
    graph = create_agent(Streaming(responses=[call(), AIMessage(content=answer)]), tools=[search], middleware=[mw])

    async def events():
        return [e async for e in graph.astream_events(user(), version="v2")]

    streamed = [e["data"]["chunk"].content for e in asyncio.run(events()) if e["event"] == "on_chat_model_stream"]
    assert "".join(streamed) == f"{GOOD} {KEPT}"  # the raw tokens, "Falcon Heavy" among them, stay out


def test_a_silent_tool_call_adds_no_empty_message_to_the_stream(verifier, search):
    mw = HalguardMiddleware(detector=verifier, streaming="sentence", on_hallucination="filter")
    graph = create_agent(Streaming(responses=[call(), AIMessage(content=GOOD)]), tools=[search], middleware=[mw])
    chunks = list(graph.stream(user(), stream_mode="messages"))
    empty = [c for c in chunks if c[1].get("langgraph_node") == "model" and c[0].type in ("ai", "AIMessageChunk")
             and not c[0].content and not getattr(c[0], "tool_call_chunks", None) and not c[0].tool_calls]
    assert relayed(chunks) == GOOD and not empty
