"""HalguardCallbackHandler and get_halguard_callback: observe-only verification of root runs."""

import json
import logging
from uuid import UUID

import pytest

from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableParallel, RunnablePassthrough

from halguard import Detector
from langchain_halguard import HalguardCallbackHandler, get_halguard_callback

DOCS = [Document(id="launch", page_content="JWST was launched on 25 December 2021 on an Ariane 5 rocket.")]
GOOD = "JWST was launched on 25 December 2021 on an Ariane 5 rocket."
BAD = "JWST was launched on 25 December 2019 on a Falcon Heavy rocket."


class StaticRetriever(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager):
        return list(DOCS)


def chain(*answers):
    prompt = ChatPromptTemplate.from_template("Context: {context}\nQuestion: {input}")
    llm = FakeListChatModel(responses=list(answers))
    return RunnableParallel(context=StaticRetriever(), input=RunnablePassthrough()).assign(
        answer=prompt | llm | StrOutputParser()
    )


def test_handler_verifies_root_runs_and_keeps_verdicts(verifier, tmp_path, caplog):
    seen = []
    path = tmp_path / "verdicts.jsonl"
    handler = HalguardCallbackHandler(detector=verifier, jsonl_path=path,
                                      on_verdict=lambda v: seen.append((UUID(v.request.id), v.label)))
    c = chain(GOOD, BAD)
    with caplog.at_level(logging.INFO, logger="langchain_halguard"):
        c.invoke("When was JWST launched?", {"callbacks": [handler]})
        c.invoke("When was JWST launched?", {"callbacks": [handler]})
    assert [label for _, label in seen] == ["supported", "hallucinated"]
    assert set(handler.verdicts) == {rid for rid, _ in seen}
    assert handler.get_verdict(seen[1][0]).spans[0].text == "2019"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["verdict"]["label"] for line in lines] == ["supported", "hallucinated"]
    assert lines[0]["question"] == "When was JWST launched?"
    assert any("hallucinated" in r.getMessage() for r in caplog.records)


def test_answer_from_the_llm_when_the_root_output_has_none(verifier):
    handler = HalguardCallbackHandler(detector=verifier)
    c = RunnableParallel(context=StaticRetriever(), input=RunnablePassthrough()) | (
        ChatPromptTemplate.from_template("{context} {input}") | FakeListChatModel(responses=[BAD])
    )
    c.invoke("When?", {"callbacks": [handler]})
    (verdict,) = handler.verdicts.values()
    assert verdict.label == "hallucinated"


def test_runs_without_retrieval_are_ignored(verifier):
    handler = HalguardCallbackHandler(detector=verifier)
    (ChatPromptTemplate.from_template("{q}") | FakeListChatModel(responses=["hi"])).invoke(
        {"q": "x"}, {"callbacks": [handler]}
    )
    assert handler.verdicts == {}


async def test_concurrent_abatch(verifier):
    handler = HalguardCallbackHandler(detector=verifier)
    c = chain(*([GOOD, BAD] * 5))
    await c.abatch(["When was JWST launched?"] * 10, {"callbacks": [handler], "max_concurrency": 5})
    labels = [v.label for v in handler.verdicts.values()]  # every verdict is there when the await returns
    assert len(labels) == 10
    assert await handler.aflush(timeout=60) and handler.flush()  # kept for older code: nothing left to wait for
    labels = sorted(v.label for v in handler.verdicts.values())
    assert len(labels) == 10
    assert labels.count("hallucinated") == 5 and labels.count("supported") == 5


def test_handler_never_raises_into_the_chain(caplog):
    class Broken(Detector):
        def verify(self, answer, contexts, *, question=None):
            raise RuntimeError("detector exploded")

    handler = HalguardCallbackHandler(detector=Broken())
    with caplog.at_level(logging.ERROR, logger="langchain_halguard"):
        out = chain(GOOD).invoke("q", {"callbacks": [handler]})
    assert out["answer"] == GOOD
    assert handler.verdicts == {}
    assert any("verifying run" in r.getMessage() and "RuntimeError" in r.getMessage() for r in caplog.records)
    assert not any("exploded" in r.getMessage() for r in caplog.records)  # the exception's text: DEBUG only


async def test_handler_never_raises_into_an_awaited_chain(caplog):
    class Broken(Detector):
        def verify(self, answer, contexts, *, question=None):
            raise RuntimeError("detector exploded")

        async def averify(self, answer, contexts, *, question=None):
            raise RuntimeError("detector exploded")

    handler = HalguardCallbackHandler(detector=Broken())
    with caplog.at_level(logging.ERROR, logger="langchain_halguard"):
        out = await chain(GOOD).ainvoke("q", {"callbacks": [handler]})
    assert out["answer"] == GOOD
    assert handler.verdicts == {}
    assert any("verifying run" in r.getMessage() and "RuntimeError" in r.getMessage() for r in caplog.records)
    assert not any("exploded" in r.getMessage() for r in caplog.records)  # the exception's text: DEBUG only


def test_context_manager_collects_without_passing_callbacks(verifier):
    with get_halguard_callback(detector=verifier) as cb:
        chain(BAD).invoke("When was JWST launched?")
    assert [v.label for v in cb.verdicts.values()] == ["hallucinated"]
    chain(GOOD).invoke("When was JWST launched?")  # outside the block: not collected
    assert len(cb.verdicts) == 1


async def test_context_manager_async(verifier):
    with get_halguard_callback(detector=verifier) as cb:
        await chain(GOOD).ainvoke("When was JWST launched?")
        assert [v.label for v in cb.verdicts.values()] == ["supported"]  # no flush needed
    assert [v.label for v in cb.verdicts.values()] == ["supported"]


def test_one_on_verdict_shape_for_a_batch_and_a_wrong_shape_refused_at_construction(verifier):
    # Issue 48: on_verdict(verdict) everywhere; verdicts.append works as is, each verdict naming its run.
    from langchain_halguard import with_halguard

    got = []
    handler = HalguardCallbackHandler(detector=verifier, on_verdict=got.append)
    chain(*([GOOD] * 16)).batch(["When was JWST launched?"] * 16, {"callbacks": [handler]})
    assert len(got) == 16 and len({v.request.id for v in got}) == 16
    assert set(handler.verdicts) == {UUID(v.request.id) for v in got}
    for make in (lambda cb: HalguardCallbackHandler(detector=verifier, on_verdict=cb),
                 lambda cb: with_halguard(chain(GOOD), detector=verifier, on_verdict=cb)):
        with pytest.raises(ValueError, match=r"on_verdict\(verdict\)"):
            make(lambda run_id, verdict: None)
        with pytest.raises(ValueError, match="on_verdict"):
            make("not callable")

