"""nli: and spans: detectors everywhere a detector goes (issue 39): the CLI's check, bench --compare, audit and
calibrate, and the LangChain and LlamaIndex adapters. Tiny random models (tests/tiny_models.py): what is checked is
that each path builds, runs and reports the named model, not the random model's judgement."""

from __future__ import annotations

import json

import pytest

from halguard.tools.cli import main

ROWS = [
    {"id": f"r{i}", "task_type": "QA", "question": "When was the tower completed?",
     "context": [f"The tower number {i} was completed in {1800 + i} in Paris."],
     "answer": f"It was completed in {1800 + i + (i % 2) * 7}.", "hallucinated": bool(i % 2), "group": f"g{i}"}
    for i in range(96)  # two folds of calibration each need 40 rows with 8 of each label
]


@pytest.fixture(scope="module")
def rows_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("rows") / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def test_check_with_a_model_detector(capsys, tiny_models):
    code = main(["check", "--detector", f"spans:{tiny_models['spans-modernbert']}", "--answer",
                 "The tower was completed in 1889.", "--context", "The tower was completed in 1889 in Paris."])
    verdict = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and verdict["detector"] == f"spans:{tiny_models['spans-modernbert']}"


def test_check_with_a_missing_model_exits_two_naming_it(capsys):
    code = main(["check", "--detector", "nli:halguard-tests/absent", "--answer", "x", "--context", "y"])
    assert code == 2 and "halguard-tests/absent" in capsys.readouterr().err


def test_bench_compares_a_model_with_local(tmp_path, rows_file, tiny_models):
    out = tmp_path / "report.json"
    name = f"nli:{tiny_models['nli-roberta']}"
    code = main(["bench", str(rows_file), "--detector", name, "--compare", "local", "--limit", "6", "--quiet",
                 "--json-out", str(out)])
    report = json.loads(out.read_text())
    assert code == 0 and report["detector"] == name and len(report["compared"]) == 1


def test_audit_with_a_model_detector(tmp_path, rows_file, tiny_models):
    code = main(["audit", str(rows_file), "--out", str(tmp_path / "audit"), "--detector",
                 f"nli:{tiny_models['nli-bert']}", "--quiet"])
    assert code == 0


@pytest.mark.parametrize("kind", ["nli-deberta-v2", "spans-bert"])
def test_calibrate_fits_any_model_detector(tmp_path, rows_file, tiny_models, kind):
    prefix = kind.split("-")[0]
    name = f"{prefix}:{tiny_models[kind]}"
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(rows_file), "--detector", name, "--out", str(out), "--folds", "2", "--quiet"]) == 0
    calibration = json.loads(out.read_text())
    assert calibration["provenance"]["detector"] == name
    from halguard.detectors import make_detector

    detector = make_detector(name, calibration=str(out))
    verdict = detector.verify(ROWS[0]["answer"], ROWS[0]["context"], question=ROWS[0]["question"])
    assert verdict.probability is not None


def test_langchain_and_llamaindex_adapters_take_a_model_detector(tiny_models):
    from llama_index.core.schema import NodeWithScore, TextNode

    from halguard.detectors import make_detector
    from langchain_halguard import with_halguard
    from llamaindex_halguard import HalguardNodePostprocessor
    from tests.test_langchain_guard import GOOD, QUESTION, rag_chain

    detector = make_detector(f"nli:{tiny_models['nli-bert']}")
    out = with_halguard(rag_chain(GOOD), detector=detector).invoke(QUESTION)
    assert out["halguard"].detector == detector.name
    nodes = [NodeWithScore(node=TextNode(text="JWST was launched in 2021.", id_="a"), score=0.9)]
    post = HalguardNodePostprocessor(detector=detector).postprocess_nodes(nodes, query_str="When was JWST launched?")
    assert "halguard" in post[0].node.metadata


def test_middleware_takes_a_model_detector(tiny_models):
    from langchain_halguard import HalguardMiddleware
    from tests.jwst import GOOD, search_tool
    from tests.test_middleware import agent, user

    from halguard.detectors import make_detector

    detector = make_detector(f"spans:{tiny_models['spans-deberta-v2']}")
    state = agent(search_tool(), GOOD, middleware=[HalguardMiddleware(detector=detector)]).invoke(user())
    assert state["halguard"]["detector"] == detector.name


def test_every_adapter_takes_a_detector_by_name(tiny_models):
    from llama_index.core import Settings, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.llms import MockLLM

    from langchain_halguard import HalguardMiddleware, with_halguard
    from llamaindex_halguard import HalguardQueryEngine
    from tests.jwst import GOOD, search_tool
    from tests.test_langchain_guard import QUESTION, rag_chain
    from tests.test_middleware import agent, user

    nli, spans = f"nli:{tiny_models['nli-bert']}", f"spans:{tiny_models['spans-roberta']}"
    assert with_halguard(rag_chain(GOOD), detector=nli).invoke(QUESTION)["halguard"].detector == nli
    state = agent(search_tool(), GOOD, middleware=[HalguardMiddleware(detector=spans)]).invoke(user())
    assert state["halguard"]["detector"] == spans
    from llama_index.core import Document

    Settings.embed_model = MockEmbedding(embed_dim=8)
    index = VectorStoreIndex.from_documents([Document(text="JWST was launched in 2021.")])
    engine = HalguardQueryEngine(index.as_query_engine(llm=MockLLM()), detector=nli)
    assert engine.query("When was JWST launched?").metadata["halguard"]["detector"] == nli


def test_a_missing_model_by_name_fails_when_the_guard_is_built():
    from halguard.errors import ModelNotAvailableError
    from langchain_halguard import HalguardMiddleware, with_halguard
    from tests.test_langchain_guard import GOOD, rag_chain

    with pytest.raises(ModelNotAvailableError, match="halguard-tests/absent"):
        with_halguard(rag_chain(GOOD), detector="nli:halguard-tests/absent")
    with pytest.raises(ModelNotAvailableError, match="halguard-tests/absent"):
        HalguardMiddleware(detector="spans:halguard-tests/absent")
