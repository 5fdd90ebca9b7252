"""A LangGraph node that checks a state's answer against the state's documents, and a router for the edge after it.

A ``StateGraph`` RAG app (retrieve -> generate) adds the node after ``generate`` and routes on what it wrote:
regenerate, fall back or answer. The node only records (the verdict under ``verdict_key``, as
``Verdict.to_metadata()``: a dict a checkpointer keeps); what to do is the graph's edges' business.

.. code-block:: python

    from langgraph.graph import END, START, StateGraph
    from langchain_halguard import halguard_node, route_on_verdict

    graph = StateGraph(State)  # question: str, context: list[Document], answer: str, halguard: dict
    graph.add_node("retrieve", retrieve)
    graph.add_node("generate", generate)
    graph.add_node("check", halguard_node())
    graph.add_node("apologise", apologise)
    graph.add_edge(START, "retrieve")
    graph.add_edge("retrieve", "generate")
    graph.add_edge("generate", "check")
    graph.add_conditional_edges("check", route_on_verdict(supported=END, hallucinated="apologise"))
    graph.add_edge("apologise", END)
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.runnables import Runnable, RunnableLambda

from halguard.detector import Detector
from halguard.errors import InvalidInputError
from halguard.guard import GuardCore, GuardRequest
from halguard.schema import Verdict
from langchain_halguard._convert import extract

__all__ = ["halguard_node", "route_on_verdict"]

SOURCE = "langchain:halguard_node"


def halguard_node(*, detector: Detector | None = None, question_key: str = "question", answer_key: str = "answer",
                  documents_key: str = "context", verdict_key: str = "halguard",
                  on_verdict: Callable[[Verdict], Any] | None = None, warm_up: bool = False,
                  name: str = "halguard_node") -> Runnable[Mapping[str, Any], dict[str, Any]]:
    """A node (sync and async) that checks ``state[answer_key]`` against ``state[documents_key]``.

    The answer may be a str, a message or a structured output; the documents Documents or strings. A state without
    those keys is read the way an agent's is: the last AI message is the answer, the last human message the
    question, and the tool messages the documents (a ``MessagesState`` graph).

    Args:
        detector: A halguard Detector (default: the shared LocalVerifier).
        question_key: Where the question is.
        answer_key: Where the answer is.
        documents_key: Where the retrieved documents are (the LangGraph RAG tutorial's ``context``).
        verdict_key: Where the verdict goes (``Verdict.to_metadata()``, a dict).
        on_verdict: Called with every verdict (errors in it are logged).
        warm_up: Load what the detector's first check would load now, not at the first request.
        name: The node's run name.

    Returns:
        A Runnable for ``StateGraph.add_node``; it returns ``{verdict_key: verdict}``. A failure inside the check is
        an ``unverified`` verdict; a state that has no answer raises :class:`~halguard.errors.InvalidInputError`.
    """
    core = GuardCore(detector, on_verdict=on_verdict, warm_up=warm_up)

    def request(state: Mapping[str, Any]) -> GuardRequest:
        if not isinstance(state, Mapping):
            msg = f"halguard_node takes the graph's state (a dict), got {type(state).__name__}"
            raise InvalidInputError(msg)
        e = extract(state, state, question_key=question_key, context_key=documents_key, answer_key=answer_key)
        return e.request(request_id=str(uuid.uuid4()), source=SOURCE)

    def check(state: Mapping[str, Any]) -> dict[str, Any]:
        req = request(state)
        verdict = core.apply(req, core.verify(req)).verdict
        return {verdict_key: verdict.to_metadata()}

    async def acheck(state: Mapping[str, Any]) -> dict[str, Any]:
        req = request(state)
        verdict = (await core.aapply(req, await core.averify(req))).verdict
        return {verdict_key: verdict.to_metadata()}

    return RunnableLambda(check, afunc=acheck, name=name)


def route_on_verdict(*, supported: str, hallucinated: str, unverified: str | None = None,
                     verdict_key: str = "halguard") -> Callable[[Mapping[str, Any]], str]:
    """A router for ``add_conditional_edges`` after :func:`halguard_node`: the next node for each label.

    Args:
        supported: Where a supported answer goes (``END`` to answer).
        hallucinated: Where a hallucinated one goes (regenerate, fall back, ask a human).
        unverified: Where an answer that could not be checked goes; None: where ``supported`` goes (fail open).
            Pass ``hallucinated``'s node to fail closed.
        verdict_key: Where the node wrote the verdict.

    A loop back to a generating node ends when LangGraph's ``recursion_limit`` is reached; count attempts in your
    state to stop earlier.
    """
    routes = {"supported": supported, "hallucinated": hallucinated,
              "unverified": supported if unverified is None else unverified}

    def route(state: Mapping[str, Any]) -> str:
        verdict = state.get(verdict_key) if isinstance(state, Mapping) else None
        label = verdict.label if isinstance(verdict, Verdict) else (verdict or {}).get("label")
        return routes.get(label, routes["unverified"])  # no verdict: not checked, so unverified

    return route
