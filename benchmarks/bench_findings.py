"""What the deterministic findings (halguard.grounding.findings) cost and catch on labelled rows.

    python benchmarks/bench_findings.py FILE [FILE ...] [--limit N]

The findings decide whether an LLM step's "supported" stands. Per file:

- ``faithful_with_finding``: the share of answers labelled faithful that have a finding, so that a perfect judge's
  correct "yes" would be overruled to hallucinated (the cost of the rule against an honest judge);
- ``hallucinated_with_finding``: the share of answers labelled hallucinated that have one, so that no judge, however
  it is steered, can pass them (what the rule guarantees against an obedient judge);
- ``unchecked``: answers the rules could not check (over the limits, the time budget);
- the median and p95 milliseconds per answer (the first answer, which loads the word tables, is left out).

No model runs. Single-threaded.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from halguard.grounding.findings import deterministic_findings


def load(path: str, limit: int | None) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    return rows[:limit] if limit else rows


def run(path: str, limit: int | None) -> dict:
    rows = load(path, limit)
    deterministic_findings("Warm-up in 2020.", ["The word tables load on the first call."])
    counts = {True: [0, 0], False: [0, 0]}  # label -> [answers, with a finding]
    unchecked, times = 0, []
    for r in rows:
        t0 = time.perf_counter()
        found = deterministic_findings(r["answer"], r["context"], question=r.get("question"))
        times.append((time.perf_counter() - t0) * 1000)
        unchecked += found.unchecked is not None
        counts[bool(r["hallucinated"])][0] += 1
        counts[bool(r["hallucinated"])][1] += bool(found.claims)
    times.sort()
    return {
        "file": path.rsplit("/", 1)[-1], "rows": len(rows),
        "faithful_with_finding": round(counts[False][1] / max(counts[False][0], 1), 4),
        "hallucinated_with_finding": round(counts[True][1] / max(counts[True][0], 1), 4),
        "faithful": counts[False][0], "hallucinated": counts[True][0], "unchecked": unchecked,
        "median_ms": round(statistics.median(times), 2), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    for path in args.files:
        print(json.dumps(run(path, args.limit)))


if __name__ == "__main__":
    main()
