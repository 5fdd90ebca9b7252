"""First-sight cost of a fresh context, by context size: the table of issue 17, rebuilt.

    python benchmarks/bench_fresh_context.py [--data ../shared/data] [--sizes 1 10 100] [--repeats 5]
        [--per-claim 8] [--threads 1]

Each measurement checks one RAGTruth QA dev answer against its own passages padded with passages of other dev
rows (RAGTruth and SummEdits, each used once in the whole run) up to the size in KB; the answer's passages sit in
the middle. Each variant has its own embedder and cache, so every check is its first sight of the context. "first"
is that check's wall time, "again" the same check repeated (everything cached). Variants, measured in the same run
on the same contexts, in rotating order:
``full`` embeds every chunk; ``k{N}`` embeds only the lexical pass's candidates (``candidates_per_claim=N``).
Medians over ``--repeats`` contexts per size; ratios are against ``full``. Torch threads: ``--threads``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from halguard import LocalVerifier
from halguard.grounding.embedding import LocalEmbedder, default_model_path


def passages(data: Path) -> tuple[list[dict], list[str]]:
    rows, pool = [], []
    for name in ("ragtruth_dev.jsonl", "summedits_dev.jsonl"):
        with open(data / name, encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                if name.startswith("ragtruth") and r["task_type"] == "QA":
                    rows.append(r)
                pool.extend(p for p in r["context"] if len(p) > 200)
    return rows, list(dict.fromkeys(pool))


def build(row: dict, pool: list[str], used: set[str], kb: int) -> list[str]:
    own = list(row["context"])
    padding, size = [], sum(len(p) for p in own)
    for p in pool:
        if size >= kb * 1000:
            break
        if p in used or p in own:
            continue
        used.add(p)
        padding.append(p)
        size += len(p)
    half = len(padding) // 2
    return padding[:half] + own + padding[half:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 100])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--per-claim", type=int, nargs="*", default=[8])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out")
    args = ap.parse_args()
    rows, pool = passages(Path(args.data))
    def make(per_claim: int | None) -> LocalVerifier:  # its own embedder: its own cache, so each first sight is one
        return LocalVerifier(embedder=LocalEmbedder(default_model_path()), num_threads=args.threads,
                             time_budget_s=None, candidates_per_claim=per_claim)

    variants = {"full": make(None), **{f"k{k}": make(k) for k in args.per_claim}}
    for v in variants.values():
        v.warm_up()
    used: set[str] = set()
    report = []
    for kb in args.sizes:
        first: dict[str, list[float]] = {n: [] for n in variants}
        again: dict[str, list[float]] = {n: [] for n in variants}
        same = 0
        for i in range(args.repeats):
            row = rows[(kb * 7 + i) % len(rows)]
            context = build(row, pool, used, kb)
            names = list(variants)
            order = names[i % len(names):] + names[:i % len(names)]
            labels = {}
            for n in order:
                t0 = time.perf_counter()
                verdict = variants[n].verify(row["answer"], context, question=row["question"])
                first[n].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                variants[n].verify(row["answer"], context, question=row["question"])
                again[n].append(time.perf_counter() - t0)
                labels[n] = verdict.label
            same += len(set(labels.values())) == 1
        entry = {"kb": kb, "repeats": args.repeats, "same_label_all_variants": same}
        for n in variants:
            entry[n] = {"first_s": round(statistics.median(first[n]), 3), "again_s": round(statistics.median(again[n]), 4),
                        "first_ratio_to_full": round(statistics.median(first[n]) / statistics.median(first["full"]), 3)}
        report.append(entry)
        print(json.dumps(entry), flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump({"threads": args.threads, "sizes": report}, fh, indent=1)


if __name__ == "__main__":
    main()
