"""Model-as-judge for paraphrase sampling: do answers to equivalent questions state conflicting facts?

:class:`ConsistencyJudge` asks an LLM (PAS2's layout: the original question and answer, then each
paraphrased question with its answer) and parses a :class:`HallucinationJudgment` tolerantly. Unlike the
original PAS2 code, a judge reply that cannot be parsed (after one repair request) or a failed call is
*not* read as "no hallucination": it is an unverified result with the error.

:class:`LocalConsistencyJudge` needs no LLM: it compares the sampled answers with the local embedding
model and rules (numbers, names, negation), so paraphrase sampling also works offline.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from halguard.embedding import LocalEmbedder
from halguard.lexical import content_terms, entity_mentions, has_negation, number_values, term_set
from halguard.providers import ChatModel, ProviderError, UsageMeter, as_chat_model
from halguard.schema import HallucinationJudgment

__all__ = [
    "ConsistencyJudge",
    "HallucinationJudgment",
    "JudgeResult",
    "LocalConsistencyJudge",
    "parse_judgment",
]

JUDGE_SYSTEM_PROMPT = """\
You check whether an assistant contradicts itself. It was asked one question several times, worded \
differently each time; all wordings ask for the same information. Compare the facts its answers state \
(names, numbers, dates, places, yes/no conclusions). Differences in wording, length, tone or level of \
detail are not conflicts; an answer that adds a fact the others do not mention is not a conflict either. \
A conflict is two answers stating incompatible facts about the same thing.

Reply with one JSON object and nothing else:
{"hallucination_detected": true or false,
 "confidence_score": a number from 0 to 1 (how sure you are of your judgment),
 "conflicting_facts": [{"fact": "...", "answers": {"original": "...", "paraphrase 2": "..."}}],
 "reasoning": "how you compared the answers",
 "summary": "one sentence"}"""

REPAIR_PROMPT = (
    "Your reply could not be read as the JSON object requested ({error}). Reply again with only that JSON "
    "object: hallucination_detected, confidence_score, conflicting_facts, reasoning, summary."
)


def _json_object(text: str) -> dict[str, Any]:
    """The first balanced JSON object in ``text`` (code fences and chatter around it are ignored)."""
    text = re.sub(r"```(?:json)?", "", text)
    start = text.find("{")
    while start >= 0:
        depth, in_str, esc = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_str:
                esc = (ch == "\\") and not esc
                if ch == '"' and not esc:
                    in_str = False
                continue
            if ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    try:
                        value = json.loads(text[start : i + 1])
                    except json.JSONDecodeError:
                        break
                    if isinstance(value, dict):
                        return value
                    break
        start = text.find("{", start + 1)
    msg = "no JSON object found"
    raise ValueError(msg)


def parse_judgment(text: str) -> HallucinationJudgment:
    """Parse a judge reply; raises ValueError (with the reason) when it is not a usable judgment."""
    data = _json_object(text)
    try:
        return HallucinationJudgment.model_validate(data)
    except Exception as exc:  # pydantic's ValidationError and conversion errors alike
        msg = f"invalid judgment fields: {exc}"
        raise ValueError(msg) from exc


@dataclass
class JudgeResult:
    """A judgment, or the reason there is none (``error``); never a silent "consistent"."""

    judgment: HallucinationJudgment | None
    error: str | None = None
    raw_replies: tuple[str, ...] = ()
    judge: str = ""


def judge_messages(question: str, answer: str, paraphrases: list[str], answers: list[str]) -> list[dict[str, str]]:
    parts = [f"Original question: {question}", "", f"Original answer:\n{answer}", "",
             "Reworded questions and their answers:"]
    for i, (q, a) in enumerate(zip(paraphrases, answers), 1):
        parts += ["", f"Reworded question {i}: {q}", "", f"Answer {i}:\n{a}"]
    return [
        {"role": "system", "content": JUDGE_SYSTEM_PROMPT},
        {"role": "user", "content": "Do these answers state conflicting facts?\n\n" + "\n".join(parts)},
    ]


class ConsistencyJudge:
    """An LLM judge (e.g. o3-mini) over the sampled answers.

    Args:
        chat: A :class:`~halguard.providers.ChatModel`, an OpenAI/Mistral client, or a callable.
        model: The model name, with a client.
    """

    def __init__(self, chat: Any, model: str | None = None) -> None:
        self.chat = as_chat_model(chat, model)

    @property
    def name(self) -> str:
        return self.chat.name

    def _after_reply(
        self, messages: list[dict[str, str]], replies: list[str], reply: str, last: bool
    ) -> tuple[JudgeResult | None, list[dict[str, str]]]:
        """Parse a reply: a result, or (on the first bad reply) the messages asking for a repair."""
        replies.append(reply)
        try:
            return JudgeResult(parse_judgment(reply), None, tuple(replies), self.name), messages
        except ValueError as exc:
            if last:
                return JudgeResult(None, f"unparsable judge reply: {exc}", tuple(replies), self.name), messages
            repair = [{"role": "assistant", "content": reply},
                      {"role": "user", "content": REPAIR_PROMPT.format(error=exc)}]
            return None, [*messages, *repair]

    def judge(self, question: str, answer: str, paraphrases: list[str], answers: list[str], *,
              meter: UsageMeter | None = None, cache: Any = None) -> JudgeResult:
        """Judge the answers; ``meter`` and ``cache`` are passed to each model call (see :meth:`ChatModel.chat`)."""
        messages, replies = judge_messages(question, answer, paraphrases, answers), []
        for attempt in range(2):  # one try, one repair
            try:
                reply = self.chat.chat(messages, json_mode=True, meter=meter, cache=cache).text
            except ProviderError as exc:
                return JudgeResult(None, str(exc), tuple(replies), self.name)
            result, messages = self._after_reply(messages, replies, reply, last=attempt == 1)
            if result is not None:
                return result
        raise AssertionError("unreachable")  # pragma: no cover

    async def ajudge(self, question: str, answer: str, paraphrases: list[str], answers: list[str], *,
                     meter: UsageMeter | None = None, cache: Any = None) -> JudgeResult:
        """Async twin of :meth:`judge`."""
        messages, replies = judge_messages(question, answer, paraphrases, answers), []
        for attempt in range(2):
            try:
                reply = (await self.chat.achat(messages, json_mode=True, meter=meter, cache=cache)).text
            except ProviderError as exc:
                return JudgeResult(None, str(exc), tuple(replies), self.name)
            result, messages = self._after_reply(messages, replies, reply, last=attempt == 1)
            if result is not None:
                return result
        raise AssertionError("unreachable")  # pragma: no cover


class LocalConsistencyJudge:
    """Offline judge: compares each sampled answer with the original one.

    A pair conflicts when both state numbers and share none, when names in one are absent from the other
    and their similarity is low, when they disagree on negation while saying nearly the same thing, or
    when two short answers (<= 15 content words) that share no number each state a detail the other lacks
    (words of the questions don't count). Long answers that add different details are not flagged by that last rule.
    ``confidence_score`` is the share of pairs that conflict (1.0 when every sample disagrees).
    """

    name = "local"

    def __init__(self, embedder: LocalEmbedder | None = None, *, min_similarity: float = 0.55) -> None:
        self._embedder = embedder
        self.min_similarity = min_similarity

    @property
    def embedder(self) -> LocalEmbedder:
        if self._embedder is None:
            self._embedder = LocalEmbedder.shared()
        return self._embedder

    def judge(self, question: str, answer: str, paraphrases: list[str], answers: list[str], *,
              meter: UsageMeter | None = None, cache: Any = None) -> JudgeResult:
        """Compare each answer with the original one (``meter`` and ``cache`` are unused: no LLM is called)."""
        if not answers:
            return JudgeResult(None, "no sampled answers to compare", (), self.name)
        # A local, not an attribute: one judge serves concurrent checks.
        question_terms = frozenset(st for q in [question, *paraphrases] for _, _, st in content_terms(q))
        vecs, _ = self.embedder.encode([answer, *answers])
        conflicts = []
        for i, other in enumerate(answers):
            why = self._conflict(answer, other, float(vecs[0] @ vecs[i + 1]), question_terms)
            if why:
                conflicts.append({"fact": why, "answers": {"original": answer, f"paraphrase {i + 1}": other}})
        share = len(conflicts) / len(answers)
        judgment = HallucinationJudgment(
            hallucination_detected=bool(conflicts),
            confidence_score=round(share if conflicts else 1 - share, 4),
            conflicting_facts=conflicts,
            reasoning=f"{len(conflicts)} of {len(answers)} sampled answers conflict with the original answer",
            summary="conflicting answers" if conflicts else "the sampled answers agree",
        )
        return JudgeResult(judgment, None, (), self.name)

    async def ajudge(self, question: str, answer: str, paraphrases: list[str], answers: list[str], *,
                     meter: UsageMeter | None = None, cache: Any = None) -> JudgeResult:
        """Async twin of :meth:`judge` (the embedding runs in a worker thread)."""
        import asyncio

        return await asyncio.to_thread(self.judge, question, answer, paraphrases, answers)

    def _conflict(self, a: str, b: str, similarity: float, question_terms: frozenset[str]) -> str | None:
        na, nb = number_values(a), number_values(b)
        if na and nb and not (na & nb):
            return f"different numbers: {sorted(na)} vs {sorted(nb)}"
        names_a = {st for s, e in entity_mentions(a) for _, _, st in content_terms(a[s:e])}
        names_b = {st for s, e in entity_mentions(b) for _, _, st in content_terms(b[s:e])}
        # Each answer names something the other never mentions (not even as a plain word).
        if names_a - term_set(b) and names_b - term_set(a) and similarity < self.min_similarity + 0.2:
            return "different names"
        if similarity >= 0.8 and has_negation(a) != has_negation(b):
            return "one answer negates the other"
        words_a = {st for _, _, st in content_terms(a)}
        words_b = {st for _, _, st in content_terms(b)}
        only_a, only_b = words_a - words_b - question_terms, words_b - words_a - question_terms
        if only_a and only_b and max(len(words_a), len(words_b)) <= 15 and not (na & nb):
            # Short answers that each state something the other lacks ("grey" vs "white") disagree.
            return f"different details: {sorted(only_a)} vs {sorted(only_b)}"
        if similarity < self.min_similarity:
            return f"answers differ (similarity {similarity:.2f})"
        return None
