"""Issue 48: audit, bench and calibrate read folders; a run that reads no rows says so and exits non-zero."""

from __future__ import annotations

import json
import os

import pytest

from halguard.tools.cli import main

ROWS = [{"id": f"r{i}", "question": "When was JWST launched?", "context": ["JWST was launched on 25 December 2021."],
         "answer": "JWST was launched on 25 December 2021." if i % 2 else "JWST was launched in 2019.",
         "hallucinated": not i % 2} for i in range(6)]


def _folder(tmp_path):
    logs = tmp_path / "logs"
    (logs / "2026" / "11").mkdir(parents=True)
    (logs / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS[:3]))
    (logs / "2026" / "11" / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS[3:]))
    (logs / "notes.txt").write_text("not an input")
    return logs


def test_audit_reads_a_folder_recursively_and_names_its_files(tmp_path, capsys, verifier):
    logs = _folder(tmp_path)
    assert main(["audit", str(logs), "--out", str(tmp_path / "audit"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "checked 6 answers" in out and "read 2 input files" in out
    assert out.index("11/b.jsonl") < out.index("logs/a.jsonl")  # a stable order: sorted by path


def test_audit_of_an_empty_folder_or_no_rows_exits_non_zero(tmp_path, capsys, verifier):
    (tmp_path / "empty").mkdir()
    assert main(["audit", str(tmp_path / "empty"), "--out", str(tmp_path / "o1"), "--quiet"]) == 2
    assert "no .jsonl" in capsys.readouterr().err
    (tmp_path / "blank.jsonl").write_text("\n\n")
    assert main(["audit", str(tmp_path / "blank.jsonl"), "--out", str(tmp_path / "o2"), "--quiet"]) == 2
    assert "read no rows" in capsys.readouterr().err


def test_bench_reads_a_folder_and_refuses_no_rows(tmp_path, capsys, verifier):
    logs = _folder(tmp_path)
    assert main(["bench", str(logs), "--quiet", "--json-out", str(tmp_path / "b.json")]) == 0
    report = json.loads((tmp_path / "b.json").read_text())
    assert sum(v.get("n", 0) for k, v in report.items() if isinstance(v, dict) and k.endswith(".jsonl")) == 6 or \
        "6" in json.dumps(report)
    (tmp_path / "blank.jsonl").write_text("")
    assert main(["bench", str(tmp_path / "blank.jsonl"), "--quiet"]) == 2
    assert "read no rows" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_an_out_under_a_symlinked_folder_is_refused_and_named(tmp_path, capsys, verifier):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(ROWS[0]) + "\n")
    (tmp_path / "real").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    assert main(["audit", str(src), "--out", str(tmp_path / "linked" / "audit"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"its folder {tmp_path / 'linked'} is a symlink" in err
    assert not list((tmp_path / "real").iterdir())  # nothing written through it
