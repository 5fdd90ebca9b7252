"""The role check (issue 37): what it catches, what it costs, against the verifier without it in the same run.

    HF_HUB_OFFLINE=1 python benchmarks/bench_roles.py [--threads 1] [--pairs .cache/training/meaning_pairs.jsonl]
        [--data ../shared/data] [--limit 300] [--latency-rows 150] [--json-out F]

Three parts, each run with ``LocalVerifier(roles=False)`` and ``LocalVerifier()`` (roles on, the default) side by
side, one torch thread unless ``--threads`` says otherwise:

1. **The hand-written adversarial set** (``benchmarks/adversarial/adversarial_dev.jsonl``), per kind: supported /
   flagged counts. Role swaps, entity swaps and misattached numbers are the kinds the check is for; the
   paraphrase kinds say what it costs.
2. **Swapped roles from the meaning data** (``--pairs``, built by ``python -m training.meaning_data``): the PAWS
   pairs of the validation groups (same words, other roles; label: supported or not), and generated swaps: each
   supported claim of the validation groups (PAWS, CAD-SNLI, FEVER, templates) with two of its names exchanged
   ("A acquired B" -> "B acquired A"), labelled unsupported, beside the original. AUROC and flag rates. The check
   is not trained: no part of these sets tuned it (it was written against the adversarial set's kinds).
3. **Latency**: for RAGTruth and HaluEval dev answers, the time the check adds per answer on first sight of its
   context (the parse cache emptied before each answer; embeddings cached, so only the check is measured): p50 and
   p90 of (roles on, cold parse cache) minus (roles off), per file.
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

SWAP_SOURCES = ("paws", "cad-snli", "fever", "templates")


def _auroc(labels: list[bool], scores: list[float]) -> float:
    from halguard.tools.metrics import auroc

    return round(auroc(labels, scores) or float("nan"), 4)


def swapped(claim: str) -> str | None:
    """``claim`` with its first two distinct names exchanged, or None when it has fewer than two."""
    from halguard.text.lexical import entity_mentions

    spans = []
    for s, e in entity_mentions(claim):
        if all(claim[s:e].lower() != claim[a:b].lower() for a, b in spans):
            spans.append((s, e))
        if len(spans) == 2:
            break
    if len(spans) < 2:
        return None
    (a, b), (c, d) = spans
    return claim[:a] + claim[c:d] + claim[b:c] + claim[a:b] + claim[d:]


def swap_rows(pairs: Path, limit: int, seed: int = 7) -> list[dict]:
    rows = [json.loads(line) for line in pairs.open(encoding="utf-8")]
    rows = [r for r in rows if r["split"] == "validation" and r["source"] in SWAP_SOURCES]
    out = [{"set": "paws", "premise": r["premise"], "claim": r["claim"], "label": r["label"] != "supported"}
           for r in rows if r["source"] == "paws"]
    for r in rows:
        if r["label"] == "supported":
            other = swapped(r["claim"])
            if other is not None:
                out.append({"set": "generated swaps", "premise": r["premise"], "claim": r["claim"], "label": False})
                out.append({"set": "generated swaps", "premise": r["premise"], "claim": other, "label": True})
    rng = random.Random(seed)
    by_set: dict[str, list[dict]] = {}
    for r in out:
        by_set.setdefault(r["set"], []).append(r)
    picked = []
    for name, part in sorted(by_set.items()):
        picked.extend(part if len(part) <= limit else rng.sample(part, limit))
    return picked


def run_pairs(verifiers: dict, rows: list[dict]) -> dict:
    result: dict = {}
    for name in sorted({r["set"] for r in rows}):
        part = [r for r in rows if r["set"] == name]
        labels = [r["label"] for r in part]
        entry: dict = {"rows": len(part), "unsupported": sum(labels)}
        for key, verifier in verifiers.items():
            verdicts = [verifier.verify(r["claim"], [r["premise"]]) for r in part]
            scores = [0.5 if v.score is None else v.score for v in verdicts]  # unverified: no ranking either way
            flagged = [v.label == "hallucinated" for v in verdicts]
            entry[key] = {"auroc": _auroc(labels, scores),
                          "unsupported_flagged": sum(f for f, y in zip(flagged, labels) if y),
                          "supported_flagged": sum(f for f, y in zip(flagged, labels) if not y)}
        result[name] = entry
    return result


def latency(on, off, rows: list[dict]) -> dict:
    from halguard.grounding.roles.parse import _frames

    added = []
    for r in rows:
        off.verify(r["answer"], r["context"], question=r.get("question"))  # embeddings cached for both
        t0 = time.perf_counter()
        off.verify(r["answer"], r["context"], question=r.get("question"))
        t1 = time.perf_counter()
        _frames.cache.clear()  # type: ignore[attr-defined]
        on.verify(r["answer"], r["context"], question=r.get("question"))
        t2 = time.perf_counter()
        added.append(((t2 - t1) - (t1 - t0)) * 1000)
    added.sort()
    return {"answers": len(added), "added_ms_p50": round(statistics.median(added), 1),
            "added_ms_p90": round(added[int(0.9 * (len(added) - 1))], 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--pairs", type=Path, default=ROOT / ".cache/training/meaning_pairs.jsonl")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--limit", type=int, default=300, help="rows per swapped-role set (seeded sample)")
    parser.add_argument("--latency-rows", type=int, default=150, help="answers per dev file for the latency")
    parser.add_argument("--json-out", type=Path, default=None)
    args = parser.parse_args(argv)

    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_adversarial import format_summary, load_rows, run, summarize
    from halguard import LocalVerifier

    torch.set_num_threads(args.threads)
    verifiers = {"roles off": LocalVerifier(num_threads=args.threads, roles=False),
                 "roles on": LocalVerifier(num_threads=args.threads)}
    for v in verifiers.values():
        v.warm_up()
    report: dict = {"threads": args.threads, "adversarial": {}}
    rows = load_rows()
    for key, verifier in verifiers.items():
        summary = summarize(run(verifier, rows))
        report["adversarial"][key] = summary
        print(f"## adversarial set, {key}\n\n{format_summary(summary)}\n")
    if args.pairs.is_file():
        report["swapped_roles"] = run_pairs(verifiers, swap_rows(args.pairs, args.limit))
        print("## swapped roles (meaning data, validation groups)\n")
        print(json.dumps(report["swapped_roles"], indent=2))
    report["latency"] = {}
    for name in ("halueval_qa_dev", "ragtruth_dev"):
        path = args.data / f"{name}.jsonl"
        if path.is_file():
            dev = [json.loads(line) for line in path.open(encoding="utf-8")][: args.latency_rows]
            report["latency"][name] = latency(verifiers["roles on"], verifiers["roles off"], dev)
    print("## latency added by the check (first sight of each context's sentences)\n")
    print(json.dumps(report["latency"], indent=2))
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
