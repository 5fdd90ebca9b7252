"""``BudgetVerifier``: the evidence budget as a :class:`~halguard.detector.Detector`, so the guards, the query
engine and the evaluator attach it like any other; with ``cascade=`` the local verifier settles what it can first.

A claim the verifier scored within budget but that states a name or number the passages lack or state otherwise
(:mod:`halguard.grounding.findings`) is flagged with the finding among its reasons, and the verdict's errors say
``llm_overruled``.
"""

from __future__ import annotations

import time
from typing import Any

from halguard.budget.verifier import adetect_hallucination, claim_key, detect_hallucination
from halguard.detector import Detector
from halguard.errors import InvalidInputError
from halguard.grounding.findings import FINDINGS_UNCHECKED, LLM_OVERRULED
from halguard.llm.providers import ChatModel, as_chat_model
from halguard.schema import ClaimBudgetReport, ClaimStatus, ClaimVerdict, UnsupportedSpan, Usage, Verdict, VerdictError
from halguard.text.contexts import normalize_contexts
from halguard.util.options import require_fraction

__all__ = ["BudgetVerifier"]


def _cited(answer: str, claims: list[ClaimVerdict], source_ids: list[str]) -> str:
    """``answer`` with each claim that has no citation cited by the source of its best local evidence: ``[id]``
    before the sentence's final punctuation, where writers put citations."""
    out, cursor = [], 0
    for c in sorted(claims, key=lambda c: c.start):
        end = c.end
        while end > c.start and answer[end - 1] in ".!?\"')\u201d":
            end -= 1
        out.append(answer[cursor:end])
        if not c.cited_sources and c.evidence and c.evidence[0].source_id in source_ids:
            out.append(f" [{c.evidence[0].source_id}]")
        cursor = end
    out.append(answer[cursor:])
    return "".join(out)


class BudgetVerifier(Detector):
    """Per-claim evidence budgets from a verifier model's token probabilities (see :mod:`halguard.budget`).

    Args:
        verifier: The verifier model (a ChatModel, an OpenAI client, a callable); it should return
            log-probabilities (an OpenAI-compatible server does); without them the report says it fell back.
        default_target: The probability the cited evidence must support each claim to.
        threshold: The answer's risk at or above which it is flagged (a flagged claim's risk is at least this).
        max_claims, require_citations, context_mode, timeout_s: As in :func:`~halguard.detect_hallucination`.
        cascade: A detector (usually the :class:`~halguard.LocalVerifier`) run first: claims it calls SUPPORTED
            or CONTRADICTION/HALLUCINATION on a concrete signal keep its verdict, and only the others (WEAK_SUPPORT,
            or flagged on soft signals alone) go to the LLM. None: every claim goes to the LLM.
        cite_by_evidence: Give a claim without citations the source of its best local evidence as its citation
            (needs ``cascade``): for answers that do not cite, such as the dev data's.
        cache: An opt-in :class:`~halguard.llm.cache.ResponseCache` for the verifier's replies.
    """

    def __init__(self, verifier: Any, *, default_target: float = 0.95, threshold: float = 0.5, max_claims: int = 25,
                 require_citations: bool = False, context_mode: str = "cited", timeout_s: float = 60.0,
                 cascade: Detector | None = None, cite_by_evidence: bool = False, cache: Any = None) -> None:
        require_fraction("threshold", threshold)
        if cite_by_evidence and cascade is None:
            msg = "cite_by_evidence needs a cascade detector (its evidence names the source to cite)"
            raise InvalidInputError(msg)
        self.chat: ChatModel = as_chat_model(verifier)
        self.default_target, self.threshold, self.max_claims = default_target, threshold, max_claims
        self.require_citations, self.context_mode, self.timeout_s = require_citations, context_mode, timeout_s
        self.cascade, self.cite_by_evidence, self.cache = cascade, cite_by_evidence, cache

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"budget:{self.chat.name}" + (f"+{self.cascade.name}" if self.cascade is not None else "")

    def warm_up(self) -> float:
        return self.cascade.warm_up() if self.cascade is not None else 0.0

    def _options(self, local: Verdict | None) -> dict[str, Any]:
        # The cascade's settled claims are not asked about again: only the open ones cost LLM calls.
        open_claims = None if local is None else [c.text for c in local.claims if not self._settled(c)]
        return {"only_claims": open_claims, "verifier": self.chat, "default_target": self.default_target,
                "max_claims": self.max_claims,
                "require_citations": self.require_citations, "context_mode": self.context_mode,
                "timeout_s": self.timeout_s, "cache": self.cache}

    def _text(self, answer: str, sources: list[Any], local: Verdict | None) -> str:
        return _cited(answer, local.claims, [s.id for s in sources]) if local and self.cite_by_evidence else answer

    def verify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        t0, sources = time.perf_counter(), normalize_contexts(contexts)
        common = {"detector": self.name, "threshold": self.threshold}
        local = self.cascade.verify(answer, contexts, question=question) if self.cascade is not None else None
        if local is not None and local.label == "unverified":
            return local.model_copy(update=common)
        text = self._text(answer, sources, local)
        spans = [{"sid": s.id, "text": s.text} for s in sources]
        report = detect_hallucination(text, spans, **self._options(local)) if self._needs_llm(local) else None
        return self._verdict(answer, text, report, local, t0, common)

    async def averify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        """Async twin of :meth:`verify` (the cascade's ``averify``, then native async verifier calls)."""
        t0, sources = time.perf_counter(), normalize_contexts(contexts)
        common = {"detector": self.name, "threshold": self.threshold}
        local = await self.cascade.averify(answer, contexts, question=question) if self.cascade is not None else None
        if local is not None and local.label == "unverified":
            return local.model_copy(update=common)
        text = self._text(answer, sources, local)
        spans = [{"sid": s.id, "text": s.text} for s in sources]
        report = await adetect_hallucination(text, spans, **self._options(local)) if self._needs_llm(local) else None
        return self._verdict(answer, text, report, local, t0, common)

    def _settled(self, claim: ClaimVerdict) -> bool:
        """Whether the cascade's verdict on a claim stands: SUPPORTED, or flagged on a concrete signal."""
        if claim.status == ClaimStatus.SUPPORTED:
            return True
        s = claim.signals
        concrete = s is not None and bool(s.missing_numbers or s.missing_entities or s.arithmetic_errors
                                          or s.record_conflicts or s.negation_mismatch or s.antonym_flips
                                          or s.role_conflicts or s.record_unknowns or s.hours_conflicts
                                          or s.choice_conflicts)
        return claim.status.is_flagged and concrete

    def _needs_llm(self, local: Verdict | None) -> bool:
        return local is None or not all(self._settled(c) for c in local.claims)

    def _verdict(self, answer: str, text: str, report: dict | None, local: Verdict | None, t0: float,
                 common: dict) -> Verdict:
        llm_claims: dict[str, dict] = {}
        usage = Usage()
        if report is not None:
            llm_claims = {claim_key(d["claim"]): d for d in report["details"]}
            s = report["summary"]
            usage = Usage(llm_calls=s["llm_calls"], input_tokens=s["input_tokens"], output_tokens=s["output_tokens"])
        claims, unscored = [], []
        base = local.claims if local is not None else []
        if local is None:  # no cascade: the report's claims, on the answer's offsets (text is the answer)
            claims = [self._claim(d) for d in llm_claims.values() if d["scored"]]
            unscored = [d for d in llm_claims.values() if not d["scored"]]
        for c in base:
            if self._settled(c):
                claims.append(c)
                continue
            d = llm_claims.get(claim_key(c.text))
            if d is None or not d["scored"]:
                unscored.append(d or {"claim": c.text, "error": "the budget verifier did not score this claim"})
                claims.append(c)
                continue
            claims.append(self._claim(d, c))
        latency = (time.perf_counter() - t0) * 1000
        if local is not None:
            usage = usage.model_copy(update={"model_calls": local.usage.model_calls,
                                             "embedded_texts": local.usage.embedded_texts})
        if unscored or (report is not None and report["unverified"] and not claims):
            why = "; ".join(f"{d['claim'][:40]!r}: {d.get('error', 'not scored')}" for d in unscored)[:500]
            return Verdict.unverified("budget_unscored", why or "no claim was scored", claims=claims, usage=usage,
                                      latency_ms=latency, **common)
        score = max((c.score for c in claims), default=0.0)
        flagged = any(c.status.is_flagged for c in claims)
        spans = [s for s in (local.spans if local is not None else [])  # the cascade's, on claims it settled
                 if any(c.budget is None and c.start <= s.start and s.end <= c.end for c in claims)]
        spans += [UnsupportedSpan(start=c.start, end=c.end, text=c.text, confidence=c.score, reason=c.reasons[-1])
                  for c in claims if c.budget is not None and c.status.is_flagged]
        errors = []
        overruled = [d for d in llm_claims.values() if d.get("overruled")]
        if overruled:
            reasons = "; ".join(f["reason"] for d in overruled for f in d["findings"])[:500]
            errors.append(VerdictError(code=LLM_OVERRULED, message=f"{self.chat.name} said supported (scored "
                                       f"{len(overruled)} claim(s) within budget); overruled by the rules: {reasons}"))
        unchecked = report["summary"].get("findings_unchecked") if report is not None else None
        if unchecked and not flagged:
            why = f"{self.chat.name} scored the claims within budget, but the rules could not check them ({unchecked})"
            return Verdict.unverified(FINDINGS_UNCHECKED, why, claims=claims, usage=usage, latency_ms=latency, **common)
        if report is not None and report["summary"]["probabilities"] != "token-logprobs":
            errors.append(VerdictError(code="no_logprobs", message="the verifier returned no token probabilities; "
                                       "its yes/no words were read instead (verbalised-argmax)"))
        return Verdict(label="hallucinated" if flagged else "supported", hallucination_detected=flagged,
                       score=score if flagged else min(score, self.threshold - 1e-4), claims=claims, errors=errors,
                       spans=sorted(spans, key=lambda s: (s.start, s.end)),
                       usage=usage, latency_ms=latency, checked_text=text if text != answer else None, **common)

    def _claim(self, d: dict, local: ClaimVerdict | None = None) -> ClaimVerdict:
        post, prior = d["post_yes"], d["prior_yes"]
        found = d.get("findings", []) if d.get("overruled") else []
        if found:  # within budget by the verifier, flagged by the rules
            contradicted = any(f["contradicts"] for f in found)
            status = ClaimStatus.CONTRADICTION if contradicted else ClaimStatus.HALLUCINATION
            risk = max(self.threshold, 1 - post["min"])
        elif d["flagged"]:
            contradicted = post["max"] < prior["min"]  # the evidence made the claim less likely
            status = ClaimStatus.CONTRADICTION if contradicted else ClaimStatus.HALLUCINATION
            risk = max(self.threshold, 1 - post["min"])
        else:
            status = ClaimStatus.SUPPORTED if post["min"] >= self.default_target else ClaimStatus.WEAK_SUPPORT
            risk = min(1 - post["min"], self.threshold - 1e-4)
        gap = d["budget_gap"]
        reason = (f"evidence budget gap {gap['min']:.2f}..{gap['max']:.2f} bits (post {post['min']:.2f}, "
                  f"prior {prior['max']:.2f}, target {self.default_target})")
        if found:  # the rules' reasons, then the budget's: the last reason is the one a span carries
            reason = "; ".join([*(f["reason"] for f in found), f"{self.chat.name} scored it within budget "
                                f"({reason}); the finding stands ({LLM_OVERRULED})"])
        budget = ClaimBudgetReport(prior_yes=prior, post_yes=post, required=d["required"], observed=d["observed"],
                                   budget_gap=gap, target=self.default_target)
        if local is not None:
            return local.model_copy(update={"status": status, "score": round(risk, 4), "budget": budget,
                                            "reasons": [*local.reasons, reason]})
        return ClaimVerdict(text=d["claim"], start=d["start"], end=d["end"], status=status, score=round(risk, 4),
                            cited_sources=d["cites"], reasons=[reason], budget=budget)
