"""Rewordings that drift from the question are asked for again once, then dropped, and the report says why."""

import json

import pytest

from halguard import InvalidInputError, LocalConsistencyJudge, ParaphraseConsistency, ParaphraseThresholds
from halguard.consistency.paraphrases import answer_kind, drift_reason, focus_word
from halguard.llm.envelope import request_data, request_nonce

AUSTRALIA = "What is the capital of Australia?"
GOOD = ["Which city is Australia's capital?", "Name the capital city of Australia.", "What is Australia's capital?"]
DRIFTED = ["What is the largest city in Australia?", "Which is the most populous state in Australia?",
           "What is the capital of Austria?"]


@pytest.mark.parametrize(("question", "paraphrase", "reason"), [
    (AUSTRALIA, "What is the capital of Austria?", "leaves out the name 'Australia'"),
    ("Who won the 2014 World Cup?", "Who won the World Cup in 2018?", "leaves out the number 2014"),
    ("When did humans first land on the Moon?", "Who was the first human to land on the Moon?",
     "asks for a person instead of a time"),
    (AUSTRALIA, "What is the largest city in Australia?", "leaves out 'capital'"),
    (AUSTRALIA, "What is the population of Australia?", "asks something else"),
    ("What colour was Napoleon's horse Marengo?", "What breed was Napoleon's horse Marengo?", "leaves out 'colour'"),
])
def test_drifted_rewordings_are_named(verifier, question, paraphrase, reason):
    vectors, _ = verifier.embedder.encode([question, paraphrase])
    found = drift_reason(question, paraphrase, float(vectors[0] @ vectors[1]))
    assert found is not None and found.startswith(reason)


@pytest.mark.parametrize(("question", "paraphrase"), [
    (AUSTRALIA, "Which city is Australia's capital?"),
    ("When did humans first land on the Moon?", "What year did astronauts first walk on the Moon?"),
    ("When did humans first land on the Moon?", "On what date did people first set foot on the Moon?"),
    ("What colour was Napoleon's horse Marengo?", "Marengo, Napoleon's horse, was what colour?"),
])
def test_faithful_rewordings_are_kept(verifier, question, paraphrase):
    vectors, _ = verifier.embedder.encode([question, paraphrase])
    assert drift_reason(question, paraphrase, float(vectors[0] @ vectors[1])) is None


def test_answer_kind_and_focus_word():
    assert answer_kind("When did it open?") == "a time" and answer_kind("What year did it open?") == "a time"
    assert answer_kind("How many moons has Mars?") == "an amount" and answer_kind("What is it?") is None
    assert focus_word("What colour was Napoleon's horse?") == ("colour", "colour")
    assert focus_word("What is the capital of Australia?")[0] == "capital"
    assert focus_word("When did it open?") is None


class Paraphraser:
    """Scripted paraphraser: one reply per call, in order; keeps the messages it got."""

    def __init__(self, *replies: list[str]):
        self.replies = replies
        self.calls: list[list[dict]] = []

    def __call__(self, messages):
        self.calls.append(messages)
        paraphrases = self.replies[min(len(self.calls), len(self.replies)) - 1]
        return json.dumps({"nonce": request_nonce(messages), "paraphrases": paraphrases})


def checker(verifier, paraphraser, **kw):
    return ParaphraseConsistency(paraphraser=paraphraser, judge=LocalConsistencyJudge(verifier.embedder),
                                 n_paraphrases=3, **kw)


def test_drifted_ones_are_asked_for_again_then_used(verifier):
    paraphraser = Paraphraser([GOOD[0], *DRIFTED[:2]], GOOD[1:])
    report = checker(verifier, paraphraser).check(AUSTRALIA, lambda q: "Canberra.", answer="Canberra.")
    assert report.paraphrase_source == "model" and report.paraphrases == GOOD
    assert [d.paraphrase for d in report.dropped_paraphrases] == DRIFTED[:2]
    assert report.dropped_paraphrases[0].reason.startswith("leaves out 'capital'")
    assert 0 < report.dropped_paraphrases[0].similarity < 1
    assert len(paraphraser.calls) == 2
    retry = paraphraser.calls[1]
    assert request_data(retry) == {"question": AUSTRALIA, "rejected": DRIFTED[:2]}  # the rejected ones, as data
    assert "Write 2 new rewrites" in retry[0]["content"] and DRIFTED[0] not in retry[0]["content"]
    assert request_nonce(retry) != request_nonce(paraphraser.calls[0])  # a fresh call, with its own nonce
    assert report.usage.llm_calls == 2 + 3  # two paraphrase calls, three sampled answers (local judge)
    assert report.label == "consistent"


def test_drifting_twice_falls_back_to_templates_and_says_so(verifier):
    paraphraser = Paraphraser(DRIFTED, DRIFTED[::-1])
    report = checker(verifier, paraphraser).check(AUSTRALIA, lambda q: "Canberra.", answer="Canberra.")
    assert report.paraphrase_source == "fallback_templates"
    assert len(report.dropped_paraphrases) == 3 and len(paraphraser.calls) == 2
    fallback = next(e for e in report.errors if e.code == "paraphrase_fallback")
    assert "3 dropped as asking for something else" in fallback.message
    assert any(e.code == "paraphrase_failed" for e in report.errors)  # the confidence is halved, and it says so


async def test_async_twin(verifier):
    paraphraser = Paraphraser([GOOD[0], *DRIFTED[:2]], GOOD[1:])
    report = await checker(verifier, paraphraser).acheck(AUSTRALIA, lambda q: "Canberra.", answer="Canberra.")
    assert report.paraphrases == GOOD and len(report.dropped_paraphrases) == 2 and len(paraphraser.calls) == 2


def test_no_retry_when_nothing_drifted(verifier):
    paraphraser = Paraphraser(GOOD)
    report = checker(verifier, paraphraser).check(AUSTRALIA, lambda q: "Canberra.", answer="Canberra.")
    assert report.paraphrases == GOOD and report.dropped_paraphrases == [] and len(paraphraser.calls) == 1


def test_the_check_can_be_switched_off(verifier):
    paraphraser = Paraphraser(DRIFTED)
    report = checker(verifier, paraphraser, paraphrase_thresholds=None).check(AUSTRALIA, lambda q: "Canberra.",
                                                                            answer="Canberra.")
    assert report.paraphrases == DRIFTED and report.dropped_paraphrases == []


def test_thresholds_are_checked():
    with pytest.raises(InvalidInputError, match="paraphrase_thresholds"):
        ParaphraseConsistency(paraphrase_thresholds={"min_similarity": 0.5})
    assert ParaphraseThresholds().min_similarity < ParaphraseThresholds().rephrase_similarity


def test_relative_pronouns_and_nationalities_are_not_drift(verifier):
    question = "The 1976 German Grand Prix was won by a driver who retired in what year?"
    assert answer_kind(question) is None  # "who" and "what year": the kind cannot be told, so it is not checked
    paraphrase = "What year did the winner of the 1976 German Grand Prix retire?"
    vectors, _ = verifier.embedder.encode([question, paraphrase])
    assert drift_reason(question, paraphrase, float(vectors[0] @ vectors[1])) is None
    singer = "Dua Lipa, an English singer, released her debut album in what year?"
    kept = "In what year did Dua Lipa release her debut album?"
    vectors, _ = verifier.embedder.encode([singer, kept])
    assert drift_reason(singer, kept, float(vectors[0] @ vectors[1])) is None
