"""Issue 48: `halguard check` reads rows (a JSONL file, a .json file, stdin, one JSON object) as bench and audit
do, one verdict per row, its exit code saying whether any was flagged."""

from __future__ import annotations

import io
import json

import pytest

from halguard.tools.cli import main

CONTEXT = "JWST was launched on 25 December 2021 on an Ariane 5 rocket."
GOOD = {"id": "good", "question": "When was JWST launched?", "context": [CONTEXT],
        "answer": "JWST was launched on 25 December 2021."}
BAD = {"id": "bad", "question": "When was JWST launched?", "contexts": [{"id": "doc", "text": CONTEXT}],
       "answer": "JWST was launched in 2019 on a Falcon Heavy."}


def _lines(out):
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_a_jsonl_file_gives_one_verdict_per_row_and_the_exit_code_says_any_flagged(tmp_path, capsys, verifier):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(GOOD) + "\n" + json.dumps(BAD) + "\n")
    assert main(["check", str(rows), "--format", "jsonl"]) == 1
    got = _lines(capsys.readouterr().out)
    assert [(g["id"], g["verdict"]["label"]) for g in got] == [("good", "supported"), ("bad", "hallucinated")]
    rows.write_text(json.dumps(GOOD) + "\n")
    assert main(["check", str(rows), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["verdict"]["label"] == "supported"


def test_stdin_an_object_and_a_json_list(tmp_path, capsys, monkeypatch, verifier):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((json.dumps(BAD) + "\n").encode())))
    assert main(["check", "-", "--format", "jsonl"]) == 1
    assert _lines(capsys.readouterr().out)[0]["verdict"]["label"] == "hallucinated"
    assert main(["check", json.dumps(GOOD), "--format", "table"]) == 0
    assert "== good" in capsys.readouterr().out
    listed = tmp_path / "rows.json"
    listed.write_text(json.dumps([GOOD, GOOD], indent=2))
    assert main(["check", str(listed), "--format", "jsonl"]) == 0
    assert len(_lines(capsys.readouterr().out)) == 2


@pytest.mark.parametrize(("argv", "said"), [
    (["check"], "either --answer"),
    (["check", "x.jsonl", "--answer", "a"], "either --answer"),
    (["check", "{\"answer\": \"a\"}", "--question", "q"], "rows carry their own"),
    (["check", "no-such-file.jsonl"], "no such file"),
])
def test_bad_invocations_are_named(capsys, verifier, argv, said):
    assert main(argv) == 2
    assert said in capsys.readouterr().err


def test_an_unreadable_row_names_its_line(tmp_path, capsys, verifier):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(GOOD) + "\nnot json\n")
    assert main(["check", str(rows)]) == 2
    assert ":2: not JSON" in capsys.readouterr().err


def test_a_folder_of_rows_is_read_file_by_file(tmp_path, capsys, verifier):
    (tmp_path / "rows" / "more").mkdir(parents=True)
    (tmp_path / "rows" / "a.jsonl").write_text(json.dumps(GOOD) + "\n")
    (tmp_path / "rows" / "more" / "b.jsonl").write_text(json.dumps(BAD) + "\n")
    assert main(["check", str(tmp_path / "rows"), "--format", "jsonl"]) == 1
    assert [g["id"] for g in _lines(capsys.readouterr().out)] == ["good", "bad"]

