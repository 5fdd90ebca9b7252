"""LangChain guard overhead: guarded vs bare QA chain, and abatch vs sequential invokes.

    python benchmarks/bench_langchain.py [--n 100] [--repeats 5]

The chain is the LCEL "return sources" form with a fake chat model (no network) over three short
passages; every answer is new (so each check embeds it), the passages are cached after the first call, as
in an app. The figures isolate halguard's cost: the wrapper plus a LocalVerifier check. Prints medians
over repeats and the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough

from halguard import LocalVerifier
from langchain_halguard import with_halguard

DOCS = [
    Document(id="launch", page_content="JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou."),
    Document(id="mirror", page_content="Webb's primary mirror is 6.5 metres across and has 18 hexagonal segments."),
    Document(id="orbit", page_content="The telescope orbits the Sun near L2, about 1.5 million kilometres from Earth."),
]
TEMPLATES = [
    "JWST was launched on 25 December 2021 on an Ariane 5 rocket (answer {i}).",
    "JWST was launched in 2019 on a Falcon Heavy (answer {i}).",
    "Its mirror is 6.5 metres across (answer {i}).",
    "It orbits near L2, 1.5 million kilometres from Earth (answer {i}).",
]
_counter = iter(range(10**9))


def fresh_answers(n: int) -> list[str]:
    """Answers never seen before, so every check embeds its answer (passages stay cached, as in an app)."""
    return [TEMPLATES[i % len(TEMPLATES)].format(i=next(_counter)) for i in range(n)]


def qa_chain(n: int):
    llm = FakeListChatModel(responses=fresh_answers(n))
    prompt = ChatPromptTemplate.from_template("Context: {context}\nQuestion: {input}")
    return RunnableParallel(context=RunnableLambda(lambda q: list(DOCS)), input=RunnablePassthrough()).assign(
        answer=prompt | llm | StrOutputParser()
    )


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100, help="inputs per measurement")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    verifier = LocalVerifier(num_threads=1)  # the default, said explicitly: these figures are for 1 thread
    print(f"model load {verifier.warm_up():.2f}s")
    questions = [f"Question {i} about JWST?" for i in range(args.n)]
    with_halguard(qa_chain(8), detector=verifier).batch(questions[:8])  # warm code paths and passages

    bare_t, seq_t, abatch_t = [], [], []
    for _ in range(args.repeats):
        # Same run, interleaved, so machine noise hits every side alike; fresh answers for each side.
        bare = qa_chain(args.n)
        bare_t.append(timed(lambda: [bare.invoke(q) for q in questions]))
        guarded = with_halguard(qa_chain(args.n), detector=verifier)
        seq_t.append(timed(lambda: [guarded.invoke(q) for q in questions]))
        batched = with_halguard(qa_chain(args.n), detector=verifier)
        abatch_t.append(timed(lambda: asyncio.run(batched.abatch(questions, config={"max_concurrency": 8}))))
    guard_t = seq_t

    med = statistics.median
    per = lambda xs: med(xs) / args.n * 1000  # noqa: E731
    print(f"bare chain invoke:     {per(bare_t):.2f} ms per call (median of {args.repeats} x {args.n})")
    print(f"guarded chain invoke:  {per(guard_t):.2f} ms per call")
    print(f"guard overhead:        {per(guard_t) - per(bare_t):.2f} ms per call, ratio guarded/bare = "
          f"{med(guard_t) / med(bare_t):.2f}")
    print(f"{args.n} sequential invokes: {med(seq_t) * 1000:.0f} ms; abatch({args.n}, max_concurrency=8): "
          f"{med(abatch_t) * 1000:.0f} ms; ratio abatch/sequential = {med(abatch_t) / med(seq_t):.2f}")


if __name__ == "__main__":
    main()
