"""The meaning model on the held-out part of the meaning sets, per set, against the rules in the same run.

    HF_HUB_OFFLINE=1 python benchmarks/bench_meaning_model.py .cache/training/meaning_pairs.jsonl \
        [--weights halguard/grounding/meaning/weights] [--threads 1] [--limit 400] [--json-out F]

Reads the ``validation`` rows of ``training/meaning_data.py``'s pairs (groups never trained on) and scores each
(premise, claim) pair three ways: the claim checker alone (P(unsupported) from the weights in ``--weights``), the
default rules (``LocalVerifier()``, the claim checked against the premise as its only context), and the verifier
with the checker beside the rules (``LocalVerifier(meaning=True)``). Per set: AUROC (unsupported is positive) and
balanced accuracy (the checker at even odds, the verifiers at their own labels), and the checker's median ms per
pair. ``--limit``: at most this many rows per set (seeded sample).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _auroc(labels: list[bool], scores: list[float]) -> float:
    from halguard.tools.metrics import auroc

    return auroc(labels, scores) or float("nan")


def _balanced(labels: list[bool], flagged: list[bool]) -> float:
    pos = [f for y, f in zip(labels, flagged) if y]
    neg = [not f for y, f in zip(labels, flagged) if not y]
    parts = [sum(p) / len(p) for p in (pos, neg) if p]
    return sum(parts) / len(parts) if parts else float("nan")


def sample(rows: list[dict], limit: int | None, seed: int = 7) -> list[dict]:
    by_set: dict[str, list[dict]] = {}
    for row in rows:
        by_set.setdefault(row["source"], []).append(row)
    rng = random.Random(seed)
    out = []
    for name in sorted(by_set):
        part = by_set[name]
        out.extend(part if limit is None or len(part) <= limit else rng.sample(part, limit))
    return out


def run(rows: list[dict], weights: Path, threads: int, with_rules: bool) -> dict:
    import torch

    from halguard import LocalVerifier
    from halguard.grounding.meaning import ClaimChecker

    torch.set_num_threads(threads)
    checker = ClaimChecker(weights)
    checker.warm_up()
    results: dict[str, dict] = {}
    detectors = {}
    if with_rules:
        detectors["rules"] = LocalVerifier(num_threads=threads, time_budget_s=None)
        meaning = LocalVerifier(num_threads=threads, time_budget_s=None, meaning=True)
        meaning.claim_checker = checker
        detectors["rules+model"] = meaning
        for d in detectors.values():
            d.warm_up()
    for name in sorted({r["source"] for r in rows}):
        part = [r for r in rows if r["source"] == name]
        labels = [r["label"] != "supported" for r in part]
        risks, times = [], []
        for r in part:
            started = time.perf_counter()
            risks.append(checker.score([r["premise"]], [r["claim"]], num_threads=threads)[0].risk)
            times.append((time.perf_counter() - started) * 1000)
        entry = {"rows": len(part), "unsupported": sum(labels),
                 "model": {"auroc": round(_auroc(labels, risks), 4),
                           "balanced_accuracy": round(_balanced(labels, [x >= 0.5 for x in risks]), 4)},
                 "model_ms_p50": round(statistics.median(times), 1)}
        for key, detector in detectors.items():
            verdicts = [detector.verify(r["claim"], [r["premise"]]) for r in part]
            # An unverified verdict has no score: it ranks in the middle, and counts as flagged (not passed).
            entry[key] = {"auroc": round(_auroc(labels, [0.5 if v.score is None else v.score for v in verdicts]), 4),
                          "balanced_accuracy": round(_balanced(labels, [v.label != "supported" for v in verdicts]), 4),
                          "unverified": sum(v.label == "unverified" for v in verdicts)}
        results[name] = entry
        print(name, json.dumps(entry), flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pairs", type=Path)
    parser.add_argument("--weights", type=Path, default=ROOT / "halguard" / "grounding" / "meaning" / "weights")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--limit", type=int, default=None, help="rows per set (seeded sample)")
    parser.add_argument("--no-rules", action="store_true", help="the checker alone (fast)")
    parser.add_argument("--sets", nargs="*", default=None, help="only these sets")
    parser.add_argument("--json-out", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.pairs.open(encoding="utf-8") if line.strip()]
    rows = sample([r for r in rows if r["split"] == "validation" and (not args.sets or r["source"] in args.sets)],
                  args.limit)
    report = {"weights": str(args.weights), "threads": args.threads,
              "sets": run(rows, args.weights, args.threads, not args.no_rules)}
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
