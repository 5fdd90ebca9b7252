"""PAS2 as a detector: reword the question, let the same model answer each rewording from the same passages, and
let a judge compare the answers with the one under test.

This is what ``consistency="on"`` does inside the guards, made benchmarkable on labelled rows that carry only a
fixed answer (``halguard bench --detector pas2``): the model standing in for the RAG system answers the
rewordings from the row's passages. The risk is the judge's confidence that the answers conflict (its
``confidence_score`` when it finds a conflict, ``1 - confidence_score`` when it does not); a report that could not
be judged is ``unverified``.

Agreeing answers are no evidence against the passages: a "consistent" answer that states a name or number the
passages lack or state otherwise (:mod:`halguard.grounding.findings`, no model) is ``hallucinated``, with the code
``llm_overruled``.
"""

from __future__ import annotations

import time
from typing import Any

from halguard.consistency import ParaphraseConsistency
from halguard.detector import Detector
from halguard.grounding.findings import deterministic_findings, overrule
from halguard.llm.envelope import Envelope, bind_cache
from halguard.llm.providers import ChatModel, as_chat_model
from halguard.schema import Usage, Verdict
from halguard.text.contexts import normalize_contexts
from halguard.util.options import require_fraction

__all__ = ["ANSWER_PROMPT", "SamplingDetector"]

ANSWER_PROMPT = """\
Answer the question from the passages only, in one or two sentences. The data is one JSON object with \
"passages" and "question"."""
ANSWER_REPLY = "Reply with the answer only."


class SamplingDetector(Detector):
    """Paraphrase sampling with ``chat`` as paraphraser, answerer and judge (or ``judge="local"``).

    Args:
        chat: The model: a :class:`~halguard.llm.providers.ChatModel`, an OpenAI/Mistral client, or a callable.
        judge: ``"llm"`` (the same model as the PAS2 judge, default) or ``"local"`` (the offline judge).
        n_paraphrases: Rewordings per question.
        threshold: Risk at or above which the answer is flagged.
    """

    def __init__(self, chat: Any, *, judge: str = "llm", n_paraphrases: int = 3, threshold: float = 0.5) -> None:
        require_fraction("threshold", threshold)
        self.chat: ChatModel = as_chat_model(chat)
        self.threshold = threshold
        self.checker = ParaphraseConsistency(paraphraser=self.chat, judge=self.chat if judge == "llm" else "local",
                                             n_paraphrases=n_paraphrases)

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"pas2:{self.chat.name}"

    def _answer_fn(self, contexts: Any) -> Any:
        passages = [{"id": s.id, "text": s.text} for s in normalize_contexts(contexts)]

        def answer(question: str) -> str:
            # The passages and the (reworded) question are data; the answer is judged afterwards, so it needs no
            # nonce, but its own block keeps a passage from posing as the prompt.
            envelope = Envelope.new()
            messages = envelope.messages(ANSWER_PROMPT, {"passages": passages, "question": question}, ANSWER_REPLY)
            return self.chat.chat(messages, cache=bind_cache(self.chat.cache, envelope)).text

        return answer

    def verify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        t0 = time.perf_counter()
        common = {"detector": self.name, "threshold": self.threshold}
        if not question:
            return Verdict.unverified("no_question", "paraphrase sampling needs the question", **common)
        report = self.checker.check(question, self._answer_fn(contexts), answer=answer)
        usage = Usage(llm_calls=report.usage.llm_calls, input_tokens=report.usage.input_tokens,
                      output_tokens=report.usage.output_tokens)
        latency = (time.perf_counter() - t0) * 1000
        if report.label == "unverified" or report.judgment is None:
            return Verdict.unverified("consistency_unverified", "paraphrase sampling did not run in full",
                                      errors=list(report.errors), usage=usage, latency_ms=latency,
                                      consistency=report, **common)
        confidence = report.judgment.confidence_score
        risk = confidence if report.label == "inconsistent" else 1.0 - confidence
        flagged = risk >= self.threshold
        verdict = Verdict(label="hallucinated" if flagged else "supported", hallucination_detected=flagged,
                          score=round(risk, 4), usage=usage, latency_ms=latency, consistency=report,
                          errors=[e for e in report.errors if e.code == "paraphrase_failed"], **common)
        if verdict.is_supported:
            verdict = overrule(verdict, deterministic_findings(answer, contexts, question=question), step=self.name)
            verdict.latency_ms = (time.perf_counter() - t0) * 1000
        return verdict
