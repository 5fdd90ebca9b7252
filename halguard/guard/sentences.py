"""Sentence by sentence: a streamed answer released one sentence at a time, each once it is complete and checked.

A policy that may change the answer used to hold the whole stream back. :class:`SentenceGate` lets each sentence
through as soon as the next one has begun (so it is complete) and its claims are checked:

- ``annotate``: every sentence goes out, with its claims' verdicts;
- ``filter``: a flagged sentence is dropped, the rest are not held back;
- ``fallback``: at the first flagged sentence the fallback message goes out instead and the gate closes (the
  adapter stops reading the model's stream);
- ``raise``: :class:`~halguard.errors.HallucinationError` at the first flagged sentence.

A sentence is checked as the end of the answer so far (``answer[:its end]``): the detector sees the answer's
shape as it grows, and the last check is the whole answer's. Past :data:`PREFIX_CHECK_MAX_CHARS` a sentence is
checked with the decided text just before it (:data:`WINDOW_CONTEXT_CHARS`, whole sentences), so each new
sentence costs about the same however long the answer is, and nothing is checked twice.

Nothing goes out unchecked. A piece's fate is decided by every claim that overlaps it (a claim that began in an
earlier piece included), so a sentence cut at a space cannot carry a flagged claim out. Text that arrives in one
chunk is split into its sentences first; only one sentence longer than :data:`MAX_PENDING_CHARS` is cut. What
cannot be checked (past the stream's length or time budget) is ``unverified``: under ``filter``, ``fallback`` and
``raise`` it is held back (dropped, the fallback, or raised) unless the core was made with
``stream_unchecked="send"``, and under ``annotate`` it is sent, marked ``unverified``. The
final verdict is made of the decisions (:mod:`.stream_record`), so its action always matches what was sent; with
``filter``, when every sentence was dropped the fallback message goes out (as ``invoke()`` returns it).
``repair`` and paraphrase sampling need the whole answer and are not offered here.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

from halguard.detector import Detector
from halguard.errors import HallucinationError, InvalidInputError, UnverifiedError, verdict_summary
from halguard.guard.core import GuardCore, _maybe_await
from halguard.guard.outcome import GuardOutcome
from halguard.guard.request import GuardHooks, GuardRequest
from halguard.guard.stream_record import ReleasedSentence, Status, StreamRecord
from halguard.policy import DEFAULT_FALLBACK
from halguard.schema import PolicyAction, Verdict
from halguard.text.segment import split_sentences

__all__ = ["PREFIX_CHECK_MAX_CHARS", "ReleasedSentence", "SentenceGate", "Status"]

PREFIX_CHECK_MAX_CHARS = 2_000
"""Up to this length a sentence is checked as the end of the answer so far (a QA or RAG answer is well under it, and
the last check is then the whole answer's); past it, with :data:`WINDOW_CONTEXT_CHARS` of decided text before it.
The prefix checks re-read earlier claims, so their cost grows with the square of the answer: 2,000 characters keep
it to about a second on one thread (benchmarks/bench_sentence_stream.py --long)."""
WINDOW_CONTEXT_CHARS = 600
"""How much decided text (whole sentences) a windowed check reads before its sentence: what "it" and "the company"
refer to. Its claims are not decided again."""
MAX_PENDING_CHARS = 1_000
"""A sentence still unfinished past this length is released at its last space, checked with everything before it
(the claim that overlaps the piece decides it): a stream that never ends a sentence must not hold its text back,
nor be re-split as it grows without bound."""
MAX_STREAM_CHARS = 100_000
"""Past this many characters (the local verifier's ``max_answer_chars``) a stream's sentences are not checked: they
are ``unverified`` (``answer_too_long``), and the policy decides (fail open: sent; fail closed: as flagged)."""
STREAM_CHECK_BUDGET_S = 10.0
"""The checks of one stream's sentences take at most about this long in all (the local verifier's default
``time_budget_s`` for a whole answer): past it, the rest of the stream is ``unverified`` (``budget_exceeded``) and
the policy decides. Thousands of tiny sentences must not add minutes to a stream."""
SENTENCE_POLICIES = ("annotate", "raise", "filter", "fallback")
# The gate's own "not checked" verdicts (past the stream's length or time budget): held back by default
# (GuardCore.stream_unchecked) under a policy that may change the answer.
_UNCHECKED_CODES = frozenset({"budget_exceeded", "answer_too_long"})
# Where a new sentence may have begun: a sentence end (and closing quotes) then space then a character, or a line
# break then a character. Bounded quantifiers only: it runs on every piece of a stream.
# Zero-width characters read as spaces where the stream is split (same length, so offsets stay the answer's): the
# verifier drops them before it splits claims, so "1889.\u200bIt is" is two sentences to it, and must be to the gate.
_ZERO_WIDTH_AS_SPACE = {ord(c): " " for c in "\u200b\u200c\u200d\u2060\ufeff"}
_JUNCTION = re.compile(r"[.!?\u2026][\"')\]\u201d\u2019\u00bb]{0,3}\s{1,16}\S|\n\s{0,16}\S")

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
        self._view = ""  # the text as it is split: zero-width characters read as spaces
        self.decided = 0  # the answer before this offset is released, dropped or replaced
        self.closed = False
        self.record = StreamRecord()
        self._starts: list[int] = []  # where each decided piece starts (a windowed check's context begins at one)
        self._last: Verdict | None = None  # the last check's verdict (offsets in the whole answer)
        self._tried = 0  # how long the undecided tail was when a split last found no complete sentence
        self._spent = 0.0  # seconds the sentence checks took so far (STREAM_CHECK_BUDGET_S)
        # The documents are known before the first sentence is: their encoding starts now, beside the stream, and
        # the first check waits for it (so the first sentence pays at most the rest of it).
        self._prepared: Future[None] | None = _prepare_in_background(core, request)

    @property
    def released(self) -> list[ReleasedSentence]:
        """Every piece decided so far, in stream order."""
        return self.record.released

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
        if not self.closed:
            for start, end in self._rest():
                out.append(self._decide(start, end, self._check(start, end)))
                if self.closed:
                    break
        last = self._last if self._last is not None else self._check(0, len(self.text), whole=True)
        out.extend(self._all_dropped())
        whole = self.record.final_verdict(last)
        outcome = self.record.outcome(whole, self.core.fallback_message, self.core.on_hallucination)
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
        if self._blank(start, end, whole):
            return self._last
        request, offset = self._sub_request(start, end, whole)
        t0 = time.perf_counter()
        verdict = self.core.check(request) if self.hooks.traced is None else self.hooks.traced(
            self.core.check, request, "answer")
        self._spent += time.perf_counter() - t0
        return self._shifted(verdict, offset)

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
        if not self.closed:
            for start, end in self._rest():
                out.append(self._decide(start, end, await self._acheck(start, end)))
                if self.closed:
                    break
        last = self._last if self._last is not None else await self._acheck(0, len(self.text), whole=True)
        out.extend(self._all_dropped())
        whole = self.record.final_verdict(last)
        outcome = self.record.outcome(whole, self.core.fallback_message, self.core.on_hallucination)
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
        if self._blank(start, end, whole):
            return self._last
        request, offset = self._sub_request(start, end, whole)
        t0 = time.perf_counter()
        if self.hooks.traced is None:
            verdict = await self.core.acheck(request)
        else:
            verdict = await _maybe_await(self.hooks.traced(self.core.acheck, request, "answer"))
        self._spent += time.perf_counter() - t0
        return self._shifted(verdict, offset)

    # -- shared -------------------------------------------------------------------------------------------------

    def _complete(self, delta: str) -> list[tuple[int, int]]:
        """The pieces ``delta`` completed: every sentence of the undecided tail but the last (still growing).

        The tail is split only where a new sentence may have begun, and after a split that found none (an
        abbreviation) only once the tail has grown by a quarter: the splitting work stays linear in the stream.
        """
        if self.closed:
            return []
        self.text += delta
        self._view += delta.translate(_ZERO_WIDTH_AS_SPACE)
        pending = len(self.text) - self.decided
        if pending > MAX_PENDING_CHARS:
            return self._overlong()
        look = self._view[max(self.decided, len(self.text) - len(delta) - 20):]
        if not _JUNCTION.search(look) or (self._tried and pending < self._tried * 1.25 + 16):
            return []
        pieces = self._sentences()
        self._tried = 0 if pieces else pending
        return pieces

    def _sentences(self, *, last: bool = False) -> list[tuple[int, int]]:
        """The undecided tail's sentences, as ``(start, end)`` in the answer; the last one only with ``last``."""
        spans = split_sentences(self._view[self.decided:])
        bounds = [self.decided + s for s, _ in spans[1:]]
        starts, ends = [self.decided, *bounds], [*bounds, len(self.text)]
        pieces = list(zip(starts, ends))
        return pieces if last else pieces[:-1]

    def _overlong(self) -> list[tuple[int, int]]:
        """The complete sentences of a long undecided tail (one chunk of a whole answer), and pieces of an unfinished
        sentence longer than :data:`MAX_PENDING_CHARS`, each cut at its last space (or at the limit)."""
        self._tried = 0
        pieces = self._sentences()
        start = pieces[-1][1] if pieces else self.decided
        while len(self.text) - start > MAX_PENDING_CHARS:
            limit = start + MAX_PENDING_CHARS
            space = self.text.rfind(" ", start + 1, limit)
            cut = space if space > start else limit
            pieces.append((start, cut))
            start = cut
        return pieces

    def _rest(self) -> list[tuple[int, int]]:
        """At the end of the stream: the undecided tail's pieces, the last sentence included."""
        if not self.text[self.decided:].strip():
            return []
        pieces = self._overlong()
        start = pieces[-1][1] if pieces else self.decided
        if start < len(self.text):
            pieces.append((start, len(self.text)))
        return pieces

    def _blank(self, start: int, end: int, whole: bool) -> bool:
        """Whether the piece is whitespace after a checked one (it carries nothing to check: it goes out as is)."""
        return not whole and self._last is not None and not self.text[start:end].strip()

    def _sub_request(self, start: int, end: int, whole: bool) -> tuple[GuardRequest, int]:
        """The check's request for the piece ``[start, end)`` and where its answer starts in the whole answer."""
        if whole or end <= PREFIX_CHECK_MAX_CHARS:
            return replace(self.request, answer=self.text[:end]), 0
        begin = start
        i = bisect.bisect_left(self._starts, start - WINDOW_CONTEXT_CHARS)
        if i < len(self._starts):
            begin = min(start, self._starts[i])
        return replace(self.request, answer=self.text[begin:end]), begin

    def _shifted(self, verdict: Verdict, offset: int) -> Verdict:
        """The verdict with offsets in the whole answer (a windowed check is shifted to its place)."""
        if offset:
            verdict = verdict.model_copy(update={
                key: [item.model_copy(update={"start": item.start + offset, "end": item.end + offset})
                      for item in getattr(verdict, key)]
                for key in ("claims", "spans", "skipped")})
        self._last = verdict
        return verdict

    def _decide(self, start: int, end: int, verdict: Verdict) -> ReleasedSentence:
        # Every claim that overlaps the piece decides it, one that began in an earlier piece included: a sentence
        # cut at a space must not carry a flagged claim out as "supported".
        claims = [c for c in verdict.claims if c.start < end and start < c.end]
        text = self.text[start:end]
        self.decided = end
        closed_fail = verdict.label == "unverified" and self.core.on_unverified == "fail_closed"
        # Not checked in time (past the stream's budget): held back as a flagged sentence is, under a policy that
        # may change the answer, unless the caller chose to send it (GuardCore.stream_unchecked).
        held = (self.core.on_hallucination != "annotate" and self.core.stream_unchecked == "hold"
                and verdict.label == "unverified" and any(e.code in _UNCHECKED_CODES for e in verdict.errors))
        flagged = any(c.status.is_flagged for c in claims) or closed_fail or held
        status: Status = "unverified" if verdict.label == "unverified" else ("flagged" if flagged else "supported")
        if flagged and self.core.on_hallucination == "raise":
            self._raise(verdict, closed_fail or held)
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
        self.record.add(released, verdict)
        self._starts.append(start)
        return released

    def _all_dropped(self) -> list[ReleasedSentence]:
        """With ``filter``, when every sentence was dropped: the fallback message, as ``invoke()`` returns it."""
        if not self.record.nothing_sent_after_filter(self.core.on_hallucination):
            return []
        message = self.core.fallback_message or DEFAULT_FALLBACK
        end = len(self.text)
        released = ReleasedSentence(message, end, end, "fallback")
        self.record.add(released, self._last)
        return [released]

    def _raise(self, verdict: Verdict, unverified: bool) -> None:
        record = verdict.model_copy(update={"action": PolicyAction(action="raise")})
        self.core.notify(record)
        self.closed = True
        if unverified:
            msg = (f"halguard could not verify a sentence of the streamed answer ({verdict_summary(record)}) and the "
                   "policy fails closed; the errors are on exc.verdict")
            raise UnverifiedError(msg, verdict=record)
        msg = (f"halguard flagged a sentence of the streamed answer as hallucinated ({verdict_summary(record)}); the "
               "flagged claims are on exc.verdict")  # no text: it reaches logs and traces
        raise HallucinationError(msg, verdict=record)
