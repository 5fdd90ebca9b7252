"""The prompts of active detection and repair, and the readers of their replies.

Every text that came from a model, a user or a document (the question, passages, generated sentences, concepts,
validation questions) goes in as JSON data inside the call's data block (:mod:`halguard.llm.envelope`), never
as instructions. Every reply that decides something is bound to the call's nonce: a verdict (``VERDICT <nonce>
yes``), a concept list (``CONCEPTS <nonce> [...]``), a question (``QUESTION <nonce> ...``), a rewrite
(``REWRITE <nonce> ...``). A reply that is not bound is not used: the step falls back as its caller documents
(rule concepts, the sentence asked as it is, ``unverified``, the sentence kept).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from halguard.llm.envelope import KEYWORDS, Envelope, fold, read_line
from halguard.llm.yesno import verdict_reply
from halguard.text.segment import split_sentences

__all__ = ["RepairReply", "answer_messages", "bound_text", "concept_messages", "first_line",
           "premise_check_messages", "premise_rewrite_messages", "question_messages", "read_repair",
           "repair_messages", "validation_messages"]

ANSWER_PROMPT = ("Answer the question using only the context passages. Write plain sentences. If the context does "
                 "not contain the answer, say so. The data is one JSON object with \"question\" and \"context\".")
CONTINUE_PROMPT = ("Continue the answer to the question using only the context passages. \"answer_so_far\" is "
                   "the beginning of the answer: write only what comes next (do not repeat it); reply with an "
                   "empty message if the answer is complete. The data is one JSON object with \"question\", "
                   "\"context\" and \"answer_so_far\".")
CONCEPT_PROMPT = ("List the important key phrases (names, numbers, dates, facts) of the data's \"sentence\", "
                  "copied exactly from the sentence.")
QUESTION_PROMPT = ("Write one yes/no question that tests whether the data's \"sentence\" is correct about its "
                   "\"concept\" (\"topic\" is the question the sentence answers).")
VALIDATION_PROMPT = ("Answer the question with yes or no, based only on the evidence passages: yes only if the "
                     "evidence states it; no if the evidence contradicts it or does not say. The data is one JSON "
                     "object with \"evidence\" and \"question\".")
REPAIR_PROMPT = ("The sentence has information that the evidence does not support. Rewrite the data's "
                 "\"sentence\" as one sentence so that everything in it is stated by the \"evidence\", keeping "
                 "what is correct (\"question\" is what the sentence answers).")
PREMISE_CHECK_PROMPT = ("Does the question make only assumptions that the context passages support? The data is "
                        "one JSON object with \"context\" and \"question\".")
PREMISE_REWRITE_PROMPT = ("The question assumes something the context passages contradict or do not support. "
                          "Rewrite the data's \"question\" so that it makes no false assumption, keeping what the "
                          "asker wants to know.")

ANSWER_REPLY = "Reply with the answer only, in plain sentences."
CONTINUE_REPLY = "Reply with the continuation only."
CONCEPT_REPLY = 'Reply with exactly one line and nothing else: CONCEPTS {nonce} ["phrase", "phrase", ...]'
QUESTION_REPLY = "Reply with exactly one line and nothing else: QUESTION {nonce} followed by the question."
REPAIR_REPLY = ("Reply with exactly one line and nothing else: REWRITE {nonce} followed by the rewritten sentence, "
                "or REWRITE {nonce} NONE if the evidence supports nothing of it.")


def _passages(evidence: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"id": sid, "text": text} for sid, text in evidence]


def answer_messages(question: str, context: list[tuple[str, str]], so_far: str | None = None,
                    envelope: Envelope | None = None) -> list[dict[str, str]]:
    """The generation prompt; with ``so_far`` (even empty), the continuation prompt. The answer is checked after,
    so its reply needs no nonce; the question and passages still sit in a data block (``envelope``: a fresh one
    when None)."""
    envelope = envelope or Envelope.new()
    if so_far is None:
        return envelope.messages(ANSWER_PROMPT, {"question": question, "context": _passages(context)}, ANSWER_REPLY)
    return envelope.messages(CONTINUE_PROMPT, {"question": question, "context": _passages(context),
                                               "answer_so_far": so_far}, CONTINUE_REPLY)


def concept_messages(sentence: str, envelope: Envelope) -> list[dict[str, str]]:
    return envelope.messages(CONCEPT_PROMPT, {"sentence": sentence}, CONCEPT_REPLY)


def question_messages(sentence: str, concept: str, topic: str, envelope: Envelope) -> list[dict[str, str]]:
    return envelope.messages(QUESTION_PROMPT, {"topic": topic, "sentence": sentence, "concept": concept},
                             QUESTION_REPLY)


def validation_messages(question: str, evidence: list[tuple[str, str]], envelope: Envelope) -> list[dict[str, str]]:
    return envelope.messages(VALIDATION_PROMPT, {"evidence": _passages(evidence), "question": question},
                             verdict_reply())


def repair_messages(sentence: str, evidence: list[tuple[str, str]], question: str,
                    envelope: Envelope) -> list[dict[str, str]]:
    return envelope.messages(REPAIR_PROMPT, {"question": question, "evidence": _passages(evidence),
                                             "sentence": sentence}, REPAIR_REPLY)


def premise_check_messages(question: str, context: list[tuple[str, str]], envelope: Envelope) -> list[dict[str, str]]:
    return envelope.messages(PREMISE_CHECK_PROMPT, {"context": _passages(context), "question": question},
                             verdict_reply())


def premise_rewrite_messages(question: str, context: list[tuple[str, str]],
                             envelope: Envelope) -> list[dict[str, str]]:
    return envelope.messages(PREMISE_REWRITE_PROMPT, {"context": _passages(context), "question": question},
                             QUESTION_REPLY)


# Replies, read defensively (a model's text is data too).

_NONE = re.compile(r"^\W*none\W*$", re.IGNORECASE)


# A marker run, or a keyword followed by a code-like word: what a bound line or a data block looks like.
_PROTOCOL = re.compile(r"<<|>>|(?<![a-z])(?:" + "|".join(k.lower() for k in KEYWORDS)
                       + r")[ \t*`\"':=\-]*[0-9a-f]{4,}(?![0-9a-z])")


def first_line(reply: str, limit: int | None = None) -> str:
    """The reply's first non-blank line without surrounding quotes, cut to ``limit`` characters."""
    line = next((ln.strip() for ln in reply.strip().splitlines() if ln.strip()), "").strip("\"' ")
    return line if limit is None else line[:limit]


def bound_text(reply: str, nonce: str, keyword: str) -> tuple[str | None, str]:
    """The text of a reply's one ``KEYWORD <nonce> ...`` line, when it is the whole reply and names no other
    protocol line or marker; else (None, why)."""
    bound = read_line(reply, nonce, keyword, alone=True)
    if bound.value is None:
        return None, f"{bound.code}: {bound.reason}"
    if _PROTOCOL.search(fold(bound.value)):
        return None, f"judge_ambiguous: the {keyword} line holds another protocol keyword or a marker"
    return first_line(bound.value), ""


class RepairReply(NamedTuple):
    """A repair reply read: ``kind`` is ``"rewritten"`` (with ``text``), ``"none"`` (the evidence supports nothing
    of the sentence), ``"empty"``, ``"runaway"`` (not a rewrite of one sentence) or ``"refused"`` (not bound to
    the call, or more than one sentence: ``reason``)."""

    kind: str
    text: str | None
    reason: str = ""


def read_repair(reply: str, original: str, max_growth: float, nonce: str) -> RepairReply:
    """A repair reply bound to ``nonce``: its one ``REWRITE <nonce> ...`` line, holding one sentence no longer than
    ``max_growth`` times ``original`` plus 200 characters, or ``NONE``."""
    fixed, why = bound_text(reply, nonce, "REWRITE")
    if fixed is None:
        return RepairReply("refused", None, why)
    if _NONE.match(fixed):
        return RepairReply("none", None)
    if not fixed:
        return RepairReply("empty", None)
    if len(fixed) > max_growth * len(original) + 200:
        return RepairReply("runaway", None)
    if len(split_sentences(fixed)) > 1:  # a rewrite of one sentence is one sentence; more is something else
        return RepairReply("refused", None, "the rewrite is more than one sentence")
    return RepairReply("rewritten", fixed)
