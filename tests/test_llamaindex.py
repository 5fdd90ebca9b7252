"""LlamaIndex adapters, offline: scripted LLMs, MockLLM, VectorStoreIndex and the real LocalVerifier."""

import pytest

from llama_index.core import Document, Settings, VectorStoreIndex
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import AsyncStreamingResponse, Response, StreamingResponse
from llama_index.core.evaluation import BatchEvalRunner
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.mock import MockLLM
from llama_index.core.schema import ImageNode, MetadataMode, NodeWithScore, QueryBundle, TextNode

from halguard import HallucinationError, InputTypeError, InvalidInputError, UnverifiedError
from llamaindex_halguard import (
    HalguardEmbedding,
    HalguardEvaluationResult,
    HalguardEvaluator,
    HalguardEventHandler,
    HalguardNodePostprocessor,
    HalguardQueryEngine,
    HalguardVerdictEvent,
)

TEXTS = {
    "launch": "JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou, French Guiana.",
    "mirror": "Webb's primary mirror is 6.5 metres across and made of 18 hexagonal segments.",
    "orbit": "The telescope orbits the Sun near L2, about 1.5 million kilometres from Earth.",
}
GOOD = "JWST was launched on 25 December 2021 on an Ariane 5 rocket."
BAD = "JWST was launched on 25 December 2019 on a Falcon Heavy rocket."
QUERY = "When and on which rocket was JWST launched?"


class ScriptedLLM(CustomLLM):
    """Answers with the given texts in turn and remembers every prompt it saw."""

    answers: list = []
    prompts: list = []

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="scripted")

    def _next(self, prompt):
        from halguard.llm.envelope import request_nonce

        self.prompts.append(prompt)
        text = self.answers[(len(self.prompts) - 1) % len(self.answers)]
        # "@NONCE@" in a script: the request's nonce, echoed as halguard's bound replies must (halguard.llm.envelope)
        return text.replace("@NONCE@", request_nonce([{"role": "system", "content": str(prompt)}]) or "")

    @llm_completion_callback()
    def complete(self, prompt, formatted=False, **kwargs):
        return CompletionResponse(text=self._next(prompt))

    @llm_completion_callback()
    def stream_complete(self, prompt, formatted=False, **kwargs):
        text = self._next(prompt)
        words = text.split(" ")

        def gen():
            so_far = ""
            for i, w in enumerate(words):
                delta = w if i == 0 else " " + w
                so_far += delta
                yield CompletionResponse(text=so_far, delta=delta)

        return gen()


@pytest.fixture(scope="module")
def index():
    Settings.llm = MockLLM()  # never the OpenAI default
    docs = [Document(text=t, doc_id=k, id_=k) for k, t in TEXTS.items()]
    return VectorStoreIndex.from_documents(docs, embed_model=HalguardEmbedding())


def engine(index, *answers, **kw):
    kw.setdefault("similarity_top_k", 2)
    return index.as_query_engine(llm=ScriptedLLM(answers=list(answers), prompts=[]), **kw)


# -- query engine ---------------------------------------------------------------------------------------


def test_query_engine_annotates_grounded_and_hallucinated(index, verifier):
    good = HalguardQueryEngine(engine(index, GOOD), detector=verifier).query(QUERY)
    assert isinstance(good, Response)
    assert good.response == GOOD
    assert good.metadata["halguard"]["label"] == "supported"
    bad = HalguardQueryEngine(engine(index, BAD), detector=verifier).query(QUERY)
    assert bad.metadata["halguard"]["label"] == "hallucinated"
    assert {s["text"] for s in bad.metadata["halguard"]["spans"]} >= {"2019", "Falcon Heavy"}
    launch = next(n for n in good.source_nodes if n.node.ref_doc_id == "launch")
    assert launch.node.metadata["halguard"]["supports_claims"][0]["text"] == GOOD
    assert "halguard" in launch.node.excluded_llm_metadata_keys
    assert "halguard" not in launch.node.get_content(metadata_mode=MetadataMode.LLM)


def test_query_engine_keeps_existing_metadata_and_scores(index, verifier):
    inner = engine(index, GOOD)
    plain = inner.query(QUERY)
    guarded = HalguardQueryEngine(engine(index, GOOD), detector=verifier).query(QUERY)
    assert len(plain.metadata) == 2  # one entry per retrieved node (similarity_top_k=2)
    for key, value in plain.metadata.items():
        assert guarded.metadata[key] == value
    assert [n.score for n in guarded.source_nodes] == [n.score for n in plain.source_nodes]
    assert all("halguard" not in n.node.metadata for n in plain.source_nodes)  # inner nodes untouched


async def test_aquery(index, verifier):
    out = await HalguardQueryEngine(engine(index, BAD), detector=verifier).aquery(QUERY)
    assert out.metadata["halguard"]["label"] == "hallucinated"


def test_streaming_verdict_after_the_stream_is_exhausted(index, verifier):
    out = HalguardQueryEngine(engine(index, BAD, streaming=True), detector=verifier).query(QUERY)
    assert isinstance(out, StreamingResponse)
    assert "halguard" not in (out.metadata or {})
    tokens = list(out.response_gen)
    assert len(tokens) > 3 and "".join(tokens) == BAD
    assert out.metadata["halguard"]["label"] == "hallucinated"
    assert out.response_txt == BAD


async def test_async_streaming(index, verifier):
    out = await HalguardQueryEngine(engine(index, GOOD, streaming=True), detector=verifier).aquery(QUERY)
    assert isinstance(out, AsyncStreamingResponse)  # aquery streams asynchronously, as the inner engine does
    assert "halguard" not in (out.metadata or {})  # not before the stream is read
    text = "".join([t async for t in out.async_response_gen()])
    assert text == GOOD
    assert out.metadata["halguard"]["label"] == "supported"


def test_raise_fallback_and_filter(index, verifier):
    with pytest.raises(HallucinationError) as info:
        HalguardQueryEngine(engine(index, BAD), detector=verifier, on_hallucination="raise").query(QUERY)
    assert info.value.verdict.label == "hallucinated"
    fb = HalguardQueryEngine(engine(index, BAD), detector=verifier, on_hallucination="fallback", fallback="Not sure.").query(QUERY)
    assert fb.response == "Not sure."
    assert fb.metadata["halguard"]["action"]["action"] == "fallback"
    other = HalguardQueryEngine(engine(index, BAD), detector=verifier, on_hallucination="fallback", fallback=engine(index, GOOD)).query(QUERY)
    assert other.response == GOOD
    mixed = f"{BAD} Webb's primary mirror is 6.5 metres across."
    filtered = HalguardQueryEngine(engine(index, mixed, similarity_top_k=3), detector=verifier, on_hallucination="filter").query(QUERY)
    assert filtered.response == "Webb's primary mirror is 6.5 metres across."
    assert filtered.metadata["halguard"]["action"]["removed"][0]["text"] == BAD


def test_filter_on_a_stream_is_buffered(index, verifier):
    mixed = f"{BAD} Webb's primary mirror is 6.5 metres across."
    out = HalguardQueryEngine(engine(index, mixed, streaming=True, similarity_top_k=3), detector=verifier, on_hallucination="filter").query(QUERY)
    assert "".join(out.response_gen) == "Webb's primary mirror is 6.5 metres across."
    assert out.metadata["halguard"]["action"]["action"] == "filter"


class FixedEngine(BaseQueryEngine):
    def __init__(self, response):
        self.response = response
        super().__init__(None)

    def _get_prompt_modules(self):
        return {}

    def _query(self, query_bundle):
        if isinstance(self.response, Exception):
            raise self.response
        return self.response

    async def _aquery(self, query_bundle):
        return self._query(query_bundle)


def test_bad_responses(verifier):
    none = HalguardQueryEngine(FixedEngine(Response(None)), detector=verifier).query(QUERY)
    assert none.metadata["halguard"]["label"] == "unverified"
    assert none.metadata["halguard"]["errors"][0]["code"] == "empty_answer"
    no_nodes = HalguardQueryEngine(FixedEngine(Response(GOOD)), detector=verifier).query(QUERY)
    assert no_nodes.metadata["halguard"]["errors"][0]["code"] == "no_context"
    image = [NodeWithScore(node=ImageNode(image="aGk=", text=""), score=1.0)]
    img = HalguardQueryEngine(FixedEngine(Response(GOOD, image)), detector=verifier).query(QUERY)
    assert img.metadata["halguard"]["errors"][0]["code"] == "no_context"
    with pytest.raises(UnverifiedError):
        HalguardQueryEngine(FixedEngine(Response(GOOD)), detector=verifier, on_hallucination="raise", on_unverified="fail_closed").query(QUERY)
    with pytest.raises(RuntimeError, match="engine down"):
        HalguardQueryEngine(FixedEngine(RuntimeError("engine down")), detector=verifier).query(QUERY)
    with pytest.raises(InputTypeError, match="query_engine must be a LlamaIndex BaseQueryEngine, got str"):
        HalguardQueryEngine("not an engine", detector=verifier)
    with pytest.raises(InvalidInputError, match="on_hallucination must be one of .*, got 'shout'"):
        HalguardQueryEngine(FixedEngine(Response(GOOD)), detector=verifier, on_hallucination="shout")


def test_nodes_of_only_invisible_characters_are_no_context(verifier):
    nodes = [NodeWithScore(node=TextNode(text="\u200b\u200b\u200b", id_="zw"), score=1.0),
             NodeWithScore(node=TextNode(text="\u200e\u200f \ufeff", id_="bidi"), score=0.5)]
    out = HalguardQueryEngine(FixedEngine(Response(GOOD, nodes)), detector=verifier).query(QUERY)
    assert out.metadata["halguard"]["label"] == "unverified"
    assert [e["code"] for e in out.metadata["halguard"]["errors"]] == ["no_context"]


# -- postprocessor -------------------------------------------------------------------------------------


def _nodes(*pairs):
    return [NodeWithScore(node=TextNode(text=t, id_=i), score=0.5 + k / 10) for k, (i, t) in enumerate(pairs)]


def test_postprocessor_premise_support_and_exclusion(verifier):
    nodes = _nodes(("launch", TEXTS["launch"]), ("orbit", TEXTS["orbit"]))
    pp = HalguardNodePostprocessor(detector=verifier)
    out = pp.postprocess_nodes(nodes, query_str="Which rocket launched JWST from Kourou?")
    launch, orbit = (n.node.metadata["halguard"] for n in out)
    assert launch["query_support"] > orbit["query_support"]
    assert "Kourou" in orbit["missing_query_names"] and launch["missing_query_names"] == []
    assert [n.score for n in out] == [n.score for n in nodes]
    for n in out:
        assert "halguard" not in n.node.get_content(metadata_mode=MetadataMode.LLM)
        assert "halguard" not in n.node.get_content(metadata_mode=MetadataMode.EMBED)
    assert all("halguard" not in n.node.metadata for n in nodes)  # inputs untouched


def test_postprocessor_false_premise_and_dropping(verifier):
    nodes = _nodes(("launch", TEXTS["launch"]), ("mirror", TEXTS["mirror"]))
    pp = HalguardNodePostprocessor(detector=verifier, min_query_support=0.45)
    out = pp.postprocess_nodes(nodes, query_str="Why did JWST launch from Kourou in 2019?")
    meta = out[0].node.metadata["halguard"] if out else None
    assert [n.node.node_id for n in out] == ["launch"]
    assert meta["missing_query_numbers"] == ["2019"]


def test_postprocessor_finds_conflicting_numbers(verifier):
    nodes = _nodes(
        ("a", "The bridge is 1,200 metres long and opened in 1932."),
        ("b", "The bridge is 1,400 metres long and opened in 1932."),
        ("c", "Ferries cross the bay every hour."),
    )
    out = HalguardNodePostprocessor(detector=verifier).postprocess_nodes(nodes, query_str="How long is the bridge?")
    conflicts = {n.node.node_id: n.node.metadata["halguard"]["conflicts"] for n in out}
    assert conflicts["a"][0]["other_node"] == "b" and conflicts["b"][0]["other_node"] == "a"
    assert conflicts["c"] == []


async def test_postprocessor_async_empty_and_image_nodes(verifier):
    pp = HalguardNodePostprocessor(detector=verifier)
    assert await pp.apostprocess_nodes([], query_str="q") == []
    image = NodeWithScore(node=ImageNode(image="aGk=", text=""), score=0.3)
    (out,) = await pp.apostprocess_nodes([image], query_str="q")
    assert out.node.metadata["halguard"] == {"checked": False, "reason": "the node has no text"}
    assert out.score == 0.3


def test_postprocessor_after_synthesis(verifier):
    nodes = _nodes(("launch", TEXTS["launch"]), ("mirror", TEXTS["mirror"]))
    pp = HalguardNodePostprocessor(detector=verifier)
    out, verdict = pp.annotate_with_answer(nodes, f"{GOOD} The mirror is 6.5 metres across.", query=QUERY)
    assert verdict.label == "supported"
    assert [c["text"] for c in out[1].node.metadata["halguard"]["supports_claims"]] == ["The mirror is 6.5 metres across."]


def test_postprocessor_inside_a_query_engine_never_leaks_into_the_prompt(index, verifier):
    llm = ScriptedLLM(answers=[GOOD], prompts=[])
    qe = index.as_query_engine(llm=llm, node_postprocessors=[HalguardNodePostprocessor(detector=verifier)])
    out = HalguardQueryEngine(qe, detector=verifier).query(QUERY)
    assert out.metadata["halguard"]["label"] == "supported"
    assert llm.prompts and all("halguard" not in p and "query_support" not in p for p in llm.prompts)
    assert len(out.source_nodes) == 2  # similarity_top_k's default
    assert all("query_support" in n.node.metadata["halguard"] for n in out.source_nodes)


# -- evaluator -----------------------------------------------------------------------------------------


def test_evaluator(verifier, index):
    ev = HalguardEvaluator(detector=verifier)
    good = ev.evaluate(query=QUERY, response=GOOD, contexts=[TEXTS["launch"]])
    assert isinstance(good, HalguardEvaluationResult)
    assert good.passing is True and good.score > 0.5 and good.verdict.label == "supported"
    bad = ev.evaluate(query=QUERY, response=BAD, contexts=[TEXTS["launch"]])
    assert bad.passing is False and "Falcon Heavy" in bad.feedback
    empty = ev.evaluate(query=QUERY, response=GOOD, contexts=[])
    assert empty.passing is None and empty.invalid_result and "no_context" in empty.invalid_reason
    resp = engine(index, BAD).query(QUERY)
    assert ev.evaluate_response(query=QUERY, response=resp).passing is False


async def test_evaluator_async_and_batch_runner(verifier, index):
    ev = HalguardEvaluator(detector=verifier)
    res = await ev.aevaluate(query=QUERY, response=BAD, contexts=[TEXTS["launch"]])
    assert res.passing is False
    runner = BatchEvalRunner({"halguard": ev}, workers=2)
    results = await runner.aevaluate_response_strs(
        queries=[QUERY, QUERY], response_strs=[GOOD, BAD], contexts_list=[[TEXTS["launch"]]] * 2
    )
    assert [r.passing for r in results["halguard"]] == [True, False]
    assert all(isinstance(r, HalguardEvaluationResult) for r in results["halguard"])


def test_retry_query_engine(index, verifier):
    from llama_index.core.query_engine import RetryQueryEngine

    retry = RetryQueryEngine(engine(index, BAD, GOOD), HalguardEvaluator(detector=verifier), max_retries=2)
    out = retry.query(QUERY)
    assert str(out) == GOOD


# -- instrumentation -----------------------------------------------------------------------------------


class Collect(BaseEventHandler):
    events: list = []

    def handle(self, event, **kwargs):
        if isinstance(event, HalguardVerdictEvent):
            self.events.append(event)


@pytest.fixture
def root_handler():
    def add(handler):
        get_dispatcher().add_event_handler(handler)
        added.append(handler)
        return handler

    added = []
    yield add
    for h in added:
        get_dispatcher().event_handlers.remove(h)


def test_verdict_events_reach_handlers(index, verifier, root_handler):
    collect = root_handler(Collect(events=[]))
    HalguardQueryEngine(engine(index, BAD), detector=verifier).query(QUERY)
    HalguardEvaluator(detector=verifier).evaluate(query=QUERY, response=GOOD, contexts=[TEXTS["launch"]])
    assert [(e.source, e.verdict["label"]) for e in collect.events] == [
        ("HalguardQueryEngine", "hallucinated"),
        ("HalguardEvaluator", "supported"),
    ]
    assert collect.events[0].query == QUERY


def test_event_handler_verifies_on_query_end(index, verifier, root_handler):
    handler = root_handler(HalguardEventHandler(detector=verifier))
    engine(index, BAD).query(QUERY)
    engine(index, GOOD, streaming=True).query(QUERY)
    labels = sorted(v.label for v in handler.verdicts.values())
    assert labels == ["hallucinated", "unverified"]
    assert any(e.code == "stream_not_consumed" for v in handler.verdicts.values() for e in v.errors)


def test_event_handler_never_raises(index, root_handler):
    class Broken:
        pass

    root_handler(HalguardEventHandler(detector=Broken()))
    assert engine(index, GOOD).query(QUERY).response == GOOD


def test_query_bundle_input(index, verifier):
    out = HalguardQueryEngine(engine(index, GOOD), detector=verifier).query(QueryBundle(QUERY))
    assert out.metadata["halguard"]["label"] == "supported"


def test_mock_llm_echo_is_grounded_and_max_tokens_is_not(index, verifier):
    echo = HalguardQueryEngine(index.as_query_engine(llm=MockLLM(), similarity_top_k=1), detector=verifier).query(QUERY)
    junk = HalguardQueryEngine(index.as_query_engine(llm=MockLLM(max_tokens=5), similarity_top_k=1), detector=verifier).query(QUERY)
    assert junk.response.split() == ["text"] * 5
    assert junk.metadata["halguard"]["label"] == "hallucinated"
    # The echoed prompt repeats the retrieved passage verbatim: that claim is supported by its node.
    echoed = echo.metadata["halguard"]
    passage_claims = [c for c in echoed["claims"] if c["text"] in echo.source_nodes[0].node.get_content()]
    assert passage_claims and all(c["status"] == "SUPPORTED" for c in passage_claims)


def test_query_engine_paraphrase_sampling(index, verifier):
    import json

    judge_reply = json.dumps({"nonce": "@NONCE@", "hallucination_detected": True, "confidence_score": 0.8,
                              "conflicting_facts": [], "reasoning": "2021 vs 2019", "summary": "conflict"})
    paraphraser = ScriptedLLM(answers=['{"nonce": "@NONCE@", '
                                       '"paraphrases": ["On which rocket, and when, was JWST launched?", '
                                       '"When was JWST launched, and on which rocket?", '
                                       '"Which rocket launched JWST, and when?"]}'], prompts=[])
    judge = ScriptedLLM(answers=[judge_reply], prompts=[])
    inner = engine(index, GOOD, BAD)  # the original answer is grounded; samples drift
    guarded = HalguardQueryEngine(inner, detector=verifier, consistency="on", paraphraser=paraphraser, judge=judge)
    out = guarded.query(QUERY)
    verdict = out.metadata["halguard"]
    assert verdict["label"] == "hallucinated"
    assert verdict["consistency"]["label"] == "inconsistent"
    assert len(verdict["consistency"]["answers"]) == 4
    assert verdict["usage"]["llm_calls"] == 1 + 3 + 1


async def test_query_engine_paraphrase_sampling_async_local_judge(index, verifier):
    out = await HalguardQueryEngine(engine(index, GOOD), detector=verifier, consistency="on").aquery(QUERY)
    assert out.metadata["halguard"]["consistency"]["label"] == "consistent"
    assert out.metadata["halguard"]["label"] == "supported"


def test_stored_node_embeddings_are_reused_only_when_they_embed_the_plain_text(verifier):
    from llamaindex_halguard._convert import nodes_to_contexts

    text = TEXTS["launch"]
    vector = verifier.embedder.encode([text])[0][0].tolist()
    bare = TextNode(text=text, id_="bare", embedding=vector)
    tagged = TextNode(text=text, id_="tagged", embedding=vector, metadata={"file_name": "webb.txt"})
    excluded = TextNode(text=text, id_="excluded", embedding=vector, metadata={"file_name": "webb.txt"},
                        excluded_embed_metadata_keys=["file_name"])
    nodes = [NodeWithScore(node=n, score=1.0) for n in (bare, tagged, excluded)]
    model = "sentence-transformers/all-MiniLM-L6-v2"
    sources = {s.id: s for s in nodes_to_contexts(nodes, embedding_model=model)}
    # "tagged" was embedded with its file name in the text, so its vector describes another text.
    for reused in (sources["bare"], sources["excluded"]):
        assert reused.embedding == pytest.approx(vector) and reused.embedding_model == model
    assert sources["tagged"].embedding is None
    assert all(s.embedding is None for s in nodes_to_contexts(nodes))  # no model named: nothing is reused


def test_query_engine_passes_node_embeddings_to_the_verifier(index):
    text = TEXTS["launch"]
    vector = HalguardEmbedding().get_text_embedding(text)
    nodes = [NodeWithScore(node=TextNode(text=text, id_="launch", embedding=vector), score=0.9)]

    def answered():
        return FixedEngine(Response(response=GOOD, source_nodes=nodes))

    wrapped = HalguardQueryEngine(answered(), embedding_model="all-MiniLM-L6-v2")
    meta = wrapped.query(QUERY).metadata["halguard"]
    assert meta["label"] == "supported"
    assert meta["usage"]["precomputed_texts"] == 1
    plain = HalguardQueryEngine(answered()).query(QUERY).metadata["halguard"]
    assert plain["usage"]["precomputed_texts"] == 0


def test_event_handler_log_is_what_halguard_audit_reads(index, verifier, root_handler, tmp_path):
    import json

    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from halguard.audit import audit

    log = tmp_path / "events.jsonl"
    handler = root_handler(HalguardEventHandler(detector=verifier, jsonl_path=str(log)))
    engine(index, BAD).query(QUERY)
    engine(index, GOOD, streaming=True).query(QUERY)  # unverified (stream not consumed): not logged, nothing to audit
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 1 and lines[0]["query"] == QUERY and lines[0]["response"] == BAD
    assert lines[0]["source_nodes"] and lines[0]["verdict"]["label"] == "hallucinated"
    assert oct(log.stat().st_mode & 0o777) == "0o600"
    result = audit([log], tmp_path / "out", progress=False)
    row = pq.read_table(tmp_path / "out" / "answers").to_pylist()[0]
    assert result.checked == 1 and row["label"] == "hallucinated" and row["row_id"].split("#")[0] == lines[0]["id"]  # id#digest of the row
    assert sorted(v.label for v in handler.verdicts.values()) == ["hallucinated", "unverified"]
