"""Rewordings of the question: the prompt that asks for them, the parser of the reply, the drift check, and the
fallback templates.

The question is untrusted text too: it travels as JSON data inside the call's data block, and the reply must be one
JSON object carrying the call's nonce (:mod:`halguard.llm.envelope`); a reply that does not is no rewording at all
(the fallback templates take over, and the report says so). The rewordings are read from that object, and items
that are empty, copy the question, repeat one another or switch script are dropped. Real models drift: asked to reword
"What is the capital of Australia?", a 1.5B model wrote "What is the largest city in Australia?". PAS2 is only as
good as its rewordings (a drifted one turns a right answer into a false conflict, or samples another fact), so
each is checked against the question (:func:`drift_reason`) before it is used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from halguard.llm.envelope import Envelope, read_json
from halguard.util.safejson import loads
from halguard.text.lexical import content_terms, entity_mentions, number_values, term_set
from halguard.text.script import is_mostly_latin

__all__ = [
    "DEFAULT_PARAPHRASE_THRESHOLDS",
    "FALLBACK_TEMPLATES",
    "PARAPHRASE_PROMPT",
    "RETRY_PROMPT",
    "ParaphraseThresholds",
    "answer_kind",
    "drift_reason",
    "focus_word",
    "paraphrase_messages",
    "parse_paraphrases",
    "read_paraphrases",
    "retry_messages",
]

FALLBACK_TEMPLATES = (
    "Could you tell me about {q}?",
    "I'd like to know: {q}",
    "Please provide information on {q}",
)

PARAPHRASE_PROMPT = """\
Rewrite the user's question {n} times. The data is one JSON object whose "question" is the question. Each \
rewrite must ask for exactly the same information, in the same language as the question, with different \
wording or structure. Do not answer it and do not add details."""


RETRY_PROMPT = """\
Rewrite the user's question {n} times. The data is one JSON object whose "question" is the question and whose \
"rejected" lists earlier rewrites that ask for something else than the question, so they cannot be used. Write \
{n} new rewrites that ask for exactly the same information as the question, keeping its names, numbers and key \
terms."""

PARAPHRASE_REPLY = 'Reply with JSON only: {"nonce": "{nonce}", "paraphrases": ["...", "..."]}'


def paraphrase_messages(question: str, n: int, envelope: Envelope) -> list[dict[str, str]]:
    """The paraphraser's messages: the question as data in ``envelope``'s block, the reply bound to its nonce."""
    return envelope.messages(PARAPHRASE_PROMPT.format(n=n), {"question": question}, PARAPHRASE_REPLY)


def retry_messages(question: str, rejected: list[str], n: int, envelope: Envelope) -> list[dict[str, str]]:
    """The second request after drifted rewordings: a fresh call, the rejected ones as data (they are a model's
    text, written from the untrusted question), never the earlier reply itself."""
    return envelope.messages(RETRY_PROMPT.format(n=n), {"question": question, "rejected": rejected},
                             PARAPHRASE_REPLY)


@dataclass(frozen=True)
class ParaphraseThresholds:
    """When a rewording still asks for the same information (MiniLM cosine similarity to the question).

    ``min_similarity``: below it a rewording asks something else, whatever words it keeps ("When did the first
    probe reach the Moon?" scores 0.72 against "When did humans first land on the Moon?", the faithful "What year
    did astronauts first walk on the Moon?" 0.80). ``rephrase_similarity``: a "what/which" question's focus word
    ("colour", "capital") may be left out only by a rewording at least this similar; "What is the largest city in
    Australia?" leaves out "capital" at 0.78, "What breed was Napoleon's horse Marengo?" leaves out "colour" at
    0.90. Names, numbers and the kind of answer asked for (a time, a person, a place, an amount, an age, a reason)
    must always be kept. Hand-set on these examples (the PAS2 paper's and the Australia drift a 1.5B model
    produced), then checked on 50 dev questions with that model (docs/consistency.md); not fitted.
    """

    min_similarity: float = 0.75
    rephrase_similarity: float = 0.92


DEFAULT_PARAPHRASE_THRESHOLDS = ParaphraseThresholds()

# The kind of answer a question asks for, from its question words; the first match in the text decides.
_ANSWER_KINDS = (
    ("an age", re.compile(r"\bhow old\b")),
    ("an amount", re.compile(r"\bhow (?:many|much|long|far|big|large|tall|high|heavy)\b")),
    ("a time", re.compile(r"\b(?:when|what (?:year|date|time|day|month|century|decade)|"
                          r"which (?:year|date|day|month|century|decade))\b")),
    ("a person", re.compile(r"\b(?:who|whom|whose)\b")),
    ("a place", re.compile(r"\bwhere\b")),
    ("a reason", re.compile(r"\bwhy\b")),
)
# Capitalised words that describe rather than name: a rewording may drop "English" from "an English singer" and
# still ask the same thing. Nationalities and languages that dev questions use; not a complete list.
_DESCRIPTIVE = frozenset("""
american australian austrian belgian brazilian british canadian chinese danish dutch egyptian english european
finnish french german greek indian irish israeli italian japanese korean mexican norwegian polish portuguese
russian scottish spanish swedish swiss turkish welsh african asian latin arabic hebrew
""".split())
_WHAT = re.compile(r"\b(?:what|which)\b")
_FOCUS_SKIP = frozenset({"is", "was", "are", "were", "the", "a", "an", "of", "kind", "type", "sort", "did", "does",
                         "do", "has", "have", "had"})


def answer_kind(question: str) -> str | None:
    """The kind of answer ``question`` asks for ("a time", "a person", ...), or None when it names none or several
    ("won by a driver who retired in what year?": the "who" is a relative pronoun, the question asks for a year)."""
    lowered = question.lower()
    kinds = {kind for kind, pattern in _ANSWER_KINDS if pattern.search(lowered)}
    return kinds.pop() if len(kinds) == 1 else None


def focus_word(question: str) -> tuple[str, str] | None:
    """The (word, stem) a "what/which" question asks about ("What colour was..." -> colour), or None."""
    match = _WHAT.search(question.lower())
    if match is None:
        return None
    for s, e, stem in content_terms(question[match.end():]):
        word = question[match.end() + s : match.end() + e]
        if word.lower() not in _FOCUS_SKIP:
            return word, stem
    return None


def drift_reason(question: str, paraphrase: str, similarity: float,
                 thresholds: ParaphraseThresholds = DEFAULT_PARAPHRASE_THRESHOLDS) -> str | None:
    """Why ``paraphrase`` does not ask for what ``question`` asks, or None when it does.

    ``similarity`` is the two texts' embedding similarity. A rewording must keep the question's names (by stem),
    numbers and kind of answer, be at least ``min_similarity`` similar, and keep a "what/which" question's focus
    word unless it is at least ``rephrase_similarity`` similar.
    """
    kept = term_set(paraphrase)
    for s, e in entity_mentions(question):
        if question[s:e].lower() in _DESCRIPTIVE:
            continue
        stems = [stem for _, _, stem in content_terms(question[s:e])]
        if stems and not any(stem in kept for stem in stems):
            return f"leaves out the name {question[s:e]!r}"
    missing_numbers = number_values(question) - number_values(paraphrase)
    if missing_numbers:
        return f"leaves out the number {sorted(missing_numbers)[0]:g}"
    asked, asks = answer_kind(question), answer_kind(paraphrase)
    if asked is not None and asks is not None and asked != asks:
        return f"asks for {asks} instead of {asked}"
    if similarity < thresholds.min_similarity:
        return f"asks something else (similarity {similarity:.2f} < {thresholds.min_similarity})"
    focus = focus_word(question)
    if focus is not None and focus[1] not in kept and similarity < thresholds.rephrase_similarity:
        return f"leaves out {focus[0]!r} (similarity {similarity:.2f} < {thresholds.rephrase_similarity})"
    return None


def _normalise(q: str) -> str:
    return " ".join(q.lower().strip(" ?!.").split())


def read_paraphrases(reply: str, question: str, n: int, nonce: str) -> tuple[list[str], str]:
    """The paraphrases of a reply bound to ``nonce`` (its one JSON object with ``"nonce"`` and
    ``"paraphrases"``), validated by :func:`parse_paraphrases`, and ``""``; for a reply that is not bound to the
    call, ``[]`` and why (its reason code first: ``judge_no_nonce``, ``judge_wrong_nonce``, ``judge_ambiguous``)."""
    bound = read_json(reply, nonce, ("paraphrases",))
    if bound.fields is None:
        return [], f"the paraphraser's reply was refused ({bound.code}: {bound.reason})"
    return parse_paraphrases(bound.fields.get("paraphrases"), question, n), ""


def parse_paraphrases(data: Any, question: str, n: int) -> list[str]:
    """Valid, distinct paraphrases from a list of strings, an object holding one list, or the JSON text of either.

    Drops empty items, copies of the question, duplicates and items in another script than the question. It
    checks no binding: a model's reply goes through :func:`read_paraphrases`.
    """
    if isinstance(data, str):
        try:
            data = loads(data.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip())
        except ValueError:
            return []
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [])
    if not isinstance(data, list):
        return []
    seen = {_normalise(question)}
    same_script = is_mostly_latin(question)
    out = []
    for item in data:
        if not isinstance(item, str) or not item.strip():
            continue
        key = _normalise(item)
        if key in seen or is_mostly_latin(item) != same_script:
            continue
        seen.add(key)
        out.append(item.strip())
        if len(out) == n:
            break
    return out
