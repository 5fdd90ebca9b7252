"""What reusing the retriever's vectors saves: LocalVerifier with and without precomputed passage embeddings.

    python benchmarks/bench_precomputed.py ../shared/data/halueval_qa_dev.jsonl [--limit 400] [--task QA]

The "retriever" embeds every passage first with its own embedder (as an index would have, earlier, in
another process). Two verifiers with separate, initially empty caches then check each answer, one
with plain passages and one with the passages' vectors (``embedding_model`` = the bundled model); the
order alternates per row. Prints per-answer median latency for both, their ratio, the share of passages
whose vector could be used (a passage is reused when it is one evidence chunk: one sentence or a window of
two), texts embedded per answer, and whether every verdict is the same.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from halguard import LocalVerifier, Source
from halguard.grounding.embedding import MODEL_NAME, LocalEmbedder, default_model_path


def load(path: str, limit: int | None, task: str | None) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if task is None or row.get("task_type") == task:
                rows.append(row)
            if limit is not None and len(rows) >= limit:
                break
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--limit", type=int, default=400)
    ap.add_argument("--task", default=None)
    args = ap.parse_args()
    rows = load(args.path, args.limit, args.task)

    retriever = LocalEmbedder(default_model_path())
    passages = list(dict.fromkeys(p for r in rows for p in r["context"]))
    vectors = dict(zip(passages, retriever.encode(passages)[0]))

    plain = LocalVerifier(embedder=LocalEmbedder(default_model_path()))
    reused = LocalVerifier(embedder=LocalEmbedder(default_model_path()))
    plain.warm_up()
    reused.warm_up()
    times: dict[str, list[float]] = {"plain": [], "reused": []}
    embedded: dict[str, list[int]] = {"plain": [], "reused": []}
    given = total = same = 0
    for i, row in enumerate(rows):
        question = None if row.get("question_is_generic_instruction") else row.get("question")
        contexts = {
            "plain": [(str(j), p) for j, p in enumerate(row["context"])],
            "reused": [Source(str(j), p, embedding=vectors[p], embedding_model=MODEL_NAME)
                       for j, p in enumerate(row["context"])],
        }
        verdicts = {}
        for mode in (("plain", "reused") if i % 2 == 0 else ("reused", "plain")):
            verifier = plain if mode == "plain" else reused
            t0 = time.perf_counter()
            verdicts[mode] = verifier.verify(row["answer"], contexts[mode], question=question)
            times[mode].append((time.perf_counter() - t0) * 1000)
            embedded[mode].append(verdicts[mode].usage.embedded_texts)
        given += verdicts["reused"].usage.precomputed_texts
        total += len(row["context"])
        same += verdicts["plain"].label == verdicts["reused"].label and all(
            abs(a.score - b.score) < 1e-3 for a, b in zip(verdicts["plain"].claims, verdicts["reused"].claims)
        )
    p50 = {m: statistics.median(t) for m, t in times.items()}
    print(f"rows {len(rows)}  passages {total}  vectors used {given} ({given / max(total, 1):.0%})")
    print(f"p50 latency ms: plain {p50['plain']:.1f}  reused {p50['reused']:.1f}  "
          f"ratio {p50['reused'] / p50['plain']:.2f}")
    print(f"texts embedded per answer (mean): plain {statistics.mean(embedded['plain']):.1f}  "
          f"reused {statistics.mean(embedded['reused']):.1f}")
    print(f"same verdict and claim scores (±0.001): {same}/{len(rows)}")


if __name__ == "__main__":
    main()
