import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # one fresh interpreter runs every script

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ["quickstart.py", "langchain_rag_guard.py", "llamaindex_query_engine.py", "paraphrase_sampling.py",
           "cited_answer_budget.py", "active_repair.py"]

# Each script runs as ``__main__`` with its own stdout, one after another in one fresh interpreter: torch,
# the frameworks and the model load once for all four instead of once per script (about 25 s saved).
RUNNER = """
import contextlib, io, json, runpy, sys, traceback
results = {}
for path in sys.argv[1:]:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name="__main__")
        results[path] = {"ok": True, "stdout": out.getvalue()}
    except BaseException:
        results[path] = {"ok": False, "stdout": out.getvalue(), "error": traceback.format_exc()}
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def cookbook_runs() -> dict[str, dict]:
    """Run every cookbook script offline (no provider keys, no network)."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "MISTRAL_API_KEY", "HALGUARD_LLM_URL")}
    paths = [str(ROOT / "cookbook" / name) for name in SCRIPTS]
    proc = subprocess.run([sys.executable, "-c", RUNNER, *paths], capture_output=True, text=True, timeout=600,
                          env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    return {Path(path).name: result for path, result in results.items()}


@pytest.fixture
def run_cookbook(cookbook_runs):
    def run(name: str) -> str:
        result = cookbook_runs[name]
        assert result["ok"], result.get("error")
        return result["stdout"]

    return run


def test_quickstart_prints_both_verdicts(run_cookbook):
    out = run_cookbook("quickstart.py")
    grounded, hallucinated = out.split("== hallucinated answer")
    assert "verdict: SUPPORTED" in grounded
    assert "verdict: HALLUCINATED" in hallucinated
    assert "'2019'" in hallucinated and "SpaceX" in hallucinated


def test_langchain_cookbook_runs_offline(run_cookbook):
    out = run_cookbook("langchain_rag_guard.py")
    assert "verdict: SUPPORTED" in out and "verdict: HALLUCINATED" in out
    assert "I can't answer that reliably" in out
    assert "hallucinated (risk" in out
    assert "verdicts after ainvoke: 1" in out  # an awaited run's verdict is there when the await returns
    agent = out.split("== an agent")[1]  # create_agent, the dict message form, a checkpointer thread
    assert "verdict: HALLUCINATED" in agent and "messages in the thread: 4" in agent


def test_llamaindex_cookbook_runs_offline(run_cookbook):
    out = run_cookbook("llamaindex_query_engine.py")
    first, rest = out.split("== second answer")
    assert "verdict: SUPPORTED" in first and "verdict: HALLUCINATED" in rest
    assert "streamed answer" in out and "query_support" in out
    assert "evaluator: passing=True" in out and "evaluator: passing=False" in out


def test_paraphrase_sampling_cookbook_runs_offline(run_cookbook):
    out = run_cookbook("paraphrase_sampling.py")
    verdicts = [line.split("=> ")[1].split(" ")[0] for line in out.splitlines() if "=> " in line]
    assert verdicts == ["DETECTED", "consistent", "DETECTED", "consistent"]


def test_cited_answer_budget_cookbook_runs_offline(run_cookbook):
    out = run_cookbook("cited_answer_budget.py")
    assert "verifier: scripted" in out
    assert "[2] FLAGGED It was built to find life on Mars [S1]." in out and "[0] ok" in out
    assert "flagged claims [2] of 3; 12 calls; probabilities: token-logprobs" in out
    assert "with the local verifier first: hallucinated; 0 of 3 claims went to the LLM (0 calls)" in out


def test_active_repair_cookbook_runs_offline(run_cookbook):
    out = run_cookbook("active_repair.py")
    assert "model: scripted" in out
    assert "[repaired] The Eiffel Tower was completed in 1889." in out
    assert "'1899': p=0.2 -> failed (Was the Eiffel Tower completed in 1899?, P(yes)=0.05)" in out
    assert "[confident] It was built by Gustave Eiffel's engineering company." in out  # generated on after the repair
    assert ("answer: The Eiffel Tower was completed in 1889. It was built by Gustave Eiffel's engineering company."
            in out)
    assert "verdict: supported; 1 generation + 4 extra calls" in out
    assert "after repair:  supported: The Eiffel Tower was completed in 1889." in out
    assert "rectified    'Why was the Eiffel Tower built in Berlin?' -> 'Where was the Eiffel Tower built?'" in out
    assert "true_premise 'When was the Eiffel Tower completed, and who built it?'" in out
