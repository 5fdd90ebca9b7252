import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_cookbook(name: str) -> str:
    """Run a cookbook script offline (no provider keys) and return its stdout."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "MISTRAL_API_KEY")}
    proc = subprocess.run([sys.executable, str(ROOT / "cookbook" / name)], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_quickstart_prints_both_verdicts():
    out = run_cookbook("quickstart.py")
    grounded, hallucinated = out.split("== hallucinated answer")
    assert "verdict: SUPPORTED" in grounded
    assert "verdict: HALLUCINATED" in hallucinated
    assert "'2019'" in hallucinated and "SpaceX" in hallucinated


def test_langchain_cookbook_runs_offline():
    out = run_cookbook("langchain_rag_guard.py")
    assert "verdict: SUPPORTED" in out and "verdict: HALLUCINATED" in out
    assert "I can't answer that reliably" in out
    assert "hallucinated (risk" in out


def test_llamaindex_cookbook_runs_offline():
    out = run_cookbook("llamaindex_query_engine.py")
    first, rest = out.split("== second answer")
    assert "verdict: SUPPORTED" in first and "verdict: HALLUCINATED" in rest
    assert "streamed answer" in out and "query_support" in out
    assert "evaluator: passing=True" in out and "evaluator: passing=False" in out


def test_paraphrase_sampling_cookbook_runs_offline():
    out = run_cookbook("paraphrase_sampling.py")
    verdicts = [line.split("=> ")[1].split(" ")[0] for line in out.splitlines() if "=> " in line]
    assert verdicts == ["DETECTED", "consistent", "DETECTED", "consistent"]
