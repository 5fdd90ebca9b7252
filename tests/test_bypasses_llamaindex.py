"""Issue 25 ("Close the bypasses"), the LlamaIndex items: every response mode of ``index.as_query_engine``, and
the event handler's own verdict events.

A real VectorStoreIndex over the local MiniLM, LLMs scripted by prompt content, the real LocalVerifier.
"""

import asyncio

import pytest

from llama_index.core import Document, Settings, VectorStoreIndex
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import Response
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.llms.mock import MockLLM
from llama_index.core.schema import NodeWithScore, TextNode

from halguard import get_verdict
from llamaindex_halguard import (
    HalguardChatEngine,
    HalguardEmbedding,
    HalguardEvaluator,
    HalguardEventHandler,
    HalguardQueryEngine,
    HalguardVerdictEvent,
)
from llamaindex_halguard._convert import ACCUMULATE_SEPARATOR, accumulate_framing
from tests.test_llamaindex_real_apps import Counting, Routed

TEXTS = {
    "tower": "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair in Paris.",
    "louvre": "The Louvre is the most visited museum in the world, with about 9 million visitors a year.",
}
QUESTION = "When was the Eiffel Tower completed, and how many people visit the Louvre?"
TOWER, TOWER_BAD = "The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1925."
LOUVRE = "The Louvre has about 9 million visitors a year."
LOUVRE_BAD = "The Louvre has about 90 million visitors a year."
GOOD, BAD = f"{TOWER} {LOUVRE}", f"{TOWER_BAD} {LOUVRE}"
TEXT_MODES = ["refine", "compact", "tree_summarize", "simple_summarize", "accumulate", "compact_accumulate",
              "generation"]
ACCUMULATING = ["accumulate", "compact_accumulate"]
FRAMING = "LlamaIndex's accumulate framing"


@pytest.fixture(scope="module")
def index():
    Settings.llm = MockLLM()  # never the OpenAI default
    return VectorStoreIndex.from_documents([Document(text=t, id_=k) for k, t in TEXTS.items()],
                                           embed_model=HalguardEmbedding())


class PerPassage(Routed):
    """Answers with one sentence per passage its prompt holds (so accumulate's parts differ)."""

    def _pick(self, prompt):
        self.prompts.append(prompt)
        return " ".join(reply for needle, reply in self.rules if needle in prompt) or self.default


def per_passage(tower=TOWER, louvre=LOUVRE):
    return PerPassage(rules=[("330 metres tall", tower), ("9 million visitors", louvre)], default=tower, prompts=[])


def guarded(index, llm, mode, **kw):
    inner = index.as_query_engine(llm=llm, response_mode=mode, similarity_top_k=2)
    return HalguardQueryEngine(inner, **kw)


def claims_on_the_answer(response):
    """Every claim, span and skipped piece of the verdict quotes the returned text at its offsets."""
    verdict = get_verdict(response)
    for item in [*verdict.claims, *verdict.spans, *verdict.skipped]:
        assert response.response[item.start:item.end] == item.text, item
    return verdict


# -- 12. accumulate and compact_accumulate: LlamaIndex's "Response 1:" framing is not a claim ---------------------


@pytest.mark.parametrize("mode", TEXT_MODES)
def test_item12_every_response_mode_grounded_not_flagged_ungrounded_flagged(index, verifier, mode):
    good = guarded(index, Routed(default=GOOD, prompts=[]), mode, detector=verifier).query(QUESTION)
    bad = guarded(index, Routed(default=BAD, prompts=[]), mode, detector=verifier).query(QUESTION)
    assert get_verdict(good).label == "supported", (mode, good.response, get_verdict(good).spans)
    assert get_verdict(bad).label == "hallucinated", (mode, bad.response)
    assert "1925" in [s.text for s in claims_on_the_answer(bad).spans]
    claims_on_the_answer(good)
    if mode in ACCUMULATING:  # the user gets LlamaIndex's text as it is; only the check leaves the framing out
        assert good.response.startswith(f"Response 1: {GOOD}")
        assert [s.text for s in get_verdict(good).skipped if s.reason.startswith(FRAMING)][:1] == ["Response 1:"]


@pytest.mark.parametrize("mode", ACCUMULATING)
def test_item12_accumulate_grounded_not_flagged(index, verifier, mode):
    response = guarded(index, per_passage(), mode, detector=verifier).query(QUESTION)
    assert response.response.startswith("Response 1: ")
    verdict = claims_on_the_answer(response)
    assert verdict.label == "supported", verdict.spans
    # every part's answer was checked, and only the framing was left out
    framing = [s for s in verdict.skipped if s.reason.startswith(FRAMING)]
    assert {c.text for c in verdict.claims} == {TOWER, LOUVRE}
    parts = response.response.split(ACCUMULATE_SEPARATOR)
    assert len([s for s in framing if s.text.startswith("Response ")]) == len(parts)
    assert len([s for s in framing if set(s.text) == {"-"}]) == len(parts) - 1


@pytest.mark.parametrize("mode", ACCUMULATING)
def test_item12_accumulate_part_content_still_checked(index, verifier, mode):
    response = guarded(index, per_passage(louvre=LOUVRE_BAD), mode, detector=verifier).query(QUESTION)
    verdict = claims_on_the_answer(response)
    assert verdict.label == "hallucinated"
    assert [s.text for s in verdict.spans] == ["90 million"]
    (flagged,) = verdict.flagged_claims
    assert flagged.text == LOUVRE_BAD
    before = {"accumulate": "Response 2: ", "compact_accumulate": f"Response 1: {TOWER} "}[mode]
    assert response.response[:flagged.start].endswith(before)


def test_item12_accumulate_async_mirrors_sync(index, verifier):
    for llm, label in ((per_passage(), "supported"), (per_passage(tower=TOWER_BAD), "hallucinated")):
        engine = guarded(index, llm, "accumulate", detector=verifier)
        sync, async_ = engine.query(QUESTION), asyncio.run(engine.aquery(QUESTION))
        assert async_.response == sync.response
        assert get_verdict(async_).label == get_verdict(sync).label == label
        assert [c.text for c in get_verdict(async_).claims] == [c.text for c in get_verdict(sync).claims]
        assert get_verdict(async_).skipped == get_verdict(sync).skipped


@pytest.mark.parametrize("mode", ACCUMULATING)
def test_item12_accumulate_streaming_raises_the_engines_own_error(index, verifier, mode):
    # LlamaIndex's accumulate synthesizers cannot stream: the guard passes the engine's error on as it is.
    bare = index.as_query_engine(llm=per_passage(), response_mode=mode, similarity_top_k=2, streaming=True)
    with pytest.raises(ValueError, match="Unable to stream in Accumulate response mode"):
        bare.query(QUESTION)
    with pytest.raises(ValueError, match="Unable to stream in Accumulate response mode"):
        HalguardQueryEngine(bare, detector=verifier).query(QUESTION)


def test_item12_accumulate_filter_keeps_the_framing_and_drops_the_flagged_sentence(index, verifier):
    response = guarded(index, per_passage(tower=TOWER_BAD), "accumulate", detector=verifier,
                       on_hallucination="filter").query(QUESTION)
    assert response.response == f"Response 1:{ACCUMULATE_SEPARATOR}Response 2: {LOUVRE}"
    assert [r.text for r in get_verdict(response).action.removed] == [TOWER_BAD]


def test_item12_accumulate_repair_checks_the_repaired_text_without_the_framing(index, verifier):
    from tests.llm_protocol import bound

    def repairer(messages):
        return bound(messages, "REWRITE", TOWER)

    response = guarded(index, per_passage(tower=TOWER_BAD), "accumulate", detector=verifier,
                       on_hallucination="repair", repairer=repairer).query(QUESTION)
    assert response.response == f"Response 1: {TOWER}{ACCUMULATE_SEPARATOR}Response 2: {LOUVRE}"
    verdict = get_verdict(response)
    assert verdict.repair.label_before == "hallucinated" and verdict.label == "supported"
    assert verdict.action.removed == []  # the repaired answer's framing was not flagged and removed


def test_item12_response_lookalike_in_other_modes_is_checked(index, verifier):
    """An LLM that writes "Response 1:" itself, in a mode that adds no framing: its text is checked as written."""
    lookalike = f"Response 1: {TOWER}{ACCUMULATE_SEPARATOR}Response 2: {LOUVRE}"
    for mode in ("compact", "refine", "simple_summarize"):
        response = guarded(index, Routed(default=lookalike, prompts=[]), mode, detector=verifier).query(QUESTION)
        verdict = claims_on_the_answer(response)
        assert not [s for s in verdict.skipped if s.reason.startswith(FRAMING)]
        assert any(c.text.startswith("Response 1:") for c in verdict.claims), mode
        assert any(c.text.startswith("Response 2:") for c in verdict.claims), mode


class Fixed(BaseQueryEngine):
    """A custom engine (no synthesizer to read): returns ``text`` with both passages as its nodes."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(callback_manager=None)

    def _get_prompt_modules(self):
        return {}

    def _query(self, query_bundle):
        return Response(self.text, [NodeWithScore(node=TextNode(text=t, id_=k), score=1.0) for k, t in TEXTS.items()])

    async def _aquery(self, query_bundle):
        return self._query(query_bundle)


def test_item12_unknown_engine_needs_the_full_framing(verifier):
    two = HalguardQueryEngine(Fixed(f"Response 1: {TOWER}{ACCUMULATE_SEPARATOR}Response 2: {LOUVRE}"),
                              detector=verifier).query(QUESTION)
    assert get_verdict(two).label == "supported"
    assert {c.text for c in claims_on_the_answer(two).claims} == {TOWER, LOUVRE}
    # One "Response 1: ..." with no separator cannot be told from an answer that begins so: it is checked.
    one = HalguardQueryEngine(Fixed(f"Response 1: {TOWER}"), detector=verifier).query(QUESTION)
    assert [c.text for c in claims_on_the_answer(one).claims] == [f"Response 1: {TOWER}"]
    # A separator with the wrong numbering is not LlamaIndex's either.
    odd = HalguardQueryEngine(Fixed(f"Response 1: {TOWER}{ACCUMULATE_SEPARATOR}Response 3: {LOUVRE}"),
                              detector=verifier).query(QUESTION)
    assert not [s for s in get_verdict(odd).skipped if s.reason.startswith(FRAMING)]


def test_item12_framing_spans_cover_no_answer_text():
    text = f"Response 1: {TOWER}{ACCUMULATE_SEPARATOR}Response 2: Empty Response{ACCUMULATE_SEPARATOR}Response 3: x"
    spans = accumulate_framing(text, None)
    assert [text[s:e] for s, e in spans] == ["Response 1:", "-" * 21, "Response 2:", "Empty Response", "-" * 21,
                                             "Response 3:"]
    assert accumulate_framing(text, False) == []  # a synthesizer known not to accumulate adds no framing
    assert accumulate_framing(f"Response 1: {TOWER}", None) == []
    assert accumulate_framing(f"Response 1: {TOWER}", True) == [(0, len("Response 1:"))]
    assert accumulate_framing(f"Response 10: {TOWER}", True) == []
    assert accumulate_framing(f"Response 1:{TOWER}", True) == []
    assert accumulate_framing(f"Sure. Response 1: {TOWER}", True) == []


def test_item12_empty_parts_are_unverified_not_supported(verifier):
    text = f"Response 1: Empty Response{ACCUMULATE_SEPARATOR}Response 2: Empty Response"
    verdict = get_verdict(HalguardQueryEngine(Fixed(text), detector=verifier).query(QUESTION))
    assert verdict.label == "unverified" and verdict.errors[0].code == "empty_answer"


def test_item12_modes_without_an_llm_answer(index, verifier):
    """no_text returns no answer; context_only returns the nodes' text; generation answers without context and is
    checked against the nodes LlamaIndex returns with it."""
    no_text = guarded(index, Routed(default=BAD, prompts=[]), "no_text", detector=verifier).query(QUESTION)
    assert no_text.response == "" and get_verdict(no_text).label == "unverified"
    assert get_verdict(no_text).errors[0].code == "empty_answer"
    context_only = guarded(index, Routed(default=BAD, prompts=[]), "context_only", detector=verifier).query(QUESTION)
    assert TEXTS["tower"] in context_only.response and get_verdict(context_only).label == "supported"
    llm = Routed(default=BAD, prompts=[])
    generation = guarded(index, llm, "generation", detector=verifier).query(QUESTION)
    assert "330 metres" not in llm.prompts[0]  # the LLM saw no passage
    assert len(generation.source_nodes) == 2 and get_verdict(generation).label == "hallucinated"


def test_item12_accumulate_event_handler_and_evaluator(index, verifier, root_handler):
    handler = root_handler(HalguardEventHandler(detector=verifier))
    for mode in ACCUMULATING:
        response = index.as_query_engine(llm=per_passage(), response_mode=mode, similarity_top_k=2).query(QUESTION)
        verdict = list(handler.verdicts.values())[-1]
        assert verdict.label == "supported", (mode, verdict.spans)
        assert verdict.skipped[0].text == "Response 1:"
        if mode == "accumulate":  # an evaluator sees text only: the full framing is recognised
            result = HalguardEvaluator(detector=verifier).evaluate_response(query=QUESTION, response=response)
            assert result.passing is True, result.feedback
            assert asyncio.run(HalguardEvaluator(detector=verifier).aevaluate_response(
                query=QUESTION, response=response)).passing is True


def test_item12_accumulate_condense_question_chat_engine(index, verifier):
    llm = per_passage()
    llm.rules.insert(0, ("standalone question", QUESTION))
    inner = index.as_chat_engine(chat_mode="condense_question", llm=llm, response_mode="accumulate",
                                 similarity_top_k=2)
    response = HalguardChatEngine(inner, detector=verifier).chat(QUESTION)
    assert response.response.startswith("Response 1: ")
    assert get_verdict(response).label == "supported", get_verdict(response).spans


# -- 16. the event handler's own verdicts are dispatched ----------------------------------------------------------


class Collect(BaseEventHandler):
    events: list = []

    @classmethod
    def class_name(cls):
        return "Collect"

    def handle(self, event, **kwargs):
        if isinstance(event, HalguardVerdictEvent):
            self.events.append(event)


def test_item16_event_handler_dispatches_its_own_verdicts(index, verifier, root_handler):
    collect = root_handler(Collect(events=[]))
    counting = Counting(verifier)
    handler = root_handler(HalguardEventHandler(detector=counting))
    index.as_query_engine(llm=Routed(default=BAD, prompts=[]), similarity_top_k=2).query(QUESTION)
    (event,) = collect.events
    assert event.source == "HalguardEventHandler" and event.query == QUESTION
    assert event.verdict["label"] == "hallucinated"
    (recorded,) = handler.verdicts.values()  # one answer, one verdict: its own event was not recorded again
    assert (event.verdict["label"], event.verdict["score"]) == (recorded.label, recorded.score)
    assert counting.calls == 1  # and not checked again (no loop)


def test_item16_event_handler_verdict_event_per_answer_and_async(index, verifier, root_handler):
    collect = root_handler(Collect(events=[]))
    handler = root_handler(HalguardEventHandler(detector=verifier))
    engine = index.as_query_engine(llm=Routed(default=GOOD, prompts=[]), similarity_top_k=2)
    engine.query(QUESTION)
    asyncio.run(engine.aquery(QUESTION))
    assert [e.verdict["label"] for e in collect.events] == ["supported", "supported"]
    assert [e.source for e in collect.events] == ["HalguardEventHandler"] * 2
    assert len(handler.verdicts) == 2


def test_item16_guard_verdict_is_dispatched_once_and_recorded_as_is(index, verifier, root_handler):
    collect = root_handler(Collect(events=[]))
    handler = root_handler(HalguardEventHandler(detector=verifier))
    response = guarded(index, Routed(default=BAD, prompts=[]), "compact", detector=verifier).query(QUESTION)
    assert [e.source for e in collect.events] == ["HalguardQueryEngine"]  # the handler does not check it again
    (recorded,) = handler.verdicts.values()
    assert recorded.request.id == get_verdict(response).request.id


def test_item16_every_component_dispatches_its_verdicts(index, verifier, root_handler):
    from llamaindex_halguard import HalguardNodePostprocessor

    collect = root_handler(Collect(events=[]))
    post = HalguardNodePostprocessor(detector=verifier)
    nodes = index.as_retriever(similarity_top_k=2).retrieve(QUESTION)
    post.annotate_with_answer(nodes, BAD, QUESTION)
    asyncio.run(post.aannotate_with_answer(nodes, GOOD, QUESTION))
    HalguardEvaluator(detector=verifier).evaluate(query=QUESTION, response=BAD, contexts=list(TEXTS.values()))
    assert [(e.source, e.query, e.verdict["label"]) for e in collect.events] == [
        ("HalguardNodePostprocessor", QUESTION, "hallucinated"), ("HalguardNodePostprocessor", QUESTION, "supported"),
        ("HalguardEvaluator", QUESTION, "hallucinated")]


def test_item16_active_query_engine_dispatches_its_verdict(root_handler):
    from llamaindex_halguard import HalguardActiveQueryEngine
    from tests.test_active import CTX
    from tests.test_active import QUESTION as ACTIVE_QUESTION
    from tests.test_active import Scripted
    from tests.test_active_adapters import LogprobLLM

    collect = root_handler(Collect(events=[]))
    eiffel = VectorStoreIndex([TextNode(text=c, id_=f"n{i}") for i, c in enumerate(CTX)],
                              embed_model=HalguardEmbedding())
    active = HalguardActiveQueryEngine(eiffel.as_retriever(similarity_top_k=2),
                                       LogprobLLM(script=Scripted(continuation="It is made of iron.")))
    response = active.query(ACTIVE_QUESTION)
    (event,) = collect.events
    assert (event.source, event.query) == ("HalguardActiveQueryEngine", ACTIVE_QUESTION)
    assert event.verdict == response.metadata["halguard"]
