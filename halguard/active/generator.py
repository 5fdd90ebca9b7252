"""Active generation: validate low-confidence sentences while the answer is generated, and repair them.

After "A Stitch in Time Saves Nine" (Varshney et al., 2023), with the app's retrieved context as the knowledge
source. Per generated sentence:

1. Its **key concepts** (:mod:`halguard.active.concepts`: rules, or the model instructed to list them).
2. Each concept's **probability**: the minimum (or mean, or normalised product) of the generator's token
   probabilities over the concept's characters (:mod:`halguard.active.uncertainty`).
3. Concepts under ``concept_threshold``, least likely first: a **yes/no validation question** written by the model,
   answered from evidence (the app's retriever queried with the question, else the best windows of the context)
   strictly, context only. The first failed concept stops the sentence's validation (the paper's greedy exit).
4. A failed sentence is **repaired** from the evidence (or **dropped** when no evidence supports it), and the answer
   is **generated on from the repaired text**, so one error does not steer the sentences after it.

Without token log-probabilities every concept counts as uncertain (all are validated). A budget of extra calls and
seconds bounds each answer: past it, sentences are kept as ``unvalidated``. The answer that comes out is checked
once more by the detector (the local verifier by default) against every passage seen, and the verdict carries the
trace (:class:`~halguard.schema.ActiveTrace`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Literal

from halguard.active.concept_validation import validate_concept
from halguard.active.concepts import parse_concept_reply, rule_concepts
from halguard.active.evidence import EvidencePool
from halguard.active.prompts import answer_messages, bound_text, concept_messages
from halguard.active.sentence_repair import repair_sentence
from halguard.active.settings import DEFAULT_ACTIVE_SETTINGS, ActiveSettings
from halguard.active.steps import (
    Ask,
    Budget,
    Emit,
    Refused,
    Retrieve,
    Step,
    adrive_stream,
    drive_stream,
    run_to_end,
)
from halguard.active.uncertainty import TokenSpans, Uncertainty, combine
from halguard.api import resolve_detector
from halguard.detector import Detector
from halguard.errors import InputTypeError, InvalidInputError, ProviderError
from halguard.failures import acheck_answer, check_answer
from halguard.llm.envelope import Envelope
from halguard.llm.providers import ChatModel, as_chat_model
from halguard.policy import DEFAULT_FALLBACK
from halguard.schema import ActiveTrace, ConceptCheck, SentenceTrace, Verdict
from halguard.text.contexts import Source, normalize_contexts
from halguard.text.segment import split_sentences

__all__ = ["ActiveGenerator", "ActiveResult", "ActiveSentence"]


@dataclass(frozen=True)
class ActiveSentence:
    """A sentence of the answer, final once streamed: ``lead`` (the whitespace before it) + ``text``."""

    lead: str
    text: str
    trace: SentenceTrace


@dataclass(frozen=True)
class ActiveResult:
    """An actively generated answer: the text, its verdict (with the trace under ``verdict.active``) and every
    passage the answer was generated or validated from."""

    answer: str
    verdict: Verdict
    sources: list[Source] = field(default_factory=list)

    @property
    def trace(self) -> ActiveTrace:
        assert self.verdict.active is not None
        return self.verdict.active


@dataclass
class _Text:
    """The generated text being walked through, and its token map."""

    text: str
    tokens: TokenSpans
    pending: deque = field(default_factory=deque)  # (lead, start, end) of the sentences not yet decided


def _split(text: str, begin: int = 0) -> deque:
    """(lead, start, end) of the sentences of ``text[begin:]``, in ``text`` offsets."""
    out, cursor = deque(), begin
    for s, e in split_sentences(text[begin:]):
        s, e = s + begin, e + begin
        if text[s:e].strip():
            out.append((text[cursor:s], s, e))
        cursor = e
    return out


class ActiveGenerator:
    """Generate an answer from retrieved context, validating and repairing low-confidence sentences as it goes.

    Args:
        llm: The generator and helper model (a ChatModel, an OpenAI client, a callable; the LangChain and
            LlamaIndex adapters convert theirs). It should return token log-probabilities.
        retriever: Optional ``retrieve(query) -> contexts``: the app's retriever, queried with the question when no
            contexts are given and with each validation question. None: the given contexts are the only evidence.
        aretriever: Its async twin (default: ``retriever`` in a worker thread).
        detector: Checks the final answer (default: the shared local verifier).
        concepts: ``"rules"`` (names, numbers, content-word runs; no call) or ``"llm"`` (the model lists them).
        uncertainty: How a concept's token probabilities combine: ``"min"`` (the paper's best), ``"mean"``,
            ``"product"`` (normalised).
        settings: Thresholds and budgets (:class:`~halguard.active.ActiveSettings`).
        cache: An opt-in response cache for the helper calls.
        no_answer: The answer when every sentence was dropped.
    """

    def __init__(self, llm: Any, *, retriever: Callable[[str], Any] | None = None,
                 aretriever: Callable[[str], Any] | None = None, detector: Detector | None = None,
                 concepts: Literal["rules", "llm"] = "rules", uncertainty: Uncertainty = "min",
                 settings: ActiveSettings = DEFAULT_ACTIVE_SETTINGS, cache: Any = None,
                 no_answer: str = DEFAULT_FALLBACK) -> None:
        if concepts not in ("rules", "llm"):
            msg = f"concepts must be 'rules' or 'llm', got {concepts!r}"
            raise InvalidInputError(msg)
        combine([0.5], uncertainty)  # raises for an unknown name
        for name, fn in (("retriever", retriever), ("aretriever", aretriever)):
            if fn is not None and not callable(fn):
                msg = f"{name} must be callable (query -> contexts), got {type(fn).__name__}"
                raise InputTypeError(msg)
        self.chat: ChatModel = as_chat_model(llm)
        # A wrong detector type fails here, not after the answer was generated; None: the shared default, at use.
        self.retriever, self.detector = retriever, detector if detector is None else resolve_detector(detector)
        self._aretriever = aretriever
        self.concepts, self.uncertainty, self.settings = concepts, uncertainty, settings
        self.cache, self.no_answer = cache, no_answer

    # -- public API --------------------------------------------------------------------------------------------

    def generate(self, question: str, contexts: Any = None) -> ActiveResult:
        """The answer to ``question`` from ``contexts`` (else from the retriever), validated and repaired."""
        return run_to_end(self.stream(question, contexts))

    async def agenerate(self, question: str, contexts: Any = None) -> ActiveResult:
        """Async twin of :meth:`generate`."""
        out: list[ActiveResult] = []
        async for _ in self._astream(question, contexts, out):
            pass
        return out[0]

    def stream(self, question: str, contexts: Any = None) -> Generator[ActiveSentence, None, ActiveResult]:
        """Yield each sentence once it is final (validated, repaired or kept); returns the :class:`ActiveResult`.

        Raises:
            ProviderError: The first generation failed (there is no answer to check).
        """
        budget, pool = self._start(question, contexts, sync=True)
        runner = drive_stream(self._steps(question, pool, contexts is None), chat=self.chat, budget=budget,
                              cache=self.cache, retrieve=self.retriever)
        while True:
            try:
                e = next(runner)
            except StopIteration as stop:
                return self._finish(stop.value, pool, budget, question)
            yield ActiveSentence(e.lead, e.text, e.trace)

    async def astream(self, question: str, contexts: Any = None, *,
                      into: list[ActiveResult] | None = None) -> AsyncIterator[ActiveSentence]:
        """Async twin of :meth:`stream`; the :class:`ActiveResult` is appended to ``into`` at the end (an async
        generator cannot return it)."""
        async for sentence in self._astream(question, contexts, into if into is not None else []):
            yield sentence

    async def _astream(self, question: str, contexts: Any, out: list[ActiveResult]) -> AsyncIterator[ActiveSentence]:
        budget, pool = self._start(question, contexts)
        steps = self._steps(question, pool, contexts is None)
        answer: list[Any] = []
        async for e in adrive_stream(steps, answer, chat=self.chat, budget=budget, cache=self.cache,
                                     aretrieve=self._async_retriever()):
            yield ActiveSentence(e.lead, e.text, e.trace)
        out.append(await self._afinish(answer[0], pool, budget, question))

    # -- set-up and finish ---------------------------------------------------------------------------------------

    def _async_retriever(self) -> Callable[[str], Any] | None:
        if self._aretriever is not None:
            return self._aretriever
        if self.retriever is None:
            return None
        import asyncio

        retriever = self.retriever

        async def in_thread(query: str) -> Any:
            return await asyncio.to_thread(retriever, query)

        return in_thread

    def _start(self, question: Any, contexts: Any, *, sync: bool = False) -> tuple[Budget, EvidencePool]:
        if not isinstance(question, str) or not question.strip():
            msg = "question must be a non-empty str"
            raise InvalidInputError(msg) if isinstance(question, str) else InputTypeError(msg)
        if contexts is None and self.retriever is None and (sync or self._aretriever is None):
            msg = ("give contexts, or a retriever to get them from" if self._aretriever is None else
                   "only an async retriever was given: use agenerate/astream, or give retriever= too")
            raise InvalidInputError(msg)
        pool = EvidencePool()
        if contexts is not None:
            pool.add(normalize_contexts(contexts))
        return Budget(self.settings.max_extra_calls, self.settings.timeout_s), pool

    def _result(self, answer: Any, pool: EvidencePool, budget: Budget, verdict: Verdict) -> ActiveResult:
        text, trace = answer
        trace.generation_calls, trace.extra_calls = budget.generation_calls, budget.extra_calls
        trace.seconds = round(time.monotonic() - budget.t0, 3)
        m = budget.meter
        usage = verdict.usage.model_copy(update={
            "llm_calls": verdict.usage.llm_calls + m.calls, "input_tokens": verdict.usage.input_tokens + m.input_tokens,
            "output_tokens": verdict.usage.output_tokens + m.output_tokens})
        return ActiveResult(text, verdict.model_copy(update={"active": trace, "usage": usage}), list(pool.sources))

    def _detector(self) -> Detector:
        return resolve_detector(self.detector)

    def _finish(self, answer: Any, pool: EvidencePool, budget: Budget, question: str) -> ActiveResult:
        # The answer exists: a failed final check is "unverified" (bad input too: the text is the model's, not the
        # caller's, so there is no caller mistake to raise).
        verdict = check_answer(self._detector(), answer[0], pool.sources, question=question, bad_input="unverified",
                               what="the final check")
        return self._result(answer, pool, budget, verdict)

    async def _afinish(self, answer: Any, pool: EvidencePool, budget: Budget, question: str) -> ActiveResult:
        verdict = await acheck_answer(self._detector(), answer[0], pool.sources, question=question,
                                      bad_input="unverified", what="the final check")
        return self._result(answer, pool, budget, verdict)

    # -- the loop ------------------------------------------------------------------------------------------------

    def _steps(self, question: str, pool: EvidencePool, fetch: bool) -> Generator[Step, Any, tuple[str, ActiveTrace]]:
        s = self.settings
        trace = ActiveTrace(threshold=s.concept_threshold, uncertainty=self.uncertainty,
                            concept_source=self.concepts, logprobs=False)
        if fetch:
            found = yield Retrieve(question)
            if isinstance(found, Refused):
                msg = f"retrieving context for the question failed: {found.reason}"
                raise ProviderError(msg)
            pool.add(found)
        envelope = Envelope.new()
        reply = yield Ask(answer_messages(question, pool.context(s.evidence_chars * 2), envelope=envelope), "generate",
                          top_logprobs=1, envelope=envelope)
        if isinstance(reply, Refused):
            msg = f"generating the answer failed: {reply.reason}"
            raise ProviderError(msg)
        trace.logprobs = reply.has_logprobs
        current = _Text(reply.text, TokenSpans(reply.text, reply.logprobs), _split(reply.text))
        parts: list[str] = []
        while current.pending:
            lead, start, end = current.pending.popleft()
            sentence = current.text[start:end]
            if len(trace.sentences) >= s.max_sentences:
                # Past the cap nothing more is validated, but nothing is cut either: kept, marked, checked at the end.
                trace.budget_exhausted = trace.budget_exhausted or "sentences"
                st = SentenceTrace(index=len(trace.sentences), original=sentence, final=sentence,
                                   decision="unvalidated", reason=f"past max_sentences={s.max_sentences}")
            else:
                st = yield from self._sentence(len(trace.sentences), sentence, start, current.tokens, question, pool,
                                               trace)
            trace.sentences.append(st)
            if st.final is not None:
                lead = (lead if lead.strip() == "" and lead else " ") if parts else ""
                parts.append(lead + st.final)
                yield Emit(st.final, st, lead)
            if st.decision in ("repaired", "dropped"):
                # What followed was generated after the error: generate it again from the repaired text.
                so_far = "".join(parts)
                envelope = Envelope.new()
                more = yield Ask(answer_messages(question, pool.context(s.evidence_chars * 2), so_far, envelope),
                                 "continue", top_logprobs=1, envelope=envelope)
                if isinstance(more, Refused):
                    if more.budget:
                        trace.budget_exhausted = trace.budget_exhausted or more.reason
                    # The old continuation is kept (validated as usual, or unvalidated past the budget); say so.
                    st.reason += f"; generating on from it failed ({more.reason}): the original continuation is kept"
                    continue
                current = _Text(more.text, TokenSpans(more.text, more.logprobs),
                                _split(more.text, _repeat_end(more.text, so_far)))
        answer = "".join(parts).strip()
        return (answer or self.no_answer), trace

    def _sentence(self, index: int, sentence: str, offset: int, tokens: TokenSpans, question: str,
                  pool: EvidencePool, trace: ActiveTrace) -> Generator[Step, Any, SentenceTrace]:
        s = self.settings
        calls = 0
        concepts, reason = rule_concepts(sentence), ""
        if self.concepts == "llm" and not trace.budget_exhausted:
            envelope = Envelope.new()
            reply = yield Ask(concept_messages(sentence, envelope), "concepts", envelope=envelope)
            calls += 1
            text, why = (None, reply.reason) if isinstance(reply, Refused) else bound_text(reply.text, envelope.nonce,
                                                                                          "CONCEPTS")
            listed = None if text is None else parse_concept_reply(text, sentence)
            if listed is not None:
                concepts = listed
            else:
                reason = f"the model's concept list was unusable{f' ({why})' if why else ''}; rule concepts used. "
        if trace.logprobs and not tokens.aligned:
            reason += "the tokens' log-probabilities could not be placed on the text: every concept is validated. "
        checks = []
        for c in concepts:
            p = tokens.probability(offset + c.start, offset + c.end, self.uncertainty)
            uncertain = p is None or p < s.concept_threshold
            checks.append(ConceptCheck(text=c.text, start=c.start, end=c.end, probability=p, uncertain=uncertain,
                                       outcome="not_checked" if uncertain else "confident"))
        uncertain = sorted((ch for ch in checks if ch.uncertain), key=lambda ch: -1.0 if ch.probability is None
                           else ch.probability)
        if not uncertain:
            why = "no key concept" if not checks else "every key concept is above the threshold"
            return SentenceTrace(index=index, original=sentence, final=sentence, decision="confident",
                                 concepts=checks, reason=reason + why, calls=calls)
        failed: ConceptCheck | None = None
        evidence: list[tuple[str, str]] = []
        for ch in uncertain:
            if trace.budget_exhausted:
                break
            outcome = yield from validate_concept(
                ch, sentence, question, pool, settings=s,
                can_retrieve=self.retriever is not None or self._aretriever is not None)
            calls += outcome[1]
            if isinstance(outcome[0], Refused):
                trace.budget_exhausted = outcome[0].reason if outcome[0].budget else None
                if not outcome[0].budget:
                    ch.outcome, ch.reason = "unverified", outcome[0].reason
                    return SentenceTrace(index=index, original=sentence, final=sentence, decision="unverified",
                                         concepts=checks, reason=reason + ch.reason, calls=calls)
                break
            evidence = outcome[0]
            if ch.outcome == "unverified":
                return SentenceTrace(index=index, original=sentence, final=sentence, decision="unverified",
                                     concepts=checks, reason=reason + ch.reason, calls=calls)
            if ch.outcome == "failed":
                failed = ch
                break
        if failed is None:
            left = [ch for ch in uncertain if ch.outcome == "not_checked"]
            if left:
                return SentenceTrace(index=index, original=sentence, final=sentence, decision="unvalidated",
                                     concepts=checks, calls=calls,
                                     reason=reason + f"budget exhausted ({trace.budget_exhausted}) before "
                                     f"{len(left)} uncertain concept(s) were validated")
            return SentenceTrace(index=index, original=sentence, final=sentence, decision="validated",
                                 concepts=checks, reason=reason + "every uncertain concept was validated", calls=calls)
        return (yield from repair_sentence(index, sentence, question, failed=failed, checks=checks, evidence=evidence,
                                           reason=reason, calls=calls, max_growth=s.max_repair_growth,
                                           passages=pool.sources))


def _repeat_end(text: str, so_far: str) -> int:
    """Where a continuation's new text begins: after the answer-so-far, when the model repeated it first."""
    prefix = so_far.strip()
    at = len(text) - len(text.lstrip())
    return at + len(prefix) if prefix and text[at:].startswith(prefix) else 0
