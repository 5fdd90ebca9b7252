"""A prompted grounding judge: one LLM call per answer, read from the verdict token's probabilities.

The model sees the passages, the question and the answer as JSON data inside the call's data block
(:mod:`halguard.llm.envelope`), and is asked for one line: ``VERDICT <nonce> yes`` (every statement of the answer
is supported by the passages) or ``VERDICT <nonce> no``. With token log-probabilities the risk is
``P(no) / (P(yes) + P(no))`` over the verdict token's alternatives, a ranking a small model gives even when its
argmax always says "yes" (measured: docs/evaluation.md); without them it is 1.0 for "no" and 0.0 for "yes".
Anything else (a provider error, a reply without this call's nonce or with two verdicts, a verdict that is neither
word) is ``unverified`` with a reason code, never supported.

A "yes" does not stand against the rules: when the answer states a name or number the passages lack or state
otherwise (:mod:`halguard.grounding.findings`, no model), the verdict is ``hallucinated`` with the finding and the
code ``llm_overruled``. The nonce proves which reply is the model's own, not that the model ignored its data.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from halguard.detector import Detector
from halguard.errors import ProviderError
from halguard.grounding.findings import Findings, deterministic_findings, overrule
from halguard.grounding.job import read_inputs
from halguard.llm.envelope import Envelope, bind_cache
from halguard.llm.providers import ChatModel, ChatReply, UsageMeter, as_chat_model
from halguard.llm.yesno import read_yes_no, verdict_reply
from halguard.schema import ClaimStatus, ClaimVerdict, Usage, Verdict, VerdictError
from halguard.text.contexts import Source
from halguard.util.options import require_fraction, require_positive_int

__all__ = ["GROUNDING_PROMPT", "GroundingJudge"]

GROUNDING_PROMPT = """\
You check answers against retrieved passages. The data is one JSON object with "passages", "question" and \
"answer". Is every statement of the answer supported by the passages? The verdict is yes or no."""

# Passages are cut to this many characters in all, so one request fits a 4,096-token context (about 4 characters
# per token, leaving room for the answer and the reply); a cut is recorded in the verdict's errors.
MAX_CONTEXT_CHARS = 12_000


class GroundingJudge(Detector):
    """Ask a chat model whether the answer is supported by the passages; the risk comes from its token probabilities.

    Args:
        chat: A :class:`~halguard.llm.providers.ChatModel`, an OpenAI/Mistral client (with ``model``), or a callable.
        model: The model name, with a client.
        threshold: Risk at or above which the answer is flagged.
        top_logprobs: Alternatives asked for at the first token (the "yes"/"no" probabilities come from them).
        max_context_chars: Passages beyond this many characters in all are cut (and the cut is reported).
    """

    def __init__(self, chat: Any, *, model: str | None = None, threshold: float = 0.5, top_logprobs: int = 10,
                 max_context_chars: int = MAX_CONTEXT_CHARS) -> None:
        require_fraction("threshold", threshold)
        require_positive_int("top_logprobs", top_logprobs)
        require_positive_int("max_context_chars", max_context_chars)
        self.chat: ChatModel = as_chat_model(chat, model)
        self.threshold = threshold
        self.top_logprobs = min(top_logprobs, 20)
        self.max_context_chars = max_context_chars

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"llm-judge:{self.chat.name}"

    def _unusable(self, answer: str, sources: list[Source]) -> Verdict | None:
        """Nothing to ask the judge (an empty answer, no visible passage): ``unverified``, and no call is made."""
        if not answer.strip():
            return Verdict.unverified("empty_answer", "the answer is empty; there is nothing to check",
                                      detector=self.name, threshold=self.threshold)
        if not sources:
            return Verdict.unverified("no_context", "no retrieved context to check the answer against",
                                      detector=self.name, threshold=self.threshold)
        return None

    def _messages(self, answer: str, sources: list[Source], question: str | None,
                  envelope: Envelope) -> tuple[list[dict[str, str]], bool]:
        passages, used, cut = [], 0, False
        for src in sources:
            room = self.max_context_chars - used
            if room <= 0:
                cut = True
                break
            cut = cut or len(src.text) > room
            passages.append({"id": src.id, "text": src.text[:room]})
            used += min(len(src.text), room)
        data = {"passages": passages, "question": question, "answer": answer}
        return envelope.messages(GROUNDING_PROMPT, data, verdict_reply()), cut

    def _verdict(self, answer: str, reply: ChatReply | None, error: str | None, meter: UsageMeter, cut: bool,
                 t0: float, nonce: str) -> Verdict:
        usage = Usage.from_meter(meter)
        common = {"detector": self.name, "threshold": self.threshold, "usage": usage,
                  "latency_ms": (time.perf_counter() - t0) * 1000}
        if reply is None:
            return Verdict.unverified("provider_error", error or "the model call failed", **common)
        risk, how, code = self._risk(reply, nonce)
        if risk is None:
            return Verdict.unverified(code, how, **common)
        flagged = risk >= self.threshold
        # The judge rules on the answer as a whole: one claim spanning it, with how the risk was read.
        whole = ClaimVerdict(text=answer, start=0, end=len(answer), score=round(risk, 4), reasons=[how],
                             status=ClaimStatus.HALLUCINATION if flagged else ClaimStatus.SUPPORTED)
        errors = [VerdictError(code="context_cut", message=f"passages beyond {self.max_context_chars:,} characters "
                               "were not shown to the judge")] if cut else []
        return Verdict(label="hallucinated" if flagged else "supported", hallucination_detected=flagged,
                       score=round(risk, 4), claims=[whole], errors=errors, **common)

    @staticmethod
    def _risk(reply: ChatReply, nonce: str) -> tuple[float | None, str, str]:
        """The risk and how it was read, or (None, why not, the reason code)."""
        read = read_yes_no(reply, nonce=nonce, word_yes=1.0, word_no=0.0)
        if read.p_yes is None:
            return None, f"the judge's answer is unreadable: {read.reason}", read.code
        if read.source == "logprobs":
            return 1.0 - read.p_yes, f"verdict-token probabilities: P(yes)={read.yes:.3f}, P(no)={read.no:.3f}", ""
        return 1.0 - read.p_yes, f"the reply said {read.word} (no token probabilities)", ""

    def _overruled(self, verdict: Verdict, findings: Findings | None, t0: float) -> Verdict:
        """The judge's verdict with the rules' findings standing (``findings`` is None when it said no)."""
        if findings is not None:
            verdict = overrule(verdict, findings, step=self.name)
        verdict.latency_ms = (time.perf_counter() - t0) * 1000
        return verdict

    def verify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        t0, meter, envelope = time.perf_counter(), UsageMeter(), Envelope.new()  # a fresh boundary and nonce per call
        sources = read_inputs(answer, contexts, question)
        unusable = self._unusable(answer, sources)
        if unusable is not None:
            return unusable
        messages, cut = self._messages(answer, sources, question, envelope)
        try:
            reply = self.chat.chat(messages, meter=meter, top_logprobs=self.top_logprobs,
                                   cache=bind_cache(self.chat.cache, envelope))
        except ProviderError as exc:
            return self._verdict(answer, None, str(exc), meter, cut, t0, envelope.nonce)
        verdict = self._verdict(answer, reply, None, meter, cut, t0, envelope.nonce)
        found = deterministic_findings(answer, sources, question=question) if verdict.is_supported else None
        return self._overruled(verdict, found, t0)

    async def averify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        t0, meter, envelope = time.perf_counter(), UsageMeter(), Envelope.new()
        sources = read_inputs(answer, contexts, question)
        unusable = self._unusable(answer, sources)
        if unusable is not None:
            return unusable
        messages, cut = self._messages(answer, sources, question, envelope)
        try:
            reply = await self.chat.achat(messages, meter=meter, top_logprobs=self.top_logprobs,
                                          cache=bind_cache(self.chat.cache, envelope))
        except ProviderError as exc:
            return self._verdict(answer, None, str(exc), meter, cut, t0, envelope.nonce)
        verdict = self._verdict(answer, reply, None, meter, cut, t0, envelope.nonce)
        # The rules are CPU work: off the event loop.
        found = (await asyncio.to_thread(deterministic_findings, answer, sources, question=question)
                 if verdict.is_supported else None)
        return self._overruled(verdict, found, t0)
