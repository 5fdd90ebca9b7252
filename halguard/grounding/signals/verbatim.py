"""A claim copied word for word from one passage.

An extracted answer is matched exactly, however low the embedding similarity of "question + answer" to the
passage that holds it (multi-hop questions: "In what year ...? 1994").
"""

from __future__ import annotations

import re

from halguard.grounding.signals.scope import Scope, word_string

_WORD = re.compile(r"[^\W_]+")
# For in_order: a number with its separators and decimals is one token, so "5" is not found in "5,000" or "2.5".
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")

__all__ = ["in_order", "is_verbatim"]


def is_verbatim(text: str, has_content: bool, scope: Scope) -> bool:
    """Whether the words of ``text`` (which states something: ``has_content``) appear contiguously in a source."""
    if not has_content:
        return False
    words = word_string(text)
    return any(words in word_string(src.text) for src in scope.sources)


def in_order(text: str, sentence: str) -> bool:
    """Whether every word of ``text`` occurs in ``sentence`` in the same order (other words may stand between).

    One evidence sentence, not a whole passage: in a long passage almost any short sentence's words occur in
    order somewhere. Linear in the two lengths (a greedy match).
    """
    words = [w.lower() for w in _TOKEN.findall(text)]
    if not words:
        return False
    i = 0
    for w in _TOKEN.finditer(sentence):
        if w.group().lower() == words[i]:
            i += 1
            if i == len(words):
                return True
    return False
