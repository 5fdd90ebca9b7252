"""Memory soak (issue 38): many checks with contexts never seen before; does the process's memory level off?

    HF_HUB_OFFLINE=1 python benchmarks/bench_memory_soak.py [--checks 5000] [--every 500] [--roles on|off]
        [--meaning] [--seed 0] [--threads 1] [--budget-scale 1] [--trace] [--json-out F] [--md-out F]

Each check is ``LocalVerifier().verify(answer, contexts)`` on a check from ``benchmarks/soak_text.py``: three to
five passages of 150-400 words about made-up companies, people and towns, with a two-to-five-sentence answer, half
of them with a changed number or name. Every check brings names and numbers no earlier check had, as a retriever
over a large corpus does. Torch runs on one intra-op thread (``--threads``), as the verifier does by default.

Every ``--every`` checks (and after a warm-up check, the baseline) it records the process's resident memory (RSS,
from ``/proc/self/statm``), the bytes and entries each halguard cache counts (``halguard.util.memo.cache_usage``),
the stem memo's entries, and, with the role check on, the strings in spaCy's string store. "RSS - caches" is the
RSS less every cache's counted bytes: what no budget accounts for. It prints a markdown table and writes it, with
the JSON of every row, under ``benchmarks/results/`` (git-ignored), after every row (a stopped run keeps its rows).

``--budget-scale F``: every cache's byte budget times F. At the defaults the embedding cache (256 MiB) fills only
after ~5,000 such checks, so a 5,000-check soak sees RSS still rising as it fills; at 0.25 every cache fills
within ~1,500 checks and the soak shows where RSS levels off.

``--trace``: also run ``tracemalloc`` and print, at each row, the ten source lines whose Python allocations grew
most since the previous row, and the object types whose counts grew most (``gc.get_objects``). Slow (about 2x);
it is for finding what grows, not for the figures.
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from soak_text import soak_check  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
_PAGE = os.sysconf("SC_PAGE_SIZE")
MIB = 2**20


def rss_bytes() -> int:
    """The process's resident set size now (Linux: /proc/self/statm; elsewhere the peak from getrusage)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _spacy_counts() -> dict[str, int]:
    from halguard.grounding.roles import parse

    nlp = parse._nlp  # noqa: SLF001 - only read: the pipeline the role check loaded, if it did
    if nlp is None:
        return {}
    # len(nlp.vocab) is a counter that memory zones never decrease: the string store is what they free.
    return {"spacy_strings": len(nlp.vocab.strings)}


def snapshot(done: int, started: float) -> dict:
    """One row: checks done, seconds, RSS, every named cache's counted bytes and entries, other growable tables."""
    from halguard.text.lexical import _stem_memo
    from halguard.util.memo import cache_usage

    caches = {}
    for use in cache_usage():
        row = caches.setdefault(use.name.removeprefix("halguard."), {"bytes": 0, "entries": 0, "max_bytes": 0})
        row["bytes"] += use.bytes
        row["entries"] += use.entries
        row["max_bytes"] += use.max_bytes
    return {"checks": done, "seconds": round(time.perf_counter() - started, 1), "rss_bytes": rss_bytes(),
            "caches": caches, "stem_memo_entries": _stem_memo.cache_info().currsize, **_spacy_counts()}


class Tracer:
    """What grew between two rows: Python allocations by source line, and live objects by type."""

    def __init__(self) -> None:
        tracemalloc.start(1)
        self.previous = tracemalloc.take_snapshot()
        self.types = self._types()

    @staticmethod
    def _types() -> collections.Counter:
        gc.collect()
        return collections.Counter(type(o).__name__ for o in gc.get_objects())

    def report(self) -> str:
        now = tracemalloc.take_snapshot()
        lines = [f"    {s.size_diff / MIB:+8.2f} MiB {s.count_diff:+8d}  {s.traceback}"
                 for s in now.compare_to(self.previous, "lineno")[:10]]
        types = self._types()
        grown = sorted(((types[t] - self.types.get(t, 0), t) for t in types), reverse=True)[:8]
        lines.append("    objects: " + ", ".join(f"{t} {n:+d}" for n, t in grown if n))
        self.previous, self.types = now, types
        return "\n".join(lines)


def table(rows: list[dict]) -> str:
    """The rows as a markdown table: RSS and its growth since the previous row, then each cache in MiB."""
    names = sorted({n for r in rows for n in r["caches"]})
    short = [n.rsplit(".", 1)[-1] for n in names]
    extra = [k for k in ("stem_memo_entries", "spacy_strings") if k in rows[-1]]
    head = ["checks", "RSS MiB", "ΔRSS MiB", "RSS - caches MiB", *(f"{s} MiB" for s in short), *extra]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for prev, r in zip([None, *rows], rows):
        delta = "" if prev is None else f"{(r['rss_bytes'] - prev['rss_bytes']) / MIB:+.1f}"
        counted = sum(c["bytes"] for c in r["caches"].values())
        cells = [str(r["checks"]), f"{r['rss_bytes'] / MIB:.1f}", delta, f"{(r['rss_bytes'] - counted) / MIB:.1f}",
                 *(f"{r['caches'].get(n, {}).get('bytes', 0) / MIB:.1f}" for n in names),
                 *(f"{r.get(k, '')}" for k in extra)]
        out.append("| " + " | ".join(cells) + " |")
    budgets = ", ".join(f"{s} {rows[-1]['caches'][n]['max_bytes'] / MIB:.0f}" for n, s in zip(names, short))
    return "\n".join(out) + f"\n\nCache budgets (MiB): {budgets}."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checks", type=int, default=5000)
    ap.add_argument("--every", type=int, default=500)
    ap.add_argument("--roles", choices=("on", "off"), default="on", help="the role check (spaCy); on by default")
    ap.add_argument("--meaning", action="store_true", help="also run the meaning model")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1)")
    ap.add_argument("--budget-scale", type=float, default=1.0,
                    help="multiply every cache's byte budget by this (default 1: halguard's defaults); below 1 the "
                         "caches fill within fewer checks, to see RSS level off in a shorter soak")
    ap.add_argument("--trace", action="store_true", help="tracemalloc and object counts at each row (slow)")
    ap.add_argument("--json-out", type=Path)
    ap.add_argument("--md-out", type=Path)
    args = ap.parse_args()

    import torch

    from halguard import LocalVerifier

    torch.set_num_threads(args.threads)
    verifier = LocalVerifier(roles=args.roles == "on", meaning=args.meaning, num_threads=args.threads)
    warm = soak_check(args.seed, -1)
    verifier.verify(warm.answer, warm.contexts)  # models loaded, first allocations made: the baseline
    from halguard.util.memo import named_caches

    for cache in named_caches():  # every cache exists now (the embedder's are made with the shared embedder)
        cache.max_bytes = int(cache.max_bytes * args.budget_scale)
    tracer = Tracer() if args.trace else None
    started = time.perf_counter()
    rows = [snapshot(0, started)]
    flagged = unverified = 0
    tag = (f"memory_soak_{args.checks}_roles-{args.roles}{'_meaning' if args.meaning else ''}"
           f"{f'_budgets-x{args.budget_scale:g}' if args.budget_scale != 1 else ''}")
    for i in range(args.checks):
        check = soak_check(args.seed, i)
        verdict = verifier.verify(check.answer, check.contexts)
        flagged += verdict.label == "hallucinated" and check.changed
        unverified += verdict.label == "unverified"
        if (i + 1) % args.every == 0:
            rows.append(snapshot(i + 1, started))
            print(f"{i + 1} checks, {rows[-1]['seconds']} s, RSS {rows[-1]['rss_bytes'] / MIB:.1f} MiB", flush=True)
            if tracer is not None:
                print(tracer.report(), flush=True)
            result = {"checks": i + 1, "every": args.every, "roles": args.roles == "on", "meaning": args.meaning,
                      "budget_scale": args.budget_scale,
                      "seed": args.seed, "torch_threads": args.threads, "changed_answers_flagged": flagged,
                      "unverified": unverified, "python": sys.version.split()[0], "cpus": os.cpu_count(),
                      "rows": rows}
            RESULTS.mkdir(parents=True, exist_ok=True)
            (args.json_out or RESULTS / f"{tag}.json").write_text(json.dumps(result, indent=1) + "\n")
            (args.md_out or RESULTS / f"{tag}.md").write_text(table(rows) + "\n")
    print(table(rows))
    print(f"changed answers flagged hallucinated: {flagged} of {args.checks // 2}; unverified: {unverified}")


if __name__ == "__main__":
    main()
