"""Key concepts of a generated sentence: the spans whose correctness the active loop may validate.

Two sources: ``"rules"`` (offline, no call): names (runs of capitalised words), numbers with their units, and
otherwise runs of adjacent content words (a cheap stand-in for noun chunks); ``"llm"`` (the paper's instructed
technique): the model lists the key phrases on its ``CONCEPTS <nonce> [...]`` line (a reply not bound to its call is
not read: :mod:`halguard.llm.envelope`), and they are located in the sentence (phrases it made up, that are not in
the sentence, are dropped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from halguard.text.lexical import content_terms, entity_mentions, number_mentions
from halguard.util.safejson import loads

__all__ = ["Concept", "parse_concept_reply", "rule_concepts"]

MAX_CONCEPTS = 8  # per sentence: a sentence listing 30 names costs at most this many validations
MAX_PHRASES_READ = 50  # of a model's list: each is searched in the sentence, so a runaway list is cut


@dataclass(frozen=True)
class Concept:
    """A key concept: ``sentence[start:end]``."""

    text: str
    start: int
    end: int


def _merge(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Adjacent spans separated by whitespace or a hyphen joined into one."""
    out: list[list[int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        elif out and text[out[-1][1]:s].strip() in ("", "-"):
            out[-1][1] = e
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def rule_concepts(sentence: str) -> list[Concept]:
    """Names and numbers of ``sentence``; when it has neither, its runs of content words."""
    named = [(s, e) for s, e in entity_mentions(sentence)]
    numbers = [(m.start, m.end) for m in number_mentions(sentence)]
    spans = _merge(named + numbers, sentence) if named or numbers else _merge(
        [(s, e) for s, e, _ in content_terms(sentence)], sentence)
    return [Concept(sentence[s:e], s, e) for s, e in spans[:MAX_CONCEPTS]]


def parse_concept_reply(reply: str, sentence: str) -> list[Concept] | None:
    """The concepts of the model's reply (a JSON array of phrases, or a comma-separated list), located in
    ``sentence``; None when the reply is unreadable or none of its phrases is in the sentence (the caller falls back
    to the rules: a reply never makes a sentence go unchecked)."""
    text = reply.strip()
    phrases: list[str] | None = None
    start, end = text.find("["), text.rfind("]")
    if 0 <= start < end:
        try:
            data = loads(text[start:end + 1])
        except ValueError:
            data = None
        if isinstance(data, list):
            phrases = [p for p in data if isinstance(p, str)]
    if phrases is None and text and "\n" not in text.strip():
        phrases = [p.strip(" .\"'") for p in text.split(",")]
    if phrases is None:
        return None
    out, taken = [], set()
    for phrase in phrases[:MAX_PHRASES_READ]:
        phrase = phrase.strip()
        # A case-insensitive search on the sentence itself (lower() can change a text's length: offsets would drift).
        found = re.search(re.escape(phrase), sentence, re.IGNORECASE) if phrase else None
        if found is None or found.span() in taken:
            continue
        taken.add(found.span())
        out.append(Concept(found.group(), found.start(), found.end()))
        if len(out) == MAX_CONCEPTS:
            break
    return sorted(out, key=lambda c: c.start) or None
