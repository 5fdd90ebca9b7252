"""Paraphrase sampling keeps no per-call state on shared objects, and refusals are not conflicts."""

import asyncio
import json

import pytest

from halguard import ResponseCache
from halguard.text.claims import is_non_answer
from halguard.consistency.sampling import ParaphraseConsistency
from halguard.consistency.judges import ConsistencyJudge, LocalConsistencyJudge
from halguard.llm.envelope import request_data, request_nonce
from halguard.llm.providers import CallableChat, ChatReply

QUESTIONS = [f"In which year did expedition {i} reach camp {i}?" for i in range(50)]


def _index(text: str) -> int:
    """The expedition number named in a prompt (every prompt of a check names exactly one)."""
    return int(text.lower().split("expedition ")[1].split()[0])


async def paraphrase(messages):
    q = request_data(messages)["question"]
    i = _index(q)
    await asyncio.sleep(0.001 * (i % 7))  # interleave the checks
    text = json.dumps({"nonce": request_nonce(messages), "paraphrases": [
        f"When did expedition {i} get to camp {i}?", f"Expedition {i} reached camp {i} in what year?"]})
    return ChatReply(text, input_tokens=100 + i, output_tokens=i)


async def judge_model(messages):
    i = _index(request_data(messages)["original"]["question"])
    await asyncio.sleep(0.001 * (i % 5))
    detected = i % 3 == 0
    text = json.dumps({"nonce": request_nonce(messages), "hallucination_detected": detected, "confidence_score": 0.8,
                       "conflicting_facts": [], "reasoning": f"expedition {i}", "summary": "s"})
    return ChatReply(text, input_tokens=1000 + i, output_tokens=2 * i)


async def answer(q):
    i = _index(q)
    await asyncio.sleep(0.001 * (i % 3))
    return f"Expedition {i} reached camp {i} in {1900 + i}."


async def test_fifty_concurrent_checks_keep_their_own_terms_and_tokens():
    paraphraser, judge = CallableChat(paraphrase), CallableChat(judge_model)
    checker = ParaphraseConsistency(paraphraser=paraphraser, judge=ConsistencyJudge(judge), n_paraphrases=2)
    reports = await asyncio.gather(*(checker.acheck(q, answer) for q in QUESTIONS))
    for i, report in enumerate(reports):
        assert report.question == QUESTIONS[i]
        assert all(f"expedition {i} " in p.lower() for p in report.paraphrases)
        assert [a.answer for a in report.answers] == [f"Expedition {i} reached camp {i} in {1900 + i}."] * 3
        assert report.label == ("inconsistent" if i % 3 == 0 else "consistent")
        assert report.judgment.reasoning == f"expedition {i}"
        # Only this check's two model calls, never another's: 1 paraphrase + 1 judgment, plus 3 answers.
        assert report.usage.input_tokens == (100 + i) + (1000 + i)
        assert report.usage.output_tokens == i + 2 * i
        assert report.usage.llm_calls == 2 + 3
    # The models' own lifetime totals still add up.
    assert paraphraser.usage.calls == 50 and judge.usage.calls == 50


def test_threads_share_one_checker_without_cross_talk():
    from concurrent.futures import ThreadPoolExecutor

    def sync(fn):
        return lambda messages: asyncio.run(fn(messages))

    checker = ParaphraseConsistency(paraphraser=CallableChat(sync(paraphrase)), judge=ConsistencyJudge(CallableChat(sync(judge_model))),
                                    n_paraphrases=2)

    def sync_answer(q):
        i = _index(q)
        return f"Expedition {i} reached camp {i} in {1900 + i}."

    with ThreadPoolExecutor(8) as pool:
        reports = list(pool.map(lambda q: checker.check(q, sync_answer), QUESTIONS[:24]))
    for i, report in enumerate(reports):
        assert report.paraphrase_source == "model"
        assert report.label == ("inconsistent" if i % 3 == 0 else "consistent")
        assert report.usage.input_tokens == (100 + i) + (1000 + i)


def test_local_judge_keeps_no_per_call_state(verifier):
    judge = LocalConsistencyJudge(verifier.embedder)
    before = dict(vars(judge))
    judge.judge("What colour was the horse?", "It was grey.", ["Which colour was the horse?"], ["It was white."])
    assert vars(judge) == before  # nothing about this call was left on the shared judge


def test_the_callers_models_are_not_changed_by_the_cache():
    paraphraser, judge = CallableChat(paraphrase), CallableChat(judge_model)
    cache = ResponseCache()
    ParaphraseConsistency(paraphraser=paraphraser, judge=ConsistencyJudge(judge), cache=cache)
    assert paraphraser.cache is None and judge.cache is None


async def test_cache_still_serves_repeated_checks_without_setting_it_on_models():
    calls = []

    async def counted(messages):
        calls.append(1)
        return await paraphrase(messages)

    checker = ParaphraseConsistency(paraphraser=CallableChat(counted), judge=ConsistencyJudge(CallableChat(judge_model)),
                                    n_paraphrases=2, cache=ResponseCache())
    first = await checker.acheck(QUESTIONS[1], answer)
    second = await checker.acheck(QUESTIONS[1], answer)
    assert len(calls) == 1
    assert second.usage.llm_calls == 0 and first.usage.llm_calls == 5
    assert second.label == first.label


# -- refusals and non-answers --------------------------------------------------------------------------


def test_non_answers_are_recognised_and_facts_are_not():
    assert is_non_answer("I don't know.")
    assert is_non_answer("Sorry, I can't help with that.")
    assert is_non_answer("The context does not mention the launch date.", "When did JWST launch?")
    assert not is_non_answer("The context does not mention that the tower fell in 1925.", "When did JWST launch?")
    assert is_non_answer("I don't know when Apollo 11 landed.", "When did Apollo 11 land?")
    assert not is_non_answer("I'm not sure, but it landed in 1969.", "When did Apollo 11 land?")
    assert not is_non_answer("I don't know. The tower is in Paris.")
    assert not is_non_answer("Paris.")
    assert not is_non_answer("")


@pytest.mark.parametrize("sentence", [
    # how RAG answers decline (RAGTruth's QA answers; none of the 98 such dev sentences is in a labelled span)
    "Therefore, I am unable to answer the question based on the given passages.",
    "Unable to answer based on given passages.",
    "However, without further information, it is unable to provide a precise answer based on the given passages.",
    "Therefore, based on the provided passages, it is unable to answer the question with confidence.",
    "Please provide additional information or clarify the question.",
])
def test_declines_after_a_connective_or_an_attribution_are_non_answers(sentence):
    assert is_non_answer(sentence, "How do automotive technicians get paid?")


@pytest.mark.parametrize("sentence", [
    "Therefore, it is unable to answer, but technicians earn 40 dollars an hour.",
    "Unable to answer; the Eiffel Tower was built in 1925.",
    "However, the tower was built in 1925.",
    "Based on the given passages, technicians are paid 40 dollars an hour.",
])
def test_a_decline_that_states_a_fact_is_no_non_answer(sentence):
    assert not is_non_answer(sentence, "How do automotive technicians get paid?")


def test_an_attribution_opener_is_not_checked_what_follows_is(verifier):
    context = ["The proper way to dispose of a worn flag is to burn it in a dignified manner."]
    right = verifier.verify("Based on the given passages, the proper way to dispose of a worn flag is to burn it in a "
                            "dignified manner.", context, question="How do I dispose of a flag?")
    assert right.label == "supported" and right.claims[0].signals.novel_terms == []
    wrong = verifier.verify("Based on the given passages, the proper way to dispose of a worn flag is to bury it at "
                            "sea.", context, question="How do I dispose of a flag?")
    assert wrong.label == "hallucinated" and {"bury", "sea"} <= set(wrong.claims[0].signals.novel_terms)


def test_local_judge_does_not_count_i_dont_know_as_a_conflict(verifier):
    grounded = "The Eiffel Tower is 330 metres tall."
    samples = iter([grounded, "I don't know.", "The tower is 330 metres tall."])
    checker = ParaphraseConsistency(paraphraser=None, judge=LocalConsistencyJudge(verifier.embedder), n_paraphrases=3)
    report = checker.check("How tall is the Eiffel Tower?", lambda q: next(samples), answer=grounded)
    assert report.label == "consistent"
    refused = [a for a in report.answers if a.non_answer]
    assert [a.answer for a in refused] == ["I don't know."]
    assert any(e.code == "non_answer" for e in report.errors)
    assert report.judgment.hallucination_detected is False


def test_only_refusals_leave_nothing_to_judge(verifier):
    checker = ParaphraseConsistency(paraphraser=None, judge=LocalConsistencyJudge(verifier.embedder), n_paraphrases=2)
    report = checker.check("How tall is the Eiffel Tower?", lambda q: "I don't know.",
                           answer="The Eiffel Tower is 330 metres tall.")
    assert report.label == "unverified"
    assert {e.code for e in report.errors} >= {"non_answer", "too_few_samples"}


def test_a_refused_original_answer_is_not_judged(verifier):
    checker = ParaphraseConsistency(paraphraser=None, judge=LocalConsistencyJudge(verifier.embedder), n_paraphrases=2)
    report = checker.check("How tall is the Eiffel Tower?", lambda q: "It is 330 metres tall.",
                           answer="I'm not sure.")
    assert report.label == "unverified"
    assert report.answers[0].non_answer
    assert "original answer is a non-answer" in next(e.message for e in report.errors if e.code == "too_few_samples")
