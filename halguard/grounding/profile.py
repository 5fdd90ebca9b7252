"""The answer's shape, decided from the input alone (no labels): the family of answers one operating point serves.

- ``records``: some passage is a JSON object or array (data-to-text answers over structured records);
- ``short_summary`` / ``long_summary``: the answer was checked without a question, or the question asks for a
  summary ("Summarize the article", "TL;DR", "give an overview"): it restates its passages rather than answering
  something. Short: at most two sentences;
- ``short_answer`` / ``long_answer``: an answer to a question, of at most two sentences or more.

Recorded in ``verdict.profile``; each shape has its own threshold and probability map
(:mod:`halguard.grounding.calibration`). Why these five: on the development files, grouped cross-validation with one
threshold per shape gave RAGTruth F1 0.68 with records / short / long, 0.63 when every question-less answer
shared one "summary" shape (short SummEdits summaries and long RAGTruth ones want thresholds 0.3 apart), and 0.71
with the summaries split by length (docs/evaluation.md, "Operating points by answer shape").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from halguard.text.segment import split_sentences
from halguard.util import safejson

__all__ = ["PROFILES", "SHORT_MAX_SENTENCES", "SHORT_PROFILES", "AnswerProfile", "answer_profile",
           "asks_for_summary"]

AnswerProfile = Literal["records", "short_answer", "long_answer", "short_summary", "long_summary"]
PROFILES: tuple[str, ...] = ("records", "short_answer", "long_answer", "short_summary", "long_summary")
SHORT_MAX_SENTENCES = 2  # RAGTruth QA and HaluEval answers are mostly one or two sentences; long summaries are longer
# The shapes of at most SHORT_MAX_SENTENCES sentences: an answer there is its claims (a short answer's floors,
# halguard.grounding.blocking.SHORT_ANSWER_FLOORS, hold in these only).
SHORT_PROFILES = frozenset(p for p in PROFILES if p.startswith("short_"))
_MAX_JSON_CHARS = 200_000  # a passage longer than this is not parsed to test for JSON (bounded time)
# Only the start of a question is read for a summary request (bounded time on any input); the pattern has no
# nested repetition, so it runs in linear time.
_INSTRUCTION_CHARS = 300
_SUMMARY_REQUEST = re.compile(
    r"\b(summari[sz]e|summary|summarising|summarizing|tl;?\s?dr|sum up|overview|recap|condense|abstract of)\b",
    re.IGNORECASE,
)


def _is_record(text: str) -> bool:
    stripped = text.strip()
    if stripped[:1] not in "{[" or len(stripped) > _MAX_JSON_CHARS:
        return False
    try:  # safejson: a crafted "[[[[...]]]]" passage must not recurse (it raised RecursionError here once)
        return isinstance(safejson.loads(stripped), (dict, list))
    except ValueError:  # not JSON, or nested deeper than any record (JSONTooDeep): not a record
        return False


def asks_for_summary(question: str | None) -> bool:
    """Whether ``question`` is missing or asks for a summary of the passages rather than for a fact."""
    if question is None or not question.strip():
        return True
    return _SUMMARY_REQUEST.search(question[:_INSTRUCTION_CHARS]) is not None


def answer_profile(answer: str, passages: Sequence[str], *, question: str | None = None,
                   sentences: int | None = None) -> AnswerProfile:
    """The shape of ``answer`` given its ``passages`` and ``question`` (see the module docstring).

    ``sentences``: the answer's sentence count when the caller has it (the verifier does: splitting a long answer
    again would cost time outside its budget).
    """
    if any(_is_record(p) for p in passages):
        return "records"
    n = sentences if sentences is not None else len(split_sentences(answer))
    size = "short" if n <= SHORT_MAX_SENTENCES else "long"
    return f"{size}_summary" if asks_for_summary(question) else f"{size}_answer"  # type: ignore[return-value]
