"""Words about the sources: in "Passage 2 explains its role as the state's behavioral health manager" or "The data
does not mention whether reservations are accepted", the words for the passages and for what they do are the answer
talking about its sources, not facts of the world to find in them.

A source is named as the answer's own: "passage(s)" (RAG prompts number them), "JSON", a source word after "given",
"provided", "above", "following" or "structured" ("the provided data", "the given article"), or one that opens the
claim as its subject ("The article discusses ..."). A reporting verb (:data:`REPORTING_WORDS`) at most
:data:`REPORTING_REACH` words from such a mention ("Passage 3 does not provide", "as noted in Passage 3", "stated in
the passages") is the answer's report, as are the mention's own words; they are not looked up as novel words, and
the rest of the claim is checked as any claim is. A source word the claim does not name as its own stays a word of
the world ("the Columbia Journalism School's critique of the article highlighted ...": the article is the magazine's),
and so does a reporting verb of the reported content ("it's important to title your graph to provide context").
The list is hand-written general English, not taken from the development data; inflections are reached through
stemming.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from halguard.text.lexical import regular_forms, stem, word_spans

__all__ = ["REPORTING_REACH", "REPORTING_WORDS", "reporting_word_spans"]

_SOURCE_WORD = r"(?:articles?|texts?|documents?|data|context|information|sources?|json|excerpts?)"
# No nested repetition: linear on any text.
_SOURCE_MENTION = re.compile(
    r"\bpassages?\b|\bjson\b"
    rf"|\b(?:given|provided|above|following|structured)\s+{_SOURCE_WORD}\b"
    rf"|^\W*(?:the|this|these)\s+(?:structured\s+)?{_SOURCE_WORD}\b",
    re.IGNORECASE,
)
# Verbs (and their nouns) for what a text does with its content and what an answer says of it.
REPORTING_WORDS = frozenset("""
    discuss explain mention describe state note refer indicate highlight conclude cover detail outline provide
    suggest specify emphasize emphasise stress address present focus talk say said tell told give given list
    base based format
""".split())
# How many words from a source mention a reporting verb may stand: "Passage 3 does not provide" (4 after), "is not
# explicitly stated in the passages" (3 before). Hand-set: an auxiliary, a negation and an adverb.
REPORTING_REACH = 4


@lru_cache(maxsize=1)
def _reporting_stems() -> frozenset[str]:
    return frozenset(stem(f) for w in REPORTING_WORDS for f in regular_forms(w))


def reporting_word_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the words of ``text`` that name its sources as the answer's own, and of the reporting verbs
    near them (none where it names no source)."""
    mentions = [m.span() for m in _SOURCE_MENTION.finditer(text)]
    if not mentions:
        return []
    words = word_spans(text)
    reporting = _reporting_stems()
    mentioned: list[int] = []  # the indices of the mentions' words, in order (mentions and words are both in order)
    k = 0
    for i, (s, e) in enumerate(words):
        while k < len(mentions) and mentions[k][1] < e:
            k += 1
        if k < len(mentions) and mentions[k][0] <= s:
            mentioned.append(i)
    mention_words = set(mentioned)
    out = []
    for i, (s, e) in enumerate(words):
        j = bisect.bisect_left(mentioned, i - REPORTING_REACH)  # the first mention word within reach on the left
        near = j < len(mentioned) and mentioned[j] <= i + REPORTING_REACH
        if near and (i in mention_words or stem(text[s:e].lower()) in reporting):
            out.append((s, e))
    return out
