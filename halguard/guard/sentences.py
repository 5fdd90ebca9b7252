"""Sentence by sentence: a streamed answer released one sentence at a time, each once it is complete and checked.

A policy that may change the answer used to hold the whole stream back. :class:`SentenceGate` lets each sentence
through as soon as the next one has begun (so it is complete) and its claims are checked:

- ``annotate``: every sentence goes out, with its claims' verdicts;
- ``filter``: a flagged sentence is dropped, the rest are not held back;
- ``fallback``: at the first flagged sentence the fallback message goes out instead and the gate closes (the
  adapter stops reading the model's stream);
- ``raise``: :class:`~halguard.errors.HallucinationError` at the first flagged sentence.

A sentence is checked as the end of the answer so far (``answer[:its end]``): the detector sees the answer's
shape as it grows, and the last check is the whole answer's, so the final verdict is exactly what a check of the
finished answer says. Past :data:`PREFIX_CHECK_MAX_CHARS` a sentence is checked on its own, so the work per
sentence stays bounded. ``repair`` and paraphrase sampling need the whole answer and are not offered here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Literal

from halguard.detector import Detector
from halguard.errors import HallucinationError, InvalidInputError, UnverifiedError
from halguard.guard.core import GuardCore, _maybe_await
from halguard.guard.outcome import GuardOutcome
from halguard.guard.request import GuardHooks, GuardRequest
from halguard.policy import DEFAULT_FALLBACK, fallback_unchecked, with_fallback_verdict
from halguard.schema import ClaimVerdict, PolicyAction, UnsupportedSpan, Verdict
from halguard.text.segment import split_sentences

__all__ = ["PREFIX_CHECK_MAX_CHARS", "ReleasedSentence", "SentenceGate"]

PREFIX_CHECK_MAX_CHARS = 4_000
"""Up to this length a sentence is checked as the end of the answer so far; longer answers' sentences on their own
(a QA or RAG answer is well under it: the prefix checks of a 4,000-character answer cost about three checks of it)."""
MAX_PENDING_CHARS = 1_000
"""An unfinished sentence longer than this is released (and checked) at its last space: a stream that never ends a
sentence must not hold its text back, nor be re-split as it grows without bound."""
MAX_STREAM_CHARS = 100_000
"""Past this many characters (the local verifier's ``max_answer_chars``) a stream's sentences are not checked: they
are ``unverified`` (``answer_too_long``), and the policy decides (fail open: sent; fail closed: as flagged)."""
STREAM_CHECK_BUDGET_S = 10.0
"""The checks of one stream's sentences take at most about this long in all (the local verifier's default
``time_budget_s`` for a whole answer): past it, the rest of the stream is ``unverified`` (``budget_exceeded``) and
the policy decides. Thousands of tiny sentences must not add minutes to a stream."""
SENTENCE_POLICIES = ("annotate", "raise", "filter", "fallback")
# Where a new sentence may have begun: a sentence end (and closing quotes) then space then a character, or a line
# break then a character. Bounded quantifiers only: it runs on every piece of a stream.
_JUNCTION = re.compile(r"[.!?\u2026][\"')\]\u201d\u2019\u00bb]{0,3}\s{1,16}\S|\n\s{0,16}\S")

Status = Literal["supported", "flagged", "unverified", "dropped", "fallback"]

logger = logging.getLogger("halguard.guard")
# Streams' documents are encoded beside the stream by these threads; two, as the check itself runs beside them.
_PREPARERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="halguard-prepare")


def _prepare_in_background(core: GuardCore, request: GuardRequest) -> Future[None] | None:
    detector = core.detector_for(request)
    if type(detector).prepare is Detector.prepare:  # nothing to prepare (an LLM judge: never a call for it)
        return None
    return _PREPARERS.submit(detector.prepare, request.contexts, question=request.detector_question)


def _wait(prepared: Future[None]) -> None:
    try:
        prepared.result()
    except Exception:  # noqa: BLE001 - a failed preparation only means the check does the work itself
        logger.debug("halguard could not prepare the documents ahead of the stream", exc_info=True)


@dataclass(frozen=True)
class ReleasedSentence:
    """One sentence's fate.

    Attributes:
        text: What goes out: the sentence with the whitespace before it, the fallback message, or "" (dropped).
        start: Where the sentence starts in the answer as generated (its whitespace included).
        end: Where it ends.
        status: ``supported``, ``flagged`` (annotated and sent), ``unverified``, ``dropped`` (filter) or
            ``fallback`` (the fallback message was sent instead, and the gate is closed).
        claims: The sentence's claims, with offsets in the answer as generated.
    """

    text: str
    start: int
    end: int
    status: Status
    claims: list[ClaimVerdict] = field(default_factory=list)


class SentenceGate:
    """Release one streamed answer sentence by sentence (one gate per stream: it holds that stream's state).

    Args:
        core: The guard's core (its detector, policy and fallback message).
        request: The question and evidence; its ``answer`` is ignored (the stream is the answer).
        hooks: ``traced`` and ``on_checked`` are used (the final verdict is reported through them).

    Raises:
        InvalidInputError: the core's policy is ``repair`` or it samples (both need the whole answer).
    """

    def __init__(self, core: GuardCore, request: GuardRequest, hooks: GuardHooks | None = None) -> None:
        if core.on_hallucination not in SENTENCE_POLICIES or core.sampler is not None:
            msg = (f"sentence streaming supports on_hallucination in {SENTENCE_POLICIES} without paraphrase sampling; "
                   f"got {core.on_hallucination!r}{' with sampling' if core.sampler is not None else ''}")
            raise InvalidInputError(msg)
        self.core, self.request, self.hooks = core, request, hooks or GuardHooks()
        self.text = ""
        self.decided = 0  # the answer before this offset is released, dropped or replaced
        self.closed = False
        self.released: list[ReleasedSentence] = []
        self._last: tuple[int, Verdict] | None = None  # (end, verdict) of the last prefix check
        self._tried = 0  # how long the undecided tail was when a split last found no complete sentence
        self._spent = 0.0  # seconds the sentence checks took so far (STREAM_CHECK_BUDGET_S)
        # The documents are known before the first sentence is: their encoding starts now, beside the stream, and
        # the first check waits for it (so the first sentence pays at most the rest of it).
        self._prepared: Future[None] | None = _prepare_in_background(core, request)

    # -- sync ---------------------------------------------------------------------------------------------------

    def feed(self, delta: str) -> list[ReleasedSentence]:
        """Add streamed text; the sentences it completed, checked (none once the gate is closed)."""
        out: list[ReleasedSentence] = []
        for start, end in self._complete(delta):
            out.append(self._decide(start, end, self._check(start, end)))
            if self.closed:
                break
        return out

    def close(self) -> tuple[list[ReleasedSentence], GuardOutcome]:
        """The stream ended: the last sentence, checked, and the whole answer's outcome (reported)."""
        out: list[ReleasedSentence] = []
        if not self.closed and self.text[self.decided:].strip():
            start, end = self.decided, len(self.text)
            out.append(self._decide(start, end, self._check(start, end)))
        whole = self._last[1] if self._covers_all() else self._check(0, len(self.text), whole=True)
        outcome = self._outcome(whole)
        if self.hooks.on_checked is not None:
            self.hooks.on_checked(whole)
        self.core.notify(outcome.verdict)
        return out, outcome

    def _too_long(self, end: int, whole: bool) -> Verdict | None:
        """The verdict of a sentence that is not checked: past the stream's length or its time budget."""
        if whole:
            return None
        detector = self.core.detector_for(self.request)
        if end > MAX_STREAM_CHARS:
            code, why = "answer_too_long", f"the streamed answer is longer than {MAX_STREAM_CHARS:,} characters"
        elif self._spent > STREAM_CHECK_BUDGET_S:
            code, why = "budget_exceeded", f"the stream's sentence checks took over {STREAM_CHECK_BUDGET_S} s"
        else:
            return None
        return Verdict.unverified(code, f"{why}; the rest is not checked", detector=detector.name,
                                  threshold=detector.threshold)

    def _check(self, start: int, end: int, *, whole: bool = False) -> Verdict:
        if (too_long := self._too_long(end, whole)) is not None:
            return too_long
        if self._prepared is not None:
            _wait(self._prepared)
            self._prepared = None
        request = self._sub_request(start, end, whole)
        t0 = time.perf_counter()
        verdict = self.core.check(request) if self.hooks.traced is None else self.hooks.traced(
            self.core.check, request, "answer")
        self._spent += time.perf_counter() - t0
        return self._shifted(verdict, request, start, end)

    # -- async --------------------------------------------------------------------------------------------------

    async def afeed(self, delta: str) -> list[ReleasedSentence]:
        """Async twin of :meth:`feed`."""
        out: list[ReleasedSentence] = []
        for start, end in self._complete(delta):
            out.append(self._decide(start, end, await self._acheck(start, end)))
            if self.closed:
                break
        return out

    async def aclose(self) -> tuple[list[ReleasedSentence], GuardOutcome]:
        """Async twin of :meth:`close`."""
        out: list[ReleasedSentence] = []
        if not self.closed and self.text[self.decided:].strip():
            start, end = self.decided, len(self.text)
            out.append(self._decide(start, end, await self._acheck(start, end)))
        whole = self._last[1] if self._covers_all() else await self._acheck(0, len(self.text), whole=True)
        outcome = self._outcome(whole)
        if self.hooks.on_checked is not None:
            await _maybe_await(self.hooks.on_checked(whole))
        self.core.notify(outcome.verdict)
        return out, outcome

    async def _acheck(self, start: int, end: int, *, whole: bool = False) -> Verdict:
        if (too_long := self._too_long(end, whole)) is not None:
            return too_long
        if self._prepared is not None:
            prepared, self._prepared = self._prepared, None
            with contextlib.suppress(Exception):  # a failed preparation only means the check does the work
                await asyncio.wrap_future(prepared)
        request = self._sub_request(start, end, whole)
        t0 = time.perf_counter()
        if self.hooks.traced is None:
            verdict = await self.core.acheck(request)
        else:
            verdict = await _maybe_await(self.hooks.traced(self.core.acheck, request, "answer"))
        self._spent += time.perf_counter() - t0
        return self._shifted(verdict, request, start, end)

    # -- shared -------------------------------------------------------------------------------------------------

    def _complete(self, delta: str) -> list[tuple[int, int]]:
        """The sentences ``delta`` completed: every sentence of the undecided tail but the last (still growing).

        The tail is split only where a new sentence may have begun, and after a split that found none (an
        abbreviation) only once the tail has grown by a quarter: the splitting work stays linear in the stream.
        """
        if self.closed:
            return []
        self.text += delta
        pending = len(self.text) - self.decided
        if pending > MAX_PENDING_CHARS:
            return self._cut()
        look = self.text[max(self.decided, len(self.text) - len(delta) - 20):]
        if not _JUNCTION.search(look) or (self._tried and pending < self._tried * 1.25 + 16):
            return []
        spans = split_sentences(self.text[self.decided:])
        if len(spans) < 2:
            self._tried = pending
            return []
        self._tried = 0
        bounds = [self.decided + s for s, _ in spans]
        return [(self.decided if i == 0 else bounds[i], bounds[i + 1]) for i in range(len(spans) - 1)]

    def _cut(self) -> list[tuple[int, int]]:
        """An overlong unfinished sentence, released at its last space (or at the limit)."""
        end = self.decided + MAX_PENDING_CHARS
        space = self.text.rfind(" ", self.decided + 1, end)
        self._tried = 0
        return [(self.decided, space if space > 0 else end)]

    def _covers_all(self) -> bool:
        """Whether the last prefix check was of the whole answer (then it is the final verdict as it is)."""
        return self._last is not None and self._last[0] == len(self.text) and self.decided == len(self.text)

    def _sub_request(self, start: int, end: int, whole: bool) -> GuardRequest:
        prefix = whole or end <= PREFIX_CHECK_MAX_CHARS
        return replace(self.request, answer=self.text[:end] if prefix else self.text[start:end])

    def _shifted(self, verdict: Verdict, request: GuardRequest, start: int, end: int) -> Verdict:
        """The verdict with offsets in the whole answer (a sentence checked on its own is shifted to its place)."""
        if len(request.answer) == end:  # a prefix: offsets are the answer's already
            self._last = (end, verdict)
            return verdict
        claims = [c.model_copy(update={"start": c.start + start, "end": c.end + start}) for c in verdict.claims]
        return verdict.model_copy(update={"claims": claims})

    def _decide(self, start: int, end: int, verdict: Verdict) -> ReleasedSentence:
        claims = [c for c in verdict.claims if c.start >= start and c.end <= end]
        text = self.text[start:end]
        self.decided = end
        closed_fail = verdict.label == "unverified" and self.core.on_unverified == "fail_closed"
        flagged = any(c.status.is_flagged for c in claims) or closed_fail
        status: Status = "unverified" if verdict.label == "unverified" else ("flagged" if flagged else "supported")
        if flagged and self.core.on_hallucination == "raise":
            self._raise(verdict, closed_fail)
        if flagged and self.core.on_hallucination == "filter":
            if closed_fail:
                self._raise(verdict, True)
            released = ReleasedSentence("", start, end, "dropped", claims)
        elif flagged and self.core.on_hallucination == "fallback":
            self.closed = True
            message = self.core.fallback_message or DEFAULT_FALLBACK
            released = ReleasedSentence(message, start, end, "fallback", claims)
        else:
            released = ReleasedSentence(text, start, end, status, claims)
        self.released.append(released)
        return released

    def _raise(self, verdict: Verdict, unverified: bool) -> None:
        record = verdict.model_copy(update={"action": PolicyAction(action="raise")})
        self.core.notify(record)
        self.closed = True
        if unverified:
            msg = "halguard could not verify a sentence of the streamed answer and the policy fails closed"
            raise UnverifiedError(msg, verdict=record)
        flagged = [c.text for c in record.flagged_claims][:3]
        msg = f"halguard flagged a sentence of the streamed answer as hallucinated: {flagged}"
        raise HallucinationError(msg, verdict=record)

    def _outcome(self, whole: Verdict) -> GuardOutcome:
        """The whole answer's verdict with what the gate did recorded as its action."""
        sent = "".join(r.text for r in self.released).strip()
        if any(r.status == "fallback" for r in self.released):
            action = PolicyAction(action="fallback")
            verdict = with_fallback_verdict(whole.model_copy(update={"action": action}), fallback_unchecked(whole))
            return GuardOutcome("fallback", verdict, sent)
        dropped = [r for r in self.released if r.status == "dropped"]
        if dropped:
            removed = [UnsupportedSpan(start=c.start, end=c.end, text=c.text, confidence=c.score,
                                       reason=c.status.value) for r in dropped for c in r.claims if c.status.is_flagged]
            action = PolicyAction(action="filter", removed=removed, filtered_answer=sent)
            return GuardOutcome("filter", whole.model_copy(update={"action": action}), sent)
        return GuardOutcome("pass", whole.model_copy(update={"action": PolicyAction(action="annotate")}))

