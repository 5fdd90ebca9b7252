import asyncio

import pytest

from halguard import ConsistencyReport, Detector, InvalidInputError, Usage, Verdict, combine_verdicts
from halguard.consistency.judges import HallucinationJudgment
from halguard.tools.render import format_verdict


def _grounding(label):
    if label == "unverified":
        return Verdict.unverified("no_context", "nothing retrieved", detector="t", threshold=0.5)
    return Verdict(label=label, hallucination_detected=label == "hallucinated", score=0.2 if label == "supported"
                   else 0.8, threshold=0.5, detector="t", usage=Usage(llm_calls=1, input_tokens=5))


def _report(label):
    judgment = None if label == "unverified" else HallucinationJudgment(
        hallucination_detected=label == "inconsistent", confidence_score=0.7)
    return ConsistencyReport(question="q", label=label, paraphrases=["p"], paraphrase_source="model",
                             answers=[], judgment=judgment, usage=Usage(llm_calls=6, input_tokens=100))


@pytest.mark.parametrize(
    ("grounding", "consistency", "expected"),
    [
        ("unverified", "inconsistent", "unverified"),
        ("hallucinated", "consistent", "hallucinated"),
        ("supported", "inconsistent", "hallucinated"),
        ("supported", "unverified", "unverified"),
        ("supported", "consistent", "supported"),
    ],
)
def test_combination_rule(grounding, consistency, expected):
    v = combine_verdicts(_grounding(grounding), _report(consistency))
    assert v.label == expected
    assert v.consistency.label == consistency  # a typed ConsistencyReport, not a dict
    assert v.usage.llm_calls == (1 if grounding != "unverified" else 0) + 6
    if (grounding, consistency) == ("supported", "inconsistent"):
        assert v.score == 0.7 and v.hallucination_detected
    if expected == "unverified":
        assert v.score is None and v.errors


class Echo(Detector):
    name = "echo"

    def verify(self, answer, contexts, *, question=None):
        label = "hallucinated" if "bad" in answer else "supported"
        return Verdict(label=label, hallucination_detected=label == "hallucinated", score=0.9 if label ==
                       "hallucinated" else 0.1, threshold=0.5, detector=self.name)


def test_detector_defaults_for_async_and_batch():
    d = Echo()
    assert asyncio.run(d.averify("bad answer", ["c"])).label == "hallucinated"
    assert [v.label for v in d.verify_batch(["ok", "bad"], [["c"], ["c"]])] == ["supported", "hallucinated"]
    assert [v.label for v in asyncio.run(d.averify_batch(["bad"], [["c"]]))] == ["hallucinated"]
    with pytest.raises(InvalidInputError):
        d.verify_batch(["a"], [["c"]], questions=["q1", "q2"])


def test_render_shows_errors_and_claims(verifier):
    unverified = format_verdict(_grounding("unverified"))
    assert "UNVERIFIED" in unverified and "no_context: nothing retrieved" in unverified
    v = verifier.verify("The tower is 410 metres tall.", ["The Eiffel Tower is 330 metres tall."])
    table = format_verdict(v)
    assert "CONTRADICTION" in table and "numbers not in the context: 410" in table
