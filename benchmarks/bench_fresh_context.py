"""First-sight cost of a fresh context, by context size and shape (issues 17 and 29).

    python benchmarks/bench_fresh_context.py [--data ../shared/data] [--sizes 10 30 100] [--repeats 5]
        [--shapes padded sentences sentences-list] [--per-claim 8] [--threads 1] [--skip-full]
        [--first-after-warm-up]

Shapes (every context is seen once in the whole run, so every check is its first sight of it):

- ``padded``: one RAGTruth QA dev answer against its own passages, padded with passages of other dev rows
  (RAGTruth and SummEdits, each used once) up to the size; the answer's passages sit in the middle.
- ``sentences`` / ``sentences-list``: what a retriever over many documents returns: sentences of the RAGTruth
  Summary contexts, shuffled, each with a short reference tag (``[12] ...``), up to the size, joined into one
  string (``sentences``) or as a list (``sentences-list``); the answer is two sentences about a company ("The
  company reported revenue of 5 billion dollars in 2019. Its chief executive resigned in March."), with words
  most contexts share with no chunk (issue 29's shape).

Variants, on the same contexts in rotating order, each with its own embedder and cache: ``full`` embeds every
chunk; ``k{N}`` embeds only the candidates of the lexical pass (``candidates_per_claim=N``), a claim sharing no
word with the context getting the chunks closest by the model's word vectors. "first" is the first check's wall
time ("first_p90" and "first_max" the slow end), "again" the same check repeated. Medians over ``--repeats`` contexts;
ratios against ``full``.

``--first-after-warm-up``: in a fresh process, ``warm_up()`` and then checks of distinct 10 KB ``sentences``
contexts: the first check's time against the median of the later ones (the target: within 1.2x).
Torch threads: ``--threads`` (default 1).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from halguard import LocalVerifier
from halguard.grounding.embedding import LocalEmbedder, default_model_path
from halguard.text.segment import split_sentences

COMPANY = "The company reported revenue of 5 billion dollars in 2019. Its chief executive resigned in March."


def passages(data: Path) -> tuple[list[dict], list[str], list[str]]:
    rows, pool, sentences = [], [], []
    for name in ("ragtruth_dev.jsonl", "summedits_dev.jsonl"):
        with open(data / name, encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                if name.startswith("ragtruth") and r["task_type"] == "QA":
                    rows.append(r)
                if name.startswith("ragtruth") and r["task_type"] == "Summary":
                    sentences.extend(p[s:e] for p in r["context"] for s, e in split_sentences(p))
                pool.extend(p for p in r["context"] if len(p) > 200)
    return rows, list(dict.fromkeys(pool)), list(dict.fromkeys(sentences))


def padded(row: dict, pool: list[str], used: set[str], kb: int) -> list[str]:
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


def tagged_sentences(sentences: list[str], kb: int, seed: int) -> list[str]:
    """Shuffled sentences with reference tags, about ``kb`` KB (a new shuffle per context: a new first sight)."""
    pool = list(sentences)
    random.Random(seed).shuffle(pool)
    out, size = [], 0
    for i, s in enumerate(pool):
        if size >= kb * 1000:
            break
        out.append(f"[{i + 1}] {s}")
        size += len(out[-1]) + 1
    return out


def case(shape: str, kb: int, i: int, rows: list[dict], pool: list[str], used: set[str],
         sentences: list[str]) -> tuple[str, str | None, object]:
    """The ``i``-th answer, question and context of a shape and size."""
    if shape == "padded":
        row = rows[(kb * 7 + i) % len(rows)]
        return row["answer"], row["question"], padded(row, pool, used, kb)
    listed = tagged_sentences(sentences, kb, kb * 100 + i)
    return COMPANY, None, listed if shape == "sentences-list" else " ".join(listed)


def first_after_warm_up(args: argparse.Namespace) -> dict:
    """In this (fresh) process: warm_up(), then 1 + repeats checks of distinct 10 KB sentence contexts."""
    _, _, sentences = passages(Path(args.data))
    verifier = LocalVerifier(num_threads=args.threads, time_budget_s=None)
    t0 = time.perf_counter()
    verifier.warm_up()
    warm = time.perf_counter() - t0
    times = []
    for i in range(args.repeats + 1):
        context = " ".join(tagged_sentences(sentences, 10, 1000 + i))
        t0 = time.perf_counter()
        verifier.verify(COMPANY, context)
        times.append(time.perf_counter() - t0)
    later = statistics.median(times[1:])
    return {"warm_up_s": round(warm, 2), "first_s": round(times[0], 3), "later_median_s": round(later, 3),
            "first_to_later": round(times[0] / later, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 30, 100])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--shapes", nargs="+", default=["padded", "sentences", "sentences-list"])
    ap.add_argument("--per-claim", type=int, nargs="*", default=[8])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--skip-full", action="store_true", help="leave out the full-embedding variant (slow)")
    ap.add_argument("--first-after-warm-up", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    if args.child:
        print(json.dumps(first_after_warm_up(args)))
        return
    if args.first_after_warm_up:
        cmd = [sys.executable, __file__, "--child", "--data", args.data, "--repeats", str(args.repeats),
               "--threads", str(args.threads)]
        print(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip(), flush=True)
        return
    rows, pool, sentences = passages(Path(args.data))

    def make(per_claim: int | None) -> LocalVerifier:  # its own embedder: its own cache, so each first sight is one
        return LocalVerifier(embedder=LocalEmbedder(default_model_path()), num_threads=args.threads,
                             time_budget_s=None, candidates_per_claim=per_claim)

    variants = {**({} if args.skip_full else {"full": make(None)}), **{f"k{k}": make(k) for k in args.per_claim}}
    for v in variants.values():
        v.warm_up()
    used: set[str] = set()
    report = []
    for shape in args.shapes:
        for kb in args.sizes:
            first: dict[str, list[float]] = {n: [] for n in variants}
            again: dict[str, list[float]] = {n: [] for n in variants}
            same = 0
            for i in range(args.repeats):
                answer, question, context = case(shape, kb, i, rows, pool, used, sentences)
                names = list(variants)
                labels = {}
                for n in names[i % len(names):] + names[:i % len(names)]:
                    t0 = time.perf_counter()
                    verdict = variants[n].verify(answer, context, question=question)
                    first[n].append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    variants[n].verify(answer, context, question=question)
                    again[n].append(time.perf_counter() - t0)
                    labels[n] = verdict.label
                same += len(set(labels.values())) == 1
            entry = {"shape": shape, "kb": kb, "repeats": args.repeats, "same_label_all_variants": same}
            for n in variants:
                entry[n] = {"first_s": round(statistics.median(first[n]), 3), "first_max_s": round(max(first[n]), 3),
                            "first_p90_s": round(sorted(first[n])[int(0.9 * (len(first[n]) - 1))], 3),
                            "again_s": round(statistics.median(again[n]), 4)}
                if "full" in variants:
                    entry[n]["first_ratio_to_full"] = round(statistics.median(first[n]) /
                                                            statistics.median(first["full"]), 3)
            report.append(entry)
            print(json.dumps(entry), flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump({"threads": args.threads, "sizes": report}, fh, indent=1)


if __name__ == "__main__":
    main()
