"""Paraphrase sampling cost with scripted models that sleep a fixed time per call (no network).

    python benchmarks/bench_consistency.py [--call-ms 200] [--n 3] [--repeats 5]

Prints, for sync ``check`` and async ``acheck``: the wall time of one detection, the sampling phase's
wall time against the slowest single answer call (parallelism: ideal 1.0), the number of calls
(1 + (n + 1) + 1 without cache, 0 new on a repeated request with the cache) and the tokens counted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

from halguard import CallableChat, ChatModel, ConsistencyJudge, ParaphraseConsistency, ResponseCache
from halguard.llm.providers import ChatReply


def scripted(call_s: float, n: int):
    def llm(messages):
        time.sleep(call_s)
        if "Rewrite" in messages[0]["content"]:
            text = json.dumps({"paraphrases": [f"Variant {i} of the question?" for i in range(n)]})
        else:
            text = json.dumps({"hallucination_detected": False, "confidence_score": 0.9, "conflicting_facts": [],
                               "reasoning": "same facts", "summary": "consistent"})
        return ChatReply(text, input_tokens=120, output_tokens=40)

    return llm


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--call-ms", type=float, default=200.0)
    ap.add_argument("--n", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    call_s = args.call_ms / 1000
    answer_calls: list[float] = []

    def answer(q: str) -> str:
        t0 = time.perf_counter()
        time.sleep(call_s)
        answer_calls.append(time.perf_counter() - t0)
        return "Apollo 11 landed in July 1969."

    async def aanswer(q: str) -> str:
        await asyncio.sleep(call_s)
        return "Apollo 11 landed in July 1969."

    def checker(cache=None) -> ParaphraseConsistency:
        llm: ChatModel = CallableChat(scripted(call_s, args.n))
        return ParaphraseConsistency(paraphraser=llm, judge=ConsistencyJudge(llm), n_paraphrases=args.n, cache=cache)

    walls, sampling, awalls = [], [], []
    report = None
    for i in range(args.repeats):
        pc = checker()
        answer_calls.clear()
        report = pc.check(f"When did humans first land on the Moon? ({i})", answer)
        walls.append(report.latency_ms / 1000)
        sampling.append(max(a.latency_ms for a in report.answers) / 1000)
        t0 = time.perf_counter()
        asyncio.run(checker().acheck(f"When did humans first land on the Moon? [{i}]", aanswer))
        awalls.append(time.perf_counter() - t0)
    med = statistics.median
    slowest = max(answer_calls)
    phases = 3 * call_s  # paraphrase call, one round of parallel answers, judge call
    print(f"scripted call time {args.call_ms:.0f} ms, n_paraphrases={args.n}, medians of {args.repeats}")
    print(f"check():  one detection {med(walls) * 1000:.0f} ms = {med(walls) / phases:.2f} x the 3 sequential "
          f"phases ({phases * 1000:.0f} ms); {args.n + 1} answers sampled in parallel: slowest sample "
          f"{med(sampling) * 1000:.0f} ms vs slowest single call {slowest * 1000:.0f} ms "
          f"(ratio {med(sampling) / slowest:.2f})")
    print(f"acheck(): one detection {med(awalls) * 1000:.0f} ms = {med(awalls) / phases:.2f} x the 3 phases")
    print(f"calls without cache: {report.usage.llm_calls} (1 paraphrase + {args.n + 1} answers + 1 judge); "
          f"tokens counted: {report.usage.input_tokens} in / {report.usage.output_tokens} out")
    cache = ResponseCache()
    pc = checker(cache)
    pc.check("When did humans first land on the Moon?", answer)
    t0 = time.perf_counter()
    again = pc.check("When did humans first land on the Moon?", answer)
    print(f"repeated request with the cache: {again.usage.llm_calls} new calls, "
          f"{(time.perf_counter() - t0) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
