"""Verdicts in the caller's OpenTelemetry trace (halguard/telemetry.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from halguard import telemetry  # noqa: E402
from halguard.guard import GuardCore, GuardRequest  # noqa: E402

GOOD = "The Eiffel Tower is 330 metres tall."
BAD = "The Eiffel Tower is 330 metres tall. It was designed by Leonardo da Vinci in 1620."


@pytest.fixture(scope="module")
def tracer():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test"), exporter


def test_a_guard_records_its_verdict_on_the_callers_span(verifier, eiffel_context, tracer):
    otel_tracer, exporter = tracer
    exporter.clear()
    core = GuardCore(verifier, on_hallucination="filter")
    with otel_tracer.start_as_current_span("rag-request"):
        core.run(GuardRequest("How tall is it?", BAD, eiffel_context, request_id="req-1"))
    (span,) = exporter.get_finished_spans()
    attributes = dict(span.attributes)
    assert attributes["halguard.label"] == "hallucinated" and attributes["halguard.action"] == "filter"
    assert attributes["halguard.flagged_claims"] == 1 and attributes["halguard.request_id"] == "req-1"
    assert attributes["evaluations.0.evaluation.name"] == "halguard"
    assert attributes["evaluations.0.evaluation.label"] == "hallucinated"
    assert 0 < attributes["evaluations.0.evaluation.score"] <= 1
    assert "da Vinci" not in str(attributes)  # no answer text in the trace
    (event,) = span.events
    assert event.name == "halguard.verdict" and event.attributes["halguard.label"] == "hallucinated"


def test_two_verdicts_on_one_span_take_two_indexes(verifier, eiffel_context, tracer):
    otel_tracer, exporter = tracer
    exporter.clear()
    core = GuardCore(verifier)
    with otel_tracer.start_as_current_span("two-checks"):
        core.run(GuardRequest("q", GOOD, eiffel_context))
        core.run(GuardRequest("q", BAD, eiffel_context))
    attributes = dict(exporter.get_finished_spans()[0].attributes)
    assert attributes["evaluations.0.evaluation.label"] == "supported"
    assert attributes["evaluations.1.evaluation.label"] == "hallucinated"


def test_nothing_without_a_recording_span(verifier, eiffel_context):
    verdict = GuardCore(verifier).run(GuardRequest("q", GOOD, eiffel_context)).verdict
    assert telemetry.record_verdict(verdict) is False


def test_nothing_without_opentelemetry(monkeypatch, verifier, eiffel_context):
    verdict = GuardCore(verifier).run(GuardRequest("q", GOOD, eiffel_context)).verdict
    monkeypatch.setattr(telemetry, "_trace", False)  # as when opentelemetry-api is not installed
    assert telemetry.record_verdict(verdict) is False


def test_our_names_are_openinferences():
    semconv = pytest.importorskip("openinference.semconv.trace")
    evaluation = semconv.EvaluationAttributes
    assert semconv.SpanAttributes.EVALUATIONS == "evaluations"
    names = {evaluation.EVALUATION_NAME, evaluation.EVALUATION_LABEL, evaluation.EVALUATION_SCORE,
             evaluation.EVALUATION_EXPLANATION, evaluation.EVALUATION_ANNOTATOR_KIND, evaluation.EVALUATION_IDENTIFIER}
    assert names == {f"evaluation.{k}" for k in ("name", "label", "score", "explanation", "annotator_kind",
                                                   "identifier")}
