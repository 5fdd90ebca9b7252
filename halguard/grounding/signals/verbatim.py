"""A claim copied word for word from one passage.

An extracted answer is matched exactly, however low the embedding similarity of "question + answer" to the
passage that holds it (multi-hop questions: "In what year ...? 1994").
"""

from __future__ import annotations

from halguard.grounding.signals.scope import Scope, word_string

__all__ = ["is_verbatim"]


def is_verbatim(text: str, has_content: bool, scope: Scope) -> bool:
    """Whether the words of ``text`` (which states something: ``has_content``) appear contiguously in a source."""
    if not has_content:
        return False
    words = word_string(text)
    return any(words in word_string(src.text) for src in scope.sources)
