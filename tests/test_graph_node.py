"""halguard_node and route_on_verdict in a StateGraph RAG, the shape of LangGraph's RAG tutorial."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: E402

from halguard.errors import InvalidInputError  # noqa: E402
from langchain_halguard import halguard_node, route_on_verdict  # noqa: E402
from tests.jwst import BAD, DOCS, GOOD  # noqa: E402

SORRY = "I could not find that in the documents."


class State(TypedDict, total=False):
    question: str
    context: list[Document]
    answer: str
    halguard: dict[str, Any]
    attempts: int


def rag(verifier, answers: list[str], checkpointer=None):
    """retrieve -> generate -> check; a flagged answer is generated again once, then the graph apologises."""
    script = iter(answers)

    def retrieve(state: State) -> dict:
        return {"context": DOCS}

    def generate(state: State) -> dict:
        return {"answer": next(script), "attempts": state.get("attempts", 0) + 1}

    def apologise(state: State) -> dict:
        return {"answer": SORRY}

    def retry_or_apologise(state: State) -> str:
        return "generate" if state["attempts"] < 2 else "apologise"

    graph = StateGraph(State)
    graph.add_node("retrieve", retrieve)
    graph.add_node("generate", generate)
    graph.add_node("check", halguard_node(detector=verifier))
    graph.add_node("retry_or_apologise", lambda state: {})
    graph.add_node("apologise", apologise)
    graph.add_edge(START, "retrieve")
    graph.add_edge("retrieve", "generate")
    graph.add_edge("generate", "check")
    graph.add_conditional_edges("check", route_on_verdict(supported=END, hallucinated="retry_or_apologise"))
    graph.add_conditional_edges("retry_or_apologise", retry_or_apologise)
    graph.add_edge("apologise", END)
    return graph.compile(checkpointer=checkpointer)


def test_a_supported_answer_is_answered(verifier):
    state = rag(verifier, [GOOD]).invoke({"question": "When did JWST launch?"})
    assert state["answer"] == GOOD and state["halguard"]["label"] == "supported" and state["attempts"] == 1
    assert state["halguard"]["request"]["question"] == "When did JWST launch?"


def test_a_fabrication_is_regenerated(verifier):
    state = rag(verifier, [BAD, GOOD]).invoke({"question": "When did JWST launch?"})
    assert state["answer"] == GOOD and state["attempts"] == 2 and state["halguard"]["label"] == "supported"


def test_two_fabrications_fall_back(verifier):
    state = rag(verifier, [BAD, BAD]).invoke({"question": "When did JWST launch?"})
    assert state["answer"] == SORRY and state["halguard"]["label"] == "hallucinated"


def test_async_and_the_checkpointer_keeps_the_verdict(verifier):
    graph = rag(verifier, [BAD, GOOD], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "n1"}}
    state = asyncio.run(graph.ainvoke({"question": "When did JWST launch?"}, config))
    assert state["answer"] == GOOD
    assert graph.get_state(config).values["halguard"]["label"] == "supported"


def test_a_messages_state_is_read_like_an_agent(verifier):
    def answer(state: MessagesState) -> dict:
        return {"messages": [AIMessage(content=BAD)]}

    class WithVerdict(MessagesState):
        halguard: dict

    graph = StateGraph(WithVerdict)
    graph.add_node("answer", answer)
    graph.add_node("check", halguard_node(detector=verifier))
    graph.add_edge(START, "answer")
    graph.add_edge("answer", "check")
    graph.add_edge("check", END)
    messages = [HumanMessage("When did JWST launch?"),
                AIMessage(content="", tool_calls=[{"name": "search", "args": {}, "id": "t1"}]),
                ToolMessage(content=DOCS[0].page_content, tool_call_id="t1")]
    state = graph.compile().invoke({"messages": messages})
    assert state["halguard"]["label"] == "hallucinated"


def test_a_state_without_an_answer_is_a_clear_error(verifier):
    node = halguard_node(detector=verifier)
    with pytest.raises(InvalidInputError, match="answer"):
        node.invoke({"question": "q", "context": DOCS})


def test_the_router_fails_open_unless_told():
    route = route_on_verdict(supported="done", hallucinated="retry")
    assert route({"halguard": {"label": "hallucinated"}}) == "retry"
    assert route({"halguard": {"label": "unverified"}}) == "done"
    assert route({}) == "done"
    closed = route_on_verdict(supported="done", hallucinated="retry", unverified="retry")
    assert closed({"halguard": {"label": "unverified"}}) == "retry" and closed({}) == "retry"
