"""Post-hoc repair of an answer that is already written: its flagged claims rewritten from the evidence, or removed.

Used by ``on_hallucination="repair"`` in the guards. Each flagged claim (CONTRADICTION or HALLUCINATION) gets the
context windows that share the most content words with it; the model rewrites the sentence from them, or answers
NONE and the sentence is removed; a claim with no evidence at all is removed. The rewrite must be the reply's one
``REWRITE <nonce> ...`` line, one sentence, bound to its call (:mod:`halguard.llm.envelope`): the claim, the
question and the passages are untrusted, and a reply that obeyed them (no nonce, another one, more lines, more
sentences, another protocol line) is refused, and so is a rewrite that states a name or number the passages lack or
state otherwise (:mod:`halguard.grounding.findings`: ``llm_overruled``). A rewrite that fails (provider error, an
empty, runaway or refused reply, the budget) keeps the original sentence and says so, and the policy treats it as
flagged. The repaired answer is checked again by the detector, and its verdict records what changed
(:class:`~halguard.schema.RepairReport`).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from halguard.active.evidence import EvidencePool
from halguard.active.prompts import read_repair, repair_messages
from halguard.active.settings import DEFAULT_ACTIVE_SETTINGS, ActiveSettings
from halguard.active.steps import Ask, Budget, Refused, Step, adrive, drive
from halguard.api import resolve_detector
from halguard.detector import Detector
from halguard.errors import InputTypeError, InvalidInputError, UnverifiedError, verdict_summary
from halguard.grounding.findings import rewrite_refusal
from halguard.llm.envelope import Envelope
from halguard.llm.providers import as_chat_model
from halguard.policy import DEFAULT_FALLBACK, filter_answer, tidy_text
from halguard.schema import PolicyAction, RepairChange, RepairReport, Usage, Verdict, VerdictError
from halguard.text.contexts import normalize_contexts

__all__ = ["RepairResult", "arepair", "arepair_decision", "repair", "repair_decision"]

@dataclass(frozen=True)
class RepairResult:
    """The repaired answer and the verdict on it (``verdict.repair`` says what changed)."""

    answer: str
    verdict: Verdict

    @property
    def changed(self) -> bool:
        return self.verdict.repair is not None and any(c.action != "kept" for c in self.verdict.repair.changes)


def _steps(answer: str, verdict: Verdict, pool: EvidencePool, question: str,
           settings: ActiveSettings) -> Generator[Step, Any, list[RepairChange]]:
    changes: list[RepairChange] = []
    end = 0
    for c in sorted(verdict.flagged_claims, key=lambda c: c.start):
        evidence = pool.best(c.text, k=settings.evidence_passages, max_chars=settings.evidence_chars)
        ids = list(dict.fromkeys(sid for sid, _ in evidence))
        common = {"start": c.start, "end": c.end, "original": c.text, "evidence_ids": ids}
        if c.start < end:  # overlaps the claim before it, whose change covers this text
            changes.append(RepairChange(**common, replacement=None, action="kept",
                                        reason="overlaps an earlier flagged claim; that claim's change stands"))
            continue
        end = c.end
        if not evidence:
            changes.append(RepairChange(**common, replacement=None, action="removed",
                                        reason="no passage shares a content word with it"))
            continue
        envelope = Envelope.new()
        reply = yield Ask(repair_messages(c.text, evidence, question, envelope), "repair", envelope=envelope)
        if isinstance(reply, Refused):
            changes.append(RepairChange(**common, replacement=None, action="kept",
                                        reason=f"the repair did not run: {reply.reason}"))
            continue
        kind, fixed, why = read_repair(reply.text, c.text, settings.max_repair_growth, envelope.nonce)
        refusal = rewrite_refusal(fixed, pool.sources, question) if fixed is not None else None
        if refusal is not None:
            kind, fixed, why = "refused", None, refusal
        if kind == "none":
            changes.append(RepairChange(**common, replacement=None, action="removed",
                                        reason="the evidence supports nothing of it"))
        elif fixed is None:
            described = {"empty": "empty", "refused": f"refused ({why})"}.get(kind, "not a rewrite")
            changes.append(RepairChange(**common, replacement=None, action="kept",
                                        reason="the repair was " + described))
        else:
            changes.append(RepairChange(**common, replacement=fixed, action="rewritten",
                                        reason=f"{c.status.value}: rewritten from the evidence"))
    return changes


def _apply(answer: str, changes: list[RepairChange]) -> str:
    pieces, cursor = [], 0
    for ch in sorted(changes, key=lambda ch: ch.start):
        if ch.start < cursor:  # an overlapping claim (recorded as kept): the first one's change stands
            continue
        pieces.append(answer[cursor:ch.start])
        pieces.append(ch.original if ch.action == "kept" else (ch.replacement or ""))
        cursor = ch.end
    pieces.append(answer[cursor:])
    return tidy_text("".join(pieces))


def _prepare(answer: Any, contexts: Any, verdict: Any) -> EvidencePool:
    if not isinstance(answer, str):
        msg = f"answer must be a str, got {type(answer).__name__}"
        raise InputTypeError(msg)
    if not isinstance(verdict, Verdict):
        msg = f"verdict must be a halguard Verdict, got {type(verdict).__name__}"
        raise InputTypeError(msg)
    if verdict.checked_text is not None and verdict.checked_text != answer:
        msg = "the verdict checked another text (a structured output): only a plain-text answer can be repaired"
        raise InvalidInputError(msg)
    if any(c.end > len(answer) or answer[c.start:c.end] != c.text for c in verdict.claims):
        msg = "the verdict's claims are not at their offsets in this answer: pass the answer the verdict checked"
        raise InvalidInputError(msg)
    pool = EvidencePool()
    pool.add(normalize_contexts(contexts))
    return pool


def _report(answer: str, verdict: Verdict, changes: list[RepairChange], budget: Budget,
            checked: Verdict, repaired: str) -> RepairResult:
    m = budget.meter
    report = RepairReport(original_answer=answer, repaired_answer=repaired, changes=changes,
                          label_before=verdict.label, score_before=verdict.score,
                          usage=Usage.from_meter(m))
    return RepairResult(repaired, checked.model_copy(update={"repair": report}))


def repair(answer: str, contexts: Any, verdict: Verdict, *, llm: Any, question: str | None = None,
           detector: Detector | None = None, settings: ActiveSettings = DEFAULT_ACTIVE_SETTINGS,
           cache: Any = None) -> RepairResult:
    """Rewrite (or remove) the claims ``verdict`` flagged in ``answer``, from ``contexts``, and check the result.

    Args:
        answer: The answer ``verdict`` checked.
        contexts: The retrieved contexts (any form the detectors take).
        verdict: Its verdict; an answer with nothing flagged comes back unchanged, with this verdict.
        llm: The model that writes the repairs (a ChatModel, an OpenAI client, a callable).
        question: The question, given to the repair prompt and the second check.
        detector: The second check (default: the shared local verifier).
        settings: Evidence size and the call/time budget (:class:`~halguard.active.ActiveSettings`).
        cache: An opt-in response cache.

    Raises:
        InputTypeError, InvalidInputError: ``answer`` is not the text ``verdict`` checked.
    """
    pool = _prepare(answer, contexts, verdict)
    if not verdict.flagged_claims:
        return RepairResult(answer, verdict)
    budget = Budget(settings.max_extra_calls, settings.timeout_s)
    changes = drive(_steps(answer, verdict, pool, question or "", settings), chat=as_chat_model(llm), budget=budget,
                    cache=cache)
    repaired = _apply(answer, changes)
    checked = resolve_detector(detector).verify(repaired, pool.sources, question=question) if repaired else (
        Verdict.unverified("empty_answer", "the repair removed every sentence", detector="repair",
                           threshold=verdict.threshold))
    return _report(answer, verdict, changes, budget, checked, repaired)


async def arepair(answer: str, contexts: Any, verdict: Verdict, *, llm: Any, question: str | None = None,
                  detector: Detector | None = None, settings: ActiveSettings = DEFAULT_ACTIVE_SETTINGS,
                  cache: Any = None) -> RepairResult:
    """Async twin of :func:`repair`."""
    pool = _prepare(answer, contexts, verdict)
    if not verdict.flagged_claims:
        return RepairResult(answer, verdict)
    budget = Budget(settings.max_extra_calls, settings.timeout_s)
    changes = await adrive(_steps(answer, verdict, pool, question or "", settings), chat=as_chat_model(llm),
                           budget=budget, cache=cache)
    repaired = _apply(answer, changes)
    checked = await resolve_detector(detector).averify(repaired, pool.sources, question=question) if repaired else (
        Verdict.unverified("empty_answer", "the repair removed every sentence", detector="repair",
                           threshold=verdict.threshold))
    return _report(answer, verdict, changes, budget, checked, repaired)


def _decided(decision: Any, answer: str, result: RepairResult | None, error: str | None,
             on_unverified: str) -> tuple[str, Verdict]:
    before = decision.verdict
    if result is None:  # the repair itself broke: the answer stays, flagged, and the verdict says why
        errors = [*before.errors, VerdictError(code="repair_failed", message=error or "the repair failed")]
        return answer, before.model_copy(update={"errors": errors, "action": PolicyAction(action="repair",
                                                                                         filtered_answer=answer)})
    checked = result.verdict
    text, removed = filter_answer(result.answer, checked) if checked.flagged_claims else (result.answer, [])
    # Nothing left (every sentence removed): the guards' fallback message, as the filter policy returns.
    text = text or DEFAULT_FALLBACK
    action = PolicyAction(action="repair", removed=removed, filtered_answer=text)
    final = checked.model_copy(update={"action": action, "request": before.request,
                                       "skipped_sources": before.skipped_sources})
    if final.label == "unverified" and on_unverified == "fail_closed" and result.answer:
        msg = (f"halguard repaired the answer but could not verify the repair ({verdict_summary(final)}) and the "
               "policy fails closed; the errors are on exc.verdict")  # no text: it reaches logs and traces
        raise UnverifiedError(msg, verdict=final)
    return text, final


def repair_decision(decision: Any, answer: str, contexts: Any, *, llm: Any, question: str | None = None,
                    detector: Detector | None = None, settings: ActiveSettings = DEFAULT_ACTIVE_SETTINGS,
                    cache: Any = None, on_unverified: str = "fail_open") -> tuple[str, Verdict]:
    """The ``on_hallucination="repair"`` policy for a guard: the text to return and its verdict.

    The flagged claims are repaired (:func:`repair`), the repaired answer is checked again, and claims that check
    still flags are removed (as ``filter`` would; ``verdict.action.removed``); when nothing is left, the guards'
    fallback message is returned. The verdict is the second check's, with ``repair`` saying what changed and
    ``action.filtered_answer`` the text returned. A repair that breaks (a bug, not a provider error: those keep the
    sentence) leaves the answer as it was, with a ``repair_failed`` error on its verdict.

    Raises:
        UnverifiedError: the second check could not run and ``on_unverified="fail_closed"``.
    """
    try:
        result = repair(answer, contexts, decision.verdict, llm=llm, question=question, detector=detector,
                        settings=settings, cache=cache)
    except Exception as exc:  # noqa: BLE001 - a guard turns its own failures into a recorded error, never a crash
        return _decided(decision, answer, None, f"{type(exc).__name__}: {exc}", on_unverified)
    return _decided(decision, answer, result, None, on_unverified)


async def arepair_decision(decision: Any, answer: str, contexts: Any, *, llm: Any, question: str | None = None,
                           detector: Detector | None = None, settings: ActiveSettings = DEFAULT_ACTIVE_SETTINGS,
                           cache: Any = None, on_unverified: str = "fail_open") -> tuple[str, Verdict]:
    """Async twin of :func:`repair_decision`."""
    try:
        result = await arepair(answer, contexts, decision.verdict, llm=llm, question=question, detector=detector,
                               settings=settings, cache=cache)
    except Exception as exc:  # noqa: BLE001
        return _decided(decision, answer, None, f"{type(exc).__name__}: {exc}", on_unverified)
    return _decided(decision, answer, result, None, on_unverified)
