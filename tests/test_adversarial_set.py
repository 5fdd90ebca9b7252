"""The hand-written adversarial set (benchmarks/adversarial) and its benchmark's counting; no model is loaded."""

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_adversarial.py"
DATA = ROOT / "benchmarks" / "adversarial" / "adversarial_dev.jsonl"


def _load_script():
    spec = importlib.util.spec_from_file_location("bench_adversarial", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _load_script()
ROWS = bench.load_rows(DATA)


def test_every_line_is_a_json_object_and_load_rows_reads_them_all():
    lines = [line for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert all(isinstance(json.loads(line), dict) for line in lines)
    assert len(ROWS) == len(lines)
    assert bench.DEFAULT_PATH == DATA and bench.load_rows() == ROWS


def test_ids_are_unique_and_rows_follow_the_dev_schema():
    ids = [r["id"] for r in ROWS]
    assert len(ids) == len(set(ids))
    for r in ROWS:
        assert set(r) >= {"id", "task_type", "kind", "group", "question", "context", "answer", "labels",
                          "hallucinated"}, r["id"]
        assert r["task_type"] == "QA" and r["labels"] == []
        assert r["id"].startswith("adv-para-" if r["group"] == "paraphrase" else "adv-fab-"), r["id"]


def test_group_sizes_and_every_kind_has_at_least_five_rows():
    groups = Counter(r["group"] for r in ROWS)
    assert set(groups) == {"paraphrase", "fabrication"}
    assert groups["paraphrase"] >= 50 and groups["fabrication"] >= 60
    kinds = Counter((r["group"], r["kind"]) for r in ROWS)
    for group, listed in bench.KINDS.items():
        for kind in listed:
            assert kinds[(group, kind)] >= 5, (group, kind)
    assert set(kinds) == {(g, k) for g, listed in bench.KINDS.items() for k in listed}  # no stray kind


def test_labels_agree_with_groups():
    for r in ROWS:
        assert r["hallucinated"] is (r["group"] == "fabrication"), r["id"]


def test_answers_questions_and_contexts_are_not_empty():
    for r in ROWS:
        assert isinstance(r["answer"], str) and r["answer"].strip(), r["id"]
        assert isinstance(r["question"], str) and r["question"].strip(), r["id"]
        assert isinstance(r["context"], list) and r["context"], r["id"]
        assert all(isinstance(p, str) and p.strip() for p in r["context"]), r["id"]


def test_enough_distinct_contexts_each_serving_at_most_one_row_per_group():
    by_context = Counter((json.dumps(r["context"]), r["group"]) for r in ROWS)
    assert len({json.dumps(r["context"]) for r in ROWS}) >= 40
    assert max(by_context.values()) == 1


def _result(rid, kind, group, label, score):
    return {"id": rid, "kind": kind, "group": group, "label": label, "score": score}


def test_summarize_counts_a_hand_made_result_list():
    results = [
        _result("p1", "synonym", "paraphrase", "supported", 0.1),
        _result("p2", "synonym", "paraphrase", "hallucinated", 0.9),
        _result("p3", "voice", "paraphrase", "supported", 0.2),
        _result("f1", "role_swap", "fabrication", "supported", 0.3),
        _result("f2", "role_swap", "fabrication", "hallucinated", 0.7),
        _result("f3", "negation", "fabrication", "unverified", None),
        _result("f4", "scope", "fabrication", "hallucinated", 1.0),
    ]
    s = bench.summarize(results)
    assert s["rows"] == 7
    assert list(s["kinds"]) == ["synonym", "voice", "role_swap", "negation", "scope"]  # the set's order
    assert s["kinds"]["synonym"] == {"group": "paraphrase", "rows": 2, "supported": 1, "hallucinated": 1,
                                     "unverified": 0, "mean_score": 0.5}
    assert s["kinds"]["negation"] == {"group": "fabrication", "rows": 1, "supported": 0, "hallucinated": 0,
                                      "unverified": 1, "mean_score": None}
    assert s["groups"]["paraphrase"]["rows"] == 3 and s["groups"]["paraphrase"]["hallucinated"] == 1
    assert s["groups"]["fabrication"] == {"rows": 4, "supported": 1, "hallucinated": 2, "unverified": 1,
                                          "mean_score": pytest.approx(0.6667, abs=1e-4)}
    assert s["paraphrases_flagged"] == {"n": 1, "of": 3, "rate": pytest.approx(0.3333, abs=1e-4)}
    assert s["fabrications_supported"] == {"n": 1, "of": 4, "rate": 0.25}
    assert s["correct"]["n"] == 4  # p1, p3 supported; f2, f4 flagged
    text = bench.format_summary(s)
    assert "paraphrases flagged: 1/3 (33.3%)" in text and "fabrications supported: 1/4 (25.0%)" in text
    assert "| fabrication | negation | 1 | 0 | 0 | 1 | - |" in text


def test_summarize_of_nothing():
    s = bench.summarize([])
    assert s["rows"] == 0 and s["kinds"] == {}
    assert s["paraphrases_flagged"] == {"n": 0, "of": 0, "rate": None}


def test_run_uses_each_rows_question_and_context_with_a_stub_detector():
    class Verdict:
        def __init__(self, label, score):
            self.label, self.score, self.errors = label, score, []

    class Stub:
        def __init__(self):
            self.calls = []

        def verify(self, answer, contexts, *, question=None):
            self.calls.append((answer, contexts, question))
            return Verdict("hallucinated", 1.0) if "mcg" in answer else Verdict("supported", 0.0)

    stub = Stub()
    results = bench.run(stub, ROWS[:8])
    assert [c[2] for c in stub.calls] == [r["question"] for r in ROWS[:8]]
    assert [c[1] for c in stub.calls] == [r["context"] for r in ROWS[:8]]
    assert [r["id"] for r in results] == [r["id"] for r in ROWS[:8]]
    assert set(results[0]) >= {"id", "kind", "group", "label", "score"}
    assert sum(r["label"] == "hallucinated" for r in results) == 1  # adv-fab-004's 500 mcg


def test_detector_factory_spec_is_checked():
    assert bench.load_factory("json:dumps") is json.dumps
    with pytest.raises(ValueError, match="module:callable"):
        bench.load_factory("json.dumps")


@pytest.mark.parametrize("path", sorted((ROOT / "benchmarks" / "adversarial").glob("fresh_*.jsonl")),
                         ids=lambda p: p.name)
def test_the_fresh_files_follow_the_schema_with_unique_ids_and_labels_by_group(path):
    rows = bench.load_rows(path)
    assert rows and len({r["id"] for r in rows}) == len(rows)
    for r in rows:
        assert set(r) >= {"id", "task_type", "kind", "group", "question", "context", "answer", "labels",
                          "hallucinated"}, r["id"]
        assert r["hallucinated"] is (r["group"] == "fabrication"), r["id"]
        assert r["answer"].strip() and all(c.strip() for c in r["context"]), r["id"]
