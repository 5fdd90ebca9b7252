"""LlamaIndex adapter costs: HalguardQueryEngine overhead, and HalguardEvaluator throughput on RAGTruth QA.

    python benchmarks/bench_llamaindex.py [--ragtruth ../shared/data/ragtruth_dev.jsonl] [--n 100]

The engine is a VectorStoreIndex over three short passages with a scripted LLM (no network); every answer
is new, so each check embeds it. Overhead is measured in the same run, bare and guarded interleaved.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from llama_index.core import Document, Settings, VectorStoreIndex
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.mock import MockLLM

from halguard import LocalVerifier
from llamaindex_halguard import HalguardEmbedding, HalguardEvaluator, HalguardQueryEngine

PASSAGES = [
    "JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou.",
    "Webb's primary mirror is 6.5 metres across and has 18 hexagonal segments.",
    "The telescope orbits the Sun near L2, about 1.5 million kilometres from Earth.",
]


class CountingLLM(CustomLLM):
    """A new answer on every call: 'JWST was launched ... (answer N)'."""

    calls: int = 0

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="counting")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.calls += 1
        return CompletionResponse(text=f"JWST was launched on 25 December 2021 on an Ariane 5 rocket (answer {self.calls}).")

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any):
        yield self.complete(prompt)


def engine_overhead(n: int, repeats: int, verifier: LocalVerifier) -> None:
    Settings.llm = MockLLM()
    index = VectorStoreIndex.from_documents([Document(text=t) for t in PASSAGES], embed_model=HalguardEmbedding())
    bare = index.as_query_engine(llm=CountingLLM(), similarity_top_k=2)
    guarded = HalguardQueryEngine(index.as_query_engine(llm=CountingLLM(), similarity_top_k=2), detector=verifier)
    questions = [f"Question {i}: when did JWST launch?" for i in range(n)]
    for q in questions[:5]:
        guarded.query(q)
    bare_t, guard_t = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for q in questions:
            bare.query(q)
        bare_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for q in questions:
            guarded.query(q)
        guard_t.append(time.perf_counter() - t0)
    b, g = statistics.median(bare_t) / n * 1000, statistics.median(guard_t) / n * 1000
    print(f"bare query engine:    {b:.2f} ms per query (median of {repeats} x {n})")
    print(f"HalguardQueryEngine:  {g:.2f} ms per query; overhead {g - b:.2f} ms, ratio guarded/bare = {g / b:.2f}")


def evaluator_throughput(path: Path, verifier: LocalVerifier) -> None:
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    rows = [r for r in rows if r.get("task_type") == "QA"]
    ev = HalguardEvaluator(detector=verifier)
    t0 = time.perf_counter()
    results = [ev.evaluate(query=r["question"], response=r["answer"], contexts=r["context"]) for r in rows]
    sync_s = time.perf_counter() - t0

    async def run_async():
        return await asyncio.gather(*(ev.aevaluate(query=r["question"], response=r["answer"], contexts=r["context"])
                                      for r in rows))

    t0 = time.perf_counter()
    asyncio.run(run_async())
    async_s = time.perf_counter() - t0
    flagged = sum(1 for r in results if r.passing is False)
    print(f"HalguardEvaluator on {len(rows)} RAGTruth QA rows: {len(rows) / sync_s:.1f} rows/s sync "
          f"(first sight of each context), {len(rows) / async_s:.1f} rows/s aevaluate with cached contexts; "
          f"{flagged} flagged")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ragtruth", type=Path, default=Path("../shared/data/ragtruth_dev.jsonl"))
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    verifier = LocalVerifier(num_threads=1)  # the default, said explicitly: these figures are for 1 thread
    print(f"model load {verifier.warm_up():.2f}s")
    engine_overhead(args.n, args.repeats, verifier)
    if args.ragtruth.is_file():
        evaluator_throughput(args.ragtruth, verifier)
    else:
        print(f"no RAGTruth file at {args.ragtruth}: evaluator throughput skipped")


if __name__ == "__main__":
    main()
