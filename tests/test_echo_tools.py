"""Evidence is what the world said: a tool that returns the model's own words is not a source (issue 38).

An agent passes its fabrication to a tool that echoes it (alone, wrapped in its own text, as JSON, stored and read
back) and answers with it; a ``return_direct`` tool's output is the answer itself. Real retrieval tools run beside
them, queried with a name, with keywords and with a question, so taking echoes out costs them nothing.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from halguard.text.echo import ECHO_MIN_WORDS, ModelWords

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

from halguard import HallucinationError, get_verdict  # noqa: E402
from langchain_halguard import HalguardMiddleware, with_halguard  # noqa: E402
from tests.jwst import BAD, GOOD, ToolCallingFake, search_tool  # noqa: E402

QUESTION = "When was JWST launched, and on which rocket?"


# -- the words themselves ---------------------------------------------------------------------------------------

def written(*arguments):
    words = ModelWords()
    for value in arguments:
        words.add(value)
    return words


@pytest.mark.parametrize("output", [
    "The treaty was signed in 1850 by Napoleon.",
    "Saved note #3 (8 words): The treaty was signed in 1850 by Napoleon. Anything else?",
    json.dumps({"saved": "THE TREATY WAS SIGNED IN 1850 BY NAPOLEON.", "id": 42}),
    "Note: the treaty was signed in 18\u200b50 by Napoleon",  # a zero-width space does not hide it
])
def test_a_repeated_statement_is_taken_out_and_the_tools_own_words_stay(output):
    left = written({"text": "The treaty was signed in 1850 by Napoleon."}).strip(output)
    assert "1850" not in left.replace("\u200b", "") and "Napoleon" not in left
    for own in ("Saved note #3", "Anything else?", '"id": 42'):
        if own in output:
            assert own in left


def test_nested_arguments_and_several_statements_are_read():
    words = written({"note": {"items": ["Orion was built by Boeing in 2031.", "It has 12 seats; it flies in 2040."]}})
    assert words.strip("Stored: Orion was built by Boeing in 2031. It has 12 seats.").split() == ["Stored:"]


@pytest.mark.parametrize(("query", "document"), [
    ("James Webb Space Telescope", "The James Webb Space Telescope launched on 25 December 2021."),  # a name
    ("James Webb Space Telescope launch date", "The James Webb Space Telescope launched on 25 December 2021."),
    ("When was the telescope launched?", "The telescope was launched on 25 December 2021 from Kourou."),
    ("JWST launch", "JWST launch: 25 December 2021, Ariane 5."),  # shorter than a run
])
def test_what_a_query_finds_stays_in_the_document(query, document):
    assert written({"query": query}).strip(document) == document


def test_a_statement_repeated_only_in_part_stays():
    # The fabrication and the document share five words in a row; the document's year is the world's.
    words = written({"text": "The treaty was signed in 1850 by Napoleon."})
    assert words.strip("The treaty was signed in 1803.") == "The treaty was signed in 1803."


def test_the_run_length_is_the_named_one():
    assert ECHO_MIN_WORDS == 4
    three = written({"text": "signed in 1850"})
    assert three.strip("Saved: signed in 1850") == "Saved: signed in 1850"  # too short to state a fact


def test_huge_arguments_are_read_in_one_pass():
    statement = "The committee approved budget line {} for the year 2031."
    arguments = {"text": " ".join(statement.format(i) for i in range(20_000))}  # about 1 MB
    words = written(arguments)
    output = "Saved. " + arguments["text"][:500_000]
    assert "2031" not in words.strip(output)


# -- agents ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def search():
    return search_tool()


@tool
def save_note(text: str) -> str:
    """Save a note and say so."""
    return f"Saved note #3 ({len(text.split())} words): {text}"


@tool
def echo(text: str) -> str:
    """Return the text."""
    return text


@tool
def store_as_json(text: str) -> str:
    """Store the text; answer with the stored record."""
    return json.dumps({"id": 7, "stored": text.upper(), "status": "ok"})


NOTES: list[str] = []


@tool
def remember(text: str) -> str:
    """Remember a fact."""
    NOTES.append(text)
    return "Remembered."


@tool
def recall(topic: str) -> str:
    """Recall what was remembered."""
    return "\n".join(NOTES)


@tool(return_direct=True)
def final_answer(text: str) -> str:
    """Give the final answer to the user."""
    return text


def call(name, args, call_id):
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def user(text=QUESTION):
    return {"messages": [{"role": "user", "content": text}]}


def searched(call_id="c0", query="JWST launch"):
    return call("search_jwst", {"query": query}, call_id)


def run_agent(script, tools, **options):
    mw = HalguardMiddleware(**options)
    return create_agent(ToolCallingFake(responses=script), tools=tools, middleware=[mw]).invoke(user())


@pytest.mark.parametrize("echoing", [save_note, echo, store_as_json], ids=lambda t: t.name)
def test_a_fabrication_passed_through_an_echoing_tool_is_flagged(verifier, search, echoing):
    script = [searched(), call(echoing.name, {"text": BAD}, "c1"), AIMessage(content=BAD)]
    state = run_agent(script, [search, echoing], detector=verifier, on_hallucination="filter")
    assert state["halguard"]["label"] == "hallucinated"
    assert state["messages"][-1].content != BAD  # filter kept nothing of it


def test_an_echo_alone_is_no_evidence(verifier):
    # Without any retrieval the echo was the only "source": the answer is not checked against itself.
    state = run_agent([call("echo", {"text": BAD}, "c0"), AIMessage(content=BAD)], [echo], detector=verifier)
    assert state["halguard"]["label"] == "unverified"
    assert state["halguard"]["errors"][0]["code"] == "no_context"


def test_a_fabrication_stored_and_read_back_is_flagged(verifier, search):
    NOTES.clear()
    script = [searched(), call("remember", {"text": BAD}, "c1"), call("recall", {"topic": "JWST"}, "c2"),
              AIMessage(content=BAD)]
    state = run_agent(script, [search, remember, recall], detector=verifier)
    assert state["halguard"]["label"] == "hallucinated"


def test_a_grounded_answer_passed_through_an_echoing_tool_stays_supported(verifier, search):
    script = [searched(), call("save_note", {"text": GOOD}, "c1"), AIMessage(content=GOOD)]
    state = run_agent(script, [search, save_note], detector=verifier)
    assert state["halguard"]["label"] == "supported"
    assert {e.source_id for c in get_verdict(state["messages"][-1]).claims for e in c.evidence} == {"c0"}  # the search, not the note


@pytest.mark.parametrize("query", ["JWST", "James Webb Space Telescope launch date", "When was JWST launched?"])
def test_retrieval_queries_keep_their_documents(verifier, search, query):
    state = run_agent([searched(query=query), AIMessage(content=GOOD)], [search], detector=verifier)
    assert state["halguard"]["label"] == "supported"


def test_a_fact_check_search_queried_with_the_claim_counts_when_trusted(verifier, search):
    claim = "JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou"
    script = [searched(query=claim), AIMessage(content=GOOD)]
    # The document states the query whole: text cannot tell that from an echo, so by default it is taken out...
    assert run_agent(script, [search], detector=verifier)["halguard"]["label"] != "supported"
    # ...and a tool the caller trusts keeps it.
    script = [searched(query=claim), AIMessage(content=GOOD)]
    state = run_agent(script, [search], detector=verifier, trusted_tools=["search_jwst"])
    assert state["halguard"]["label"] == "supported"


def test_the_runnable_guard_over_an_agent_reads_tools_the_same_way(verifier, search):
    script = [searched(), call("save_note", {"text": BAD}, "c1"), AIMessage(content=BAD)]
    agent = create_agent(ToolCallingFake(responses=script), tools=[search, save_note])
    state = with_halguard(agent, detector=verifier).invoke(user())
    assert get_verdict(state["messages"][-1]).label == "hallucinated"


# -- return_direct ----------------------------------------------------------------------------------------------

def direct(answer, *tools, **options):
    script = [searched(), call("final_answer", {"text": answer}, "c1")]
    return run_agent(script, [*tools, final_answer], **options)


def test_a_return_direct_answer_is_checked(verifier, search):
    state = direct(BAD, search, detector=verifier)
    answer = state["messages"][-1]
    assert isinstance(answer, ToolMessage) and answer.content == BAD  # annotate: shown as is, with its verdict
    assert get_verdict(answer).label == "hallucinated" and state["halguard"]["label"] == "hallucinated"
    state = direct(GOOD, search, detector=verifier)
    assert state["halguard"]["label"] == "supported" and get_verdict(state["messages"][-1]).label == "supported"


@pytest.mark.parametrize("policy", ["fallback", "filter", "end"])
def test_a_return_direct_answer_gets_the_policy(verifier, search, policy):
    state = direct(BAD, search, detector=verifier, on_hallucination=policy, fallback="Not confirmed.")
    assert state["messages"][-1].content == "Not confirmed."
    assert state["halguard"]["label"] == "hallucinated"


def test_a_return_direct_answer_raises(verifier, search):
    with pytest.raises(HallucinationError):
        direct(BAD, search, detector=verifier, on_hallucination="raise")


def test_a_return_direct_retrieval_tool_is_its_own_evidence(verifier, search):
    lookup = search.model_copy(update={"return_direct": True})
    state = run_agent([searched()], [lookup], detector=verifier, on_hallucination="filter")
    assert state["halguard"]["label"] == "supported"
    assert "25 December 2021" in state["messages"][-1].content


def test_a_streamed_return_direct_answer_is_the_checked_one(verifier, search):
    mw = HalguardMiddleware(detector=verifier, on_hallucination="fallback", fallback="Not confirmed.")
    graph = create_agent(ToolCallingFake(responses=[searched(), call("final_answer", {"text": BAD}, "c1")]),
                         tools=[search, final_answer], middleware=[mw])
    shown = [m.content for mode, chunk in graph.stream(user(), stream_mode=["messages", "updates"])
             for m in ([chunk[0]] if mode == "messages" else
                       [x for node in chunk.values() for x in (node or {}).get("messages", [])])
             if isinstance(m, ToolMessage) and m.name == "final_answer"]
    assert shown and all(text == "Not confirmed." for text in shown)
    assert not any("2019" in text for text in shown)


def test_async_mirrors_sync(verifier, search):
    mw = HalguardMiddleware(detector=verifier, on_hallucination="fallback", fallback="Not confirmed.")

    async def go():
        graph = create_agent(ToolCallingFake(responses=[searched(), call("final_answer", {"text": BAD}, "c1")]),
                             tools=[search, final_answer], middleware=[mw])
        direct_state = await graph.ainvoke(user())
        script = [searched(), call("save_note", {"text": BAD}, "c1"), AIMessage(content=BAD)]
        graph = create_agent(ToolCallingFake(responses=script), tools=[search, save_note],
                             middleware=[HalguardMiddleware(detector=verifier)])
        return direct_state, await graph.ainvoke(user())

    direct_state, echo_state = asyncio.run(go())
    assert direct_state["messages"][-1].content == "Not confirmed."
    assert echo_state["halguard"]["label"] == "hallucinated"
