"""Any OpenAI-compatible server (llama.cpp, vLLM, Ollama) through the three clients, with token log-probabilities.

The loopback stub speaks the OpenAI chat-completions format, as those servers do.
"""

import math

import openai
import pytest

from halguard import InvalidInputError
from halguard.llm.cache import ResponseCache
from halguard.llm.providers import CallableChat, OpenAIChat
from tests.stub_llm_server import StubLLMServer

TOKENS = [("Can", -0.01, [("Can", -0.01), ("The", -4.7)]),
          ("berra", -0.2, [("berra", -0.2), ("ada", -2.5), ("ton", -3.0)]),
          (".", -0.05, [(".", -0.05)])]
HI = [{"role": "user", "content": "What is the capital of Australia?"}]


@pytest.fixture
def stub():
    with StubLLMServer() as server:
        yield server


def local_server(stub, **kw):
    """What a user writes for llama.cpp / vLLM / Ollama: the SDK pointed at the server, any key."""
    return OpenAIChat(openai.OpenAI(base_url=stub.url + "/v1", api_key="unused"), "qwen", **kw)


def test_logprobs_are_requested_parsed_and_probabilities(stub):
    stub.reply("Canberra.", logprobs=TOKENS)
    reply = local_server(stub).chat(HI, top_logprobs=3)
    body = stub.requests[-1]["body"]
    assert body["logprobs"] is True and body["top_logprobs"] == 3 and body["model"] == "qwen"
    assert reply.has_logprobs and [t.token for t in reply.logprobs] == ["Can", "berra", "."]
    assert reply.logprobs[1].logprob == -0.2 and reply.logprobs[1].top[1] == ("ada", -2.5)
    for token in reply.logprobs:
        assert 0 < token.probability <= 1
        assert sum(math.exp(lp) for _, lp in token.top) <= 1 + 1e-9


def test_a_server_that_returns_none_says_so(stub):
    stub.reply("Canberra.")  # the server ignored the request
    reply = local_server(stub).chat(HI, top_logprobs=2)
    assert reply.logprobs is None and not reply.has_logprobs and reply.text == "Canberra."


def test_logprobs_are_not_asked_for_unless_wanted(stub):
    stub.reply("Canberra.")
    local_server(stub).chat(HI)
    assert "logprobs" not in stub.requests[-1]["body"] and "top_logprobs" not in stub.requests[-1]["body"]


async def test_async_client_logprobs(stub):
    stub.reply("Canberra.", logprobs=TOKENS)
    chat = OpenAIChat(openai.AsyncOpenAI(base_url=stub.url + "/v1", api_key="unused"), "qwen")
    reply = await chat.achat(HI, top_logprobs=2)
    assert [t.token for t in reply.logprobs] == ["Can", "berra", "."]


def test_logprob_replies_are_cached_with_their_probabilities(stub):
    cache = ResponseCache()
    chat = local_server(stub)
    stub.reply("Canberra.")
    assert chat.chat(HI, cache=cache).logprobs is None  # cached as text
    stub.reply("Canberra.", logprobs=TOKENS)
    first = chat.chat(HI, cache=cache, top_logprobs=1)
    assert first.has_logprobs and len(stub.requests) == 2  # the text entry does not answer a logprob request
    again = chat.chat(HI, cache=cache, top_logprobs=1)
    assert len(stub.requests) == 2 and again.logprobs == first.logprobs  # the probabilities came from the cache
    assert chat.usage.cached_calls == 1


@pytest.mark.parametrize("bad", [-1, 21, 1.5, True, "3"])
def test_bad_top_logprobs_is_invalid_input(stub, bad):
    with pytest.raises(InvalidInputError, match="top_logprobs"):
        local_server(stub).chat(HI, top_logprobs=bad)
    assert stub.requests == []


def test_providers_without_logprobs_say_none():
    reply = CallableChat(lambda m: "Canberra.").chat(HI, top_logprobs=2)
    assert reply.logprobs is None


def test_usage_counts_what_the_server_reports(stub):
    stub.reply("Canberra.", prompt_tokens=23, completion_tokens=4)
    chat = local_server(stub)
    chat.chat(HI)
    assert (chat.usage.calls, chat.usage.input_tokens, chat.usage.output_tokens) == (1, 23, 4)


def test_langchain_chat_openai_with_a_base_url(stub):
    from langchain_openai import ChatOpenAI

    from langchain_halguard.providers import to_chat_model

    stub.reply("Canberra.", logprobs=TOKENS, prompt_tokens=20, completion_tokens=3)
    chat = to_chat_model(ChatOpenAI(base_url=stub.url + "/v1", api_key="unused", model="qwen", max_retries=0))
    reply = chat.chat(HI, top_logprobs=2)
    assert reply.text == "Canberra." and (reply.input_tokens, reply.output_tokens) == (20, 3)
    assert [t.token for t in reply.logprobs] == ["Can", "berra", "."]
    assert stub.requests[-1]["body"]["top_logprobs"] == 2
    stub.reply("Canberra.")
    assert chat.chat(HI).logprobs is None and "logprobs" not in stub.requests[-1]["body"]


def test_llamaindex_openai_like_with_a_base_url(stub):
    from llama_index.llms.openai_like import OpenAILike

    from llamaindex_halguard.providers import to_chat_model

    stub.reply("Canberra.", logprobs=TOKENS, prompt_tokens=20, completion_tokens=3)
    llm = OpenAILike(model="qwen", api_base=stub.url + "/v1", api_key="unused", is_chat_model=True, max_retries=0)
    chat = to_chat_model(llm)
    reply = chat.chat(HI, top_logprobs=2)
    assert reply.text == "Canberra." and (reply.input_tokens, reply.output_tokens) == (20, 3)
    assert [t.token for t in reply.logprobs] == ["Can", "berra", "."]
    assert stub.requests[-1]["body"]["top_logprobs"] == 2
    assert llm.logprobs is not True  # the caller's LLM is not changed


def test_a_server_that_dies_mid_request_is_a_provider_error(stub):
    from halguard import ProviderError

    stub.delay = 2.0  # never answers within the deadline
    chat = local_server(stub, timeout=0.3, max_retries=0)
    with pytest.raises(ProviderError):
        chat.chat(HI)
