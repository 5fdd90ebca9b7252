import io
import json
import subprocess
import sys

import pytest

from halguard.tools.cli import main

CONTEXT = "The Eiffel Tower is 330 metres tall. It was completed in 1889."


def _run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_supported_exits_zero_with_json(capsys, verifier):
    code, out, _ = _run(capsys, "check", "--answer", "The Eiffel Tower is 330 metres tall.", "--context", CONTEXT)
    assert code == 0
    data = json.loads(out)
    assert data["label"] == "supported"
    assert data["claims"][0]["evidence"][0]["source_id"] == "context-0"


def test_hallucinated_exits_one_with_table(capsys, verifier):
    code, out, _ = _run(
        capsys, "check", "--answer", "The Eiffel Tower is 410 metres tall.", "--context", CONTEXT, "--format", "table"
    )
    assert code == 1
    assert "HALLUCINATED" in out
    assert "CONTRADICTION" in out
    assert "'410'" in out


def test_unverified_exits_two(capsys, verifier):
    code, out, _ = _run(capsys, "check", "--answer", "The Eiffel Tower is tall.")
    assert code == 2
    assert json.loads(out)["errors"][0]["code"] == "no_context"


def test_answer_from_stdin_and_context_file(capsys, monkeypatch, tmp_path, verifier):
    ctx = tmp_path / "ctx.txt"
    ctx.write_text(CONTEXT, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("The Eiffel Tower was completed in 1889."))
    code, out, _ = _run(capsys, "check", "--answer", "-", "--context-file", str(ctx), "--question", "When?")
    assert code == 0
    assert json.loads(out)["claims"][0]["evidence"][0]["source_id"] == str(ctx)


def test_bad_input_exits_two(capsys, tmp_path):
    code, _, err = _run(capsys, "check", "--answer", "x", "--context-file", str(tmp_path / "missing.txt"))
    assert code == 2
    assert "cannot read context file" in err
    assert main(["check"]) == 2  # neither --answer nor rows
    assert "either --answer" in capsys.readouterr().err


@pytest.mark.slow  # a fresh interpreter
def test_console_script_runs_as_module():
    proc = subprocess.run(
        [sys.executable, "-m", "halguard", "check", "--answer", "The Eiffel Tower is 330 metres tall.",
         "--context", CONTEXT, "--format", "table"],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "SUPPORTED" in proc.stdout
