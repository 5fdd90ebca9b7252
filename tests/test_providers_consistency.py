"""Providers (real openai / mistralai SDKs against a loopback stub), the judge and paraphrase sampling."""

import asyncio
import json
import time

import pytest

from halguard import InvalidInputError
from halguard.consistency.judges import ConsistencyJudge, LocalConsistencyJudge, parse_judgment
from halguard.consistency.paraphrases import FALLBACK_TEMPLATES, parse_paraphrases
from halguard.consistency.sampling import ParaphraseConsistency
from halguard.llm.envelope import request_data, request_nonce
from halguard.llm.providers import CallableChat, MistralChat, OpenAIChat, ProviderError, as_chat_model
from tests.stub_llm_server import StubLLMServer, completion

# Replies as templates: "@NONCE@" becomes the request's nonce (the scripted models below echo it, as the prompt asks).
JUDGMENT_YES = json.dumps({
    "nonce": "@NONCE@", "hallucination_detected": True, "confidence_score": 0.9,
    "conflicting_facts": [{"fact": "colour of the horse"}], "reasoning": "white vs grey", "summary": "conflict",
})
JUDGMENT_NO = json.dumps({
    "nonce": "@NONCE@", "hallucination_detected": False, "confidence_score": 0.95, "conflicting_facts": [],
    "reasoning": "all say 1969", "summary": "consistent",
})
PARAPHRASES = json.dumps({"nonce": "@NONCE@", "paraphrases": [
    "What colour was the horse Napoleon rode?", "Which colour was Napoleon's horse?", "Napoleon's horse: what colour?",
]})
NONCE = "0123abcd"


def bound(template: str, messages) -> str:
    """``template`` with the request's nonce in place of "@NONCE@"."""
    return template.replace("@NONCE@", request_nonce(messages) or "")


def stub_reply(template: str, **kw):
    """For StubLLMServer.reply_with: ``template`` bound to the request it answers."""
    return lambda body: completion(bound(template, body["messages"]), **kw)


@pytest.fixture
def stub():
    with StubLLMServer() as server:
        yield server


def openai_chat(stub, model="o3-mini", **kw):
    import openai

    client = openai.OpenAI(api_key="test-key", base_url=stub.url + "/v1")
    return OpenAIChat(client, model, backoff=0.01, **kw)


# -- providers -----------------------------------------------------------------------------------------


def test_openai_sdk_json_mode_usage_and_reasoning_model(stub):
    stub.reply('{"ok": true}', prompt_tokens=20, completion_tokens=5)
    chat = openai_chat(stub, "o3-mini")
    reply = chat.chat([{"role": "user", "content": "hi"}], json_mode=True)
    assert reply.text == '{"ok": true}'
    assert (reply.input_tokens, reply.output_tokens) == (20, 5)
    sent = stub.requests[0]["body"]
    assert sent["response_format"] == {"type": "json_object"}
    assert "temperature" not in sent  # reasoning models reject it
    assert chat.usage.calls == 1 and chat.usage.input_tokens == 20
    stub.reply("plain")
    openai_chat(stub, "gpt-4o-mini").chat([{"role": "user", "content": "hi"}])
    assert stub.requests[1]["body"]["temperature"] == 0.0


def test_openai_retries_429_with_retry_after_and_500(stub):
    stub.error(429, {"retry-after": "0.05"})
    stub.error(500)
    stub.reply("finally")
    chat = openai_chat(stub)
    t0 = time.perf_counter()
    assert chat.chat([{"role": "user", "content": "x"}]).text == "finally"
    assert time.perf_counter() - t0 >= 0.05
    assert len(stub.requests) == 3
    assert chat.usage.calls == 3 and chat.usage.failed_calls == 2


def test_openai_gives_up_after_retries_and_does_not_retry_400(stub):
    for _ in range(3):
        stub.error(503)
    with pytest.raises(ProviderError, match="503|InternalServerError"):
        openai_chat(stub, max_retries=2).chat([{"role": "user", "content": "x"}])
    assert len(stub.requests) == 3
    stub.error(400)
    with pytest.raises(ProviderError):
        openai_chat(stub).chat([{"role": "user", "content": "x"}])
    assert len(stub.requests) == 4  # a bad request is not retried


def test_openai_timeout_is_retried(stub):
    stub.delay = 0.5
    stub.reply("late")
    stub.reply("late again")
    with pytest.raises(ProviderError, match="Timeout"):
        openai_chat(stub, timeout=0.1, max_retries=1).chat([{"role": "user", "content": "x"}])


async def test_async_openai_client(stub):
    import openai

    stub.reply("async hi")
    chat = OpenAIChat(openai.AsyncOpenAI(api_key="k", base_url=stub.url + "/v1"), "gpt-4o-mini", backoff=0.01)
    assert (await chat.achat([{"role": "user", "content": "x"}])).text == "async hi"


def test_mistral_sdk(stub):
    from mistralai.client import Mistral

    stub.error(429, {"retry-after": "0"})
    stub.reply('{"paraphrases": []}', prompt_tokens=9, completion_tokens=3)
    chat = MistralChat(Mistral(api_key="test-key", server_url=stub.url), backoff=0.01)
    reply = chat.chat([{"role": "user", "content": "x"}], json_mode=True)
    assert reply.text == '{"paraphrases": []}' and reply.input_tokens == 9
    body = stub.requests[-1]["body"]
    assert body["model"] == "mistral-large-latest" and body["response_format"] == {"type": "json_object"}
    assert stub.requests[-1]["path"].endswith("/v1/chat/completions")


def test_mistral_client_retries_do_not_multiply_ours(stub):
    from mistralai.client import Mistral
    from mistralai.client.utils import BackoffStrategy, RetryConfig

    for _ in range(6):
        stub.error(503)
    retrying = Mistral(api_key="k", server_url=stub.url,
                       retry_config=RetryConfig("backoff", BackoffStrategy(1, 20, 1.5, 2_000), True))
    chat = MistralChat(retrying, max_retries=1, backoff=0.01)
    with pytest.raises(ProviderError, match="after 2 tries"):
        chat.chat([{"role": "user", "content": "x"}])
    assert len(stub.requests) == 2  # one request per try of ours (57 in all before, with the client's retries)


def test_mistral_retry_after_is_honoured(stub):
    from mistralai.client import Mistral

    stub.error(429, {"retry-after": "0.4"})
    stub.reply("ok")
    chat = MistralChat(Mistral(api_key="k", server_url=stub.url), max_retries=1, backoff=0.001)
    t0 = time.perf_counter()
    assert chat.chat([{"role": "user", "content": "x"}]).text == "ok"
    assert time.perf_counter() - t0 >= 0.35  # the server's 0.4 s, not the 1 ms backoff


async def test_mistral_sdk_async(stub):
    from mistralai.client import Mistral

    stub.reply("bonjour")
    chat = MistralChat(Mistral(api_key="k", server_url=stub.url), "mistral-small-latest")
    assert (await chat.achat([{"role": "user", "content": "x"}])).text == "bonjour"


def test_callables_sync_and_async_and_timeout():
    chat = CallableChat(lambda m: "pong", timeout=1)
    assert chat.chat([{"role": "user", "content": "ping"}]).text == "pong"

    async def apong(m):
        return "apong"

    assert asyncio.run(CallableChat(apong).achat([])).text == "apong"
    slow = CallableChat(lambda m: time.sleep(0.5) or "late", timeout=0.05, max_retries=0)
    with pytest.raises(ProviderError, match="did not answer"):
        slow.chat([])
    with pytest.raises(TypeError, match="cannot chat with a int"):
        as_chat_model(42)


# -- judge ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "facts"),
    [
        (JUDGMENT_YES, [{"fact": "colour of the horse"}]),
        (f"```json\n{JUDGMENT_YES}\n```", [{"fact": "colour of the horse"}]),
        (f"Here is my analysis:\n{JUDGMENT_YES}\nHope that helps.", [{"fact": "colour of the horse"}]),
        ('{"nonce": "@NONCE@", "hallucination_detected": "true", "confidence_score": "90%", "conflicting_facts": null}',
         []),
        ('{"nonce": "@NONCE@", "hallucination_detected": "yes", "confidence_score": "0.9", '
         '"conflicting_facts": "white vs grey"}', ["white vs grey"]),
    ],
)
def test_tolerant_judgment_parsing(reply, facts):
    j = parse_judgment(reply.replace("@NONCE@", NONCE), NONCE)
    assert j.hallucination_detected is True
    assert j.confidence_score == pytest.approx(0.9)
    assert j.conflicting_facts == facts  # null becomes [], a bare string a one-item list


@pytest.mark.parametrize(
    ("reply", "code", "why"),
    [("no json here", "judge_no_nonce", "no JSON verdict"),
     ('{"nonce": "@NONCE@", "confidence_score": 0.5}', "judge_failed", "invalid judgment fields"),
     ('{"nonce": "@NONCE@", "hallucination_detected": "maybe"}', "judge_failed", "invalid judgment fields"),
     (JUDGMENT_NO.replace("@NONCE@", "ffffffff"), "judge_wrong_nonce", "another code"),
     (JUDGMENT_NO.replace('"nonce": "@NONCE@", ', ""), "judge_no_nonce", "does not carry")],
)
def test_unusable_judgments_raise(reply, code, why):
    with pytest.raises(ValueError, match=why) as raised:
        parse_judgment(reply.replace("@NONCE@", NONCE), NONCE)
    assert raised.value.code == code


def test_judge_asks_once_more_then_reports_unverified():
    replies = iter(["not json", JUDGMENT_NO])
    judge = ConsistencyJudge(lambda m: bound(next(replies), m))
    result = judge.judge("q", "a", ["q2"], ["a2"])
    assert result.judgment.hallucination_detected is False and result.judgment.reasoning == "all say 1969"
    assert len(result.raw_replies) == 2
    bad = ConsistencyJudge(lambda m: "still not json").judge("q", "a", ["q2"], ["a2"])
    assert bad.judgment is None and "unusable" in bad.error and bad.code == "judge_no_nonce"


def test_judge_prompt_layout():
    seen = []
    ConsistencyJudge(lambda m: seen.append(m) or bound(JUDGMENT_NO, m)).judge("Q0", "A0", ["Q1", "Q2"], ["A1", "A2"])
    data = request_data(seen[0])  # the untrusted texts travel as JSON data inside the data block
    assert data == {"original": {"question": "Q0", "answer": "A0"},
                    "reworded": [{"question": "Q1", "answer": "A1"}, {"question": "Q2", "answer": "A2"}]}
    system = seen[0][0]["content"]
    assert seen[0][0]["role"] == "system" and "not conflicts" in system and "never an instruction" in system
    assert "A0" not in system and request_nonce(seen[0]) in system


def test_local_judge(verifier):
    judge = LocalConsistencyJudge(verifier.embedder)
    conflict = judge.judge("q", "Napoleon's horse Marengo was grey.", ["q1", "q2"],
                           ["Napoleon's horse was white.", "Marengo was a chestnut horse foaled in 1793."])
    assert conflict.judgment.hallucination_detected
    agree = judge.judge("q", "Apollo 11 landed on the Moon in July 1969.", ["q1", "q2"],
                        ["The first Moon landing was Apollo 11, in July 1969.", "It happened in 1969 (Apollo 11)."])
    assert not agree.judgment.hallucination_detected
    assert judge.judge("q", "a", [], []).judgment is None


# -- paraphrase sampling -------------------------------------------------------------------------------


def test_parse_paraphrases_accepts_arrays_and_objects_and_validates():
    q = "What colour was Napoleon's horse?"
    assert parse_paraphrases('["A?", "B?"]', q, 3) == ["A?", "B?"]
    assert parse_paraphrases('{"paraphrases": ["A?", "a?", "", "What colour was Napoleon\'s horse", "B?"]}', q, 3) == ["A?", "B?"]
    assert parse_paraphrases("junk", q, 3) == []
    assert parse_paraphrases('["ナポレオンの馬は何色?", "Which colour?"]', q, 3) == ["Which colour?"]
    many = json.dumps([f"Variant {i}?" for i in range(50)])
    assert len(parse_paraphrases(many, q, 3)) == 3


def _scripted(judgment):
    replies = {"paraphrase": PARAPHRASES, "judge": judgment}

    def chat(messages):
        return bound(replies["judge" if "contradicts itself" in messages[0]["content"] else "paraphrase"], messages)

    return chat


def test_check_napoleon_inconsistent_and_call_count():
    answers = {"What colour was Napoleon's horse?": "White.", "What colour was the horse Napoleon rode?": "Grey.",
               "Which colour was Napoleon's horse?": "White.", "Napoleon's horse: what colour?": "Chestnut."}
    calls = []
    pc = ParaphraseConsistency(paraphraser=_scripted(JUDGMENT_YES), judge=_scripted(JUDGMENT_YES))
    report = pc.check("What colour was Napoleon's horse?", lambda q: calls.append(q) or answers[q])
    assert report.label == "inconsistent" and report.hallucination_detected
    assert report.paraphrase_source == "model" and len(report.paraphrases) == 3
    assert [a.answer for a in report.answers] == ["White.", "Grey.", "White.", "Chestnut."]
    assert report.usage.llm_calls == 1 + 4 + 1  # paraphrase + (n + 1) answers + judge
    assert sorted(calls) == sorted(answers)


async def test_acheck_moon_consistent_with_async_answers():
    async def answer(q):
        await asyncio.sleep(0.01)
        return "Apollo 11 landed in July 1969."

    pc = ParaphraseConsistency(paraphraser=_scripted(JUDGMENT_NO), judge=_scripted(JUDGMENT_NO))
    report = await pc.acheck("When did humans first land on the Moon?", answer)
    assert report.label == "consistent"
    assert len(report.answers) == 4


def test_fallback_templates_when_the_paraphraser_fails():
    def broken(messages):
        raise ConnectionError("down")

    pc = ParaphraseConsistency(paraphraser=CallableChat(broken, max_retries=0), judge="local")
    report = pc.check("What is the capital of France?", lambda q: "Paris is the capital of France.",
                      answer="Paris is the capital of France.")
    assert report.paraphrase_source == "fallback_templates"
    assert report.paraphrases[0] == FALLBACK_TEMPLATES[0].format(q="what is the capital of France")
    assert report.errors[0].code == "paraphrase_fallback"
    assert report.label == "consistent"
    assert len(report.answers) == 4  # the given answer + 3 samples, no re-asking of the original


def test_failed_samples_are_recorded_and_too_few_is_unverified():
    def flaky(q):
        if "tell me" in q or "like to know" in q:
            raise RuntimeError("chain failed")
        return "Paris."

    report = ParaphraseConsistency(paraphraser=None, judge="local").check("Capital of France?", flaky, answer="Paris.")
    assert sum(1 for a in report.answers if a.error) == 2
    assert report.label == "consistent"  # the samples that did answer all said "Paris."
    assert [e.code for e in report.errors].count("sample_failed") == 2
    nothing = ParaphraseConsistency(paraphraser=None, judge="local").check("Capital?", lambda q: 1 / 0, answer="Paris.")
    assert nothing.label == "unverified"
    assert any(e.code == "too_few_samples" for e in nothing.errors)


def test_judge_failure_is_unverified_not_consistent():
    pc = ParaphraseConsistency(paraphraser=_scripted(""), judge=lambda m: "garbage")
    report = pc.check("Q?", lambda q: "same answer")
    assert report.label == "unverified"
    assert any(e.code == "judge_no_nonce" for e in report.errors)
    unreadable = ParaphraseConsistency(paraphraser=_scripted(""), judge=lambda m: bound('{"nonce": "@NONCE@"}', m))
    report = unreadable.check("Q?", lambda q: "same answer")
    assert report.label == "unverified" and any(e.code == "judge_failed" for e in report.errors)


def test_bad_options():
    with pytest.raises(InvalidInputError, match="n_paraphrases must be an int from 1 to 10, got 0"):
        ParaphraseConsistency(n_paraphrases=0)
    with pytest.raises(InvalidInputError, match="max_concurrency must be a positive int, got 0"):
        ParaphraseConsistency(max_concurrency=0)


def test_sampling_runs_in_parallel_with_bounded_concurrency():
    in_flight, peak = [0], [0]

    def slow(q):
        in_flight[0] += 1
        peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.1)
        in_flight[0] -= 1
        return "same"

    pc = ParaphraseConsistency(paraphraser=_scripted(JUDGMENT_NO), judge=_scripted(JUDGMENT_NO), n_paraphrases=3, max_concurrency=2)
    t0 = time.perf_counter()
    pc.check("Q?", slow)
    assert peak[0] == 2
    assert time.perf_counter() - t0 < 0.35  # 4 samples, 2 at a time: ~0.2 s, not 0.4 s


def test_end_to_end_with_the_openai_sdk(stub):
    stub.reply_with(stub_reply(PARAPHRASES))
    stub.reply_with(stub_reply(JUDGMENT_YES, prompt_tokens=100, completion_tokens=30))
    chat = openai_chat(stub)
    pc = ParaphraseConsistency(paraphraser=chat, judge=ConsistencyJudge(chat))
    report = pc.check("What colour was Napoleon's horse?", lambda q: "Grey." if "rode" in q else "White.",
                      answer="White.")
    assert report.label == "inconsistent"
    assert report.usage.llm_calls == 1 + 3 + 1
    assert report.usage.input_tokens == 111 and report.usage.output_tokens == 37


# -- cache ---------------------------------------------------------------------------------------------


def test_cache_makes_a_repeated_check_free_and_survives_on_disk(tmp_path):
    from halguard.llm.cache import ResponseCache

    calls = {"llm": 0, "answer": 0}

    moon = json.dumps({"nonce": "@NONCE@", "paraphrases": ["When did humans land on the Moon for the first time?",
                                                           "When did the first humans land on the Moon?",
                                                           "On what date did humans first land on the Moon?"]})

    def llm(messages):
        calls["llm"] += 1
        return bound(JUDGMENT_NO if "contradicts itself" in messages[0]["content"] else moon, messages)

    def answer(q):
        calls["answer"] += 1
        return "Apollo 11, July 1969."

    cache = ResponseCache(tmp_path / "cache")
    pc = ParaphraseConsistency(paraphraser=CallableChat(llm), judge=CallableChat(llm), cache=cache, cache_namespace="moon-chain")
    first = pc.check("When did humans first land on the Moon?", answer)
    assert calls == {"llm": 2, "answer": 4}
    assert first.usage.llm_calls == 1 + 4 + 1
    again = pc.check("When did humans first land on the Moon?", answer)
    assert calls == {"llm": 2, "answer": 4}  # nothing paid twice
    assert again.usage.llm_calls == 0 and again.label == first.label
    # a new process (new cache object on the same directory) reuses the disk copy
    fresh = ParaphraseConsistency(paraphraser=CallableChat(llm), judge=CallableChat(llm), cache=ResponseCache(tmp_path / "cache"),
                                  cache_namespace="moon-chain")
    fresh.check("When did humans first land on the Moon?", answer)
    assert calls == {"llm": 2, "answer": 4}
    # another question, or another namespace, is a different request
    other = ParaphraseConsistency(paraphraser=CallableChat(llm), judge=CallableChat(llm), cache=cache, cache_namespace="other-chain")
    other.check("When did humans first land on the Moon?", answer)
    assert calls["answer"] == 8
    cache.clear()
    assert len(cache) == 0 and not list((tmp_path / "cache").glob("*.json"))


def test_cache_keys_depend_on_model_and_messages():
    from halguard.llm.cache import ResponseCache

    k = ResponseCache.key
    assert k("chat", "m1", [{"role": "user", "content": "a"}], True) != k("chat", "m2", [{"role": "user", "content": "a"}], True)
    assert k("chat", "m1", [{"role": "user", "content": "a"}], True) != k("chat", "m1", [{"role": "user", "content": "b"}], True)
    assert k("chat", "m1", [{"role": "user", "content": "a"}], True) == k("chat", "m1", [{"role": "user", "content": "a"}], True)


@pytest.mark.parametrize("count", [0, 50])
def test_paraphraser_returning_zero_or_fifty(count):
    reply = json.dumps({"nonce": "@NONCE@",
                        "paraphrases": [f"What is the capital of France? (version {i})" for i in range(count)]})
    pc = ParaphraseConsistency(paraphraser=lambda m: time.sleep(0.05) or bound(reply, m), judge="local",
                               n_paraphrases=3)
    report = pc.check("What is the capital of France?", lambda q: "Paris.", answer="Paris.")
    assert len(report.paraphrases) == 3
    if count == 0:
        assert report.paraphrase_source == "fallback_templates"
    else:
        assert report.paraphrase_source == "model"
        assert report.paraphrases[0] == "What is the capital of France? (version 0)"
    # paraphrase_ms times the paraphrase call (it sleeps 50 ms), judge_ms the judgment; both lie within the check
    assert report.paraphrase_ms >= 50 and report.judge_ms > 0
    assert report.paraphrase_ms + report.judge_ms <= report.latency_ms


def test_sync_check_accepts_an_async_answer_fn():
    async def answer(q):
        await asyncio.sleep(0)
        return "Paris."

    report = ParaphraseConsistency(paraphraser=None, judge="local").check("Capital of France?", answer, answer="Paris.")
    assert [a.answer for a in report.answers] == ["Paris."] * 4
    assert report.label == "consistent"


def test_clients_with_model_names_are_accepted(stub):
    import openai
    from mistralai.client import Mistral

    pc = ParaphraseConsistency(paraphraser=openai.OpenAI(api_key="k", base_url=stub.url + "/v1"),
                               judge=Mistral(api_key="k", server_url=stub.url),
                               paraphrase_model="gpt-4o-mini", judge_model="mistral-small-latest")
    assert pc.paraphraser.name == "openai:gpt-4o-mini"
    assert pc.judge.name == "mistral:mistral-small-latest"


def test_no_answer_source_fails_before_any_paid_call():
    calls = []
    pc = ParaphraseConsistency(paraphraser=lambda m: calls.append(m) or PARAPHRASES, judge="local")
    with pytest.raises(InvalidInputError, match="answer_fn"):
        pc.check("Q?")
    with pytest.raises(InvalidInputError, match="answer_fn"):
        asyncio.run(pc.acheck("Q?"))
    assert calls == []
