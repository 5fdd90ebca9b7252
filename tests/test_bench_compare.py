"""``halguard bench --compare``: several detectors over the same rows in one run, side by side.

The detectors here are fakes (no model loads); ``make_detector`` is monkeypatched so ``bench`` builds them.
"""

import json

import pytest

import halguard.tools.bench as bench_module
from halguard.detector import Detector
from halguard.errors import InvalidInputError
from halguard.schema import Verdict
from halguard.tools.bench import bench, make_detector, to_markdown
from halguard.detectors import DETECTORS
from halguard.tools.cli import _parser, main

ROWS = [
    {"id": "r1", "task_type": "QA", "question": "How tall?", "context": ["The tower is 330 metres tall."],
     "answer": "The tower is 330 metres tall.", "labels": [], "hallucinated": False},
    {"id": "r2", "task_type": "QA", "question": "How tall?", "context": ["The tower is 330 metres tall."],
     "answer": "The tower is 410 metres tall, a bad figure.", "labels": [{"start": 13, "end": 23}],
     "hallucinated": True},
    {"id": "r3", "task_type": "Summary", "question": "", "context": ["Paris hosted the 1889 fair."],
     "answer": "Paris hosted the fair.", "labels": [], "hallucinated": False},
    {"id": "r4", "task_type": "Summary", "question": "", "context": ["Paris hosted the 1889 fair."],
     "answer": "Rome hosted the fair, bad.", "labels": [], "hallucinated": True},
]


class Keyword(Detector):
    """Flags an answer holding ``word``; records the answers it was asked about."""

    def __init__(self, name: str, word: str) -> None:
        self.name = name
        self.word = word
        self.seen: list[str] = []

    def verify(self, answer, contexts, *, question=None):
        self.seen.append(answer)
        flagged = self.word in answer
        return Verdict(label="hallucinated" if flagged else "supported", hallucination_detected=flagged,
                       score=0.9 if flagged else 0.1, threshold=0.5, detector=self.name)


@pytest.fixture
def rows_file(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


@pytest.fixture
def fakes(monkeypatch):
    """``local`` and ``naive`` (and ``local-meaning``, named like ``local``) as fakes; the built ones, by name."""
    built: dict[str, Keyword] = {}
    recipes = {"local": ("fake-local", "bad"), "naive": ("fake-naive", "Rome"), "local-meaning": ("fake-local", "410")}

    def fake_make_detector(name, threshold=None, *, llm_url=None, llm_model=None):
        built[name] = Keyword(*recipes[name])
        return built[name]

    monkeypatch.setattr(bench_module, "make_detector", fake_make_detector)
    return built


def test_compare_runs_every_detector_over_the_same_rows(rows_file, fakes):
    got: dict[str, list] = {}
    report, preds = bench([rows_file], detector="local", compare=["naive"], progress=False, compared_preds=got)
    assert report["detector"] == "fake-local"  # the main report's keys are as they were
    assert set(report) >= {"overall", "by_task", "by_file", "span_f1", "latency_ms", "peak_rss_mb"}
    assert list(report["compared"]) == ["fake-naive"]
    other = report["compared"]["fake-naive"]
    assert other["detector"] == "fake-naive" and other["overall"]["n"] == report["overall"]["n"] == 4
    assert fakes["local"].seen == fakes["naive"].seen == [r["answer"] for r in ROWS]
    # Each detector's own figures: "bad" flags both hallucinated rows, "Rome" only the summary's.
    assert report["overall"]["f1"] == 1.0 and other["overall"]["recall"] == 0.5
    assert [p["id"] for p in preds] == [p["id"] for p in got["fake-naive"]] == ["r1", "r2", "r3", "r4"]
    assert [p["label"] for p in got["fake-naive"]] == ["supported", "supported", "supported", "hallucinated"]

    md = to_markdown(report)
    section = md[md.index("## Side by side (same rows, one run)"):]
    assert md.index("# halguard bench — fake-local") < md.index("## Side by side")  # after the existing tables
    assert "fake-local AUROC | F1 | bal. acc | p50 ms | fake-naive AUROC | F1 | bal. acc | p50 ms |" in section
    assert section.index("fake-local") < section.index("fake-naive")  # the main detector first
    assert "| overall | 4 | 1.000 | 1.000 | 1.000 |" in section
    assert "| rows.jsonl / QA | 2 |" in section and "| rows.jsonl / Summary | 2 |" in section
    assert "- `fake-local` (main): span F1" in section and "- `fake-naive`: span F1" in section
    assert "process-wide" in section


def test_without_compare_the_report_has_no_side_by_side(rows_file, fakes):
    report, _ = bench([rows_file], detector="local", progress=False)
    assert report["compared"] == {} and list(fakes) == ["local"]
    assert "Side by side" not in to_markdown(report)


def test_a_shared_name_gets_the_cli_name_and_a_repeat_is_refused(rows_file, fakes):
    report, _ = bench([rows_file], detector="local", compare=["local-meaning", "naive"], progress=False)
    assert list(report["compared"]) == ["fake-local (local-meaning)", "fake-naive"]
    assert report["compared"]["fake-local (local-meaning)"]["detector"] == "fake-local (local-meaning)"
    assert "fake-local (local-meaning) AUROC" in to_markdown(report)
    with pytest.raises(InvalidInputError, match="each detector runs once"):
        bench([rows_file], detector="local", compare=["local"], progress=False)
    with pytest.raises(InvalidInputError, match="naive"):
        bench([rows_file], detector="local", compare=["naive", "naive"], progress=False)


def test_cli_parses_repeated_compare_and_writes_the_compared_rows(rows_file, fakes, tmp_path, capsys):
    args = _parser().parse_args(["bench", str(rows_file), "--compare", "local-meaning", "--compare", "naive"])
    assert args.compare == ["local-meaning", "naive"] and args.detector == "local"
    assert _parser().parse_args(["bench", str(rows_file)]).compare is None
    assert "local-meaning" in DETECTORS

    out_json, out_rows, out_cmp = tmp_path / "r.json", tmp_path / "rows.jsonl", tmp_path / "cmp.jsonl"
    assert main(["bench", str(rows_file), "--compare", "naive", "--json-out", str(out_json), "--jsonl-out",
                 str(out_rows), "--compare-jsonl-out", str(out_cmp), "--quiet"]) == 0
    assert "## Side by side (same rows, one run)" in capsys.readouterr().out
    report = json.loads(out_json.read_text())
    assert report["compared"]["fake-naive"]["overall"]["n"] == 4
    main_rows = [json.loads(line) for line in out_rows.read_text().splitlines()]
    assert len(main_rows) == 4 and all("detector" not in r for r in main_rows)  # --jsonl-out as before
    cmp_rows = [json.loads(line) for line in out_cmp.read_text().splitlines()]
    assert [(r["detector"], r["id"]) for r in cmp_rows] == [("fake-naive", f"r{i}") for i in range(1, 5)]


def test_cli_refuses_compare_rows_without_compare_and_an_unknown_name(rows_file, fakes, tmp_path, capsys):
    assert main(["bench", str(rows_file), "--compare-jsonl-out", str(tmp_path / "c.jsonl"), "--quiet"]) == 2
    assert "needs at least one --compare" in capsys.readouterr().err and not fakes  # refused before any run
    with pytest.raises(SystemExit) as exit_info:
        _parser().parse_args(["bench", str(rows_file), "--compare", "nope"])
    assert exit_info.value.code == 2


def test_local_meaning_is_the_local_verifier_with_its_claim_checker():
    from halguard.grounding.verifier import LocalVerifier

    meaning, rules = make_detector("local-meaning", 0.6), make_detector("local")
    assert isinstance(meaning, LocalVerifier) and meaning.meaning is True and meaning.claim_checker is not None
    assert meaning.threshold == 0.6
    assert isinstance(rules, LocalVerifier) and rules.meaning is False and rules.claim_checker is None
