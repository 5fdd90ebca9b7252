"""Reading a model's yes/no answer, from its first token's probabilities when the server returns them.

Shared by every method that asks a model one yes/no question (the grounding judge, the evidence budget): the
probabilities of the first token's alternatives that read "yes" (any case, spacing, punctuation; "true",
"supported") are summed against those that read "no" ("false", "unsupported", "not"), and P(yes) is renormalised
over the two. Without them (no log-probabilities, or neither word among the alternatives) the reply's first word
is read instead, and the result says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from halguard.llm.providers import ChatReply

__all__ = ["YesNo", "read_yes_no"]

_YES = frozenset({"yes", "true", "supported"})
_NO = frozenset({"no", "false", "unsupported", "not"})


def _word(token: str) -> str:
    return token.strip().strip(".,!:;\"'").lower()


@dataclass(frozen=True)
class YesNo:
    """P(yes) and how it was read: ``"logprobs"``, ``"word"`` (the reply's first word) or ``"none"`` (unreadable)."""

    p_yes: float | None
    source: str
    yes: float = 0.0  # probability mass of the yes-tokens among the first token's alternatives
    no: float = 0.0
    word: str = ""
    reason: str = ""


def read_yes_no(reply: ChatReply, *, word_yes: float, word_no: float) -> YesNo:
    """P(yes) from ``reply``; a bare word counts as ``word_yes`` / ``word_no``."""
    alternatives: tuple[tuple[str, float], ...] = ()
    if reply.logprobs:
        first = reply.logprobs[0]
        alternatives = first.top or ((first.token, first.logprob),)
        yes = sum(math.exp(lp) for tok, lp in alternatives if _word(tok) in _YES)
        no = sum(math.exp(lp) for tok, lp in alternatives if _word(tok) in _NO)
        if yes + no > 0:
            return YesNo(yes / (yes + no), "logprobs", yes, no)
    words = reply.text.strip().split()
    word = _word(words[0]) if words else ""
    if word in _YES:
        return YesNo(word_yes, "word", word=word)
    if word in _NO:
        return YesNo(word_no, "word", word=word)
    where = f"neither yes nor no among the first token's {len(alternatives)} alternatives, and " if alternatives else ""
    return YesNo(None, "none", reason=f"{where}the reply is neither yes nor no: {reply.text[:60]!r}")
