"""The lexical candidate pass (embed only the chunks that share a claim's rarer terms) against embedding every chunk.

    python benchmarks/bench_candidates.py FILE [FILE ...] [--limit N] [--per-claim 4 8] [--threads 1]

For each answer, a verifier that embeds every chunk and one per ``--per-claim`` value (each with its own, initially
empty embedding cache: every check is a first sight of its context, as in an app whose retriever rarely returns
the same passages) check the same answer; the order of the verifiers rotates per row. Reported per file:

- recall: how often each claim's best evidence under full embedding is among the candidate chunks (answers where
  the pass pruned nothing count as found; ``pruned`` says how many answers it pruned);
- the texts embedded per answer, the AUROC and F1 at the default threshold of each, the largest change of an
  answer's score, the share of verdicts that changed;
- median first-sight milliseconds per answer and the ratio to full embedding (same run, same machine).

Torch threads: ``--threads`` (default 1), set for every encode.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from halguard import LocalVerifier
from halguard.grounding.candidates import candidate_chunks
from halguard.grounding.embedding import LocalEmbedder, default_model_path
from halguard.grounding.job import Unverifiable
from halguard.grounding.verifier import CANDIDATE_MIN_CHUNKS
from halguard.tools.metrics import auroc, binary_metrics


def load(path: str, limit: int | None) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    return rows[:limit] if limit else rows


def verifier(per_claim: int | None, threads: int) -> LocalVerifier:
    v = LocalVerifier(embedder=LocalEmbedder(default_model_path()), candidates_per_claim=per_claim,
                      num_threads=threads, time_budget_s=None)
    v.warm_up()
    return v


def recall(full: LocalVerifier, row: dict, per_claim: int) -> tuple[int, int, bool]:
    """(claims whose full-embedding best chunk is a candidate, claims, whether the pass pruned)."""
    try:
        job = full._prepare(row["answer"], row["context"], row.get("question"), None)  # noqa: SLF001 - a bench
    except Unverifiable:  # nothing to check (the verdict is unverified either way)
        return 0, 0, False
    if len(job.chunks) < CANDIDATE_MIN_CHUNKS:
        return len(job.claims), len(job.claims), False
    keep = candidate_chunks([c.check_text for c in job.claims], [ch.text for _, ch in job.chunks], per_claim)
    if keep is None:
        return len(job.claims), len(job.claims), False
    vectors, usage = full._embed([job])  # noqa: SLF001 - cached by the scoring pass
    verdict = full._score(job, vectors, usage)  # noqa: SLF001
    kept = {(job.chunks[i][0], job.chunks[i][1].start, job.chunks[i][1].end) for i in keep}
    ids = [s.id for s in job.sources]
    found = 0
    for claim in verdict.claims:
        best = claim.evidence[0]
        found += (ids.index(best.source_id), best.start, best.end) in kept
    return found, len(verdict.claims), True


def run_file(path: str, limit: int | None, per_claims: list[int], threads: int) -> dict:
    rows = load(path, limit)
    names = ["full", *(f"k{k}" for k in per_claims)]
    verifiers = {"full": verifier(None, threads), **{f"k{k}": verifier(k, threads) for k in per_claims}}
    scores = {n: [] for n in names}
    labels = {n: [] for n in names}
    times = {n: [] for n in names}
    embedded = {n: [] for n in names}
    for i, row in enumerate(rows):
        order = names[i % len(names):] + names[:i % len(names)]
        for n in order:
            t0 = time.perf_counter()
            v = verifiers[n].verify(row["answer"], row["context"], question=row.get("question"))
            times[n].append((time.perf_counter() - t0) * 1000)
            scores[n].append(v.score if v.score is not None else 0.0)
            labels[n].append(v.label == "hallucinated")
            embedded[n].append(v.usage.embedded_texts)
    gold = [bool(r["hallucinated"]) for r in rows]
    out: dict = {"file": path.rsplit("/", 1)[-1], "rows": len(rows), "threads": threads}
    for n in names:
        out[n] = {"auroc": round(auroc(gold, scores[n]), 4),
                  "f1": round(binary_metrics(gold, labels[n])["f1"], 4),
                  "embedded_per_answer": round(statistics.mean(embedded[n]), 1),
                  "p50_ms": round(statistics.median(times[n]), 1),
                  "ratio_to_full": round(statistics.median(times[n]) / statistics.median(times["full"]), 3)}
        if n != "full":
            out[n]["max_score_change"] = round(max(abs(a - b) for a, b in zip(scores[n], scores["full"])), 4)
            out[n]["changed_verdicts"] = sum(a != b for a, b in zip(labels[n], labels["full"]))
    full = verifiers["full"]
    for k in per_claims:
        found = total = pruned = 0
        for row in rows:
            f, t, p = recall(full, row, k)
            found, total, pruned = found + f, total + t, pruned + p
        out[f"k{k}"].update(recall=round(found / max(total, 1), 4), pruned_answers=pruned)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--limit", type=int)
    p.add_argument("--per-claim", type=int, nargs="+", default=[4, 8])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out")
    args = p.parse_args()
    report = []
    for f in args.files:  # each file's result is printed (and saved) as soon as it is done
        report.append(run_file(f, args.limit, args.per_claim, args.threads))
        print(json.dumps(report[-1]), flush=True)
        if args.out:
            with open(args.out, "w", encoding="utf-8") as fh:
                json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()
