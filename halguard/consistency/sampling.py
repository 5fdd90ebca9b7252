"""Paraphrase sampling (the PAS2 method): ask the same question several ways and judge the answers.

A confident, knowledgeable system gives the same facts however a question is worded. The check:

1. one JSON-mode call writes ``n_paraphrases`` rewordings (validated; documented fallback templates when
   the call fails or returns junk, recorded in the report);
2. the original question and the paraphrases are answered in parallel by ``answer_fn`` (your chain, your
   query engine, or a model), at most ``max_concurrency`` at a time, order kept;
3. a judge (an LLM, or the offline :class:`~halguard.consistency.judges.LocalConsistencyJudge`) looks for conflicting
   facts.

Without a cache that is exactly ``1 + (n + 1) + 1`` calls when ``answer`` is not given (``1 + n + 1``
when it is); with an opt-in :class:`~halguard.llm.cache.ResponseCache`, a repeated request makes none.
A failed answer call leaves a gap recorded in the report; fewer than one sampled answer besides the
original, or no judgment, gives ``label="unverified"`` — never a silent "consistent".
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

from halguard.consistency.judges import ConsistencyJudge, JudgeResult, LocalConsistencyJudge, measured_first
from halguard.consistency.paraphrases import (
    DEFAULT_PARAPHRASE_THRESHOLDS,
    FALLBACK_TEMPLATES,
    ParaphraseThresholds,
    drift_reason,
    paraphrase_messages,
    read_paraphrases,
    retry_messages,
)
from halguard.errors import InvalidInputError
from halguard.grounding.embedding import LocalEmbedder
from halguard.llm.cache import ResponseCache
from halguard.llm.envelope import Envelope, bind_cache
from halguard.llm.providers import ChatModel, ProviderError, UsageMeter, as_chat_model
from halguard.schema import ConsistencyReport, DroppedParaphrase, SampledAnswer, Usage, VerdictError
from halguard.text.claims import is_non_answer
from halguard.util.options import require_positive_int

__all__ = ["ConsistencyReport", "ParaphraseConsistency", "SampledAnswer"]

def _need_answer_source(answer_fn: Any, batch_answer_fn: Any) -> None:
    """Fail before any paid call when there is nothing to answer the paraphrases with."""
    if answer_fn is None and batch_answer_fn is None:
        msg = "paraphrase sampling needs answer_fn or batch_answer_fn"
        raise InvalidInputError(msg)


def _mark_non_answers(question: str, split: tuple[SampledAnswer, list[SampledAnswer]]) -> list[SampledAnswer]:
    """The original answer and the samples, with refusals and non-answers ("I don't know.") flagged: a model that
    declines is not contradicting a grounded answer, so they are recorded and not judged."""
    original, rest = split
    return [s.model_copy(update={"non_answer": True})
            if s.answer is not None and is_non_answer(s.answer, f"{question} {s.question}") else s
            for s in [original, *rest]]


def _judge_inputs(
    question: str, original: SampledAnswer, paraphrases: list[str], rest: list[SampledAnswer]
) -> tuple[str, str, list[str], list[str]] | None:
    """What the judge compares, or None with fewer than two real answers (nothing to judge)."""
    ok = [(p, s.answer) for p, s in zip(paraphrases, rest) if s.answer is not None and not s.non_answer]
    if original.answer is None or original.non_answer or not ok:
        return None
    return question, original.answer, [p for p, _ in ok], [a for _, a in ok]


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _batch_samples(questions: list[str], results: list[Any], t0: float) -> list[SampledAnswer]:
    if len(results) != len(questions):
        msg = f"batch_answer_fn returned {len(results)} results for {len(questions)} questions"
        raise InvalidInputError(msg)
    ms = (time.perf_counter() - t0) * 1000
    out = []
    for q, r in zip(questions, results):
        if isinstance(r, str):
            out.append(SampledAnswer(question=q, answer=r, latency_ms=ms))
        else:
            why = f"{type(r).__name__}: {r}" if isinstance(r, BaseException) else f"not a str: {type(r).__name__}"
            out.append(SampledAnswer(question=q, error=why, latency_ms=ms))
    return out


@dataclass(frozen=True)
class _Paraphrased:
    """The rewordings used, where they came from, what went wrong, and the ones dropped as drifted."""

    paraphrases: list[str]
    source: str
    errors: list[VerdictError]
    dropped: list[DroppedParaphrase]
    from_model: list[str]  # the model's rewordings that passed the drift check (all of them, before the cut to n)


class ParaphraseConsistency:
    """Paraphrase sampling with a judge.

    Args:
        paraphraser: Writes the rewordings: an OpenAI/Mistral client (with ``paraphrase_model``), a
            :class:`~halguard.llm.providers.ChatModel`, or a callable ``messages -> str``. None: use the
            fallback templates only.
        judge: ``"local"`` (offline), a :class:`~halguard.consistency.judges.ConsistencyJudge`, or anything
            :class:`ConsistencyJudge` accepts (client with ``judge_model``, ChatModel, callable).
        n_paraphrases: How many rewordings (default 3).
        max_concurrency: Answer calls in flight at once (default 5).
        cache: Opt-in :class:`~halguard.llm.cache.ResponseCache`: identical paraphrase, answer and judge requests
            are not paid twice (answers are keyed by ``cache_namespace`` and the question).
        cache_namespace: Names the answer source (your chain or engine) in answer cache keys.
        paraphrase_thresholds: When a model's rewording still asks for the same information
            (:class:`~halguard.consistency.paraphrases.ParaphraseThresholds`); drifted ones are asked for again
            once, then dropped and listed in ``report.dropped_paraphrases``. None: no drift check.
        embedder: Embeds the question and its rewordings for the drift check (default: the local judge's, else the
            shared MiniLM).
        on_paraphrase_error: When a configured paraphraser fails (an error, or too few usable paraphrases):
            ``"templates"`` (default) samples with the fallback templates, halves the judgment's confidence and
            records ``paraphrase_failed``, so a ``consistent`` then means "agreed under template rewordings";
            ``"unverified"`` makes the report ``unverified`` (for callers that fail closed).
    """

    def __init__(
        self,
        *,
        paraphraser: Any = None,
        judge: Any = "local",
        n_paraphrases: int = 3,
        max_concurrency: int = 5,
        paraphrase_model: str | None = None,
        judge_model: str | None = None,
        cache: ResponseCache | None = None,
        cache_namespace: str = "default",
        on_paraphrase_error: Literal["templates", "unverified"] = "templates",
        paraphrase_thresholds: ParaphraseThresholds | None = DEFAULT_PARAPHRASE_THRESHOLDS,
        embedder: LocalEmbedder | None = None,
    ) -> None:
        if paraphrase_thresholds is not None and not isinstance(paraphrase_thresholds, ParaphraseThresholds):
            msg = f"paraphrase_thresholds must be a ParaphraseThresholds or None, got {paraphrase_thresholds!r}"
            raise InvalidInputError(msg)
        if on_paraphrase_error not in ("templates", "unverified"):
            msg = f"on_paraphrase_error must be 'templates' or 'unverified', got {on_paraphrase_error!r}"
            raise InvalidInputError(msg)
        if not isinstance(n_paraphrases, int) or not 1 <= n_paraphrases <= 10:
            msg = f"n_paraphrases must be an int from 1 to 10, got {n_paraphrases!r}"
            raise InvalidInputError(msg)
        require_positive_int("max_concurrency", max_concurrency)
        self.paraphraser: ChatModel | None = None if paraphraser is None else as_chat_model(paraphraser, paraphrase_model)
        if judge == "local":
            self.judge: Any = LocalConsistencyJudge()
        elif isinstance(judge, (ConsistencyJudge, LocalConsistencyJudge)):
            self.judge = judge
        else:
            self.judge = ConsistencyJudge(judge, model=judge_model)
        self.n_paraphrases = n_paraphrases
        self.max_concurrency = max_concurrency
        # Passed to each model call rather than set on the models: the caller's model objects stay as they were.
        self.cache = cache
        self.cache_namespace = cache_namespace
        self.on_paraphrase_error = on_paraphrase_error
        self.paraphrase_thresholds = paraphrase_thresholds
        self._embedder = embedder

    @property
    def embedder(self) -> LocalEmbedder:
        if self._embedder is None:
            judge_embedder = self.judge.embedder if isinstance(self.judge, LocalConsistencyJudge) else None
            self._embedder = judge_embedder or LocalEmbedder.shared()
        return self._embedder

    # -- paraphrases -----------------------------------------------------------------------------------

    def _finish_paraphrases(self, question: str, found: list[str], dropped: list[DroppedParaphrase],
                            error: str | None) -> _Paraphrased:
        if len(found) >= self.n_paraphrases:
            return _Paraphrased(found[: self.n_paraphrases], "model", [], dropped, found)
        topic = question.strip().rstrip("?").strip()
        topic = topic[0].lower() + topic[1:] if topic[:1].isupper() and not topic[:2].isupper() else topic
        templates = [t.format(q=topic) for t in FALLBACK_TEMPLATES]
        filled = (found + [t for t in templates if t not in found])[: self.n_paraphrases]
        why = error or f"the paraphraser gave {len(found)} usable paraphrases of {self.n_paraphrases}"
        if dropped and error is None:
            why += f" ({len(dropped)} dropped as asking for something else)"
        return _Paraphrased(filled, "fallback_templates", [VerdictError(code="paraphrase_fallback", message=why)],
                            dropped, found)

    def _validated(self, question: str, candidates: list[str]) -> tuple[list[str], list[DroppedParaphrase]]:
        """The candidates that still ask what ``question`` asks, and the others with the reason."""
        if self.paraphrase_thresholds is None or not candidates:
            return candidates, []
        vectors, _ = self.embedder.encode([question, *candidates])
        kept, dropped = [], []
        for text, vector in zip(candidates, vectors[1:]):
            similarity = float(vectors[0] @ vector)
            why = drift_reason(question, text, similarity, self.paraphrase_thresholds)
            if why is None:
                kept.append(text)
            else:
                dropped.append(DroppedParaphrase(paraphrase=text, reason=why, similarity=round(similarity, 4)))
        return kept, dropped

    def _ask(self, messages: list[dict[str, str]], envelope: Envelope, meter: UsageMeter) -> str:
        assert self.paraphraser is not None
        cache = bind_cache(self.cache if self.cache is not None else self.paraphraser.cache, envelope)
        return self.paraphraser.chat(messages, json_mode=True, meter=meter, cache=cache).text

    async def _aask(self, messages: list[dict[str, str]], envelope: Envelope, meter: UsageMeter) -> str:
        assert self.paraphraser is not None
        cache = bind_cache(self.cache if self.cache is not None else self.paraphraser.cache, envelope)
        return (await self.paraphraser.achat(messages, json_mode=True, meter=meter, cache=cache)).text

    def _candidates(self, question: str, reply: str, nonce: str, seen: list[str]) -> tuple[list[str], str]:
        """The new rewordings of a reply bound to ``nonce``, and why the reply was refused ("" when it was not)."""
        found, refused = read_paraphrases(reply, question, 2 * self.n_paraphrases, nonce)
        return [p for p in found if p not in seen], refused

    def _paraphrase(self, question: str, meter: UsageMeter) -> _Paraphrased:
        if self.paraphraser is None:
            return self._finish_paraphrases(question, [], [], "no paraphraser configured")
        envelope = Envelope.new()  # per call: the question is untrusted data, the reply bound to this nonce
        try:
            reply = self._ask(paraphrase_messages(question, self.n_paraphrases, envelope), envelope, meter)
        except ProviderError as exc:
            return self._finish_paraphrases(question, [], [], str(exc))
        candidates, refused = self._candidates(question, reply, envelope.nonce, [])
        kept, dropped = self._validated(question, candidates)
        if len(kept) < self.n_paraphrases and dropped:  # drifted: asked for once more, then dropped
            again_envelope = Envelope.new()
            retry = retry_messages(question, [d.paraphrase for d in dropped], self.n_paraphrases - len(kept),
                                   again_envelope)
            try:
                again = self._ask(retry, again_envelope, meter)
            except ProviderError:
                again = ""
            seen = kept + [d.paraphrase for d in dropped]
            more, more_dropped = self._validated(question, self._candidates(question, again, again_envelope.nonce,
                                                                            seen)[0])
            kept, dropped = kept + more, dropped + more_dropped
        return self._finish_paraphrases(question, kept, dropped, refused or None)

    async def _aparaphrase(self, question: str, meter: UsageMeter) -> _Paraphrased:
        if self.paraphraser is None:
            return self._finish_paraphrases(question, [], [], "no paraphraser configured")
        envelope = Envelope.new()
        try:
            reply = await self._aask(paraphrase_messages(question, self.n_paraphrases, envelope), envelope, meter)
        except ProviderError as exc:
            return self._finish_paraphrases(question, [], [], str(exc))
        candidates, refused = self._candidates(question, reply, envelope.nonce, [])
        kept, dropped = await asyncio.to_thread(self._validated, question, candidates)
        if len(kept) < self.n_paraphrases and dropped:
            again_envelope = Envelope.new()
            retry = retry_messages(question, [d.paraphrase for d in dropped], self.n_paraphrases - len(kept),
                                   again_envelope)
            try:
                again = await self._aask(retry, again_envelope, meter)
            except ProviderError:
                again = ""
            seen = kept + [d.paraphrase for d in dropped]
            more, more_dropped = await asyncio.to_thread(
                self._validated, question, self._candidates(question, again, again_envelope.nonce, seen)[0])
            kept, dropped = kept + more, dropped + more_dropped
        return self._finish_paraphrases(question, kept, dropped, refused or None)

    # -- sampling --------------------------------------------------------------------------------------

    @staticmethod
    def _sampled(q: str, t0: float, text: Any = None, error: BaseException | None = None) -> SampledAnswer:
        ms = (time.perf_counter() - t0) * 1000
        if error is None and not isinstance(text, str):
            error = TypeError(f"answer_fn returned {type(text).__name__}, expected a str")
        if error is not None:  # one failed sample is recorded, not fatal
            return SampledAnswer(question=q, error=f"{type(error).__name__}: {error}", latency_ms=ms)
        return SampledAnswer(question=q, answer=text, latency_ms=ms)

    def _sample(self, answer_fn: Callable[[str], Any], q: str) -> SampledAnswer:
        t0 = time.perf_counter()
        try:
            text = answer_fn(q)
            if inspect.isawaitable(text):  # an async answer_fn in check(): run it in this worker thread
                text = asyncio.run(_awaited(text))
            return self._sampled(q, t0, text)
        except Exception as exc:  # noqa: BLE001
            return self._sampled(q, t0, error=exc)

    async def _asample(self, answer_fn: Callable[[str], Any], q: str, gate: asyncio.Semaphore) -> SampledAnswer:
        async with gate:
            t0 = time.perf_counter()
            try:
                text = answer_fn(q)
                return self._sampled(q, t0, await text if inspect.isawaitable(text) else text)
            except Exception as exc:  # noqa: BLE001
                return self._sampled(q, t0, error=exc)

    # -- public API ------------------------------------------------------------------------------------

    def check(
        self,
        question: str,
        answer_fn: Callable[[str], str] | None = None,
        *,
        answer: str | None = None,
        batch_answer_fn: Callable[[list[str]], list[Any]] | None = None,
    ) -> ConsistencyReport:
        """Run the whole check synchronously (answers in a thread pool).

        Args:
            question: The user's question.
            answer_fn: ``str -> str``: answers a question (your chain, engine or model).
            answer: The answer already given to ``question``; when None it is sampled too.
            batch_answer_fn: Instead of ``answer_fn``: answers a list of questions at once (e.g. a chain's
                ``batch``), returning for each a str or the exception it raised.
        """
        _need_answer_source(answer_fn, batch_answer_fn)
        t0, meter = time.perf_counter(), UsageMeter()  # this check's own calls and tokens
        made = self._paraphrase(question, meter)
        paraphrases = made.paraphrases
        t_par = time.perf_counter()
        todo = paraphrases if answer is not None else [question, *paraphrases]
        hits, missing = self._cached_answers(todo)
        if not missing:
            fresh = []
        elif batch_answer_fn is not None:
            fresh = _batch_samples(missing, batch_answer_fn(missing), t_par)
        else:
            with ThreadPoolExecutor(max_workers=self.max_concurrency) as pool:
                fresh = list(pool.map(lambda q: self._sample(answer_fn, q), missing))
        samples = self._merge(todo, hits, fresh)
        original, *rest = _mark_non_answers(question, self._split(question, answer, samples))
        t_judge = time.perf_counter()
        inputs = _judge_inputs(question, original, paraphrases, rest)
        result = self.judge.judge(*inputs, meter=meter, cache=self.cache) if inputs else None
        result = measured_first(inputs, result)
        timing = (t_par - t0, time.perf_counter() - t_judge)
        return self._report(question, made, original, rest, result, t0, meter, len(missing), timing)

    async def acheck(
        self,
        question: str,
        answer_fn: Callable[[str], Any] | None = None,
        *,
        answer: str | None = None,
        batch_answer_fn: Callable[[list[str]], Any] | None = None,
    ) -> ConsistencyReport:
        """Async twin of :meth:`check`; ``answer_fn`` and ``batch_answer_fn`` may be sync or async."""
        _need_answer_source(answer_fn, batch_answer_fn)
        t0, meter = time.perf_counter(), UsageMeter()
        made = await self._aparaphrase(question, meter)
        paraphrases = made.paraphrases
        t_par = time.perf_counter()
        todo = paraphrases if answer is not None else [question, *paraphrases]
        hits, missing = self._cached_answers(todo)
        if not missing:
            fresh = []
        elif batch_answer_fn is not None:
            results = batch_answer_fn(missing)
            fresh = _batch_samples(missing, await results if inspect.isawaitable(results) else results, t_par)
        else:
            gate = asyncio.Semaphore(self.max_concurrency)
            fresh = list(await asyncio.gather(*(self._asample(answer_fn, q, gate) for q in missing)))
        samples = self._merge(todo, hits, fresh)
        original, *rest = _mark_non_answers(question, self._split(question, answer, samples))
        t_judge = time.perf_counter()
        inputs = _judge_inputs(question, original, paraphrases, rest)
        result = await self.judge.ajudge(*inputs, meter=meter, cache=self.cache) if inputs else None
        result = measured_first(inputs, result)
        timing = (t_par - t0, time.perf_counter() - t_judge)
        return self._report(question, made, original, rest, result, t0, meter, len(missing), timing)

    def _answer_key(self, question: str) -> str:
        return self.cache.key("answer", self.cache_namespace, question)

    def _cached_answers(self, todo: list[str]) -> tuple[dict[str, SampledAnswer], list[str]]:
        if self.cache is None:
            return {}, list(todo)
        hits: dict[str, SampledAnswer] = {}
        for q in todo:
            text = self.cache.get(self._answer_key(q))
            if text is not None:
                hits[q] = SampledAnswer(question=q, answer=text)
        return hits, [q for q in todo if q not in hits]

    def _merge(self, todo: list[str], hits: dict[str, SampledAnswer], fresh: list[SampledAnswer]) -> list[SampledAnswer]:
        if self.cache is not None:
            for sample in fresh:
                if sample.answer is not None:
                    self.cache.set(self._answer_key(sample.question), sample.answer)
        by_question = {**{s.question: s for s in fresh}, **hits}
        return [by_question[q] for q in todo]

    @staticmethod
    def _split(question: str, answer: str | None, samples: list[SampledAnswer]) -> tuple[SampledAnswer, list[SampledAnswer]]:
        if answer is not None:
            return SampledAnswer(question=question, answer=answer), samples
        return samples[0], samples[1:]

    def _report(self, question: str, made: _Paraphrased, original: SampledAnswer, rest: list[SampledAnswer], result: JudgeResult | None,
                t0: float, meter: UsageMeter, samples: int,
                timing: tuple[float, float]) -> ConsistencyReport:
        paraphrases, source = made.paraphrases, made.source
        errors = list(made.errors)
        errors += [VerdictError(code="sample_failed", message=f"{s.question!r}: {s.error}")
                   for s in [original, *rest] if s.error]
        errors += [VerdictError(code="non_answer", message=f"{s.question!r}: {s.answer!r} is a non-answer; not judged")
                   for s in [original, *rest] if s.non_answer]
        judgment = result.judgment if result else None
        failed_paraphraser = self.paraphraser is not None and source == "fallback_templates"
        if result is None:
            why = ("the original answer is a non-answer; there is nothing to compare" if original.non_answer
                   else "fewer than two answers to compare; nothing was judged")
            errors.append(VerdictError(code="too_few_samples", message=why))
            label = "unverified"
        elif judgment is None:
            errors.append(VerdictError(code=result.code, message=result.error or "no judgment"))
            label = "unverified"
        elif failed_paraphraser and self.on_paraphrase_error == "unverified":
            errors.append(VerdictError(code="paraphrase_failed", message="the paraphraser failed and "
                                       "on_paraphrase_error='unverified'; the template rewordings were not trusted"))
            label = "unverified"
        else:
            label = "inconsistent" if judgment.hallucination_detected else "consistent"
            if failed_paraphraser:
                # Templates reword less than a model: agreement under them says less, so it weighs less.
                judgment = judgment.model_copy(update={"confidence_score": round(judgment.confidence_score / 2, 4)})
                errors.append(VerdictError(code="paraphrase_failed", message="the paraphraser failed; the answers "
                                           "were sampled with template rewordings and the confidence halved"))
        return ConsistencyReport(
            question=question,
            label=label,
            paraphrases=paraphrases,
            paraphrase_source=source,
            dropped_paraphrases=made.dropped,
            answers=[original, *rest],
            judgment=judgment,
            judge=getattr(self.judge, "name", ""),
            errors=errors,
            usage=Usage(llm_calls=meter.calls + samples, input_tokens=meter.input_tokens,
                        output_tokens=meter.output_tokens),
            paraphrase_ms=round(timing[0] * 1000, 3),
            judge_ms=round(timing[1] * 1000, 3),
            latency_ms=round((time.perf_counter() - t0) * 1000, 3),
        )
