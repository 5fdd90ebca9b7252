"""What HalguardMiddleware adds to an agent run beyond the check itself.

    python benchmarks/bench_middleware.py [--data ../shared/data] [--rows 20] [--repeats 5] [--threads 1]

Each RAGTruth QA dev row is one ``create_agent`` run with a scripted chat model: it calls a search tool that
returns the row's passages, then answers with the row's answer. Per row, in rotating order, medians of
``--repeats``: the agent alone (``plain``), the agent with ``HalguardMiddleware()`` (``guarded``), and the check
alone (``LocalVerifier.verify`` of the same answer against the same tool text, as the middleware calls it). The
context is encoded once before the row's timings (every variant sees it cached), so ``guarded - plain - check``
is the middleware's own cost: reading the state, the request, the core's policy, the state update, the extra
graph node and the verdict event. Torch threads: ``--threads`` (default 1).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from halguard import LocalVerifier
from langchain_halguard import HalguardMiddleware


class ToolCallingFake(FakeMessagesListChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def agent(row: dict, middleware: list[Any]) -> Any:
    passages = "\n\n".join(row["context"])

    @tool
    def search(query: str) -> str:
        """Search the documents."""
        return passages

    script = [AIMessage(content="", tool_calls=[{"name": "search", "args": {"query": row["question"]}, "id": "c1"}]),
              AIMessage(content=row["answer"])]
    return create_agent(ToolCallingFake(responses=script), tools=[search], middleware=middleware)


def timed(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--rows", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    rows = [r for r in map(json.loads, open(Path(args.data) / "ragtruth_dev.jsonl", encoding="utf-8"))
            if r["task_type"] == "QA"][: args.rows]
    verifier = LocalVerifier()
    verifier.warm_up()
    middleware = HalguardMiddleware(detector=verifier)
    plain_ms, guarded_ms, check_ms, overhead_ms = [], [], [], []
    for row in rows:
        user = {"messages": [{"role": "user", "content": row["question"]}]}
        tool_text = [("c1", "\n\n".join(row["context"]))]
        verifier.verify(row["answer"], tool_text, question=row["question"])  # encode the context once
        times: dict[str, list[float]] = {"plain": [], "guarded": [], "check": []}
        for i in range(args.repeats):
            runs = {
                "plain": lambda: agent(row, []).invoke(user),
                "guarded": lambda: agent(row, [middleware]).invoke(user),
                "check": lambda: verifier.verify(row["answer"], tool_text, question=row["question"]),
            }
            names = list(runs)
            for name in names[i % 3:] + names[: i % 3]:  # rotating order
                times[name].append(timed(runs[name]) * 1000)
        p, g, c = (statistics.median(times[k]) for k in ("plain", "guarded", "check"))
        plain_ms.append(p)
        guarded_ms.append(g)
        check_ms.append(c)
        overhead_ms.append(g - p - c)
    med = statistics.median
    print(json.dumps({
        "rows": len(rows), "repeats": args.repeats, "torch_threads": args.threads,
        "plain_agent_ms_median": round(med(plain_ms), 1), "guarded_agent_ms_median": round(med(guarded_ms), 1),
        "check_ms_median": round(med(check_ms), 1),
        "middleware_overhead_ms_median": round(med(overhead_ms), 1),
        "middleware_overhead_ms_max": round(max(overhead_ms), 1),
    }, indent=1))


if __name__ == "__main__":
    main()
