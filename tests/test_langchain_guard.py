"""The LangChain guard, with langchain-core's fakes and the real LocalVerifier."""

import asyncio

import pytest

from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough
from langchain_core.tracers.base import BaseTracer

from halguard import HallucinationError, InputTypeError, InvalidInputError, UnverifiedError, Verdict
from langchain_halguard import HalguardCheck, RunnableWithHalguard, with_halguard

DOCS = [
    Document(id="launch", page_content="JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou."),
    Document(page_content="Webb's primary mirror is 6.5 metres across.", metadata={"source": "mirror.txt"}),
]
GOOD = "JWST was launched on 25 December 2021 on an Ariane 5 rocket."
BAD = "JWST was launched on 25 December 2019 on a Falcon Heavy rocket."
QUESTION = "When was JWST launched?"


def retriever(_q):
    return list(DOCS)


PROMPT = ChatPromptTemplate.from_template("Context: {context}\nQuestion: {input}")


def rag_chain(*answers, answer_parser=True):
    """The LCEL 'return sources' form: {input, context} -> .assign(answer=...)."""
    llm = FakeListChatModel(responses=list(answers))
    generate = PROMPT | llm | StrOutputParser() if answer_parser else PROMPT | llm
    return RunnableParallel(context=RunnableLambda(retriever), input=RunnablePassthrough()).assign(answer=generate)


class Collector(BaseTracer):
    def __init__(self):
        super().__init__()
        self.roots = []

    def _persist_run(self, run):
        self.roots.append(run)


# -- entry points --------------------------------------------------------------------------------------


def test_invoke_annotates_supported_answer(verifier):
    guarded = with_halguard(rag_chain(GOOD), detector=verifier)
    out = guarded.invoke(QUESTION)
    assert out["answer"] == GOOD
    verdict = out["halguard"]
    assert isinstance(verdict, Verdict)
    assert verdict.label == "supported"
    assert verdict.action.action == "annotate"
    assert verdict.claims[0].evidence[0].source_id == "launch"


def test_invoke_annotates_hallucination_with_spans(verifier):
    out = with_halguard(rag_chain(BAD), detector=verifier).invoke(QUESTION)
    assert out["halguard"].label == "hallucinated"
    assert {s.text for s in out["halguard"].spans} >= {"2019", "Falcon Heavy"}
    assert out["answer"] == BAD  # annotate never changes the answer


def test_dict_input_with_question_key(verifier):
    chain = RunnablePassthrough.assign(context=lambda x: list(DOCS), answer=lambda x: GOOD)
    out = with_halguard(chain, detector=verifier).invoke({"input": QUESTION})
    assert out["halguard"].label == "supported"
    assert out["input"] == QUESTION


async def test_ainvoke(verifier):
    out = await with_halguard(rag_chain(BAD), detector=verifier).ainvoke(QUESTION)
    assert out["halguard"].label == "hallucinated"


def test_batch_goes_through_the_guard(verifier):
    guarded = with_halguard(rag_chain(GOOD, BAD, GOOD, BAD), detector=verifier)
    outs = guarded.batch([QUESTION] * 4, config={"max_concurrency": 1})
    assert [o["halguard"].label for o in outs] == ["supported", "hallucinated", "supported", "hallucinated"]


async def test_abatch_goes_through_the_guard(verifier):
    guarded = with_halguard(rag_chain(GOOD, BAD), detector=verifier)
    outs = await guarded.abatch([QUESTION] * 2, config={"max_concurrency": 1})
    assert [o["halguard"].label for o in outs] == ["supported", "hallucinated"]


def test_stream_yields_inner_chunks_then_the_verdict(verifier):
    chunks = list(with_halguard(rag_chain(BAD), detector=verifier).stream(QUESTION))
    assert "halguard" in chunks[-1] and len(chunks[-1]) == 1
    assert all("halguard" not in c for c in chunks[:-1])
    assert any("answer" in c for c in chunks[:-1])
    total = chunks[0]
    for c in chunks[1:]:
        total = total + c
    assert total["answer"] == BAD
    assert total["halguard"].label == "hallucinated"


async def test_astream_yields_inner_chunks_then_the_verdict(verifier):
    chunks = [c async for c in with_halguard(rag_chain(GOOD), detector=verifier).astream(QUESTION)]
    assert len(chunks) > 2
    assert chunks[-1]["halguard"].label == "supported"


def test_streaming_chat_model_message_gets_metadata(verifier):
    llm = GenericFakeChatModel(messages=iter([AIMessage(content=BAD)]))
    chain = RunnableParallel(context=RunnableLambda(retriever), input=RunnablePassthrough()).assign(
        answer=PROMPT | llm
    )
    guarded = with_halguard(chain, detector=verifier)
    chunks = list(guarded.stream(QUESTION))
    answer_chunks = [c["answer"] for c in chunks if "answer" in c]
    assert len(answer_chunks) > 2  # real token streaming
    message = answer_chunks[0]
    for c in answer_chunks[1:]:
        message = message + c
    assert message.content == BAD
    assert message.response_metadata["halguard"]["label"] == "hallucinated"


async def test_astream_events_carry_the_custom_event_and_verify_run(verifier):
    guarded = with_halguard(rag_chain(BAD), detector=verifier)
    events = [e async for e in guarded.astream_events(QUESTION, version="v2")]
    custom = [e for e in events if e["event"] == "on_custom_event" and e["name"] == "halguard_verdict"]
    assert len(custom) == 1
    assert custom[0]["data"]["label"] == "hallucinated"
    assert any(e["event"] == "on_chain_end" and e["name"] == "halguard_verify" for e in events)


# -- answers as messages and strings ------------------------------------------------------------------


def test_aimessage_answer_gets_response_metadata_without_mutation(verifier):
    original = AIMessage(content=GOOD, response_metadata={"model": "fake"})
    chain = RunnableLambda(lambda q: {"context": list(DOCS), "answer": original})
    out = with_halguard(chain, detector=verifier).invoke({"input": QUESTION})
    assert out["answer"] is not original
    assert out["answer"].response_metadata["halguard"]["label"] == "supported"
    assert out["answer"].response_metadata["model"] == "fake"
    assert "halguard" not in original.response_metadata


def test_top_level_message_output(verifier):
    chain = RunnablePassthrough.assign(context=lambda x: list(DOCS)) | (lambda x: AIMessage(content=BAD))
    out = with_halguard(chain, detector=verifier, context_key="context").invoke(
        {"input": QUESTION, "context": list(DOCS)}
    )
    assert isinstance(out, AIMessage)
    assert out.response_metadata["halguard"]["label"] == "hallucinated"


def test_str_output_with_documents_in_the_input(verifier):
    chain = RunnableLambda(lambda x: BAD)
    guarded = with_halguard(chain, detector=verifier, on_hallucination="raise")
    with pytest.raises(HallucinationError):
        guarded.invoke({"input": QUESTION, "context": [d.page_content for d in DOCS]})
    ok = with_halguard(RunnableLambda(lambda x: GOOD), detector=verifier)
    assert ok.invoke({"input": QUESTION, "context": list(DOCS)}) == GOOD


# -- policies ------------------------------------------------------------------------------------------


def test_raise_carries_the_verdict_and_works_with_fallbacks(verifier):
    guarded = with_halguard(rag_chain(BAD), detector=verifier, on_hallucination="raise")
    with pytest.raises(HallucinationError) as info:
        guarded.invoke(QUESTION)
    assert info.value.verdict.label == "hallucinated"
    assert info.value.verdict.action.action == "raise"
    safe = with_halguard(rag_chain(BAD), detector=verifier, on_hallucination="raise").with_fallbacks(
        [RunnableLambda(lambda q: {"answer": "Sorry, I am not sure."})], exceptions_to_handle=(HallucinationError,)
    )
    assert safe.invoke(QUESTION) == {"answer": "Sorry, I am not sure."}


def test_with_retry_retries_hallucinations(verifier):
    guarded = with_halguard(rag_chain(BAD, GOOD), detector=verifier, on_hallucination="raise")
    retried = guarded.with_retry(retry_if_exception_type=(HallucinationError,), stop_after_attempt=2,
                                 wait_exponential_jitter=False)
    assert retried.invoke(QUESTION)["halguard"].label == "supported"


def test_fallback_message(verifier):
    guarded = with_halguard(rag_chain(BAD), detector=verifier, on_hallucination="fallback", fallback="No idea.")
    out = guarded.invoke(QUESTION)
    assert out["answer"] == "No idea."
    assert out["halguard"].action.action == "fallback"
    assert out["halguard"].label == "hallucinated"


def test_fallback_runnable_gets_the_original_input(verifier):
    seen = []
    fallback = RunnableLambda(lambda q: seen.append(q) or {"answer": "fallback answer", "context": []})
    out = with_halguard(rag_chain(BAD), detector=verifier, on_hallucination="fallback", fallback=fallback).invoke(
        QUESTION
    )
    assert seen == [QUESTION]
    assert out["answer"] == "fallback answer"
    assert out["halguard"].label == "hallucinated"


def test_filter_drops_unsupported_sentences(verifier):
    answer = f"{BAD} Webb's primary mirror is 6.5 metres across."
    out = with_halguard(rag_chain(answer), detector=verifier, on_hallucination="filter").invoke(QUESTION)
    assert out["answer"] == "Webb's primary mirror is 6.5 metres across."
    action = out["halguard"].action
    assert action.action == "filter"
    assert [r.text for r in action.removed] == [BAD]
    assert action.filtered_answer == out["answer"]


def test_filter_stream_is_buffered_and_returns_the_filtered_answer(verifier):
    answer = f"{BAD} Webb's primary mirror is 6.5 metres across."
    chunks = list(with_halguard(rag_chain(answer), detector=verifier, on_hallucination="filter").stream(QUESTION))
    assert len(chunks) == 1
    assert chunks[0]["answer"] == "Webb's primary mirror is 6.5 metres across."


def test_documents_of_only_invisible_characters_are_no_context(verifier):
    invisible = [Document(page_content="\u200b\u200b\u200b"), Document(page_content="\u00ad \u2060\n")]
    chain = RunnableParallel(context=RunnableLambda(lambda q: invisible), input=RunnablePassthrough()).assign(
        answer=lambda x: GOOD
    )
    verdict = with_halguard(chain, detector=verifier).invoke(QUESTION)["halguard"]
    assert verdict.label == "unverified" and [e.code for e in verdict.errors] == ["no_context"]
    with pytest.raises(UnverifiedError) as info:
        with_halguard(chain, detector=verifier, on_hallucination="raise", on_unverified="fail_closed").invoke(QUESTION)
    assert [e.code for e in info.value.verdict.errors] == ["no_context"]


def test_unverified_fails_open_or_closed(verifier):
    empty = RunnableParallel(context=RunnableLambda(lambda q: []), input=RunnablePassthrough()).assign(
        answer=lambda x: GOOD
    )
    open_out = with_halguard(empty, detector=verifier, on_hallucination="raise").invoke(QUESTION)
    assert open_out["halguard"].label == "unverified"
    assert open_out["halguard"].errors[0].code == "no_context"
    closed = with_halguard(empty, detector=verifier, on_hallucination="raise", on_unverified="fail_closed")
    with pytest.raises(UnverifiedError) as info:
        closed.invoke(QUESTION)
    assert info.value.verdict.label == "unverified"
    fb = with_halguard(empty, detector=verifier, on_hallucination="fallback", on_unverified="fail_closed")
    assert fb.invoke(QUESTION)["halguard"].action.action == "fallback"


# -- bad input and errors ------------------------------------------------------------------------------


def test_missing_keys_name_the_key(verifier):
    no_docs = RunnableLambda(lambda q: {"answer": GOOD})
    with pytest.raises(InvalidInputError, match="'context'"):
        with_halguard(no_docs, detector=verifier).invoke(QUESTION)
    no_answer = RunnableLambda(lambda q: {"context": list(DOCS), "result": GOOD})
    with pytest.raises(InvalidInputError, match="'answer'.*result"):
        with_halguard(no_answer, detector=verifier).invoke(QUESTION)
    no_question = RunnableLambda(lambda q: {"context": list(DOCS), "answer": GOOD})
    with pytest.raises(InvalidInputError, match="'input'.*query"):
        with_halguard(no_question, detector=verifier).invoke({"query": QUESTION})


def test_wrong_types_are_type_errors(verifier):
    with pytest.raises(InputTypeError, match="answer"):
        with_halguard(RunnableLambda(lambda q: {"context": list(DOCS), "answer": 42}), detector=verifier).invoke("q")
    with pytest.raises(InputTypeError, match="'context' item 0"):
        with_halguard(RunnableLambda(lambda q: {"context": [3.5], "answer": GOOD}), detector=verifier).invoke("q")


def test_chain_errors_propagate_unchanged(verifier):
    def boom(_):
        raise KeyError("retriever down")

    with pytest.raises(KeyError, match="retriever down"):
        with_halguard(RunnableLambda(boom), detector=verifier).invoke(QUESTION)


def test_bad_options_are_rejected(verifier):
    with pytest.raises(ValueError, match="on_hallucination"):
        with_halguard(rag_chain(GOOD), detector=verifier, on_hallucination="shout")
    with pytest.raises(InputTypeError, match="detector must be a halguard.Detector or a detector name, got int"):
        with_halguard(rag_chain(GOOD), detector=3)
    with pytest.raises(ValueError, match="unknown detector 'shout'"):
        with_halguard(rag_chain(GOOD), detector="shout")


def test_callers_output_is_not_mutated(verifier):
    produced = {"context": list(DOCS), "answer": GOOD}
    out = with_halguard(RunnableLambda(lambda q: produced), detector=verifier).invoke(QUESTION)
    assert "halguard" in out and "halguard" not in produced


# -- runs and composition ------------------------------------------------------------------------------


def test_child_runs_nest_under_the_guard(verifier):
    tracer = Collector()
    with_halguard(rag_chain(GOOD), detector=verifier, name="guarded_rag").invoke(QUESTION, {"callbacks": [tracer]})
    (root,) = tracer.roots
    assert root.name == "guarded_rag"
    names = [c.name for c in root.child_runs]
    assert "halguard_verify" in names
    assert len(root.child_runs) == 2  # the wrapped chain and the verification
    inner = next(c for c in root.child_runs if c.name != "halguard_verify")
    nested = {r.run_type for r in _walk(inner)}
    assert "llm" in nested
    verify = next(c for c in root.child_runs if c.name == "halguard_verify")
    assert verify.outputs["output"].label == "supported"
    assert root.outputs["halguard"].label == "supported"


def _walk(run):
    yield run
    for child in run.child_runs:
        yield from _walk(child)


def test_guard_composes_with_next_steps(verifier):
    chain = with_halguard(rag_chain(BAD), detector=verifier) | (lambda out: out["halguard"].label)
    assert chain.invoke(QUESTION) == "hallucinated"


def test_halguard_check_step(verifier):
    base = RunnableParallel(context=RunnableLambda(retriever), question=RunnablePassthrough()).assign(
        answer=lambda x: BAD
    )
    out = (base | HalguardCheck(detector=verifier)).invoke(QUESTION)
    assert out["question"] == QUESTION
    assert out["halguard"].label == "hallucinated"
    chunks = list((base | HalguardCheck(detector=verifier)).stream(QUESTION))
    assert chunks[-1]["halguard"].label == "hallucinated"
    with pytest.raises(HallucinationError):
        (base | HalguardCheck(detector=verifier, on_hallucination="raise")).invoke(QUESTION)
    assert asyncio.run((base | HalguardCheck(detector=verifier)).ainvoke(QUESTION))["halguard"].label == "hallucinated"


def test_guard_is_a_runnable_with_config(verifier):
    guarded = with_halguard(rag_chain(GOOD), detector=verifier).with_config(run_name="named", tags=["t"])
    assert type(guarded.bound) is RunnableWithHalguard  # with_config wraps the guard, it does not replace it
    tracer = Collector()
    assert guarded.invoke(QUESTION, {"callbacks": [tracer]})["halguard"].label == "supported"
    (root,) = tracer.roots
    assert root.name == "named" and "t" in root.tags  # the config reached the guard's run
    assert "halguard_verify" in [c.name for c in root.child_runs]


def test_create_retrieval_chain(verifier):
    from langchain_classic.chains import create_retrieval_chain
    from langchain_classic.chains.combine_documents import create_stuff_documents_chain

    llm = FakeListChatModel(responses=[BAD])
    prompt = ChatPromptTemplate.from_template("Answer from {context}: {input}")
    chain = create_retrieval_chain(RunnableLambda(retriever), create_stuff_documents_chain(llm, prompt))
    out = with_halguard(chain, detector=verifier).invoke({"input": QUESTION})
    assert out["halguard"].label == "hallucinated"


def test_halguard_embeddings_share_the_verifiers_model_and_cache(verifier):
    from langchain_core.vectorstores import InMemoryVectorStore

    from langchain_halguard import HalguardEmbeddings

    emb = HalguardEmbeddings()
    store = InMemoryVectorStore(emb)
    store.add_documents(list(DOCS))
    top = store.similarity_search("Which rocket launched JWST?", k=1)[0]
    assert top.id == "launch"
    assert emb._embedder is verifier.embedder  # one model per process
    # A single-sentence passage indexed through the embeddings is a verifier chunk: it is not re-embedded.
    before = verifier.embedder.encode([DOCS[1].page_content])[1]
    assert before.cached == 1 and before.computed == 0
    assert len(emb.embed_query("anything")) == 384


def test_langsmith_run_gets_label_and_score_when_tracing(verifier, monkeypatch):
    import langchain_halguard.guard as guard_module

    class FakeRunTree:
        def __init__(self):
            self.metadata = {}

        def add_metadata(self, data):
            self.metadata.update(data)

    tree = FakeRunTree()
    # Patch only the guard's lookup: a run tree visible to langchain-core would switch real tracing on.
    monkeypatch.setattr(guard_module, "_langsmith_run_tree", lambda: tree)
    with_halguard(rag_chain(BAD), detector=verifier).invoke(QUESTION)
    assert tree.metadata["halguard_label"] == "hallucinated"
    assert tree.metadata["halguard_score"] > 0.5


# -- paraphrase sampling through the chain -------------------------------------------------------------


def _judge_reply(detected):
    import json

    return json.dumps({"nonce": "@NONCE@", "hallucination_detected": detected, "confidence_score": 0.9,
                       "conflicting_facts": [], "reasoning": "r", "summary": "s"})


class FakeJudge(FakeListChatModel):
    """A fake LangChain chat model whose scripted replies echo the request's nonce ("@NONCE@" in the script), as
    halguard's bound replies must (halguard.llm.envelope)."""

    def _call(self, messages, *args, **kwargs):
        from halguard.llm.envelope import request_nonce

        text = super()._call(messages, *args, **kwargs)
        nonce = request_nonce([{"role": "system", "content": m.content} for m in messages if m.type == "system"])
        return text.replace("@NONCE@", nonce or "")


def test_consistency_samples_through_the_chain_and_combines(verifier):
    # The chain answers the original question correctly, then drifts on the paraphrases.
    chain = rag_chain(GOOD, GOOD, BAD, BAD)
    paraphraser = FakeJudge(responses=['{"nonce": "@NONCE@", "paraphrases": ["When did JWST launch?", '
                                       '"What date was JWST launched?", "JWST launch date?"]}'])
    guarded = with_halguard(chain, detector=verifier, consistency="on", paraphraser=paraphraser,
                            judge=FakeJudge(responses=[_judge_reply(True)]))
    tracer = Collector()
    out = guarded.invoke(QUESTION, {"callbacks": [tracer]})
    verdict = out["halguard"]
    assert verdict.label == "hallucinated"  # grounding alone said supported
    assert verdict.claims[0].status.value == "SUPPORTED"
    report = verdict.consistency
    assert report.label == "inconsistent"
    # batch runs in threads, so which paraphrase got which scripted answer varies; the multiset does not
    assert sorted(a.answer for a in report.answers[1:]) == sorted([GOOD, BAD, BAD])
    assert verdict.usage.llm_calls == 1 + 3 + 1
    (root,) = tracer.roots
    tagged = [r for r in _walk(root) if "halguard:sample" in (r.tags or [])]
    assert len(tagged) >= 3  # the paraphrased runs nest under the guard, tagged


async def test_consistency_async_with_local_judge(verifier):
    guarded = with_halguard(rag_chain(GOOD), detector=verifier, consistency="on")
    out = await guarded.ainvoke(QUESTION)
    report = out["halguard"].consistency
    assert report.paraphrase_source == "fallback_templates"
    assert report.label == "consistent"
    assert out["halguard"].label == "supported"
