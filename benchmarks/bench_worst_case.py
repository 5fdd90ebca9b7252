"""Worst-case time of one check on pathological inputs up to 200 KB (the guarantee in docs/guarantees.md).

    python benchmarks/bench_worst_case.py [--random 60] [--seed 7] [--budget 10]

Runs ``LocalVerifier(time_budget_s=budget)`` (one torch thread, the default) on a fixed list of inputs that were
slow or crashed before the hardening (unclosed citation lists, lines without punctuation, nested parentheses,
long sums, deep JSON, records with thousands of fields, digits, CJK, format characters), each at 200 KB of
context with a 20 KB answer, then on ``--random`` random mixes of the same building blocks. Prints the slowest
cases, how many ended ``budget_exceeded``, and the maximum wall time against the budget.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from halguard import LocalVerifier

UNITS = ["[", "]", "(", ")", "{", "}", "[S1, ", "1 + ", "= 2", "%", "$", ".", ". ", "!", "?", "\n", " ", "a",
         "Word ", "12345", "1,000", "x" * 50, "\u200b", "東京", "\u00ad", "don't ", "not ", '"', "'", ":", ";",
         "e.g. ", "Dr. ", "http://a.b/c ", "<b>", "\\", "-" * 10, "ﬁ", "３", "The tower is 330 metres tall. "]
CONTEXT_CHARS, ANSWER_CHARS = 200_000, 20_000


def fixed_cases() -> dict[str, tuple[str, str]]:
    fill = lambda unit, n: (unit * (n // len(unit) + 1))[:n]  # noqa: E731
    return {
        "unclosed citations": ("The tower is tall [" + ", ".join(f"S{i}" for i in range(3000)),
                               fill("The tower is 330 metres tall [S1]. ", CONTEXT_CHARS)),
        "no punctuation": (fill("word ", ANSWER_CHARS), fill("alpha beta gamma ", CONTEXT_CHARS)),
        "nested parentheses": (fill("(a (b (c) d) e) ", ANSWER_CHARS), fill("(a (b (c) d) e) ", CONTEXT_CHARS)),
        "abbreviations": (fill("Dr. U.S. e.g. ", ANSWER_CHARS), fill("Dr. U.S. e.g. ", CONTEXT_CHARS)),
        "long sum": ("The total is " + " + ".join(["1"] * 5000) + " = 5.", fill("1 + ", CONTEXT_CHARS)),
        "deep JSON": ("It has outdoor seating.", "[" * CONTEXT_CHARS),
        "record of 10k fields": ("It has feature12 and feature77.",
                                 json.dumps({f"Feature{i}": False for i in range(10_000)})),
        "digits": ("The code is 12345.", fill("1234567890 ", CONTEXT_CHARS)),
        "CJK": ("東京タワーは高い。", fill("東京タワーは高さ三百三十三メートルです。", CONTEXT_CHARS)),
        "format characters": (fill("2\u200b019 ", ANSWER_CHARS), fill("19\u200b89 ", CONTEXT_CHARS)),
        "distinct sentences": ("Topic 42 is in place 7.", " ".join(
            f"Paragraph {i} mentions topic {i * 31} and place {i * 7}." for i in range(5000))[:CONTEXT_CHARS]),
    }


def random_case(rng: random.Random) -> tuple[str, str]:
    def text(n: int) -> str:
        block = "".join(rng.choice(UNITS) for _ in range(rng.randint(1, 8)))
        return (block * (n // len(block) + 1))[:n]

    return text(rng.randint(1, ANSWER_CHARS)), text(rng.randint(1, CONTEXT_CHARS))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--random", type=int, default=60)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--budget", type=float, default=10.0)
    args = ap.parse_args()
    verifier = LocalVerifier(time_budget_s=args.budget)
    verifier.warm_up()
    rng = random.Random(args.seed)
    cases = list(fixed_cases().items()) + [(f"random {i}", random_case(rng)) for i in range(args.random)]
    results = []
    for name, (answer, context) in cases:
        verifier.embedder._cache.clear()  # noqa: SLF001 - every context seen for the first time
        t0 = time.perf_counter()
        verdict = verifier.verify(answer, [context], question="What does it say?")
        results.append((time.perf_counter() - t0, name, verdict.label, [e.code for e in verdict.errors]))
    results.sort(reverse=True)
    print(f"{len(results)} checks, budget {args.budget} s, torch threads per encode: {verifier.num_threads}")
    for seconds, name, label, codes in results[:8]:
        print(f"  {seconds:6.2f} s  {name:<24} {label} {codes}")
    exceeded = sum(1 for r in results if "budget_exceeded" in r[3])
    print(f"worst {results[0][0]:.2f} s ({results[0][0] / args.budget:.2f} x the budget); "
          f"{exceeded} ended budget_exceeded; median {results[len(results) // 2][0]:.2f} s")


if __name__ == "__main__":
    main()
