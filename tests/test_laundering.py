"""Issue 46: no laundering through memory, fragments or state. What a tool returns that could be assembled from
what the model wrote (its calls' arguments, keys included, in fragments, across calls and turns; its own messages)
or repeats of the user's turns is not evidence; real retrieval keeps its documents."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402

from langchain_halguard import HalguardMiddleware  # noqa: E402
from tests.jwst import BAD, GOOD, ToolCallingFake, search_tool  # noqa: E402

QUESTION = "When was JWST launched, and on which rocket?"
STATE: dict = {}


@pytest.fixture(scope="module")
def search():
    return search_tool()


@tool
def read_question() -> str:
    """Return the user's question, as the app's state holds it."""
    return STATE.get("question", "")


@tool
def history(n: int) -> str:
    """Return the assistant's last messages."""
    return "\n".join(STATE.get("said", []))


@tool
def fragment(text: str) -> str:
    """Store a piece of a note and return it."""
    return text


@tool
def extract_fact(request: str) -> str:
    """Return the fact in a request."""
    return request.split(": ", 1)[-1].split(", and", 1)[0] + "."


@tool
def keyed(record: dict) -> str:
    """Return the keys of a record."""
    return "\n".join(record)


def call(name, args, call_id, text=""):
    return AIMessage(content=text, tool_calls=[{"name": name, "args": args, "id": call_id}])


def searched(call_id="s0"):
    return call("search_jwst", {"query": "JWST launch"}, call_id)


def agent(script, tools, checkpointer=None, **options):
    mw = HalguardMiddleware(on_hallucination="filter", **options)
    return create_agent(ToolCallingFake(responses=script), tools=tools, middleware=[mw], checkpointer=checkpointer)


def user(text=QUESTION):
    return {"messages": [{"role": "user", "content": text}]}


def _never_delivered(state):
    assert state["halguard"]["label"] != "supported", state["halguard"]
    assert "Falcon Heavy" not in state["messages"][-1].text


def _pieces(sentence, size=3):
    words = sentence.split()
    return [" ".join(words[i:i + size]) for i in range(0, len(words), size)]


def test_the_users_question_read_from_state_is_no_evidence(verifier, search):
    question = f"I read that {BAD[0].lower()}{BAD[1:]} Is that right?"
    STATE["question"] = question
    script = [searched(), call("read_question", {}, "c1"), AIMessage(content=BAD)]
    _never_delivered(agent(script, [search, read_question], detector=verifier).invoke(user(question)))


def test_the_models_earlier_message_returned_by_a_tool_is_no_evidence(verifier, search):
    STATE["said"] = [BAD]
    # The same turn: the model says it before the call; a history tool returns it.
    script = [searched(), call("history", {"n": 1}, "c1", text=BAD), AIMessage(content=BAD)]
    _never_delivered(agent(script, [search, history], detector=verifier).invoke(user()))


def test_a_previous_turns_answer_read_back_is_no_evidence(verifier, search):
    saver = InMemorySaver()
    config = {"configurable": {"thread_id": "t-launder"}}
    script = [AIMessage(content=BAD), searched(), call("history", {"n": 2}, "c1"), AIMessage(content=BAD)]
    graph = agent(script, [search, history], checkpointer=saver, detector=verifier)
    graph.invoke(user("Tell me something about JWST."), config)
    STATE["said"] = [BAD]
    _never_delivered(graph.invoke(user(), config))


@pytest.mark.parametrize("size", [2, 3, 4])
def test_a_sentence_sent_in_fragments_across_calls_is_no_evidence(verifier, search, size):
    pieces = _pieces(BAD, size)
    script = [searched(), *[call("fragment", {"text": p}, f"f{i}") for i, p in enumerate(pieces)],
              AIMessage(content=BAD)]
    _never_delivered(agent(script, [search, fragment], detector=verifier).invoke(user()))


def test_a_sentence_sent_in_fragments_in_one_parallel_call_is_no_evidence(verifier, search):
    calls = [{"name": "fragment", "args": {"text": p}, "id": f"p{i}"} for i, p in enumerate(_pieces(BAD))]
    script = [searched(), AIMessage(content="", tool_calls=calls), AIMessage(content=BAD)]
    _never_delivered(agent(script, [search, fragment], detector=verifier).invoke(user()))


def test_the_fact_clause_of_a_longer_argument_is_no_evidence(verifier, search):
    request = (f"Please keep this for the report and check the spelling of every name in it, thanks: {BAD[:-1]}, "
               "and also look up the weather in Kourou for tomorrow morning and the week after")
    script = [searched(), call("extract_fact", {"request": request}, "c1"), AIMessage(content=BAD)]
    _never_delivered(agent(script, [search, extract_fact], detector=verifier).invoke(user()))


def test_a_sentence_written_as_a_key_is_no_evidence(verifier, search):
    script = [searched(), call("keyed", {"record": {BAD: True}}, "c1"), AIMessage(content=BAD)]
    _never_delivered(agent(script, [search, keyed], detector=verifier).invoke(user()))


def test_async_mirrors_sync(verifier, search):
    pieces = _pieces(BAD)
    script = [searched(), *[call("fragment", {"text": p}, f"f{i}") for i, p in enumerate(pieces)],
              AIMessage(content=BAD)]
    state = asyncio.run(agent(script, [search, fragment], detector=verifier).ainvoke(user()))
    _never_delivered(state)


def test_real_retrieval_with_the_users_question_as_query_keeps_its_evidence(verifier, search):
    script = [call("search_jwst", {"query": QUESTION}, "s0"), AIMessage(content=GOOD)]
    state = agent(script, [search], detector=verifier).invoke(user())
    assert state["halguard"]["label"] == "supported"
    assert state["messages"][-1].text == GOOD
