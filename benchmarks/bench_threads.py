"""How many torch threads a guard should use: LocalVerifier latency with 1, 2 and all cores, idle and loaded.

    python benchmarks/bench_threads.py ../shared/data/ragtruth_dev.jsonl ../shared/data/halueval_qa_dev.jsonl \
        [--limit 60] [--repeats 3]

For each file, the first ``--limit`` rows are checked once per setting (``num_threads`` = 1, 2, and None =
torch's default, which is every core), with the embedding cache emptied before each pass so every context is
seen for the first time, as in a RAG app. The settings take turns, ``--repeats`` times each, and the
per-answer median of each setting's fastest pass is reported with its ratio to torch's default. "Loaded" runs
the same while ``--busy`` processes (default: one per core) spin on the CPU, as other requests of a busy
server would. The model loads before timing.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import time

from halguard import LocalVerifier
from halguard.grounding.embedding import LocalEmbedder

SETTINGS: list[tuple[str, int | None]] = [("1 thread", 1), ("2 threads", 2), ("torch default", None)]


def load(path: str, limit: int) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            rows.append(json.loads(line))
            if len(rows) >= limit:
                break
    return rows


def spin(stop: mp.Event) -> None:  # type: ignore[valid-type]
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x = (x * 31 + 7) % 1_000_003


def one_pass(verifier: LocalVerifier, rows: list[dict]) -> float:
    """Median seconds per answer, every context seen for the first time."""
    verifier.embedder._cache.clear()  # noqa: SLF001 - a benchmark of first sight
    times = []
    for row in rows:
        question = None if row.get("question_is_generic_instruction") else row.get("question")
        t0 = time.perf_counter()
        verifier.verify(row["answer"], row["context"], question=question)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(rows: list[dict], repeats: int) -> dict[str, float]:
    embedder = LocalEmbedder.shared()
    verifiers = {name: LocalVerifier(num_threads=n, embedder=embedder) for name, n in SETTINGS}
    verifiers["1 thread"].warm_up()
    best: dict[str, float] = {name: float("inf") for name in verifiers}
    for _ in range(repeats):
        for name, verifier in verifiers.items():
            best[name] = min(best[name], one_pass(verifier, rows))
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--limit", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--busy", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    import torch

    print(f"cores: {os.cpu_count()}, torch default threads: {torch.get_num_threads()}, busy processes when loaded: "
          f"{args.busy}")
    for path in args.paths:
        rows = load(path, args.limit)
        for state in ("idle", "loaded"):
            stop = mp.Event()
            workers = [mp.Process(target=spin, args=(stop,)) for _ in range(args.busy if state == "loaded" else 0)]
            for w in workers:
                w.start()
            try:
                best = measure(rows, args.repeats)
            finally:
                stop.set()
                for w in workers:
                    w.join()
            base = best["torch default"]
            cells = ", ".join(f"{name} {best[name] * 1000:.0f} ms ({best[name] / base:.2f})" for name in best)
            print(f"{os.path.basename(path)} ({len(rows)} rows), {state}: p50 per answer: {cells}")


if __name__ == "__main__":
    main()
