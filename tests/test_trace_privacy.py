"""No answer, question or context text in the caller's OpenTelemetry trace, exceptions included, under every policy.

The OTel SDK records an exception that leaves a span (``start_as_current_span``'s default ``record_exception=True``)
as an ``exception`` event holding ``str(exc)`` and ``traceback.format_exception(exc)`` (chained exceptions and notes
included), and sets the span's status description to ``str(exc)``. So halguard's exceptions must carry no text of
the request: the flagged claims, the errors and the request stay on ``exc.verdict``. Every text below holds
invented words (markers) that nothing else in a trace can contain.
"""

from __future__ import annotations

import asyncio
import traceback

import pytest

pytest.importorskip("opentelemetry.sdk")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.runnables import RunnableLambda  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from halguard import Detector, HalguardError, HallucinationError, UnverifiedError, Verdict  # noqa: E402
from langchain_halguard import with_halguard  # noqa: E402
from tests.test_active import Scripted  # noqa: E402
from tests.test_active_adapters import LogprobChat  # noqa: E402

QUESTION = "Who founded the Quenvale observatory for the Vextrano guild?"
CONTEXT = "The Quenvale observatory was founded in 1962 by the astronomer Helgarine Ostrup."
KEPT = "The Quenvale observatory was founded in 1962 by Helgarine Ostrup."
FLAGGED = "It was later bought by Zorblax Frimwell for 9 million crowns."
ANSWER = f"{KEPT} {FLAGGED}"
REPAIRED = "It was founded by the astronomer Helgarine Ostrup."
FALLBACK = "No confirmed answer."
MARKERS = ("quenvale", "vextrano", "helgarine", "ostrup", "zorblax", "frimwell", "crowns")


@pytest.fixture(scope="module")
def tracing():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()  # passed explicitly: the process-wide provider is left alone
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("trace-privacy"), exporter


class Broken(Detector):
    """A detector that fails with the request's text in its error (a provider quoting its input): it raises, or
    (``returns``) reports it as an ``unverified`` verdict's error message. ``from_call``: the first ``from_call - 1``
    checks go to the local verifier (repair: the first check runs, the second fails)."""

    name, threshold = "broken", 0.5

    def __init__(self, inner: Detector, from_call: int = 1, *, returns: bool = False) -> None:
        self.inner, self.from_call, self.returns, self.calls = inner, from_call, returns, 0

    def verify(self, answer, contexts, *, question=None):
        self.calls += 1
        if self.calls < self.from_call:
            return self.inner.verify(answer, contexts, question=question)
        msg = f"cannot read {answer!r} for {question!r} against {contexts!r}"
        if self.returns:
            return Verdict.unverified("provider_error", msg, detector=self.name, threshold=self.threshold)
        raise RuntimeError(msg)


def _found(text: str) -> set[str]:
    low = text.lower()
    return {m for m in MARKERS if m in low}


def trace_texts(exporter) -> list[str]:
    """Everything a span carries that an exporter sends: names, status, attributes, events' names and attributes."""
    out = []
    for span in exporter.get_finished_spans():
        out += [span.name, span.status.description or ""]
        out += [f"{k}={v}" for k, v in (span.attributes or {}).items()]
        for event in span.events:
            out += [event.name, *(f"{k}={v}" for k, v in (event.attributes or {}).items())]
    return out


def exception_texts(exc: BaseException) -> list[str]:
    return [str(exc), repr(exc), *map(repr, exc.args), *getattr(exc, "__notes__", []),
            "".join(traceback.format_exception(exc))]


def run_traced(tracing, call, *, raises: type[BaseException] | None):
    """``call()`` inside a caller's span; returns the exception it raised (None when it returned)."""
    tracer, exporter = tracing
    exporter.clear()
    caught = None
    try:
        with tracer.start_as_current_span("user-request"):
            call()
    except HalguardError as exc:
        caught = exc
    assert type(caught) is raises if raises else caught is None, caught
    (span,) = [s for s in exporter.get_finished_spans() if s.name == "user-request"]
    assert "halguard.label" in span.attributes  # the verdict was recorded on this span: the check is not vacuous
    texts = trace_texts(exporter)
    if caught is not None:
        (event,) = [e for e in span.events if e.name == "exception"]
        assert "Traceback" in event.attributes["exception.stacktrace"]  # what the SDK wrote is under test
        assert not set().union(*map(_found, exception_texts(caught)))
        assert caught.verdict is not None  # the detail stays on the object, for code that wants it
    leaked = set().union(*map(_found, texts))
    assert not leaked, [t for t in texts if _found(t)]
    return caught


# -- the LangChain Runnable guard -------------------------------------------------------------------------------------


def chain(answer: str = ANSWER):
    return RunnableLambda(lambda x: {"input": x["input"], "context": [Document(id="obs", page_content=CONTEXT)],
                                     "answer": answer})


def repairer():
    return LogprobChat(script=Scripted(repair=REPAIRED))


LANGCHAIN = [
    ("annotate", "fail_open", None),
    ("raise", "fail_open", HallucinationError),
    ("fallback", "fail_open", None),
    ("filter", "fail_open", None),
    ("repair", "fail_open", None),
]


@pytest.mark.parametrize(("policy", "unverified", "raises"), LANGCHAIN)
def test_langchain_guard_puts_no_text_in_the_trace(tracing, verifier, policy, unverified, raises):
    extra = {"repairer": repairer()} if policy == "repair" else {}
    guarded = with_halguard(chain(), detector=verifier, on_hallucination=policy, on_unverified=unverified,
                            fallback=FALLBACK if policy == "fallback" else None, **extra)
    exc = run_traced(tracing, lambda: guarded.invoke({"input": QUESTION}), raises=raises)
    if exc is not None:
        assert [c.text for c in exc.verdict.flagged_claims] == [FLAGGED]
        assert "1 of 2 claims" in str(exc)  # what happened, by count and position, never by quoting it


@pytest.mark.parametrize("policy", ["annotate", "raise", "fallback", "filter", "repair"])
@pytest.mark.parametrize("unverified", ["fail_open", "fail_closed"])
def test_langchain_guard_with_a_check_that_fails_quoting_its_input(tracing, verifier, policy, unverified):
    extra = {"repairer": repairer()} if policy == "repair" else {}
    guarded = with_halguard(chain(), detector=Broken(verifier), on_hallucination=policy, on_unverified=unverified,
                            fallback=FALLBACK if policy == "fallback" else None, **extra)
    closed = unverified == "fail_closed" and policy in ("raise", "filter", "repair")
    exc = run_traced(tracing, lambda: guarded.invoke({"input": QUESTION}), raises=UnverifiedError if closed else None)
    if exc is not None:
        assert [e.code for e in exc.verdict.errors] == ["internal_error"] and "internal_error" in str(exc)
        assert "Zorblax" in exc.verdict.errors[0].message  # the message is kept on the verdict, not in the trace


def test_langchain_repair_whose_second_check_fails_closed(tracing, verifier):
    guarded = with_halguard(chain(), detector=Broken(verifier, from_call=2, returns=True), on_hallucination="repair",
                            on_unverified="fail_closed", repairer=repairer())
    exc = run_traced(tracing, lambda: guarded.invoke({"input": QUESTION}), raises=UnverifiedError)
    assert [e.code for e in exc.verdict.errors] == ["provider_error"] and "Helgarine" in exc.verdict.errors[0].message
    assert "provider_error" in str(exc)


def test_langchain_async_and_sentence_stream_raise_without_text(tracing, verifier):
    guarded = with_halguard(chain(), detector=verifier, on_hallucination="raise")
    run_traced(tracing, lambda: asyncio.run(guarded.ainvoke({"input": QUESTION})), raises=HallucinationError)
    streamed = with_halguard(chain(), detector=verifier, on_hallucination="raise", streaming="sentence")
    exc = run_traced(tracing, lambda: list(streamed.stream({"input": QUESTION})), raises=HallucinationError)
    assert [c.text for c in exc.verdict.flagged_claims] == [FLAGGED]


def test_langchain_structured_answer_refused_without_text(tracing, verifier):
    from pydantic import BaseModel

    class Reply(BaseModel):
        text: str

    structured = RunnableLambda(lambda x: Reply(text=ANSWER))
    guarded = with_halguard(structured, detector=verifier, on_hallucination="filter", answer_key=None,
                            context_key="context")
    run_traced(tracing, lambda: guarded.invoke({"input": QUESTION, "context": [CONTEXT]}), raises=HallucinationError)


# -- HalguardMiddleware in create_agent -------------------------------------------------------------------------------


def _agent(middleware, answer: str = ANSWER):
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool

    from tests.jwst import ToolCallingFake

    @tool
    def search_records(query: str) -> str:
        """Search the observatory records."""
        return CONTEXT

    script = [AIMessage(content="", tool_calls=[{"name": "search_records", "args": {"query": "founder"}, "id": "c1"}]),
              AIMessage(content=answer)]
    return create_agent(ToolCallingFake(responses=script), tools=[search_records], middleware=[middleware])


MIDDLEWARE = [
    ("annotate", "fail_open", False, None),
    ("raise", "fail_open", False, HallucinationError),
    ("fallback", "fail_open", False, None),
    ("filter", "fail_open", False, None),
    ("repair", "fail_open", False, None),
    ("end", "fail_open", False, None),
    ("annotate", "fail_closed", True, None),
    ("raise", "fail_closed", True, UnverifiedError),
    ("fallback", "fail_closed", True, None),
    ("filter", "fail_closed", True, UnverifiedError),
    ("repair", "fail_closed", True, UnverifiedError),
    ("end", "fail_closed", True, None),
    ("raise", "fail_open", True, None),
]


@pytest.mark.parametrize(("policy", "unverified", "broken", "raises"), MIDDLEWARE)
def test_middleware_puts_no_text_in_the_trace(tracing, verifier, policy, unverified, broken, raises):
    pytest.importorskip("langchain.agents")
    from langchain_halguard import HalguardMiddleware

    extra = {"repairer": repairer()} if policy == "repair" else {}
    mw = HalguardMiddleware(detector=Broken(verifier) if broken else verifier, on_hallucination=policy,
                            on_unverified=unverified, **extra)
    agent = _agent(mw)
    run_traced(tracing, lambda: agent.invoke({"messages": [{"role": "user", "content": QUESTION}]}), raises=raises)


def test_middleware_sentence_stream_raise_without_text(tracing, verifier):
    pytest.importorskip("langchain.agents")
    from langchain_halguard import HalguardMiddleware

    agent = _agent(HalguardMiddleware(detector=verifier, on_hallucination="raise", streaming="sentence"))
    user = {"messages": [{"role": "user", "content": QUESTION}]}
    run_traced(tracing, lambda: list(agent.stream(user, stream_mode="messages")), raises=HallucinationError)


# -- the LlamaIndex query-engine wrapper ------------------------------------------------------------------------------


def _engine(**options):
    from llama_index.core.base.response.schema import Response
    from llama_index.core.schema import NodeWithScore, TextNode

    from llamaindex_halguard import HalguardQueryEngine
    from tests.test_llamaindex import FixedEngine

    nodes = [NodeWithScore(node=TextNode(text=CONTEXT, id_="obs"), score=1.0)]
    return HalguardQueryEngine(FixedEngine(Response(ANSWER, nodes)), **options)


LLAMAINDEX = [
    ("annotate", "fail_open", False, None),
    ("raise", "fail_open", False, HallucinationError),
    ("fallback", "fail_open", False, None),
    ("filter", "fail_open", False, None),
    ("repair", "fail_open", False, None),
    ("raise", "fail_closed", True, UnverifiedError),
    ("filter", "fail_closed", True, UnverifiedError),
    ("repair", "fail_closed", True, UnverifiedError),
    ("fallback", "fail_closed", True, None),
    ("annotate", "fail_closed", True, None),
]


@pytest.mark.parametrize(("policy", "unverified", "broken", "raises"), LLAMAINDEX)
def test_llamaindex_query_engine_puts_no_text_in_the_trace(tracing, verifier, policy, unverified, broken, raises):
    pytest.importorskip("llama_index.core")
    from tests.test_active_adapters import LogprobLLM

    extra = {"repairer": LogprobLLM(script=Scripted(repair=REPAIRED))} if policy == "repair" else {}
    engine = _engine(detector=Broken(verifier) if broken else verifier, on_hallucination=policy,
                     on_unverified=unverified, fallback=FALLBACK if policy == "fallback" else None, **extra)
    run_traced(tracing, lambda: engine.query(QUESTION), raises=raises)
    run_traced(tracing, lambda: asyncio.run(engine.aquery(QUESTION)), raises=raises)


def test_llamaindex_sentence_stream_raise_without_text(tracing, verifier):
    pytest.importorskip("llama_index.core")
    from llama_index.core.base.response.schema import StreamingResponse
    from llama_index.core.schema import NodeWithScore, TextNode

    from llamaindex_halguard import HalguardQueryEngine
    from tests.test_llamaindex import FixedEngine

    nodes = [NodeWithScore(node=TextNode(text=CONTEXT, id_="obs"), score=1.0)]
    words = iter(ANSWER.split(" "))
    stream = StreamingResponse(response_gen=(w if i == 0 else f" {w}" for i, w in enumerate(words)),
                               source_nodes=nodes)
    engine = HalguardQueryEngine(FixedEngine(stream), detector=verifier, on_hallucination="raise",
                                 streaming="sentence")
    run_traced(tracing, lambda: "".join(engine.query(QUESTION).response_gen), raises=HallucinationError)


# -- the contract on the exception itself -----------------------------------------------------------------------------


def test_the_exception_keeps_the_detail_on_its_verdict(verifier):
    guarded = with_halguard(chain(), detector=verifier, on_hallucination="raise")
    with pytest.raises(HallucinationError) as info:
        guarded.invoke({"input": QUESTION})
    exc = info.value
    assert exc.__cause__ is None and exc.__context__ is None  # no chained exception brings text into a traceback
    assert exc.verdict.label == "hallucinated" and exc.verdict.request.question == QUESTION
    assert [c.text for c in exc.verdict.flagged_claims] == [FLAGGED]


def test_a_verdict_with_text_in_its_error_messages_is_described_by_codes():
    from halguard.errors import verdict_summary

    verdict = Verdict.unverified("provider_error", f"the provider said: {ANSWER}", detector="x", threshold=0.5)
    assert verdict_summary(verdict) == "not checked: provider_error"


# -- logs ------------------------------------------------------------------------------------------------------

def test_logs_above_debug_hold_no_text(caplog):
    """A flagged verdict and a check that fails quoting its input are logged as labels, codes, positions and types."""
    import logging

    from halguard import Detector, LocalVerifier
    from halguard.failures import check_answer
    from langchain_core.runnables import RunnableLambda

    from langchain_halguard import with_halguard

    class Quoting(Detector):
        def verify(self, answer, contexts, *, question=None):
            msg = f"cannot read {answer!r} against {contexts!r}"
            raise RuntimeError(msg)

    answer, context = "Zorblax opened the Quenvale bridge in 1850.", "Zorblax opened the Quenvale bridge in 1803."
    chain = RunnableLambda(lambda q: {"input": q, "context": [context], "answer": answer})
    with caplog.at_level(logging.INFO):
        with_halguard(chain, detector=LocalVerifier()).invoke("Who opened it?")
        check_answer(Quoting(), answer, [context])
    shown = [r.getMessage() for r in caplog.records if r.levelno > logging.DEBUG]
    assert any("hallucinated" in m for m in shown) and any("RuntimeError" in m for m in shown)
    assert not any(word in m for m in shown for word in ("Zorblax", "Quenvale", "1850"))
