"""HalguardMiddleware inside create_agent: the shapes the LangChain v1 docs teach, with scripted chat models."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from halguard import HallucinationError, get_verdict  # noqa: E402
from langchain_halguard import HalguardMiddleware  # noqa: E402
from tests.jwst import BAD, DOCS, GOOD, KEPT, MIXED, ToolCallingFake, search_tool  # noqa: E402

QUESTION = "When was JWST launched, and how big is its mirror?"


@pytest.fixture(scope="module")
def search():
    return search_tool()


def call(name="search_jwst", call_id="c1", text=""):
    return AIMessage(content=text, tool_calls=[{"name": name, "args": {"query": "JWST"}, "id": call_id}])


def agent(search, *answers, tools=None, middleware=None, **options):
    script = [m for i, a in enumerate(answers) for m in (call(call_id=f"c{i}"), AIMessage(content=a))]
    return create_agent(ToolCallingFake(responses=script), tools=tools or [search], middleware=middleware or [],
                        **options)


def user(text=QUESTION):
    return {"messages": [{"role": "user", "content": text}]}


def test_annotate_puts_the_verdict_on_the_answer_and_in_the_state(verifier, search):
    state = agent(search, GOOD, middleware=[HalguardMiddleware(detector=verifier)]).invoke(user())
    answer = state["messages"][-1]
    assert answer.content == GOOD and get_verdict(answer).label == "supported"
    assert state["halguard"]["label"] == "supported" and state["halguard"]["request"]["question"] == QUESTION
    assert {e.source_id for c in get_verdict(answer).claims for e in c.evidence} == {"c0"}  # the tool call's text


def test_a_fabrication_is_flagged(verifier, search):
    state = agent(search, BAD, middleware=[HalguardMiddleware(detector=verifier)]).invoke(user())
    assert state["messages"][-1].content == BAD and state["halguard"]["label"] == "hallucinated"


def test_filter_and_the_thread_keeps_what_the_user_was_shown(verifier, search):
    graph = agent(search, MIXED, GOOD, middleware=[HalguardMiddleware(detector=verifier, on_hallucination="filter")],
                  checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    state = graph.invoke(user(), config)
    assert state["messages"][-1].content == KEPT
    kept = graph.get_state(config).values
    assert kept["messages"][-1].content == KEPT and kept["halguard"]["action"]["action"] == "filter"
    second = graph.invoke(user("And the launch?"), config)  # the next turn builds on what was shown
    assert [m.content for m in second["messages"] if m.type == "ai" and not m.tool_calls] == [KEPT, GOOD]


def test_fallback_replaces_the_answer(verifier, search):
    mw = HalguardMiddleware(detector=verifier, on_hallucination="fallback", fallback="I can't confirm that.")
    state = agent(search, BAD, middleware=[mw]).invoke(user())
    assert state["messages"][-1].content == "I can't confirm that."
    assert state["halguard"]["action"]["fallback_verdict"]["errors"][0]["code"] == "fallback_not_checked"


def test_raise(verifier, search):
    with pytest.raises(HallucinationError):
        agent(search, BAD, middleware=[HalguardMiddleware(detector=verifier, on_hallucination="raise")]).invoke(user())


def test_end_stops_an_agent_acting_on_a_flagged_intermediate_answer(verifier, search):
    ran = []

    @tool
    def book_launch_party(date: str) -> str:
        """Book a party for the launch anniversary."""
        ran.append(date)
        return "booked"

    script = [call(call_id="c0"), call("book_launch_party", "c1", text=BAD), AIMessage(content="Done.")]
    graph = create_agent(ToolCallingFake(responses=script), tools=[search, book_launch_party],
                         middleware=[HalguardMiddleware(detector=verifier, on_hallucination="end",
                                                        check_intermediate=True, evidence_tools=["search_jwst"])])
    state = graph.invoke(user())
    assert ran == []  # the flagged step's tool call never ran
    last = state["messages"][-1]
    assert last.type == "ai" and not last.tool_calls and last.content != BAD
    assert state["halguard"]["label"] == "hallucinated"


def test_async_is_the_mirror_image(verifier, search):
    mw = HalguardMiddleware(detector=verifier, on_hallucination="filter")
    sync = agent(search, MIXED, middleware=[mw]).invoke(user())
    async_ = asyncio.run(agent(search, MIXED, middleware=[mw]).ainvoke(user()))
    assert sync["messages"][-1].content == async_["messages"][-1].content == KEPT
    assert sync["halguard"]["label"] == async_["halguard"]["label"] == "hallucinated"


@pytest.mark.parametrize("mode", ["values", "updates", "messages", "custom", "debug"])
def test_every_stream_mode_passes_through(verifier, search, mode):
    graph = agent(search, MIXED, middleware=[HalguardMiddleware(detector=verifier, on_hallucination="filter")])
    chunks = list(graph.stream(user(), stream_mode=mode))
    assert chunks or mode == "custom"  # no node writes custom chunks here
    if mode == "values":
        assert chunks[-1]["messages"][-1].content == KEPT and chunks[-1]["halguard"]["label"] == "hallucinated"
    if mode == "updates":
        # The answer is checked in the model call (issue 46): the model node's own update carries the checked text,
        # and no update ever carries the unchecked one.
        answers = [c["model"]["messages"][-1] for c in chunks if "model" in c and c["model"]]
        assert answers[-1].content == KEPT
        assert not any(a.content == MIXED for a in answers)
        (update,) = [c for c in chunks if "HalguardMiddleware.after_model" in c and c[
            "HalguardMiddleware.after_model"]]
        assert update["HalguardMiddleware.after_model"]["halguard"]["label"] == "hallucinated"
    if mode == "messages":
        streamed = "".join(m.content for m, _ in chunks if isinstance(m, AIMessageChunk) or (
            isinstance(m, AIMessage) and not m.tool_calls))
        assert "Falcon Heavy" not in streamed and KEPT in streamed


def test_astream_events_carry_the_verdict_event(verifier, search):
    graph = agent(search, BAD, middleware=[HalguardMiddleware(detector=verifier)])

    async def run():
        return [e async for e in graph.astream_events(user(), version="v2")]

    events = asyncio.run(run())
    (verdict,) = [e["data"] for e in events if e["event"] == "on_custom_event" and e["name"] == "halguard_verdict"]
    assert verdict["label"] == "hallucinated"
    assert any(e["event"] == "on_chain_end" and e["name"] == "halguard_verify" for e in events)


class Launch(BaseModel):
    date: str
    rocket: str


def structured_agent(search, answer: Launch, mw):
    script = [call(call_id="c0"), AIMessage(content="", tool_calls=[
        {"name": "Launch", "args": answer.model_dump(), "id": "s1"}])]
    from langchain.agents.structured_output import ToolStrategy

    return create_agent(ToolCallingFake(responses=script), tools=[search], middleware=[mw],
                        response_format=ToolStrategy(Launch))


def test_a_structured_response_keeps_its_type(verifier, search):
    state = structured_agent(search, Launch(date="25 December 2021", rocket="Ariane 5"),
                             HalguardMiddleware(detector=verifier)).invoke(user())
    assert isinstance(state["structured_response"], Launch)
    assert state["halguard"]["label"] == "supported"
    assert state["halguard"]["checked_text"].startswith("date: 25 December 2021")


def test_a_structured_response_is_never_retyped(verifier, search):
    graph = structured_agent(search, Launch(date="25 December 2019", rocket="Falcon Heavy"),
                             HalguardMiddleware(detector=verifier, on_hallucination="filter"))
    with pytest.raises(HallucinationError, match="structured"):
        graph.invoke(user())


def test_only_the_evidence_tools_count(verifier, search):
    @tool
    def rumours(query: str) -> str:
        """Unreliable rumours."""
        return "JWST was launched on 25 December 2019 on a Falcon Heavy rocket."

    script = [call("rumours", "c0"), call(call_id="c1"), AIMessage(content=BAD)]
    mw = HalguardMiddleware(detector=verifier, evidence_tools=["search_jwst"])
    state = create_agent(ToolCallingFake(responses=script), tools=[search, rumours], middleware=[mw]).invoke(user())
    assert state["halguard"]["label"] == "hallucinated"
    everything = HalguardMiddleware(detector=verifier)
    script = [call("rumours", "c0"), call(call_id="c1"), AIMessage(content=BAD)]
    state = create_agent(ToolCallingFake(responses=script), tools=[search, rumours],
                         middleware=[everything]).invoke(user())
    assert state["halguard"]["label"] == "supported"  # the rumour tool's text counted as evidence


def test_an_answer_without_any_tool_output_is_unverified(verifier):
    graph = create_agent(ToolCallingFake(responses=[AIMessage(content=GOOD)]), tools=[],
                         middleware=[HalguardMiddleware(detector=verifier)])
    state = graph.invoke(user())
    assert state["halguard"]["label"] == "unverified"


def test_a_broken_detector_is_unverified_not_a_crash(search):
    from halguard import Detector

    class Broken(Detector):
        def verify(self, answer, contexts, *, question=None):
            raise RuntimeError("model file corrupt")

    state = agent(search, GOOD, middleware=[HalguardMiddleware(detector=Broken())]).invoke(user())
    assert state["messages"][-1].content == GOOD
    assert state["halguard"]["label"] == "unverified" and state["halguard"]["errors"][0]["code"] == "internal_error"


def test_bad_options_fail_at_construction():
    from halguard.errors import InvalidInputError

    with pytest.raises(InvalidInputError):
        HalguardMiddleware(on_hallucination="shout")
    with pytest.raises(InvalidInputError):
        HalguardMiddleware(on_hallucination="repair")


def test_repair_rewrites_the_answer_from_the_tools_documents():
    from tests.test_active import ANSWER, CTX, QUESTION, Scripted
    from tests.test_active_adapters import FIXED, LogprobChat

    @tool
    def lookup(query: str) -> str:
        """Look the question up."""
        return "\n\n".join(CTX)

    script = [call("lookup", "c0"), AIMessage(content=ANSWER)]
    mw = HalguardMiddleware(on_hallucination="repair", repairer=LogprobChat(script=Scripted()))
    state = create_agent(ToolCallingFake(responses=script), tools=[lookup], middleware=[mw]).invoke(user(QUESTION))
    assert state["messages"][-1].content == FIXED
    assert state["halguard"]["action"]["action"] == "repair" and state["halguard"]["label"] == "supported"


# -- streaming="sentence": the "messages" mode gets checked sentences ----------------------------------------------

THREE = f"{KEPT} {BAD} It has 18 segments."


class StreamingToolModel(ToolCallingFake):
    """Streams its text word by word (a tool call in one chunk), as a served model does."""

    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        import json

        from langchain_core.messages import AIMessageChunk
        from langchain_core.outputs import ChatGenerationChunk

        message = self.responses[self.i]
        self.i = (self.i + 1) % len(self.responses)
        if message.tool_calls:
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": 0}
                for c in message.tool_calls]))
            return
        for i, word in enumerate(message.content.split(" ")):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=word if i == 0 else " " + word))
            if run_manager:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk


def streaming_agent(search, answer, **options):
    mw = HalguardMiddleware(streaming="sentence", **options)
    return create_agent(StreamingToolModel(responses=[call(), AIMessage(content=answer)]), tools=[search],
                        middleware=[mw], checkpointer=InMemorySaver())


def model_tokens(chunks):
    return [c[0].content for c in chunks if c[1].get("langgraph_node") == "model" and c[0].content]


def test_the_messages_mode_gets_checked_sentences_only(verifier, search):
    graph = streaming_agent(search, THREE, detector=verifier, on_hallucination="filter")
    config = {"configurable": {"thread_id": "s1"}}
    tokens = model_tokens(list(graph.stream(user(), config, stream_mode="messages")))
    assert tokens == [KEPT + " ", "It has 18 segments."]  # whole sentences; the flagged one never streamed
    state = graph.get_state(config).values
    assert state["messages"][-1].content == f"{KEPT} It has 18 segments."  # the thread keeps what was shown
    assert state["halguard"]["label"] == "hallucinated" and state["halguard"]["action"]["action"] == "filter"


def test_sentence_fallback_and_async(verifier, search):
    graph = streaming_agent(search, THREE, detector=verifier, on_hallucination="fallback", fallback="Not sure.")

    async def run():
        config = {"configurable": {"thread_id": "s2"}}
        chunks = [c async for c in graph.astream(user(), config, stream_mode="messages")]
        return chunks, (await graph.aget_state(config)).values

    chunks, state = asyncio.run(run())
    assert model_tokens(chunks) == [KEPT + " ", "Not sure."]
    assert state["messages"][-1].content == f"{KEPT} Not sure."


def test_sentence_raise_stops_the_agent(verifier, search):
    graph = streaming_agent(search, THREE, detector=verifier, on_hallucination="raise")
    with pytest.raises(HallucinationError):
        list(graph.stream(user(), {"configurable": {"thread_id": "s3"}}, stream_mode="messages"))


def test_sentence_annotate_sends_everything_with_the_verdict(verifier, search):
    graph = streaming_agent(search, THREE, detector=verifier)
    state = graph.invoke(user(), {"configurable": {"thread_id": "s4"}})
    assert state["messages"][-1].content == THREE and get_verdict(state["messages"][-1]).label == "hallucinated"


def test_with_human_in_the_loop_the_resumed_run_is_checked(verifier, search):
    from langchain.agents.middleware import HumanInTheLoopMiddleware
    from langgraph.types import Command

    graph = create_agent(ToolCallingFake(responses=[call(), AIMessage(content=MIXED)]), tools=[search],
                         checkpointer=InMemorySaver(),
                         middleware=[HumanInTheLoopMiddleware(interrupt_on={"search_jwst": True}),
                                     HalguardMiddleware(detector=verifier, on_hallucination="filter")])
    config = {"configurable": {"thread_id": "hitl"}}
    paused = graph.invoke(user(), config)
    assert "__interrupt__" in paused and paused.get("halguard") is None  # no answer yet: nothing checked
    state = graph.invoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
    assert state["messages"][-1].content == KEPT and state["halguard"]["action"]["action"] == "filter"


def test_a_tools_documents_keep_their_ids(verifier):
    @tool(response_format="content_and_artifact")
    def search_docs(query: str):
        """Search the documents."""
        return "\n".join(d.page_content for d in DOCS), DOCS

    graph = create_agent(ToolCallingFake(responses=[call("search_docs"), AIMessage(content=GOOD)]),
                         tools=[search_docs], middleware=[HalguardMiddleware(detector=verifier)])
    state = graph.invoke(user())
    assert state["halguard"]["label"] == "supported"
    assert {e["source_id"] for c in state["halguard"]["claims"] for e in c["evidence"]} <= {"launch", "mirror"}


def test_concurrent_runs_share_one_middleware(verifier, search):
    mw = HalguardMiddleware(detector=verifier, on_hallucination="filter")
    answers = [GOOD, MIXED, GOOD, MIXED]
    states = [agent(search, a, middleware=[mw]).invoke(user()) for a in answers]  # one at a time, for reference
    together = [agent(search, a, middleware=[mw]) for a in answers]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda g: g.invoke(user()), together))
    assert [s["messages"][-1].content for s in results] == [s["messages"][-1].content for s in states]
    assert [s["messages"][-1].content for s in results] == [GOOD, KEPT, GOOD, KEPT]


@pytest.mark.parametrize("policy", ["filter", "fallback", "end", "repair"])
def test_the_default_stream_never_shows_an_unchecked_answer(verifier, search, policy):
    # streaming="whole" (the default): the model's raw tokens, and the model node's raw message, stay out of the
    # "messages" mode; what it shows is the checked message, once (issue 46).
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    options = {"repairer": FakeListChatModel(responses=["[]"])} if policy == "repair" else {}
    graph = agent(search, BAD, middleware=[HalguardMiddleware(detector=verifier, on_hallucination=policy, **options)])
    chunks = list(graph.stream(user(), stream_mode="messages"))
    streamed = "".join(m.text for m, _ in chunks if isinstance(m, AIMessage))
    assert "Falcon Heavy" not in streamed
    assert streamed  # the checked message (its fallback, what was kept) was sent
    final = graph.invoke(user())
    assert "Falcon Heavy" not in final["messages"][-1].text
    assert final["halguard"]["label"] == "hallucinated"


def test_the_default_stream_shows_a_supported_answer_once_and_async_mirrors_it(verifier, search):
    graph = agent(search, GOOD, middleware=[HalguardMiddleware(detector=verifier, on_hallucination="filter")])
    chunks = list(graph.stream(user(), stream_mode="messages"))
    answers = [m for m, _ in chunks if isinstance(m, AIMessage) and m.text]
    assert "".join(m.text for m in answers) == GOOD

    async def run():
        return [c async for c in graph.astream(user(), stream_mode="messages")]

    async_answers = [m for m, _ in asyncio.run(run()) if isinstance(m, AIMessage) and m.text]
    assert "".join(m.text for m in async_answers) == GOOD


def test_end_under_the_default_stream_stops_the_agent(verifier, search):
    graph = agent(search, BAD, GOOD, middleware=[HalguardMiddleware(detector=verifier, on_hallucination="end")])
    state = graph.invoke(user())
    assert state["halguard"]["label"] == "hallucinated"
    assert state["messages"][-1].type == "ai" and not state["messages"][-1].tool_calls
    assert "Falcon Heavy" not in state["messages"][-1].text


def test_the_default_stream_sends_text_beside_a_tool_call_as_the_model_wrote_it(verifier, search):
    # Not an answer to check (check_intermediate is off): the model node sends its message, tool calls included.
    step = call(text="Let me look that up.")
    graph = create_agent(ToolCallingFake(responses=[step, AIMessage(content=GOOD)]), tools=[search],
                         middleware=[HalguardMiddleware(detector=verifier, on_hallucination="filter")])
    chunks = [m for m, _ in graph.stream(user(), stream_mode="messages") if isinstance(m, AIMessage)]
    assert any(m.text == "Let me look that up." and m.tool_calls for m in chunks)
    assert "".join(m.text for m in chunks if not m.tool_calls) == GOOD
