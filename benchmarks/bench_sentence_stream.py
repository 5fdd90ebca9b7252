"""Sentence-by-sentence streaming against the unguarded stream: when each sentence reaches the user.

    python benchmarks/bench_sentence_stream.py [--data ../shared/data] [--rows 30] [--token-ms 20] [--threads 1]
        [--no-prepare] [--agent]
    python benchmarks/bench_sentence_stream.py --long [--data ../shared/data] [--rows 5] [--threads 1]

Each RAGTruth QA dev answer (its own passages as the retrieved documents) is streamed word by word by a scripted
chat model that makes a word every ``--token-ms`` on its own clock (an LLM at 1000/token-ms words per second), through the
LangChain docs' chain ``{context, question} | prompt | model | StrOutputParser()``:

- ``plain``: the chain as it is; a sentence is *delivered* when its last word arrives;
- ``sentence``: ``with_halguard(chain, streaming="sentence", on_hallucination="filter")``; a sentence is
  *released* when the guard yields it (after the next sentence's first word, and its check).

With ``--agent`` the same answers come from a ``create_agent`` run (a search tool returning the passages, then
the answer) streamed in LangGraph's ``"messages"`` mode, without and with ``HalguardMiddleware(streaming=
"sentence", on_hallucination="filter")``.

Per row: the first sentence's delay (released minus delivered), every sentence's delay, the check of the last
released sentence alone, the total time of both streams, and the ratio guarded / plain. Medians over rows; each
row's context is seen for the first time (a fresh detector per row shares one embedder whose cache is cleared).
Torch threads: ``--threads`` (default 1).

``--long``: a 301-sentence answer through the core gate (``SentenceGate``, ``filter``), fed 40 characters at a
time with no clock: the answer repeats each RAGTruth Summary row's own answer sentences (its passages are the
documents) until it has 300 sentences, with a fabricated sentence before the last (issue 46: under ``filter``,
``fallback`` and ``raise`` it must never be sent; ``--load 2`` runs two CPU-bound processes beside it). The checks'
time is also given as a ratio to one check of the whole answer. Per row: the checks' total seconds against the gate's 10 s budget, how many
sentences went out unverified, and the median check of sentences 1-20 against 281-300 (incremental checking: the
last ones cost about what the first ones do).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.output_parsers import StrOutputParser
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from halguard import LocalVerifier
from halguard.text.segment import split_sentences
from langchain_halguard import HalguardMiddleware, with_halguard


class Paced(BaseChatModel):
    """Streams ``answer`` word by word, one word every ``token_s`` seconds on its own clock."""

    answer: str
    token_s: float

    @property
    def _llm_type(self) -> str:
        return "paced"

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.answer))])

    def _stream(self, messages: Any, stop: Any = None, run_manager: Any = None,
                **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        words = self.answer.split(" ")
        start = time.perf_counter()
        for i, word in enumerate(words):
            # Word i is ready at start + (i + 1) * token_s, however long the reader took with the words before (a
            # server's stream keeps arriving while the guard checks a sentence).
            time.sleep(max(0.0, start + (i + 1) * self.token_s - time.perf_counter()))
            yield ChatGenerationChunk(message=AIMessageChunk(content=word if i == 0 else " " + word))


class Passages(BaseRetriever):
    """Returns the row's own passages (the guard reads them from this retriever run)."""

    passages: list[str]

    def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Document]:
        return [Document(page_content=p, id=f"p{i}") for i, p in enumerate(self.passages)]


class PacedAgentModel(Paced):
    """An agent's model: first a call of the ``search`` tool, then ``answer`` paced word by word."""

    calls: int = 0

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _first_call(self) -> bool:
        self.calls += 1
        return self.calls % 2 == 1

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        if self._first_call():
            call = AIMessage(content="", tool_calls=[{"name": "search", "args": {"query": "q"}, "id": "c1"}])
            return ChatResult(generations=[ChatGeneration(message=call)])
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.answer))])

    def _stream(self, messages: Any, stop: Any = None, run_manager: Any = None,
                **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        if self._first_call():
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[
                {"name": "search", "args": '{"query": "q"}', "id": "c1", "index": 0}]))
            return
        for chunk in Paced._stream(self, messages, stop, None, **kwargs):
            if run_manager:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk


def agent(row: dict, token_s: float, middleware: list[Any]) -> Any:
    from langchain.agents import create_agent
    from langchain_core.tools import tool

    passages = "\n\n".join(row["context"])

    @tool
    def search(query: str) -> str:
        """Search the documents."""
        return passages

    model = PacedAgentModel(answer=row["answer"], token_s=token_s)
    return create_agent(model, tools=[search], middleware=middleware)


class Streamed:
    """An agent's "messages" stream as text chunks of its model node (a `stream` like a chain's)."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph

    def stream(self, question: str) -> Iterator[str]:
        user = {"messages": [{"role": "user", "content": question}]}
        for message, meta in self.graph.stream(user, stream_mode="messages"):
            if meta.get("langgraph_node") == "model" and message.content:
                yield message.content


def chain(row: dict, token_s: float) -> Any:
    docs = Passages(passages=row["context"]) | RunnableLambda(lambda d: "\n\n".join(x.page_content for x in d))
    prompt = ChatPromptTemplate.from_template("{context}\n\nQuestion: {question}")
    return {"context": docs, "question": RunnablePassthrough()} | prompt | Paced(answer=row["answer"],
                                                                              token_s=token_s) | StrOutputParser()


def delivered_at(answer: str, run: Any, question: str) -> tuple[list[float], float]:
    """When each sentence of ``answer`` was delivered by the plain stream, and the stream's total time."""
    ends = [e for _, e in split_sentences(answer)]
    t0, text, times = time.perf_counter(), "", []
    for chunk in run.stream(question):
        text += chunk
        while len(times) < len(ends) and len(text) >= ends[len(times)]:
            times.append(time.perf_counter() - t0)
    return times, time.perf_counter() - t0


def released_at(run: Any, question: str) -> tuple[list[tuple[float, str]], float]:
    t0, out = time.perf_counter(), []
    for chunk in run.stream(question):
        out.append((time.perf_counter() - t0, chunk))
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--rows", type=int, default=30)
    ap.add_argument("--token-ms", type=float, default=20.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--agent", action="store_true",
                    help="a create_agent run (a search tool, then the answer) with HalguardMiddleware, streamed in "
                         "the messages mode, instead of the LCEL chain")
    ap.add_argument("--long", action="store_true", help="300-sentence answers through the core gate (see above)")
    ap.add_argument("--load", type=int, default=0,
                    help="with --long: this many CPU-bound processes run beside the stream (issue 46: two)")
    ap.add_argument("--no-prepare", action="store_true",
                    help="do not encode the documents beside the stream (the first sentence's check does it)")
    args = ap.parse_args()
    if args.no_prepare:
        import halguard.guard.sentences as sentences

        sentences._prepare_in_background = lambda core, request: None  # noqa: SLF001
    import torch

    torch.set_num_threads(args.threads)
    if args.long:
        busy = _busy_processes(args.load)
        try:
            long_answers(Path(args.data), args.rows if args.rows != 30 else 5, load=args.load)
        finally:
            for proc in busy:
                proc.terminate()
        return
    rows = [r for r in map(json.loads, open(Path(args.data) / "ragtruth_dev.jsonl", encoding="utf-8"))
            if r["task_type"] == "QA" and len(split_sentences(r["answer"])) >= 2][: args.rows]
    shared = LocalVerifier()
    shared.warm_up()
    first, every, checks, ratio, plain_total, guarded_total = [], [], [], [], [], []
    for row in rows:
        shared.embedder._cache.clear()  # noqa: SLF001 - first sight of this row's context
        token_s = args.token_ms / 1000
        detector = LocalVerifier(embedder=shared.embedder)
        if args.agent:
            delivered, plain_s = delivered_at(row["answer"], Streamed(agent(row, token_s, [])), row["question"])
            middleware = HalguardMiddleware(detector=detector, on_hallucination="filter", streaming="sentence")
            guarded = Streamed(agent(row, token_s, [middleware]))
        else:
            delivered, plain_s = delivered_at(row["answer"], chain(row, token_s), row["question"])
            guarded = with_halguard(chain(row, token_s), detector=detector, on_hallucination="filter",
                                    streaming="sentence", str_input="as_is")
        released, guarded_s = released_at(guarded, row["question"])
        spans = split_sentences(row["answer"])
        # Match released chunks to sentences by position (a dropped sentence has no release).
        position, delays = 0, []
        for at, text in released:
            while position < len(spans) and row["answer"][spans[position][0]:spans[position][1]] not in text:
                position += 1
            if position < len(spans):
                delays.append(at - delivered[position])
                position += 1
        if delays:
            first.append(delays[0] * 1000)
            every.extend(d * 1000 for d in delays)
        t0 = time.perf_counter()
        shared.verify(row["answer"][spans[-1][0]:spans[-1][1]], row["context"], question=row["question"])
        checks.append((time.perf_counter() - t0) * 1000)
        ratio.append(guarded_s / plain_s)
        plain_total.append(plain_s)
        guarded_total.append(guarded_s)
    med = statistics.median
    print(json.dumps({
        "rows": len(rows), "agent": args.agent, "token_ms": args.token_ms, "torch_threads": args.threads, "prepare": not args.no_prepare,
        "first_sentence_delay_ms_median": round(med(first), 1),
        "first_sentence_delay_ms_p90": round(sorted(first)[int(0.9 * (len(first) - 1))], 1),
        "sentence_delay_ms_median": round(med(every), 1),
        "one_sentence_check_ms_median (warm)": round(med(checks), 1),
        "plain_total_s_median": round(med(plain_total), 3), "guarded_total_s_median": round(med(guarded_total), 3),
        "total_ratio_median": round(med(ratio), 3),
    }, indent=1))


def _spin() -> None:  # pragma: no cover - runs in a child process
    while True:
        sum(i * i for i in range(10_000))


def _busy_processes(count: int) -> list[Any]:
    """``count`` CPU-bound processes (the other load a shared 2-core machine has)."""
    import multiprocessing

    procs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(count)]
    for proc in procs:
        proc.start()
    return procs


# The fabricated sentence put near the end of each long answer (second to last): it must never be sent.
FABRICATED = "The company was fined 912 million euros by the Zurich Maritime Authority in 1987."


def long_answers(data: Path, count: int, *, load: int = 0) -> None:
    """``--long``: 300-sentence answers through the core gate (see the module), plus a fabricated sentence as the
    301st, before the last: under each policy that changes the answer, whether it was ever sent."""
    from halguard.errors import HalguardError
    from halguard.guard import GuardCore, GuardRequest
    from halguard.guard.sentences import SentenceGate

    rows = [r for r in map(json.loads, open(data / "ragtruth_dev.jsonl", encoding="utf-8"))
            if r["task_type"] == "Summary" and len(split_sentences(r["answer"])) >= 3][:count]
    verifier = LocalVerifier()
    verifier.warm_up()
    results = []
    for row in rows:
        spans = split_sentences(row["answer"])
        sentences = [row["answer"][a:b].strip() for a, b in spans]
        body = [sentences[i % len(sentences)] for i in range(300)]
        text = " ".join([*body[:-1], FABRICATED, body[-1]])
        timings: list[float] = []
        verify = verifier.verify

        def timed(answer, *a, **k):
            t0 = time.perf_counter()
            out = verify(answer, *a, **k)
            timings.append(time.perf_counter() - t0)
            return out

        verifier.verify = timed
        gate = SentenceGate(GuardCore(verifier, on_hallucination="filter"),
                            GuardRequest(row["question"], "", row["context"]))
        released = [r for i in range(0, len(text), 40) for r in gate.feed(text[i:i + 40])]
        rest, _ = gate.close()
        del verifier.verify
        released += rest
        t0 = time.perf_counter()
        verifier.verify(text, row["context"], question=row["question"])
        whole_s = time.perf_counter() - t0
        sent = {"filter": "".join(r.text for r in released)}
        for policy in ("fallback", "raise"):
            other = SentenceGate(GuardCore(verifier, on_hallucination=policy),
                                 GuardRequest(row["question"], "", row["context"]))
            with contextlib.suppress(HalguardError):  # raise stops the stream: what went out before it counts
                for i in range(0, len(text), 40):
                    other.feed(text[i:i + 40])
                other.close()
            sent[policy] = "".join(r.text for r in other.released)  # every piece decided: what went out
        results.append({"chars": len(text), "sentences": len(released), "checks_s": round(gate._spent, 2),  # noqa: SLF001
                        "whole_answer_check_s": round(whole_s, 2),
                        "ratio_to_whole_check": round(gate._spent / whole_s, 2) if whole_s else None,  # noqa: SLF001
                        "unverified": sum(r.status == "unverified" for r in released),
                        "fabrication_sent": {p: FABRICATED in t for p, t in sent.items()},
                        "first_20_ms": round(statistics.median(timings[:20]) * 1000, 1),
                        "last_20_ms": round(statistics.median(timings[-20:]) * 1000, 1)})
        print(json.dumps(results[-1]), flush=True)
    print(json.dumps({"rows": len(results), "torch_threads": torch_threads(), "busy_processes": load,
                      "checks_s_median": statistics.median(r["checks_s"] for r in results),
                      "checks_s_max": max(r["checks_s"] for r in results),
                      "ratio_to_whole_check_median": statistics.median(r["ratio_to_whole_check"] or 0 for r in results),
                      "unverified_total": sum(r["unverified"] for r in results),
                      "fabrication_ever_sent": any(any(r["fabrication_sent"].values()) for r in results)}, indent=1))


def torch_threads() -> int:
    import torch

    return torch.get_num_threads()


if __name__ == "__main__":
    main()
