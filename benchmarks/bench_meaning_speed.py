"""The claim checker's cost per pair on one thread: fp32 against the int8 network that ships, and how far apart
their P(unsupported) are.

    HF_HUB_OFFLINE=1 python benchmarks/bench_meaning_speed.py [--threads 1] [--pairs 60] [--repeats 5]

Pairs are the hand-written adversarial set's (context, answer): realistic lengths, and no development data. Each
pair is scored alone (batch of one, as a one-claim answer is), ``--repeats`` times; the report gives the median
and p95 per pair for both networks, their ratio (int8 / fp32, same run), and the largest and median absolute
difference of P(unsupported).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_adversarial  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--pairs", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)

    import torch

    from halguard.grounding.meaning.checker import ClaimChecker
    from halguard.grounding.meaning.evidence import MAX_PREMISE_CHARS
    from halguard.grounding.meaning.network import encode_pairs, unsupported_risk

    torch.set_num_threads(args.threads)
    checker = ClaimChecker()
    scorer = checker._load()  # the generic entailment scorer, holding the int8 model
    int8, tokenizer = scorer.model.network, scorer.tokenizer
    fp32 = checker._read_fp32()
    rows = bench_adversarial.load_rows()[: args.pairs]
    pairs = [(" ".join(r["context"])[:MAX_PREMISE_CHARS], r["answer"]) for r in rows]
    times: dict[str, list[float]] = {"fp32": [], "int8": []}
    risks: dict[str, list[float]] = {"fp32": [], "int8": []}
    with torch.inference_mode():
        for premise, claim in pairs:
            enc = encode_pairs(tokenizer, [premise], [claim])
            for name, network in (("fp32", fp32), ("int8", int8)):
                network(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"], enc["claim_mask"])  # warm
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    logits, _ = network(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"],
                                        enc["claim_mask"])
                    times[name].append((time.perf_counter() - t0) * 1000)
                risks[name].append(float(unsupported_risk(logits)[0]))  # either head shape
    diffs = [abs(a - b) for a, b in zip(risks["fp32"], risks["int8"])]
    report = {"threads": args.threads, "pairs": len(pairs), "repeats": args.repeats}
    for name, values in times.items():
        ordered = sorted(values)
        report[f"{name}_p50_ms"] = round(statistics.median(values), 2)
        report[f"{name}_p95_ms"] = round(ordered[int(0.95 * (len(ordered) - 1))], 2)
    report["int8_over_fp32"] = round(report["int8_p50_ms"] / report["fp32_p50_ms"], 3)
    report["risk_abs_diff_max"] = round(max(diffs), 4)
    report["risk_abs_diff_median"] = round(statistics.median(diffs), 4)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
