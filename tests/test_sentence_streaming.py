"""Sentence-by-sentence streaming: the core's SentenceGate and with_halguard(streaming="sentence")."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

from halguard import HallucinationError, get_verdict
from halguard.errors import InvalidInputError
from halguard.guard import GuardCore, GuardRequest
from halguard.guard.sentences import SentenceGate
from langchain_halguard import with_halguard
from tests.jwst import BAD, CONTEXTS, DOCS, KEPT

LAST = "It has 18 hexagonal segments."
ANSWER = f"{KEPT} {BAD} {LAST}"
QUESTION = "Tell me about JWST."


def pieces(text, size=5):
    return [text[i:i + size] for i in range(0, len(text), size)]


def gate(verifier, policy="annotate", **options):
    return SentenceGate(GuardCore(verifier, on_hallucination=policy, **options), GuardRequest(QUESTION, "", CONTEXTS))


def run_gate(g, text):
    out = [r for piece in pieces(text) for r in g.feed(piece)]
    rest, outcome = g.close()
    return out + rest, outcome


def test_each_sentence_goes_out_once_the_next_begins(verifier):
    g = gate(verifier)
    assert g.feed(KEPT) == []  # not complete until the next sentence begins
    (first,) = g.feed(" JWST")
    assert first.text == KEPT + " " and first.status == "supported"
    released, outcome = run_gate(g, BAD[4:] + " " + LAST)
    assert [r.status for r in released] == ["flagged", "supported"]
    assert "".join([first.text, *(r.text for r in released)]) == ANSWER  # annotate sends everything
    assert outcome.verdict.label == "hallucinated" and outcome.verdict.action.action == "annotate"


def test_the_final_verdict_is_the_whole_answers(verifier):
    _, outcome = run_gate(gate(verifier), ANSWER)
    whole = verifier.verify(ANSWER, CONTEXTS, question=QUESTION)
    assert [(c.start, c.end, c.status) for c in outcome.verdict.claims] == [
        (c.start, c.end, c.status) for c in whole.claims]
    assert outcome.verdict.score == whole.score


def test_filter_drops_the_flagged_sentence_without_holding_the_rest(verifier):
    released, outcome = run_gate(gate(verifier, "filter"), ANSWER)
    assert [r.status for r in released] == ["supported", "dropped", "supported"]
    assert outcome.text == f"{KEPT} {LAST}" and outcome.verdict.action.filtered_answer == outcome.text
    assert [s.text for s in outcome.verdict.action.removed] == [BAD]


def test_fallback_stops_at_the_first_flagged_sentence(verifier):
    g = gate(verifier, "fallback", fallback_message="Sorry, I can't confirm that.")
    released, outcome = run_gate(g, ANSWER)
    assert [r.status for r in released] == ["supported", "fallback"]
    assert released[1].text == "Sorry, I can't confirm that." and g.closed
    assert outcome.action == "fallback" and outcome.verdict.action.fallback_verdict.label == "unverified"


def test_raise_at_the_first_flagged_sentence(verifier):
    g = gate(verifier, "raise")
    with pytest.raises(HallucinationError):
        run_gate(g, ANSWER)


def test_async_twin(verifier):
    async def run():
        g = gate(verifier, "filter")
        out = [r for piece in pieces(ANSWER) for r in await g.afeed(piece)]
        rest, outcome = await g.aclose()
        return out + rest, outcome

    released, outcome = asyncio.run(run())
    assert [r.status for r in released] == ["supported", "dropped", "supported"] and outcome.text == f"{KEPT} {LAST}"


def test_repair_and_sampling_need_the_whole_answer(verifier):
    with pytest.raises(InvalidInputError):
        SentenceGate(GuardCore(verifier, on_hallucination="repair", repairer=lambda m: "x"),
                     GuardRequest(QUESTION, "", CONTEXTS))


# -- with_halguard(streaming="sentence") ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def retriever():
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents(DOCS)
    return store.as_retriever(search_kwargs={"k": 2})


def lcel(retriever, answer=ANSWER, parser=True):
    """The LangChain docs' RAG chain; the model streams its answer in small chunks."""
    prompt = ChatPromptTemplate.from_template("Context: {context}\n\nQuestion: {question}")
    llm = GenericFakeChatModel(messages=itertools.repeat(AIMessage(content=answer)))
    chain = {"context": retriever | (lambda docs: "\n".join(d.page_content for d in docs)),
             "question": RunnablePassthrough()} | prompt | llm
    return chain | StrOutputParser() if parser else chain


def test_a_str_stream_by_sentence(verifier, retriever):
    guarded = with_halguard(lcel(retriever), detector=verifier, on_hallucination="filter", streaming="sentence")
    chunks = list(guarded.stream(QUESTION))
    assert chunks == [KEPT + " ", LAST]  # whole sentences, the flagged one dropped


def test_a_message_stream_by_sentence_ends_with_the_verdict(verifier, retriever):
    guarded = with_halguard(lcel(retriever, parser=False), detector=verifier, streaming="sentence")
    chunks = list(guarded.stream(QUESTION))
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    assert [c.content for c in chunks[:-1]] == [KEPT + " ", BAD + " ", LAST]
    total = chunks[0]
    for c in chunks[1:]:
        total += c
    assert total.content == ANSWER and get_verdict(total).label == "hallucinated"


def test_fallback_ends_the_stream(verifier, retriever):
    guarded = with_halguard(lcel(retriever), detector=verifier, on_hallucination="fallback",
                            fallback="I can't confirm that.", streaming="sentence")
    assert list(guarded.stream(QUESTION)) == [KEPT + " ", "I can't confirm that."]
    # The verdict records what the user saw: the sentence sent before the flagged one, then the message (issue 48).
    seen = []
    recording = with_halguard(lcel(retriever), detector=verifier, on_hallucination="fallback",
                              fallback="I can't confirm that.", streaming="sentence", on_verdict=seen.append)
    streamed = "".join(recording.stream(QUESTION))
    assert seen[-1].action.action == "fallback"
    assert seen[-1].action.filtered_answer == streamed.strip()
    # invoke() returns what the stream showed, sync and async, with the same record.
    assert recording.invoke(QUESTION).strip() == streamed.strip() == seen[-1].action.filtered_answer
    assert asyncio.run(recording.ainvoke(QUESTION)).strip() == streamed.strip()


def test_astream_and_events(verifier, retriever):
    guarded = with_halguard(lcel(retriever), detector=verifier, on_hallucination="filter", streaming="sentence")

    async def run():
        chunks = [c async for c in guarded.astream(QUESTION)]
        events = [e async for e in guarded.astream_events(QUESTION, version="v2")]
        return chunks, events

    chunks, events = asyncio.run(run())
    assert chunks == [KEPT + " ", LAST]
    (verdict,) = [e["data"] for e in events if e["event"] == "on_custom_event" and e["name"] == "halguard_verdict"]
    assert verdict["label"] == "hallucinated"  # sent once checked, before the policy (as in whole mode)


def test_invoke_is_unchanged_by_the_streaming_option(verifier, retriever):
    guarded = with_halguard(lcel(retriever), detector=verifier, on_hallucination="filter", streaming="sentence")
    assert guarded.invoke(QUESTION) == f"{KEPT} {LAST}"


def test_a_dict_stream_passes_its_other_keys_through(verifier, retriever):
    from langchain_core.runnables import RunnableParallel

    answer = lcel(retriever)
    chain = RunnableParallel(context=retriever, input=RunnablePassthrough()).assign(
        answer=(lambda x: x["input"]) | answer)
    guarded = with_halguard(chain, detector=verifier, on_hallucination="filter", streaming="sentence")
    chunks = list(guarded.stream(QUESTION))
    answers = [c["answer"] for c in chunks if "answer" in c]
    assert answers == [KEPT + " ", LAST]
    assert any("context" in c for c in chunks) and chunks[-1]["halguard"].label == "hallucinated"


def test_the_documents_are_prepared_beside_the_stream(verifier):
    from halguard import Detector

    class Preparing(Detector):
        name, threshold = verifier.name, verifier.threshold

        def __init__(self, fail=False):
            self.prepared, self.fail = [], fail

        def prepare(self, contexts, *, question=None):
            self.prepared.append((len(contexts), question))
            if self.fail:
                raise RuntimeError("disk full")

        def verify(self, answer, contexts, *, question=None):
            return verifier.verify(answer, contexts, question=question)

    for fail in (False, True):  # a failed preparation only means the first check does the work
        detector = Preparing(fail)
        g = SentenceGate(GuardCore(detector, on_hallucination="filter"), GuardRequest(QUESTION, "", CONTEXTS))
        released, outcome = run_gate(g, ANSWER)
        assert detector.prepared == [(2, QUESTION)]
        assert [r.status for r in released] == ["supported", "dropped", "supported"]


def test_prepare_encodes_what_the_first_check_needs(verifier):
    from halguard import LocalVerifier

    fresh = LocalVerifier(embedder=verifier.embedder)
    verifier.embedder._cache.clear()  # noqa: SLF001
    fresh.prepare(CONTEXTS, question=QUESTION)
    calls = []
    original = fresh.embedder.encode

    def counting(texts, *args, **kwargs):
        calls.extend(t for t in texts if fresh.embedder._cache.get(t) is None)  # noqa: SLF001 - encoded anew
        return original(texts, *args, **kwargs)

    fresh.embedder.encode = counting
    try:
        fresh.verify(KEPT, CONTEXTS, question=QUESTION)
    finally:
        del fresh.embedder.encode
    assert calls and not any(text in " ".join(t for _, t in CONTEXTS) for text in calls)  # the claim, no chunk


@pytest.mark.slow  # up to the 10 s budget of sentence checks each
@pytest.mark.parametrize("name, text", [
    ("no sentence end", "word " * 20_000),
    ("abbreviations that never end a sentence", "See e.g. the x. " * 6_000),
    ("tiny sentences", "It rained. " * 9_000),
])
def test_a_crafted_stream_costs_bounded_time(verifier, name, text):
    g = gate(verifier, "filter")
    t0 = time.perf_counter()
    released = [r for i in range(0, len(text), 4) for r in g.feed(text[i:i + 4])]
    rest, outcome = g.close()
    seconds = time.perf_counter() - t0
    assert seconds < 40, seconds  # the sentence checks stop at STREAM_CHECK_BUDGET_S (10 s); the rest is splitting
    sent = "".join(r.text for r in released + rest)
    assert len(sent) <= len(text) and outcome.verdict.label in ("hallucinated", "unverified", "supported")
    if name == "no sentence end":  # released in pieces, never held back whole
        assert len(released) >= 10


def test_past_the_budget_the_rest_is_unverified_and_the_policy_decides(verifier, monkeypatch):
    import halguard.guard.sentences as sentences

    monkeypatch.setattr(sentences, "STREAM_CHECK_BUDGET_S", 0.0)
    g = gate(verifier, "filter")
    released, _ = run_gate(g, ANSWER)
    assert released[0].status == "supported"  # the first check ran
    # Not checked in time: held back under filter by default (issue 46), however on_unverified is set
    assert {r.status for r in released[1:]} == {"dropped"} and not "".join(r.text for r in released[1:])
    sending = SentenceGate(GuardCore(verifier, on_hallucination="filter", stream_unchecked="send"),
                           GuardRequest(QUESTION, "", CONTEXTS))
    released, _ = run_gate(sending, ANSWER)
    assert {r.status for r in released[1:]} == {"unverified"}  # the caller chose to send: said to be unchecked
    annotating = SentenceGate(GuardCore(verifier, on_hallucination="annotate"), GuardRequest(QUESTION, "", CONTEXTS))
    released, _ = run_gate(annotating, ANSWER)
    assert {r.status for r in released[1:]} == {"unverified"}  # annotate never holds text back
    held = SentenceGate(GuardCore(verifier, on_hallucination="fallback"), GuardRequest(QUESTION, "", CONTEXTS))
    released, _ = run_gate(held, ANSWER)
    assert [r.status for r in released] == ["supported", "fallback"]
    with pytest.raises(ValueError, match="stream_unchecked"):
        GuardCore(verifier, stream_unchecked="maybe")
    closed = SentenceGate(GuardCore(verifier, on_hallucination="fallback", on_unverified="fail_closed"),
                          GuardRequest(QUESTION, "", CONTEXTS))
    released, _ = run_gate(closed, ANSWER)
    assert [r.status for r in released] == ["supported", "fallback"]


def test_filter_with_every_sentence_flagged_streams_what_invoke_returns(verifier, retriever):
    from halguard.policy import DEFAULT_FALLBACK

    answer = f"{BAD} The mirror is 9 metres across and made of gold bricks."
    guarded = with_halguard(lcel(retriever, answer), detector=verifier, on_hallucination="filter", streaming="sentence")

    async def astream():
        return [c async for c in guarded.astream(QUESTION)]

    assert "".join(guarded.stream(QUESTION)) == DEFAULT_FALLBACK == guarded.invoke(QUESTION)
    assert "".join(asyncio.run(astream())) == DEFAULT_FALLBACK


def test_a_model_that_sends_the_answer_in_one_chunk(verifier, retriever):
    from langchain_core.language_models import FakeListChatModel

    answer = " ".join([KEPT, LAST] * 8 + [BAD] + [KEPT, LAST] * 8)
    prompt = ChatPromptTemplate.from_template("Context: {context}\n\nQuestion: {question}")
    chain = ({"context": retriever | (lambda docs: "\n".join(d.page_content for d in docs)),
              "question": RunnablePassthrough()} | prompt | FakeListChatModel(responses=[answer]) | StrOutputParser())
    guarded = with_halguard(chain, detector=verifier, on_hallucination="filter", streaming="sentence")
    out = "".join(guarded.stream(QUESTION))
    assert "Falcon" not in out and out.count("hexagonal") == 16


CRAFTED = {
    "run-on": "JWST was launched on 25 December 2021" + ", and Webb's primary mirror is 6.5 metres across" * 25
              + ", and it was launched on a Falcon Heavy rocket in 2019.",
    "fullwidth": f"{KEPT[:-1]}\uff0e{BAD[:-1]}\u3002{LAST}",
    "zero-width": f"{KEPT}\u200b{BAD}\u200b {LAST}",
    "list": f"Facts:\n- {KEPT}\n- {BAD}\n- {LAST}",
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
@pytest.mark.parametrize("one_chunk", [False, True])
def test_crafted_answers_through_with_halguard_never_send_the_fabrication(verifier, retriever, name, one_chunk):
    from langchain_core.language_models import FakeListChatModel

    answer = CRAFTED[name]
    prompt = ChatPromptTemplate.from_template("Context: {context}\n\nQuestion: {question}")
    model = (FakeListChatModel(responses=[answer]) if one_chunk
             else GenericFakeChatModel(messages=itertools.repeat(AIMessage(content=answer))))
    chain = ({"context": retriever | (lambda docs: "\n".join(d.page_content for d in docs)),
              "question": RunnablePassthrough()} | prompt | model | StrOutputParser())
    guarded = with_halguard(chain, detector=verifier, on_hallucination="filter", streaming="sentence")
    out = "".join(guarded.stream(QUESTION))
    assert "Falcon" not in out and "2019" not in out
    assert out.strip()  # never nothing: the kept sentences, or the fallback message
