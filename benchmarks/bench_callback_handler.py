"""What HalguardCallbackHandler's check costs an awaited call (issue 25 item 15).

    python benchmarks/bench_callback_handler.py [--n 100] [--batches 7]

The handler records an awaited run's verdict before the await returns: ``await chain.ainvoke(...)`` now
includes the check. This measures that, on the "return sources" chain with a fake chat model (no network), every
answer new (so each check embeds it), three ways, interleaved call by call so a change in the machine's load hits
all three alike:

- ``none``: no handler;
- ``worker``: the handler as it was before, checking on one worker thread after the call returned (the verdict
  came later, after ``aflush()``);
- ``await``: the handler as it is.

Prints the median ``ainvoke`` latency and, for ``abatch`` of 20 (max_concurrency 8), the time until the call
returned and until every verdict was there, with how many verdicts were there when it returned.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableParallel, RunnablePassthrough
from langchain_core.tracers.base import BaseTracer

from halguard import LocalVerifier
from langchain_halguard import HalguardCallbackHandler

DOCS = [
    Document(id="launch", page_content="JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou."),
    Document(id="mirror", page_content="Webb's primary mirror is 6.5 metres across and has 18 hexagonal segments."),
]
QUESTION = "When did JWST launch?"


class StaticRetriever(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        return list(DOCS)


class WorkerThreadHandler(HalguardCallbackHandler):
    """The handler before item 15: on an event loop the check ran on one worker thread, after the call."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._pool = ThreadPoolExecutor(max_workers=1)

    async def _aend_chain(self, outputs: dict[str, Any], *, run_id: uuid.UUID, inputs: Any = None,
                          **kwargs: Any) -> None:
        run = BaseTracer.on_chain_end(self, outputs, run_id=run_id, inputs=inputs, **kwargs)
        found = self._find(run) if run.parent_run_id is None else None
        if found is not None:
            question, answer, contexts = found
            self._pool.submit(lambda: self._record(run, *found, self.detector.verify(answer, contexts,
                                                                                     question=question)))

    async def drain(self) -> None:
        await asyncio.to_thread(self._pool.submit(lambda: None).result)


def chain(n_answers: int) -> Any:
    answers = [f"JWST was launched on {1 + i % 28} December {1900 + i % 120} on flight VA{i} of an Ariane rocket."
               for i in range(n_answers)]
    prompt = ChatPromptTemplate.from_template("Context: {context}\nQuestion: {input}")
    return RunnableParallel(context=StaticRetriever(), input=RunnablePassthrough()).assign(
        answer=prompt | FakeListChatModel(responses=answers) | StrOutputParser()
    )


async def main(n: int, batches: int) -> None:
    verifier = LocalVerifier()
    verifier.warm_up()
    rag = chain(3 * n + 3 * 20 * batches)
    makers = {"none": lambda: None, "worker": lambda: WorkerThreadHandler(detector=verifier),
              "await": lambda: HalguardCallbackHandler(detector=verifier)}
    await rag.ainvoke(QUESTION, {"callbacks": [HalguardCallbackHandler(detector=verifier)]})  # warm the caches

    times: dict[str, list[float]] = {name: [] for name in makers}
    ready = dict.fromkeys(makers, 0)
    for _ in range(n):
        for name, make in makers.items():
            handler, run_id = make(), uuid.uuid4()
            config = {"callbacks": [handler], "run_id": run_id} if handler else {}
            start = time.perf_counter()
            await rag.ainvoke(QUESTION, config)
            times[name].append(time.perf_counter() - start)
            if handler is not None:
                ready[name] += handler.get_verdict(run_id) is not None
                if isinstance(handler, WorkerThreadHandler):
                    await handler.drain()  # the next call starts on an idle worker
    for name in makers:
        print(f"{name:6s} ainvoke median {statistics.median(times[name]) * 1e3:6.1f} ms; "
              f"verdicts there when it returned: {ready[name]}/{n}")

    runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in makers}
    for _ in range(batches):
        for name, make in makers.items():
            handler = make()
            config = {"callbacks": [handler], "max_concurrency": 8} if handler else {"max_concurrency": 8}
            start = time.perf_counter()
            await rag.abatch([QUESTION] * 20, config)
            returned = time.perf_counter() - start
            there = len(handler.verdicts) if handler else 0
            if isinstance(handler, WorkerThreadHandler):
                await handler.drain()
            runs[name].append((returned * 1e3, (time.perf_counter() - start) * 1e3, there))
    for name in makers:
        returned, every, there = (statistics.median(r[i] for r in runs[name]) for i in range(3))
        print(f"{name:6s} abatch(20) returned after {returned:7.1f} ms, every verdict after {every:7.1f} ms; "
              f"verdicts there when it returned: {there:.0f}/20")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--batches", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(main(args.n, args.batches))
