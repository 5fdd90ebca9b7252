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


def test_bench_reports_per_shape_and_writes_the_curves(tmp_path, capsys, verifier):
    out_json, plots = tmp_path / "r.json", tmp_path / "plots"
    assert main(["bench", str(FIXTURE), "--json-out", str(out_json), "--jsonl-out", str(tmp_path / "rows.jsonl"),
                 "--plot", str(plots), "--quiet"]) == 0
    report = json.loads(out_json.read_text())
    assert set(report["by_profile"]) == {"short_answer", "short_summary"}  # QA rows have a question, summaries not
    assert 0 <= report["overall"]["ece_probability"] <= 1
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert all(0 <= r["probability"] <= 1 and r["profile"] and isinstance(r["contradiction"], bool) for r in rows)
    written = sorted(p.name for p in plots.iterdir())
    assert written == ["mini_bench_pr.png", "mini_bench_reliability.png", "mini_bench_roc.png"]
    for name in written:
        data = (plots / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000
    assert "| shape short_answer |" in capsys.readouterr().out


def test_reliability_bins_and_a_missing_matplotlib(monkeypatch, tmp_path):
    import builtins

    import pytest

    from halguard.errors import HalguardError
    from halguard.tools.metrics import reliability_bins
    from halguard.tools.plots import write_plots

    bins = reliability_bins([True, False, True, True], [0.05, 0.08, 0.95, 1.0])
    assert bins == [(0.065, 0.5, 2), (0.975, 1.0, 2)]
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(HalguardError, match="halguard\\[plot\\]"):
        write_plots([{"file": "f.jsonl", "score": 0.5, "hallucinated": True}], tmp_path)


def test_a_floored_row_is_recorded_as_flagged_whatever_the_threshold():
    # halguard calibrate fits around the rows that a blocking claim flags (a contradiction, a short answer's floor)
    from halguard import LocalVerifier
    from halguard.tools.bench import run_rows

    lenient = {"format": "halguard-calibration/1",
               "shapes": {"short_summary": {"threshold": 0.999, "weak_threshold": 0.998, "knots": [[0.0, 0.5]]}},
               "fallback": {"threshold": 0.5, "weak_threshold": 0.4, "knots": [[0.0, 0.5]]}}
    passage = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris."
    rows = [{"id": "named", "_file": "f", "answer": "The tower was designed by Gustave Flaubert.", "context": [passage],
             "hallucinated": True},
            {"id": "worded", "_file": "f", "answer": "The tower was built by a committee of engineers.",
             "context": [passage], "hallucinated": False}]
    named, worded = run_rows(LocalVerifier(calibration=lenient), rows, progress=False)
    assert named["profile"] == "short_summary" and named["score"] < 0.999 and named["contradiction"] is True
    assert named["label"] == "hallucinated"
    assert worded["contradiction"] is False and worded["label"] == "supported"
