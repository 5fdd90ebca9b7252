"""End to end against a real local LLM behind an OpenAI-compatible server (opt-in, never in CI).

    make local-llm && HALGUARD_LLM_URL=$(cat .halguard-llm/url) .venv/bin/python -m pytest -m local_llm

Skipped unless ``HALGUARD_LLM_URL`` is set. The model (Qwen2.5-Coder-1.5B) is a weak judge, so these tests check
the plumbing, not its accuracy: replies parsed, log-probabilities present and coherent, counts right, the checks
finishing with a verdict (``unverified`` with a reason when the model's reply is unusable, never a crash).
"""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import openai
import pytest

from halguard import ConsistencyJudge, OpenAIChat, ParaphraseConsistency
from halguard.llm_judge import GroundingJudge

URL = os.environ.get("HALGUARD_LLM_URL")
MODEL = os.environ.get("HALGUARD_LLM_MODEL", "qwen2.5-coder-1.5b")
pytestmark = [pytest.mark.local_llm, pytest.mark.timeout(900),
              pytest.mark.skipif(not URL, reason="set HALGUARD_LLM_URL (make local-llm) to run these")]
JWST = ["JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou, French Guiana.",
        "Webb's primary mirror is 6.5 metres across and made of 18 hexagonal segments."]


def chat(**kw):
    return OpenAIChat(openai.OpenAI(base_url=URL, api_key="unused"), MODEL, timeout=300, max_retries=1, **kw)


def test_reply_with_logprobs_that_are_probabilities():
    model = chat(max_tokens=8)
    reply = model.chat([{"role": "user", "content": "What is the capital of Australia? One word."}], top_logprobs=5)
    assert reply.text.strip() and reply.input_tokens > 0 and 0 < reply.output_tokens <= 8
    assert reply.has_logprobs and len(reply.logprobs) == reply.output_tokens
    for token in reply.logprobs:
        assert token.logprob <= 0 and 1 <= len(token.top) <= 5
        assert sum(math.exp(lp) for _, lp in token.top) <= 1 + 1e-6
    assert model.usage.calls == 1 and model.usage.output_tokens == reply.output_tokens


def test_paraphrases_from_the_model_are_checked_for_drift():
    checker = ParaphraseConsistency(paraphraser=chat(), judge="local", n_paraphrases=3)
    report = checker.check("What is the capital of Australia?", lambda q: "Canberra.", answer="Canberra.")
    assert len(report.paraphrases) == 3 and report.label in ("consistent", "inconsistent")
    assert all(d.reason for d in report.dropped_paraphrases)
    assert report.usage.llm_calls >= 1 + 3  # one or two paraphrase calls, three answers


def test_the_llm_judge_parses_or_says_why():
    answers = ["Marengo was grey.", "Marengo was white.", "Marengo was a chestnut."]
    judge = ConsistencyJudge(chat())
    result = judge.judge("What colour was Marengo?", answers[0], ["Which colour was Marengo?"] * 2, answers[1:])
    assert (result.judgment is not None) != (result.error is not None)
    assert result.judgment is None or 0 <= result.judgment.confidence_score <= 1


def test_grounding_judge_reads_token_probabilities():
    verdict = GroundingJudge(chat(max_tokens=24)).verify("JWST launched in 2021 on an Ariane 5.", JWST,
                                                         question="When did JWST launch?")
    assert verdict.usage.llm_calls == 1 and verdict.usage.input_tokens > 50
    if verdict.label == "unverified":  # a weak model may miscopy the nonce: said, never read as a verdict
        assert verdict.errors[0].code in ("judge_no_nonce", "judge_wrong_nonce", "judge_ambiguous", "judge_failed")
        return
    assert verdict.label in ("supported", "hallucinated") and 0 <= verdict.score <= 1
    assert verdict.claims[0].reasons[0].startswith("verdict-token probabilities")


def test_sampling_through_a_real_langchain_chain(verifier):
    from langchain_core.documents import Document
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnablePassthrough
    from langchain_core.vectorstores import InMemoryVectorStore
    from langchain_openai import ChatOpenAI

    from langchain_halguard import HalguardEmbeddings, with_halguard

    store = InMemoryVectorStore.from_documents([Document(page_content=t) for t in JWST], HalguardEmbeddings())
    llm = ChatOpenAI(base_url=URL, api_key="unused", model=MODEL, max_tokens=60, timeout=300, max_retries=1)
    prompt = ChatPromptTemplate.from_template("Answer in one sentence from the context.\n\n{context}\n\n"
                                              "Question: {question}")
    rag = ({"context": store.as_retriever(k=2) | (lambda docs: "\n".join(d.page_content for d in docs)),
            "question": RunnablePassthrough()} | prompt | llm | StrOutputParser())
    verdicts = []
    guarded = with_halguard(rag, detector=verifier, consistency="on", num_paraphrases=2, paraphraser=llm,
                            on_verdict=verdicts.append)
    answer = guarded.invoke("When did JWST launch?")
    assert isinstance(answer, str) and answer.strip()
    report = verdicts[-1].consistency
    assert report is not None and len(report.answers) == 3
    assert all(a.answer or a.error for a in report.answers)


def test_sampling_through_a_real_llamaindex_query_engine(verifier):
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.llms.openai_like import OpenAILike

    from halguard import get_verdict
    from llamaindex_halguard import HalguardEmbedding, HalguardQueryEngine

    llm = OpenAILike(model=MODEL, api_base=URL, api_key="unused", is_chat_model=True, max_tokens=60, timeout=300,
                     max_retries=1)
    index = VectorStoreIndex.from_documents([Document(text=t) for t in JWST], embed_model=HalguardEmbedding())
    engine = HalguardQueryEngine(index.as_query_engine(llm=llm, similarity_top_k=2), detector=verifier,
                                 consistency="on", num_paraphrases=2, paraphraser=llm)
    response = engine.query("When did JWST launch?")
    verdict = get_verdict(response)
    assert response.response.strip() and verdict is not None and verdict.consistency is not None
    assert len(verdict.consistency.answers) == 3


def test_the_paraphrase_cookbook_with_the_real_model():
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_API_KEY", None)
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, str(root / "cookbook" / "paraphrase_sampling.py")], capture_output=True,
                          text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    verdict_lines = [line for line in proc.stdout.splitlines() if "=> " in line]
    assert "providers: local" in proc.stdout and len(verdict_lines) == 4


def test_usage_counts_match_the_server():
    import httpx

    seen = {"requests": 0, "prompt": 0, "completion": 0}

    def count(response):
        response.read()
        usage = json.loads(response.content).get("usage") or {}
        seen["requests"] += 1
        seen["prompt"] += usage.get("prompt_tokens", 0)
        seen["completion"] += usage.get("completion_tokens", 0)

    client = openai.OpenAI(base_url=URL, api_key="unused", http_client=httpx.Client(event_hooks={"response": [count]}))
    model = OpenAIChat(client, MODEL, max_tokens=16, timeout=300)
    for q in ("Capital of France?", "Capital of Japan?"):
        model.chat([{"role": "user", "content": q}])
    assert (model.usage.calls, model.usage.input_tokens, model.usage.output_tokens) == (
        seen["requests"], seen["prompt"], seen["completion"])


def test_active_generation_runs_every_step_on_the_model():
    from halguard import ActiveGenerator, repair, verify

    question = "When was JWST launched, and how large is its mirror?"
    result = ActiveGenerator(chat(max_tokens=200)).generate(question, JWST)
    trace = result.trace
    assert trace.logprobs and trace.sentences and result.answer.strip()
    assert all(c.probability is not None for s in trace.sentences for c in s.concepts)
    checked = [c for s in trace.sentences for c in s.concepts if c.outcome in ("validated", "failed")]
    assert all(c.question and c.p_yes is not None for c in checked)
    assert trace.generation_calls == 1  # continuations after a repair count as extra calls
    assert result.verdict.label in ("supported", "hallucinated", "unverified")
    wrong = "JWST was launched on 25 December 2019. Its mirror is 6.5 metres across."
    fixed = repair(wrong, JWST, verify(wrong, JWST), llm=chat(max_tokens=120))
    assert fixed.verdict.repair is not None and fixed.verdict.repair.label_before == "hallucinated"


def test_active_rag_with_chat_openai_and_a_vector_store():
    from langchain_core.vectorstores import InMemoryVectorStore
    from langchain_openai import ChatOpenAI

    from langchain_halguard import HalguardActiveRAG, HalguardEmbeddings

    store = InMemoryVectorStore.from_texts(JWST, embedding=HalguardEmbeddings())
    llm = ChatOpenAI(base_url=URL, api_key="unused", model=MODEL, max_tokens=200, max_retries=1, timeout=300)
    rag = HalguardActiveRAG(llm=llm, retriever=store.as_retriever(search_kwargs={"k": 2}))
    out = rag.invoke({"input": "When was JWST launched?"})
    active = out["halguard"]["active"]
    assert out["answer"].strip() and active["logprobs"] is True and active["sentences"]
    assert all(c["probability"] is not None for s in active["sentences"] for c in s["concepts"])


def test_active_query_engine_with_openai_like():
    from llama_index.core import VectorStoreIndex
    from llama_index.core.schema import TextNode
    from llama_index.llms.openai_like import OpenAILike

    from llamaindex_halguard import HalguardActiveQueryEngine, HalguardEmbedding

    index = VectorStoreIndex([TextNode(text=t) for t in JWST], embed_model=HalguardEmbedding())
    llm = OpenAILike(model=MODEL, api_base=URL, api_key="unused", is_chat_model=True, max_tokens=200, timeout=300)
    response = HalguardActiveQueryEngine(index.as_retriever(similarity_top_k=2), llm).query("How large is Webb's mirror?")
    active = response.metadata["halguard"]["active"]
    assert response.response.strip() and active["logprobs"] is True and response.source_nodes
