import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_quickstart_prints_both_verdicts():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "cookbook" / "quickstart.py")], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    grounded, hallucinated = out.split("== hallucinated answer")
    assert "verdict: SUPPORTED" in grounded
    assert "verdict: HALLUCINATED" in hallucinated
    assert "'2019'" in hallucinated and "SpaceX" in hallucinated


def test_langchain_cookbook_runs_offline():
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "MISTRAL_API_KEY")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "cookbook" / "langchain_rag_guard.py")],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "verdict: SUPPORTED" in out and "verdict: HALLUCINATED" in out
    assert "I can't answer that reliably" in out
    assert "hallucinated (risk" in out


def test_llamaindex_cookbook_runs_offline():
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "MISTRAL_API_KEY")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "cookbook" / "llamaindex_query_engine.py")],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    first, rest = out.split("== second answer")
    assert "verdict: SUPPORTED" in first and "verdict: HALLUCINATED" in rest
    assert "streamed answer" in out and "query_support" in out
    assert "evaluator: passing=True" in out and "evaluator: passing=False" in out


def test_paraphrase_sampling_cookbook_runs_offline():
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "MISTRAL_API_KEY")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "cookbook" / "paraphrase_sampling.py")],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    verdicts = [line.split("=> ")[1].split(" ")[0] for line in proc.stdout.splitlines() if "=> " in line]
    assert verdicts == ["DETECTED", "consistent", "DETECTED", "consistent"]
