"""The LlamaIndex shapes users write from the docs, guarded as they are (issue 11).

A real VectorStoreIndex over the local MiniLM, LLMs scripted by prompt content, the real LocalVerifier.
"""

import json

import pytest

from llama_index.core import Document, Settings, VectorStoreIndex
from llama_index.core.base.response.schema import PydanticResponse, Response
from llama_index.core.chat_engine.types import AgentChatResponse
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.mock import MockLLM
from pydantic import BaseModel

from halguard import ClaimStatus, Detector, HallucinationError, get_verdict
from llamaindex_halguard import (
    HalguardChatEngine,
    HalguardEmbedding,
    HalguardEventHandler,
    HalguardQueryEngine,
)

TEXTS = {
    "tower": "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair in Paris.",
    "louvre": "The Louvre is the most visited museum in the world, with about 9 million visitors a year.",
}
QUESTION = "When was the Eiffel Tower completed?"
GOOD = "The Eiffel Tower was completed in 1889."
BAD = "The Eiffel Tower was completed in 1925."
CHAT_MODES = ["context", "condense_plus_context", "condense_question"]


class Routed(CustomLLM):
    """Replies by what the prompt contains (first matching rule), else ``default``; streams word by word."""

    rules: list = []
    default: str = ""
    prompts: list = []

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="routed")

    def _pick(self, prompt):
        self.prompts.append(prompt)
        return next((reply for needle, reply in self.rules if needle in prompt), self.default)

    @llm_completion_callback()
    def complete(self, prompt, formatted=False, **kwargs):
        return CompletionResponse(text=self._pick(prompt))

    @llm_completion_callback()
    def stream_complete(self, prompt, formatted=False, **kwargs):
        text = self._pick(prompt)

        def gen():
            so_far = ""
            for i, word in enumerate(text.split(" ")):
                delta = word if i == 0 else " " + word
                so_far += delta
                yield CompletionResponse(text=so_far, delta=delta)

        return gen()


def llm(answer, **kw):
    # condense steps ask for a standalone question: give them the question itself
    return Routed(rules=[("standalone question", QUESTION)], default=answer, prompts=[], **kw)


@pytest.fixture(scope="module")
def index():
    Settings.llm = MockLLM()  # never the OpenAI default
    docs = [Document(text=t, id_=k) for k, t in TEXTS.items()]
    return VectorStoreIndex.from_documents(docs, embed_model=HalguardEmbedding())


class Counting(Detector):
    """Counts the checks the wrapped detector runs."""

    def __init__(self, inner):
        self.inner, self.calls, self.name = inner, 0, inner.name
        self.threshold = inner.threshold

    def verify(self, answer, contexts, *, question=None):
        self.calls += 1
        return self.inner.verify(answer, contexts, question=question)


# -- 2. structured output -----------------------------------------------------------------------------


class Facts(BaseModel):
    name: str
    completed: int


def structured_engine(index, completed):
    reply = json.dumps({"name": "Eiffel Tower", "completed": completed})
    return index.as_query_engine(llm=Routed(default=reply, prompts=[]), output_cls=Facts, similarity_top_k=2)


@pytest.mark.parametrize(("completed", "label"), [(1889, "supported"), (1925, "hallucinated")])
def test_structured_output_keeps_its_type_and_is_checked(index, verifier, completed, label):
    out = HalguardQueryEngine(structured_engine(index, completed), detector=verifier).query(QUESTION)
    assert isinstance(out, PydanticResponse)
    assert out.response == Facts(name="Eiffel Tower", completed=completed)
    verdict = get_verdict(out)
    assert verdict.label == label
    assert verdict.checked_text == f"name: Eiffel Tower\ncompleted: {completed}"


async def test_structured_output_async(index, verifier):
    out = await HalguardQueryEngine(structured_engine(index, 1925), detector=verifier).aquery(QUESTION)
    assert isinstance(out, PydanticResponse) and get_verdict(out).label == "hallucinated"


def test_structured_output_filter_raises_rather_than_retype(index, verifier):
    with pytest.raises(HallucinationError, match="structured"):
        HalguardQueryEngine(structured_engine(index, 1925), detector=verifier, on_hallucination="filter").query(QUESTION)
    out = HalguardQueryEngine(structured_engine(index, 1925), detector=verifier, on_hallucination="fallback",
                              fallback=structured_engine(index, 1889)).query(QUESTION)
    assert isinstance(out, PydanticResponse) and out.response.completed == 1889
    assert get_verdict(out).action.fallback_verdict.label == "supported"


# -- 4. the LLM's own sub-answers are not evidence -----------------------------------------------------


def sub_question_engine(index, sub_answer, final_answer):
    from llama_index.core.query_engine import SubQuestionQueryEngine
    from llama_index.core.question_gen import LLMQuestionGenerator
    from llama_index.core.tools import QueryEngineTool, ToolMetadata

    tool = QueryEngineTool(query_engine=index.as_query_engine(llm=llm(sub_answer), similarity_top_k=1),
                           metadata=ToolMetadata(name="paris", description="Facts about Paris landmarks"))
    items = {"items": [{"sub_question": QUESTION, "tool_name": "paris"}]}
    question_gen = LLMQuestionGenerator.from_defaults(llm=Routed(default=f"```json\n{json.dumps(items)}\n```"))
    return SubQuestionQueryEngine.from_defaults(query_engine_tools=[tool], question_gen=question_gen,
                                                llm=llm(final_answer), verbose=False)


def test_sub_question_answers_do_not_support_the_final_answer(index, verifier):
    inner = sub_question_engine(index, BAD, BAD)
    plain = inner.query(QUESTION)
    assert any(n.node.get_content().startswith("Sub question:") for n in plain.source_nodes)
    out = HalguardQueryEngine(sub_question_engine(index, BAD, BAD), detector=verifier).query(QUESTION)
    verdict = get_verdict(out)
    assert verdict.label == "hallucinated"  # "1925" in the sub-answer does not count; the document says 1889
    (skipped,) = verdict.skipped_sources
    assert "intermediate answer" in skipped.reason and skipped.text.startswith("Sub question:")
    evidence = [e for c in verdict.claims for e in c.evidence]
    assert evidence and all(not e.text.startswith("Sub question") for e in evidence)
    good = HalguardQueryEngine(sub_question_engine(index, GOOD, GOOD), detector=verifier).query(QUESTION)
    assert get_verdict(good).label == "supported"


# -- 5. chat engines ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", CHAT_MODES)
def test_chat_engines_are_guarded(index, verifier, mode):
    engine = HalguardChatEngine(index.as_chat_engine(chat_mode=mode, llm=llm(BAD), similarity_top_k=2), detector=verifier)
    out = engine.chat(QUESTION)
    assert isinstance(out, AgentChatResponse) and out.response == BAD
    verdict = get_verdict(out)
    assert verdict.label == "hallucinated" and verdict.request.question == QUESTION
    assert {s.text for s in verdict.spans} >= {"1925"}
    good = HalguardChatEngine(index.as_chat_engine(chat_mode=mode, llm=llm(GOOD), similarity_top_k=2), detector=verifier)
    assert get_verdict(good.chat(QUESTION)).label == "supported"


@pytest.mark.parametrize("mode", CHAT_MODES)
def test_chat_filter_rewrites_the_engines_memory(index, verifier, mode):
    engine = HalguardChatEngine(index.as_chat_engine(chat_mode=mode, llm=llm(BAD), similarity_top_k=2), detector=verifier,
                                on_hallucination="fallback", fallback="I can't confirm that from the documents.")
    out = engine.chat(QUESTION)
    assert out.response == "I can't confirm that from the documents."
    assert [m.content for m in engine.chat_history] == [QUESTION, out.response]  # what the user saw
    assert get_verdict(out).action.fallback_verdict.errors[0].code == "fallback_not_checked"


@pytest.mark.parametrize("mode", CHAT_MODES)
async def test_chat_async_and_streams(index, verifier, mode):
    engine = HalguardChatEngine(index.as_chat_engine(chat_mode=mode, llm=llm(BAD), similarity_top_k=2), detector=verifier)
    assert get_verdict(await engine.achat(QUESTION)).label == "hallucinated"
    stream = engine.stream_chat(QUESTION)
    assert get_verdict(stream) is None  # not yet: the check needs the whole answer
    assert "".join(stream.response_gen) == BAD
    assert get_verdict(stream).label == "hallucinated" and str(stream) == BAD
    astream = await engine.astream_chat(QUESTION)
    assert "".join([t async for t in astream.async_response_gen()]) == BAD
    assert get_verdict(astream).label == "hallucinated"


def test_chat_stream_filter_is_buffered_and_raise_comes_at_the_end(index, verifier):
    filtered = HalguardChatEngine(index.as_chat_engine(chat_mode="context", llm=llm(f"{BAD} It is 330 metres tall."),
                                                       similarity_top_k=2), detector=verifier, on_hallucination="filter")
    stream = filtered.stream_chat(QUESTION)
    assert "".join(stream.response_gen) == "It is 330 metres tall."
    assert get_verdict(stream).action.action == "filter"
    assert filtered.chat_history[-1].content == "It is 330 metres tall."
    raising = HalguardChatEngine(index.as_chat_engine(chat_mode="context", llm=llm(BAD), similarity_top_k=2),
                                 detector=verifier, on_hallucination="raise")
    tokens = []
    with pytest.raises(HallucinationError):
        for token in raising.stream_chat(QUESTION).response_gen:
            tokens.append(token)
    assert "".join(tokens) == BAD
    with pytest.raises(HallucinationError):
        raising.chat(QUESTION)


def test_chat_fallback_engine_answer_is_checked(index, verifier):
    backup = index.as_query_engine(llm=llm(GOOD), similarity_top_k=2)
    engine = HalguardChatEngine(index.as_chat_engine(chat_mode="context", llm=llm(BAD), similarity_top_k=2), detector=verifier,
                                on_hallucination="fallback", fallback=backup)
    out = engine.chat(QUESTION)
    assert out.response == GOOD
    verdict = get_verdict(out)
    assert verdict.label == "hallucinated" and verdict.action.fallback_verdict.label == "supported"


@pytest.mark.parametrize("mode", CHAT_MODES)
def test_event_handler_verifies_chat_turns(index, verifier, root_handler, mode):
    handler = root_handler(HalguardEventHandler(detector=verifier))
    index.as_chat_engine(chat_mode=mode, llm=llm(BAD), similarity_top_k=2).chat(QUESTION)
    (verdict,) = handler.verdicts.values()
    assert verdict.label == "hallucinated"
    assert verdict.request.question == QUESTION


def test_event_handler_records_stream_chat_as_unverified(index, verifier, root_handler):
    handler = root_handler(HalguardEventHandler(detector=verifier))
    stream = index.as_chat_engine(chat_mode="context", llm=llm(BAD), similarity_top_k=2).stream_chat(QUESTION)
    "".join(stream.response_gen)
    (verdict,) = handler.verdicts.values()
    assert verdict.label == "unverified" and verdict.errors[0].code == "stream_not_consumed"


# -- 6. citations that point at the wrong source ------------------------------------------------------


def test_citation_query_engine_wrong_citation_is_weak_support(index, verifier):
    from llama_index.core.query_engine import CitationQueryEngine

    def cite(answer):
        return CitationQueryEngine.from_args(index, llm=llm(answer), similarity_top_k=2, citation_chunk_size=512)

    right, wrong = f"{GOOD[:-1]} [1].", f"{GOOD[:-1]} [2]."
    assert get_verdict(HalguardQueryEngine(cite(right), detector=verifier).query(QUESTION)).claims[0].status == \
        ClaimStatus.SUPPORTED
    verdict = get_verdict(HalguardQueryEngine(cite(wrong), detector=verifier).query(QUESTION))
    assert verdict.claims[0].status == ClaimStatus.WEAK_SUPPORT
    assert [s.text for s in verdict.spans] == ["[2]"]


# -- 9. fallbacks -------------------------------------------------------------------------------------


def test_fallback_engine_answer_is_checked_not_just_labelled(index, verifier):
    engine = HalguardQueryEngine(index.as_query_engine(llm=llm(BAD), similarity_top_k=2), detector=verifier, on_hallucination="fallback",
                                 fallback=index.as_query_engine(llm=llm(GOOD), similarity_top_k=2))
    out = engine.query(QUESTION)
    assert isinstance(out, Response) and out.response == GOOD
    verdict = get_verdict(out)
    assert verdict.label == "hallucinated"  # what was rejected
    assert verdict.action.fallback_verdict.label == "supported"  # what was returned
    bad_backup = HalguardQueryEngine(index.as_query_engine(llm=llm(BAD), similarity_top_k=2), detector=verifier, on_hallucination="fallback",
                                     fallback=index.as_query_engine(llm=llm(BAD), similarity_top_k=2))
    assert get_verdict(bad_backup.query(QUESTION)).action.fallback_verdict.label == "hallucinated"


async def test_fallback_engine_async(index, verifier):
    engine = HalguardQueryEngine(index.as_query_engine(llm=llm(BAD), similarity_top_k=2), detector=verifier, on_hallucination="fallback",
                                 fallback=index.as_query_engine(llm=llm(GOOD), similarity_top_k=2))
    out = await engine.aquery(QUESTION)
    assert out.response == GOOD and get_verdict(out).action.fallback_verdict.label == "supported"


# -- 10. correlation, and one check per answer --------------------------------------------------------


def test_guard_and_root_handler_check_each_answer_once(index, verifier, root_handler):
    counting = Counting(verifier)
    handler = root_handler(HalguardEventHandler(detector=counting))
    guard_detector = Counting(verifier)
    out = HalguardQueryEngine(index.as_query_engine(llm=llm(BAD), similarity_top_k=2), detector=guard_detector).query(QUESTION)
    assert guard_detector.calls == 1 and counting.calls == 0  # the handler did not check it again
    (verdict,) = handler.verdicts.values()
    assert verdict == get_verdict(out)
    assert verdict.request.id == out.metadata["halguard"]["request"]["id"]
    chat = HalguardChatEngine(index.as_chat_engine(chat_mode="context", llm=llm(BAD), similarity_top_k=2),
                              detector=guard_detector)
    chat.chat(QUESTION)
    assert guard_detector.calls == 2 and counting.calls == 0
    assert len(handler.verdicts) == 2


def test_handler_checks_an_unwrapped_engine_once(index, verifier, root_handler):
    counting = Counting(verifier)
    handler = root_handler(HalguardEventHandler(detector=counting))
    index.as_query_engine(llm=llm(BAD), similarity_top_k=2).query(QUESTION)
    assert counting.calls == 1
    (key, verdict), = handler.verdicts.items()
    assert verdict.request.id == key and verdict.request.question == QUESTION and "query" in key


def test_response_metadata_carries_the_request(index, verifier):
    out = HalguardQueryEngine(index.as_query_engine(llm=llm(GOOD), similarity_top_k=2), detector=verifier).query(QUESTION)
    request = out.metadata["halguard"]["request"]
    assert request["question"] == QUESTION and request["id"] and request["source"] == "llamaindex:HalguardQueryEngine"


# -- sentence-by-sentence streams ---------------------------------------------------------------------------

TWO = f"{BAD} It is 330 metres tall."


def test_query_engine_streams_by_sentence(index, verifier):
    engine = HalguardQueryEngine(index.as_query_engine(llm=llm(TWO), similarity_top_k=2, streaming=True),
                                 detector=verifier, on_hallucination="filter", streaming="sentence")
    response = engine.query(QUESTION)
    assert get_verdict(response) is None  # not yet: the stream has not been read
    assert list(response.response_gen) == ["It is 330 metres tall."]  # whole sentences; the flagged one dropped
    verdict = get_verdict(response)
    assert verdict.label == "hallucinated" and verdict.action.action == "filter"
    assert [s.text for s in verdict.action.removed] == [BAD]


async def test_query_engine_async_stream_by_sentence(index, verifier):
    engine = HalguardQueryEngine(index.as_query_engine(llm=llm(TWO), similarity_top_k=2, streaming=True),
                                 detector=verifier, on_hallucination="fallback", fallback="Not in the documents.",
                                 streaming="sentence")
    response = await engine.aquery(QUESTION)
    tokens = [t async for t in response.async_response_gen()]
    assert tokens == ["Not in the documents."] and get_verdict(response).action.action == "fallback"


@pytest.mark.parametrize("mode", ["context", "condense_plus_context"])
def test_chat_engine_streams_by_sentence_and_remembers_what_was_sent(index, verifier, mode):
    engine = HalguardChatEngine(index.as_chat_engine(chat_mode=mode, llm=llm(TWO), similarity_top_k=2),
                                detector=verifier, on_hallucination="filter", streaming="sentence")
    stream = engine.stream_chat(QUESTION)
    assert list(stream.response_gen) == ["It is 330 metres tall."]
    assert get_verdict(stream).action.action == "filter" and str(stream) == "It is 330 metres tall."
    assert engine.chat_history[-1].content == "It is 330 metres tall."


async def test_chat_engine_async_sentence_fallback(index, verifier):
    engine = HalguardChatEngine(index.as_chat_engine(chat_mode="context", llm=llm(TWO), similarity_top_k=2),
                                detector=verifier, on_hallucination="fallback", fallback="Not in the documents.",
                                streaming="sentence")
    stream = await engine.astream_chat(QUESTION)
    assert [t async for t in stream.async_response_gen()] == ["Not in the documents."]
    assert engine.chat_history[-1].content == "Not in the documents."


ALL_FLAGGED = f"{BAD} It was designed by Isaac Newton."


def test_query_engine_filter_with_every_sentence_flagged_streams_the_fallback(index, verifier):
    from halguard.policy import DEFAULT_FALLBACK

    engine = HalguardQueryEngine(index.as_query_engine(llm=llm(ALL_FLAGGED), similarity_top_k=2, streaming=True),
                                 detector=verifier, on_hallucination="filter", streaming="sentence")
    response = engine.query(QUESTION)
    assert "".join(response.response_gen) == DEFAULT_FALLBACK  # what query() returns, not ''
    whole = HalguardQueryEngine(index.as_query_engine(llm=llm(ALL_FLAGGED), similarity_top_k=2), detector=verifier,
                                on_hallucination="filter").query(QUESTION)
    assert str(whole) == DEFAULT_FALLBACK and get_verdict(response).action.action == "filter"


@pytest.mark.parametrize("mode", ["context", "condense_plus_context"])
async def test_chat_engine_filter_with_every_sentence_flagged_remembers_the_fallback(index, verifier, mode):
    from halguard.policy import DEFAULT_FALLBACK

    engine = HalguardChatEngine(index.as_chat_engine(chat_mode=mode, llm=llm(ALL_FLAGGED), similarity_top_k=2),
                                detector=verifier, on_hallucination="filter", streaming="sentence")
    stream = engine.stream_chat(QUESTION)
    assert "".join(stream.response_gen) == DEFAULT_FALLBACK
    assert engine.chat_history[-1].content == DEFAULT_FALLBACK  # not an empty chat memory
    astream = await engine.astream_chat(QUESTION)
    assert "".join([t async for t in astream.async_response_gen()]) == DEFAULT_FALLBACK
    assert engine.chat_history[-1].content == DEFAULT_FALLBACK


def test_query_engine_run_on_past_the_cut_never_sends_the_fabrication(index, verifier):
    run_on = "The Eiffel Tower was completed in 1889" + ", and it is 330 metres tall" * 40
    answer = f"{run_on}, and it was completed in 1925."
    engine = HalguardQueryEngine(index.as_query_engine(llm=llm(answer), similarity_top_k=2, streaming=True),
                                 detector=verifier, on_hallucination="filter", streaming="sentence")
    response = engine.query(QUESTION)
    sent = "".join(response.response_gen)
    assert "1925" not in sent and get_verdict(response).label == "hallucinated"


EIFFEL_CRAFTED = {
    "fullwidth": f"{GOOD[:-1]}\uff0e{BAD[:-1]}\u3002It is 330 metres tall.",
    "zero-width": f"{GOOD}\u200b{BAD}\u200b It is 330 metres tall.",
    "list": f"Facts:\n- {GOOD}\n- {BAD}\n- It is 330 metres tall.",
}


@pytest.mark.parametrize("name", sorted(EIFFEL_CRAFTED))
def test_crafted_answers_through_the_query_engine_never_send_the_fabrication(index, verifier, name):
    engine = HalguardQueryEngine(index.as_query_engine(llm=llm(EIFFEL_CRAFTED[name]), similarity_top_k=2,
                                                       streaming=True),
                                 detector=verifier, on_hallucination="filter", streaming="sentence")
    response = engine.query(QUESTION)
    sent = "".join(response.response_gen)
    assert "1925" not in sent and "330" in sent


@pytest.mark.parametrize("mode", ["context", "condense_plus_context"])
def test_chat_engine_fallback_stream_keeps_and_records_what_was_sent(index, verifier, mode):
    # Issue 48: a sentence stream cut short by fallback: the memory and the verdict hold what the user saw (the
    # checked sentence before the flagged one, then the message), as the LangChain guard's invoke() returns it.
    answer = f"It is 330 metres tall. {BAD}"
    engine = HalguardChatEngine(index.as_chat_engine(chat_mode=mode, llm=llm(answer), similarity_top_k=2),
                                detector=verifier, on_hallucination="fallback", fallback="Not in the documents.",
                                streaming="sentence")
    stream = engine.stream_chat(QUESTION)
    shown = "".join(stream.response_gen)
    assert shown.startswith("It is 330 metres tall.") and shown.endswith("Not in the documents.")
    assert engine.chat_history[-1].content.strip() == shown.strip()
    verdict = get_verdict(stream)
    assert verdict.action.action == "fallback" and verdict.action.filtered_answer == shown.strip()
