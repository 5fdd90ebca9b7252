"""Worst-case time of one check on pathological inputs up to the verifier's limits (docs/guarantees.md).

    python benchmarks/bench_worst_case.py [--random 20] [--seed 7] [--budget 10] [--context-chars 1000000]
                                          [--answer-chars 100000]

Runs ``LocalVerifier(time_budget_s=budget)`` (one torch thread, the default) on a fixed list of inputs that were
slow or crashed before (unclosed citation lists and markers, lines without punctuation, nested parentheses, long
sums, deep JSON, records with thousands of fields, digits, CJK, format characters, folding bombs, run-on invented
words, thousands of tiny sentences after a long question), at 1 MB of context and 100 KB of answer (the default
limits), then on ``--random`` random mixes of the same building blocks. Every context is seen for the first time.
Prints the slowest cases, how many ended ``budget_exceeded``, and the maximum wall time against the budget.
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
QUESTION = "What does it say?"


def fixed_cases(context_chars: int, answer_chars: int) -> dict[str, tuple[str, str] | tuple[str, str, str]]:
    """Name -> (answer, context) or (answer, context, question)."""
    fill = lambda unit, n: (unit * (n // len(unit) + 1))[:n]  # noqa: E731
    rng = random.Random(1)
    invented = " ".join(rng.choice(["florbic", "wendle", "zastrop", "quimble", "trazzle"]) for _ in range(20_000))
    tower = fill("The tower is 330 metres tall [S1]. ", context_chars)
    return {
        "unclosed citations": ("The tower is tall [" + ", ".join(f"S{i}" for i in range(3000)), tower),
        "unclosed [S markers": (("The tower is tall " + " ".join(f"[S{i}" for i in range(20_000)))[:answer_chars],
                                tower),
        "run-on invented words": (("The tower " + invented)[:answer_chars], tower),
        "tiny sentences": (fill("A b c. ", answer_chars), tower),
        "tiny sentences, long question": (fill("A b c. ", answer_chars), tower,
                                          fill("Tell me about the tower and who built it. ", 19_999)),
        "invented sentences": (" ".join(f"The {w} quietly praised the old {w} near the river." for w in
                                        invented.split()[:150])[:answer_chars], tower),
        "folded context (U+FDFA)": ("The tower is tall.", "\ufdfa" * context_chars),
        "folded answer": (fill("\u2474", answer_chars), tower),
        "no punctuation": (fill("word ", answer_chars), fill("alpha beta gamma ", context_chars)),
        "nested parentheses": (fill("(a (b (c) d) e) ", answer_chars), fill("(a (b (c) d) e) ", context_chars)),
        "abbreviations": (fill("Dr. U.S. e.g. ", answer_chars), fill("Dr. U.S. e.g. ", context_chars)),
        "long sum": ("The total is " + " + ".join(["1"] * 5000) + " = 5.", fill("1 + ", context_chars)),
        "deep JSON": ("It has outdoor seating.", "[" * context_chars),
        "record of 10k fields": ("It has feature12 and feature77.",
                                 json.dumps({f"Feature{i}": False for i in range(10_000)})),
        "digits": ("The code is 12345.", fill("1234567890 ", context_chars)),
        "CJK": ("東京タワーは高い。", fill("東京タワーは高さ三百三十三メートルです。", context_chars)),
        "format characters": (fill("2\u200b019 ", answer_chars), fill("19\u200b89 ", context_chars)),
        "distinct sentences": ("Topic 42 is in place 7.", " ".join(
            f"Paragraph {i} mentions topic {i * 31} and place {i * 7}." for i in range(30_000))[:context_chars]),
    }


def random_case(rng: random.Random, context_chars: int, answer_chars: int) -> tuple[str, str]:
    def text(n: int) -> str:
        block = "".join(rng.choice(UNITS) for _ in range(rng.randint(1, 8)))
        return (block * (n // len(block) + 1))[:n]

    return text(rng.randint(1, answer_chars)), text(rng.randint(1, context_chars))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--random", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--budget", type=float, default=10.0)
    ap.add_argument("--context-chars", type=int, default=1_000_000)
    ap.add_argument("--answer-chars", type=int, default=100_000)
    ap.add_argument("--top", type=int, default=12, help="how many of the slowest checks to list")
    args = ap.parse_args()
    verifier = LocalVerifier(time_budget_s=args.budget)
    verifier.warm_up()
    rng = random.Random(args.seed)
    cases = list(fixed_cases(args.context_chars, args.answer_chars).items())
    cases += [(f"random {i}", random_case(rng, args.context_chars, args.answer_chars)) for i in range(args.random)]
    results = []
    for name, (answer, context, *asked) in cases:
        verifier.embedder._cache.clear()  # noqa: SLF001 - every context seen for the first time
        t0 = time.perf_counter()
        verdict = verifier.verify(answer, [context], question=asked[0] if asked else QUESTION)
        results.append((time.perf_counter() - t0, name, verdict.label, [e.code for e in verdict.errors]))
    results.sort(reverse=True)
    print(f"{len(results)} checks of up to {args.context_chars:,} context and {args.answer_chars:,} answer "
          f"characters, budget {args.budget} s, torch threads per encode: {verifier.num_threads}")
    for seconds, name, label, codes in results[: args.top]:
        print(f"  {seconds:6.2f} s  {name:<24} {label} {codes}")
    exceeded = sum(1 for r in results if "budget_exceeded" in r[3])
    print(f"worst {results[0][0]:.2f} s ({results[0][0] / args.budget:.2f} x the budget); "
          f"{exceeded} ended budget_exceeded; median {results[len(results) // 2][0]:.2f} s")


if __name__ == "__main__":
    main()
