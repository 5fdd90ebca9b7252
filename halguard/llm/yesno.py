"""Reading a model's bound yes/no verdict, from its verdict token's probabilities when the server returns them.

Shared by every method that asks a model one yes/no question (the grounding judge, the evidence budget, active
validation, the premise check). The reply must be the line ``VERDICT <nonce> yes`` (or ``no``) of
:mod:`halguard.llm.envelope`; a reply without this call's nonce, with another one, or with two verdicts is
unreadable (``p_yes`` None, with the envelope's reason ``code``), never a verdict.

The probabilities are read **at the verdict token**, the first token that begins after the nonce: the
alternatives there that read "yes" (any case, spacing, punctuation; "true", "supported") are summed against those
that read "no" ("false", "unsupported", "not"), and P(yes) is renormalised over the two. Without them (no
log-probabilities, tokens that do not spell the reply, or neither word among the alternatives) the verdict's word
is read instead, and the result says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from halguard.llm.envelope import JUDGE_UNREADABLE, read_line
from halguard.llm.providers import ChatReply, TokenLogprob

__all__ = ["VERDICT_REPLY", "YesNo", "read_yes_no", "verdict_reply"]

_YES = frozenset({"yes", "true", "supported"})
_NO = frozenset({"no", "false", "unsupported", "not"})

# The reply format of every yes/no step (``{nonce}`` is filled in by the envelope).
VERDICT_REPLY = "Reply with exactly one line and nothing else: VERDICT {nonce} {first} or VERDICT {nonce} {second}."


def verdict_reply(order: str = "yes or no") -> str:
    """The reply format, with the two words in ``order`` ("yes or no" or "no or yes")."""
    first, second = ("no", "yes") if order.startswith("no") else ("yes", "no")
    return VERDICT_REPLY.replace("{first}", first).replace("{second}", second)


def _word(token: str) -> str:
    return token.strip().strip(".,!:;\"'*`").lower()


@dataclass(frozen=True)
class YesNo:
    """P(yes) and how it was read: ``"logprobs"``, ``"word"`` (the verdict's word) or ``"none"`` (unreadable, with
    the reason ``code``: ``judge_no_nonce``, ``judge_wrong_nonce``, ``judge_ambiguous`` or ``judge_failed``)."""

    p_yes: float | None
    source: str
    yes: float = 0.0  # probability mass of the yes-tokens among the verdict token's alternatives
    no: float = 0.0
    word: str = ""
    reason: str = ""
    code: str = ""


def _verdict_token(reply: ChatReply, start: int, nonce_end: int) -> TokenLogprob | None:
    """The token the verdict word begins in, when the tokens spell the reply and that token begins after the
    nonce (a token holding the nonce's end and the verdict both cannot say how likely the verdict alone was)."""
    tokens = reply.logprobs or ()
    joined = "".join(t.token for t in tokens)
    shift = joined.find(reply.text) if reply.text else -1
    if shift < 0 or joined[:shift].strip():  # only a trimmed leading space may differ (as TokenSpans allows)
        return None
    at = 0
    for t in tokens:
        begin, at = at - shift, at + len(t.token)
        if at - shift > start:
            return t if begin >= nonce_end else None
    return None


def read_yes_no(reply: ChatReply, *, nonce: str, word_yes: float, word_no: float) -> YesNo:
    """P(yes) from ``reply``'s verdict bound to ``nonce``; a bare word counts as ``word_yes`` / ``word_no``."""
    bound = read_line(reply.text, nonce, "VERDICT")
    if bound.value is None:
        return YesNo(None, "none", reason=bound.reason, code=bound.code)
    words = bound.value.split()
    word = _word(words[0]) if words else ""
    if word not in _YES and word not in _NO:
        return YesNo(None, "none", reason=f"the verdict is neither yes nor no: {bound.value[:60]!r}",
                     code=JUDGE_UNREADABLE)
    token = _verdict_token(reply, bound.start, bound.end) if reply.logprobs else None
    if token is not None:
        alternatives = token.top or ((token.token, token.logprob),)
        yes = sum(math.exp(lp) for tok, lp in alternatives if _word(tok) in _YES)
        no = sum(math.exp(lp) for tok, lp in alternatives if _word(tok) in _NO)
        if yes + no > 0:
            return YesNo(yes / (yes + no), "logprobs", yes, no, word=word)
    return YesNo(word_yes if word in _YES else word_no, "word", word=word)
