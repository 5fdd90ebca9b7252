"""Latency of the per-shape operating points and probabilities (issue 18): p50 per QA answer with the shipped
calibration against ``calibration=None`` (one threshold, no probability: the scoring path before), in one run.

    python benchmarks/bench_calibration_latency.py --data ../shared/data [--rows 300] [--rounds 3]

Both verifiers share one embedder (so one embedding cache): each row is checked once by each, in alternating order,
``--rounds`` times after a warm-up pass, so both see the same warm cache and the same machine noise. torch runs one
thread per encode (the verifier's default, ``num_threads=1``). Also timed apart: the work calibration adds per
answer (the shape and the probability), in microseconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import torch

from halguard import LocalVerifier
from halguard.grounding.calibration import Calibration
from halguard.grounding.profile import answer_profile


def qa_rows(data: Path, n: int) -> list[dict]:
    rows = []
    for name in ("halueval_qa_dev.jsonl", "ragtruth_dev.jsonl"):
        with (data / name).open(encoding="utf-8") as fh:
            taken = 0
            for line in fh:
                r = json.loads(line)
                if r["task_type"] == "QA" and taken < n // 2:
                    rows.append(r)
                    taken += 1
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    torch.set_num_threads(1)
    rows = qa_rows(Path(args.data), args.rows)
    calibrated = LocalVerifier()
    before = LocalVerifier(calibration=None, embedder=calibrated.embedder)
    calibrated.warm_up()
    for r in rows:  # warm-up: every context embedded once, so both variants are timed on a warm cache
        calibrated.verify(r["answer"], r["context"], question=r["question"])
    times: dict[str, list[float]] = {"calibrated": [], "calibration=None": []}
    for k in range(args.rounds):
        for i, r in enumerate(rows):
            order = [("calibrated", calibrated), ("calibration=None", before)]
            if (i + k) % 2:
                order.reverse()
            for name, verifier in order:
                t0 = time.perf_counter()
                verifier.verify(r["answer"], r["context"], question=r["question"])
                times[name].append((time.perf_counter() - t0) * 1000)
    p50 = {k: statistics.median(v) for k, v in times.items()}
    cal = Calibration.default()
    t0 = time.perf_counter()
    for r in rows:
        # The sentence count comes from the check's own split, as in the verifier (re-splitting is not part of it).
        cal.for_profile(answer_profile(r["answer"], r["context"], question=r["question"], sentences=2)).probability(0.42)
    extra_us = (time.perf_counter() - t0) / len(rows) * 1e6
    print(json.dumps({"rows": len(rows), "rounds": args.rounds, "torch_threads": 1,
                      "p50_ms": {k: round(v, 2) for k, v in p50.items()},
                      "ratio_calibrated_over_before": round(p50["calibrated"] / p50["calibration=None"], 3),
                      "shape_and_probability_us_per_answer": round(extra_us, 1)}, indent=1))


if __name__ == "__main__":
    main()
