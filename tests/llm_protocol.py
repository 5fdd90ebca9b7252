"""Replies in halguard's bound-reply protocol, for scripted models (halguard.llm.envelope).

A scripted model reads the request's nonce from its system prompt (``request_nonce``) and its data from the data
block (``request_data``), and answers in the format the prompt asks for: these helpers write those replies.
"""

from __future__ import annotations

import json
import math

from halguard.llm.envelope import request_data, request_nonce
from halguard.llm.providers import ChatReply, TokenLogprob
from tests.stub_llm_server import completion

__all__ = ["bound", "data", "judgment", "nonce", "verdict", "verdict_completion", "verdict_reply"]

data = request_data
nonce = request_nonce


def verdict(messages: list[dict], word: str) -> str:
    """``VERDICT <nonce> <word>``: a yes/no step's reply."""
    return f"VERDICT {request_nonce(messages)} {word}"


def verdict_tokens(text: str, word: str, alternatives: list[tuple[str, float]]) -> list[tuple[str, float, list]]:
    """Tokens spelling ``text`` (``VERDICT <nonce> <word>``) as a GPT-style tokenizer might: the keyword, the nonce
    in pieces, then `` <word>`` carrying ``alternatives`` (token, logprob), the verdict token."""
    head = text[: text.rindex(" " + word)]
    keyword, code = head.split(" ", 1)
    pieces = [keyword, " " + code[:3], code[3:6], code[6:], " " + word]
    pieces = [p for p in pieces if p]
    chosen = dict(alternatives).get(word, math.log(0.5))
    out = [(p, -0.001, [(p, -0.001)]) for p in pieces[:-1]]
    return [*out, (pieces[-1], chosen, [(" " + t.strip(), lp) for t, lp in alternatives])]


def verdict_reply(messages: list[dict], word: str, alternatives: list[tuple[str, float]] | None = None) -> ChatReply:
    """A :class:`ChatReply` with the verdict line and, with ``alternatives``, token log-probabilities."""
    text = verdict(messages, word)
    if alternatives is None:
        return ChatReply(text)
    tokens = tuple(TokenLogprob(t, lp, tuple(top)) for t, lp, top in verdict_tokens(text, word, alternatives))
    return ChatReply(text, 5, len(tokens), logprobs=tokens)


def verdict_completion(word: str, alternatives: list[tuple[str, float]] | None = None, **kw):
    """For :meth:`StubLLMServer.reply_with`: an OpenAI completion holding the verdict line for the request."""

    def make(body: dict) -> dict:
        text = verdict(body["messages"], word)
        logprobs = None if alternatives is None else verdict_tokens(text, word, alternatives)
        return completion(text, logprobs=logprobs, **kw)

    return make


def judgment(messages: list[dict], **fields) -> str:
    """A consistency judge's JSON reply carrying the request's nonce."""
    return json.dumps({"nonce": request_nonce(messages), **fields})


def bound(messages: list[dict], keyword: str, text: str) -> str:
    """``KEYWORD <nonce> text``: a bound line (REWRITE, QUESTION, CONCEPTS)."""
    return f"{keyword} {request_nonce(messages)} {text}"
