import json
from pathlib import Path

from halguard.tools.bench import span_f1
from halguard.tools.cli import main

FIXTURE = Path(__file__).parent / "data" / "mini_bench.jsonl"


def test_bench_cli_writes_json_markdown_and_rows(tmp_path, capsys, verifier):
    out_json, out_md, out_rows = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "rows.jsonl"
    code = main(["bench", str(FIXTURE), "--json-out", str(out_json), "--md-out", str(out_md),
                 "--jsonl-out", str(out_rows), "--quiet"])
    assert code == 0
    report = json.loads(out_json.read_text())
    assert set(report) >= {"overall", "by_task", "span_f1", "latency_ms", "throughput_per_s", "load_s",
                           "peak_rss_mb", "detector"}
    assert set(report["overall"]) >= {"n", "precision", "recall", "f1", "auroc", "balanced_accuracy",
                                      "best_f1", "best_threshold"}
    assert report["overall"]["n"] == 4
    assert report["overall"]["auroc"] == 1.0  # the two hallucinated rows score above the two grounded ones
    assert set(report["by_task"]) == {"QA", "Summary"}
    assert report["span_f1"] > 0.5
    rows = [json.loads(line) for line in out_rows.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["fx-1", "fx-2", "fx-3", "fx-4"]
    assert "| overall | 4 |" in out_md.read_text()
    assert "halguard bench" in capsys.readouterr().out


def test_bench_filters_and_naive_detector(tmp_path, verifier):
    out_json = tmp_path / "r.json"
    assert main(["bench", str(FIXTURE), "--task", "QA", "--detector", "naive", "--json-out", str(out_json),
                 "--quiet"]) == 0
    report = json.loads(out_json.read_text())
    assert report["overall"]["n"] == 2 and report["detector"] == "naive-minilm-similarity"
    assert main(["bench", str(FIXTURE), "--limit", "1", "--json-out", str(out_json), "--quiet"]) == 0
    assert json.loads(out_json.read_text())["overall"]["n"] == 1


def test_bench_missing_file_is_bad_input(tmp_path, capsys):
    assert main(["bench", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_span_f1_character_overlap():
    preds = [
        {"has_span_labels": True, "hallucinated": True, "pred_spans": [[0, 10]], "gold_spans": [[5, 15]]},
        {"has_span_labels": True, "hallucinated": False, "pred_spans": [], "gold_spans": []},
    ]
    assert span_f1(preds) == 0.5
    assert span_f1([{"has_span_labels": False, "hallucinated": True, "pred_spans": [], "gold_spans": []}]) is None


def test_bench_reports_first_sight_and_warm_latency_apart():
    from halguard.tools.bench import _by_sight

    preds = [{"latency_ms": 900.0, "first_sight": True}, {"latency_ms": 1100.0, "first_sight": True},
             {"latency_ms": 5.0, "first_sight": False}]
    sight = _by_sight(preds)
    assert sight["first_sight"]["n"] == 2 and sight["first_sight"]["p50"] == 1000.0
    assert sight["warm"] == {"n": 1, "p50": 5.0, "p95": 5.0}
