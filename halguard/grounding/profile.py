"""The answer's shape, decided from the input alone (no labels): the family of answers one operating point serves.

- ``records``: some passage is a JSON object or array (data-to-text answers over structured records);
- ``short``: an answer of at most two sentences (a short answer to a question);
- ``long``: anything longer (long-form answers and summaries).

Recorded in ``verdict.profile``. The shipped threshold is still one for every shape; what per-shape thresholds
would give on the dev files is measured in ``benchmarks/bench_operating_points.py`` (docs/evaluation.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

from halguard.text.segment import split_sentences

__all__ = ["SHORT_MAX_SENTENCES", "AnswerProfile", "answer_profile"]

AnswerProfile = Literal["records", "short", "long"]
SHORT_MAX_SENTENCES = 2  # RAGTruth QA and HaluEval answers are mostly one or two sentences; summaries are longer
_MAX_JSON_CHARS = 200_000  # a passage longer than this is not parsed to test for JSON (bounded time)


def _is_record(text: str) -> bool:
    stripped = text.strip()
    if stripped[:1] not in "{[" or len(stripped) > _MAX_JSON_CHARS:
        return False
    try:
        return isinstance(json.loads(stripped), (dict, list))
    except ValueError:
        return False


def answer_profile(answer: str, passages: Sequence[str], *, sentences: int | None = None) -> AnswerProfile:
    """The shape of ``answer`` given its ``passages`` (see the module docstring).

    ``sentences``: the answer's sentence count when the caller has it (the verifier does: splitting a long answer
    again would cost time outside its budget).
    """
    if any(_is_record(p) for p in passages):
        return "records"
    n = sentences if sentences is not None else len(split_sentences(answer))
    return "short" if n <= SHORT_MAX_SENTENCES else "long"
