"""Rewordings of the question: the prompt that asks for them, the parser of the reply, and the fallback templates.

A paraphraser's reply is untrusted text: it is read as JSON (a list, or an object holding one), and items that
are empty, copy the question, repeat one another or switch script are dropped.
"""

from __future__ import annotations

import json
from typing import Any

from halguard.consistency.judges import json_objects
from halguard.text.script import is_mostly_latin

__all__ = ["FALLBACK_TEMPLATES", "PARAPHRASE_PROMPT", "parse_paraphrases"]

FALLBACK_TEMPLATES = (
    "Could you tell me about {q}?",
    "I'd like to know: {q}",
    "Please provide information on {q}",
)

PARAPHRASE_PROMPT = """\
Rewrite the user's question {n} times. Each rewrite must ask for exactly the same information, in the \
same language as the question, with different wording or structure. Do not answer it and do not add \
details. Reply with JSON only: {{"paraphrases": ["...", "..."]}}"""


def _normalise(q: str) -> str:
    return " ".join(q.lower().strip(" ?!.").split())


def parse_paraphrases(reply: str, question: str, n: int) -> list[str]:
    """Valid, distinct paraphrases from a reply holding a JSON array or an object with one array.

    Drops empty items, copies of the question, duplicates and items in another script than the question.
    """
    text = reply.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        data: Any = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        objects = json_objects(text)
        if not objects:
            return []
        data = objects[0]
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
