"""Throughput of ``halguard audit`` (issue 19): the in-process engine against Ray Data in local mode, on the same
5,000 development rows, in one run.

    python benchmarks/bench_audit_scale.py --data ../shared/data [--rows 5000] [--actors 2] [--out report.json]

The rows: every HaluEval QA dev row (4,000), then RAGTruth (525), then SummEdits up to ``--rows``, written to one
JSONL file. Each engine audits it into a fresh folder (the local model's embedding cache starts cold in every
process, so both pay the same first sight of each context). The local verifier encodes with one torch thread per
process (its default); Ray runs ``--actors`` actors, one detector each. Reported: wall time and rows/s per engine,
the ratio, peak RSS per process (from the rows' worker columns), and the CPU-seconds per row that the 10 M
estimate in docs/evaluation.md is built from.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from halguard.audit import audit


def build_rows(data: Path, n: int, path: Path) -> int:
    written = 0
    with path.open("w", encoding="utf-8") as out:
        for name in ("halueval_qa_dev.jsonl", "ragtruth_dev.jsonl", "summedits_dev.jsonl"):
            with (data / name).open(encoding="utf-8") as fh:
                for line in fh:
                    if written >= n:
                        return written
                    out.write(line)
                    written += 1
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--actors", type=int, default=2)
    ap.add_argument("--out")
    args = ap.parse_args()
    report: dict = {"torch_threads_per_process": 1}
    with tempfile.TemporaryDirectory() as tmp:
        rows = Path(tmp) / "rows.jsonl"
        report["rows"] = build_rows(Path(args.data), args.rows, rows)
        for engine in ("local", "ray"):
            t0 = time.perf_counter()
            result = audit([rows], Path(tmp) / engine, engine=engine, num_actors=args.actors if engine == "ray" else None,
                           progress=False)
            wall = time.perf_counter() - t0
            workers = result.summary["workers"]
            report[engine] = {"checked": result.checked, "wall_s": round(wall, 1),
                              "rows_per_s": round(result.checked / wall, 2),
                              "processes": len(workers),
                              "peak_rss_mb_per_process": sorted(w["peak_rss_mb"] for w in workers.values()),
                              "hallucinated": result.summary["hallucinated"],
                              "unverified": result.summary["unverified"]}
            print(engine, json.dumps(report[engine]), flush=True)
    local, ray = report["local"], report["ray"]
    report["ray_over_local_rows_per_s"] = round(ray["rows_per_s"] / local["rows_per_s"], 3)
    # One process checks local["rows_per_s"] rows a second on one core: CPU-seconds per row.
    report["cpu_s_per_row"] = round(1 / local["rows_per_s"], 4)
    print(json.dumps({k: v for k, v in report.items() if k not in ("local", "ray")}), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
