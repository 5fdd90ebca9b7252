"""Benchmark a halguard detector on labelled JSONL files (the shared schema of ../shared/data).

Prints, per file: response-level precision/recall/F1 at the detector's own threshold, AUROC, balanced
accuracy and best F1 (overall and per task type), p50/p95 latency per answer, model load time and
peak RSS. Deterministic.

    python benchmarks/bench_detector.py ../shared/data/ragtruth_dev.jsonl ../shared/data/halueval_qa_dev.jsonl
    python benchmarks/bench_detector.py --detector naive ../shared/data/ragtruth_dev.jsonl

``--detector naive`` is the baseline the issue quotes: risk = 1 - the best MiniLM similarity between any
answer sentence and any context chunk, with no rules and no question.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from halguard import LocalVerifier, Verdict
from halguard.index import EvidenceIndex
from halguard.metrics import auroc, best_f1, binary_metrics, percentile
from halguard.segment import split_sentences
from halguard.sources import chunk_source


class NaiveSimilarity:
    """Baseline: 1 - min over answer sentences of the best chunk similarity. No rules, no question."""

    name = "naive-minilm-similarity"
    threshold = 0.5

    def __init__(self) -> None:
        self.embedder = LocalVerifier().embedder

    def warm_up(self) -> float:
        _ = self.embedder.model
        return self.embedder.load_seconds

    def verify(self, answer: str, contexts: list[str], *, question: str | None = None) -> Verdict:
        t0 = time.perf_counter()
        sentences = [answer[s:e] for s, e in split_sentences(answer)] or [answer]
        chunks = [c.text for ctx in contexts for c in chunk_source(ctx)] or [""]
        vecs, _ = self.embedder.encode(chunks + sentences)
        sims, _ = EvidenceIndex(vecs[: len(chunks)]).search(vecs[len(chunks) :], 1)
        risk = float(np.clip(1 - sims[:, 0].min(), 0, 1))
        return Verdict(
            label="hallucinated" if risk >= self.threshold else "supported",
            hallucination_detected=risk >= self.threshold,
            score=risk,
            threshold=self.threshold,
            detector=self.name,
            latency_ms=(time.perf_counter() - t0) * 1000,
        )


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def summarize(rows: list[dict]) -> dict:
    labels = [r["y"] for r in rows]
    # An unverified verdict has no score; rank it as neutral (0.5) and count it separately.
    scores = [r["score"] if r["score"] is not None else 0.5 for r in rows]
    preds = [r["label"] == "hallucinated" for r in rows]
    m = binary_metrics(labels, preds)
    bf1, bt = best_f1(labels, scores)
    return {
        "n": len(rows),
        **{k: round(v, 4) for k, v in m.items()},
        "auroc": None if (a := auroc(labels, scores)) is None else round(a, 4),
        "best_f1": round(bf1, 4),
        "best_threshold": round(bt, 4),
        "unverified": sum(1 for r in rows if r["label"] == "unverified"),
        "latency_p50_ms": round(percentile([r["ms"] for r in rows], 50), 1),
        "latency_p95_ms": round(percentile([r["ms"] for r in rows], 95), 1),
    }


def run_file(detector, path: Path, limit: int | None) -> list[dict]:
    out = []
    with path.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if limit is not None and i >= limit:
                break
            rec = json.loads(line)
            question = None if rec.get("question_is_generic_instruction") else rec.get("question")
            t0 = time.perf_counter()
            verdict = detector.verify(rec["answer"], rec["context"], question=question)
            ms = (time.perf_counter() - t0) * 1000
            out.append(
                {"id": rec["id"], "task": rec.get("task_type", "?"), "y": bool(rec["hallucinated"]),
                 "score": verdict.score, "label": verdict.label, "ms": ms}
            )
    return out


def _fmt(name: str, s: dict) -> str:
    return (
        f"  {name:<10} n={s['n']:<5} P={s['precision']:.3f} R={s['recall']:.3f} F1={s['f1']:.3f} "
        f"AUROC={s['auroc'] if s['auroc'] is None else format(s['auroc'], '.3f')} "
        f"bal.acc={s['balanced_accuracy']:.3f} acc={s['accuracy']:.3f} best-F1={s['best_f1']:.3f}"
        f"@{s['best_threshold']:.2f} unverified={s['unverified']} "
        f"p50={s['latency_p50_ms']:.1f}ms p95={s['latency_p95_ms']:.1f}ms"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--detector", choices=("local", "naive"), default="local")
    ap.add_argument("--limit", type=int, default=None, help="first N rows of each file")
    ap.add_argument("--json-out", type=Path, default=None, help="write the figures as JSON here")
    args = ap.parse_args(argv)

    detector = LocalVerifier() if args.detector == "local" else NaiveSimilarity()
    load_s = detector.warm_up()
    report = {"detector": detector.name, "load_s": round(load_s, 2), "files": {}}
    print(f"detector={detector.name} threshold={detector.threshold} model load {load_s:.2f}s")
    for path in args.files:
        t0 = time.perf_counter()
        rows = run_file(detector, path, args.limit)
        wall = time.perf_counter() - t0
        by_task = defaultdict(list)
        for r in rows:
            by_task[r["task"]].append(r)
        overall = summarize(rows)
        tasks = {t: summarize(rs) for t, rs in sorted(by_task.items())}
        report["files"][path.name] = {"overall": overall, "by_task": tasks, "throughput_per_s": round(len(rows) / wall, 2)}
        print(f"{path.name}: {len(rows)} answers in {wall:.1f}s ({len(rows) / wall:.1f}/s)")
        print(_fmt("overall", overall))
        if len(tasks) > 1:
            for t, s in tasks.items():
                print(_fmt(t, s))
    report["peak_rss_mb"] = round(peak_rss_mb(), 1)
    print(f"peak RSS {report['peak_rss_mb']:.0f} MB")
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
