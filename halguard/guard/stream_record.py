"""What a sentence stream decided, piece by piece, and the final verdict and outcome that follow from it.

The final verdict of a sentence stream describes what was sent: each claim with the status it had when its piece
was decided (the check that released or dropped it), so that the verdict and its action always agree. A claim
that spans two pieces (a sentence cut at a space) keeps the later piece's status: that check read more of it. The
answer's shape, threshold, usage and skipped sentences come from the last check, which for an answer within the
prefix limit read the whole answer (so, in the usual case, the final verdict is what a check of the finished
answer says).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Literal

from halguard.guard.outcome import GuardOutcome
from halguard.policy import fallback_unchecked, with_fallback_verdict
from halguard.schema import ClaimVerdict, PolicyAction, UnsupportedSpan, Verdict, VerdictError

__all__ = ["ReleasedSentence", "Status", "StreamRecord"]

Status = Literal["supported", "flagged", "unverified", "dropped", "fallback"]


@dataclass(frozen=True)
class ReleasedSentence:
    """One sentence's fate.

    Attributes:
        text: What goes out: the sentence with the whitespace before it, the fallback message, or "" (dropped).
        start: Where the sentence starts in the answer as generated (its whitespace included).
        end: Where it ends.
        status: ``supported``, ``flagged`` (annotated and sent), ``unverified``, ``dropped`` (filter) or
            ``fallback`` (the fallback message was sent instead, and the gate is closed).
        claims: The claims that overlap the sentence, with offsets in the answer as generated.
    """

    text: str
    start: int
    end: int
    status: Status
    claims: list[ClaimVerdict] = field(default_factory=list)


@dataclass
class _Decision:
    released: ReleasedSentence
    verdict: Verdict  # the check it was decided on (offsets in the whole answer)


class StreamRecord:
    """The pieces a gate decided, in stream order, and the final verdict they make."""

    def __init__(self) -> None:
        self.decisions: list[_Decision] = []

    @property
    def released(self) -> list[ReleasedSentence]:
        return [d.released for d in self.decisions]

    def add(self, released: ReleasedSentence, verdict: Verdict) -> None:
        self.decisions.append(_Decision(released, verdict))

    def sent(self) -> str:
        return "".join(d.released.text for d in self.decisions)

    def final_verdict(self, last: Verdict) -> Verdict:
        """The answer's verdict from the decided pieces (``last``: the last check, for the answer's shape)."""
        if not self.decisions:
            return last
        ordered: list[ClaimVerdict] = []  # by start, not overlapping: a later check of a claim replaces it
        spans: dict[tuple[int, int], UnsupportedSpan] = {}
        errors: dict[str, VerdictError] = {}
        for d in self.decisions:
            start, end = d.released.start, d.released.end
            for claim in sorted(d.released.claims, key=lambda c: c.start):
                while ordered and ordered[-1].end > claim.start:  # the later check of a claim cut across pieces
                    ordered.pop()
                ordered.append(claim)
            flagged_here = [c for c in d.released.claims if c.status.is_flagged]
            for span in d.verdict.spans:  # the spans of this piece's flagged claims (linear in the stream)
                if span.start < end and start < span.end and any(
                        c.start <= span.start and span.end <= c.end for c in flagged_here):
                    spans[(span.start, span.end)] = span
            if d.verdict.label == "unverified":
                for error in d.verdict.errors:
                    errors.setdefault(error.code, error)
        flagged = any(c.status.is_flagged for c in ordered)
        score = max((c.score for c in ordered), default=None)
        label = "hallucinated" if flagged else ("unverified" if errors else "supported")
        unique_spans = _within(spans, [c for c in ordered if c.status.is_flagged])
        probability = last.probability if score is not None and score == last.score else None
        if label == "unverified":
            score, probability = None, None
        return last.model_copy(update={
            "label": label, "hallucination_detected": flagged, "claims": ordered, "score": score,
            "probability": probability, "spans": sorted(unique_spans.values(), key=lambda s: (s.start, s.end)),
            "errors": [*errors.values(), *(e for e in last.errors if e.code not in errors)] if label != "supported"
            else [],
        })

    def outcome(self, whole: Verdict, fallback_message: str | None, on_hallucination: str) -> GuardOutcome:
        """The final verdict with what the gate did recorded as its action (and the text that replaced the
        answer, where one did)."""
        sent = self.sent().strip()
        if any(r.status == "fallback" for r in self.released):
            if on_hallucination == "filter":  # every sentence was dropped: the message went out instead
                action = PolicyAction(action="filter", removed=self._removed(), filtered_answer="")
                return GuardOutcome("filter", whole.model_copy(update={"action": action}), sent)
            # What the user saw: the sentences sent before the flagged one, then the message (issue 48).
            action = PolicyAction(action="fallback", filtered_answer=sent)
            verdict = with_fallback_verdict(whole.model_copy(update={"action": action}), fallback_unchecked(whole))
            return GuardOutcome("fallback", verdict, sent)
        removed = self._removed()
        if removed or any(r.status == "dropped" for r in self.released):
            action = PolicyAction(action="filter", removed=removed, filtered_answer=sent)
            return GuardOutcome("filter", whole.model_copy(update={"action": action}), sent)
        return GuardOutcome("pass", whole.model_copy(update={"action": PolicyAction(action="annotate")}))

    def _removed(self) -> list[UnsupportedSpan]:
        """The dropped text of each flagged claim (the part of a claim cut across pieces that was not sent)."""
        removed = []
        for d in self.decisions:
            r = d.released
            if r.status != "dropped":
                continue
            for c in r.claims:
                if c.status.is_flagged:
                    start, end = max(c.start, r.start), min(c.end, r.end)
                    text = c.text if (start, end) == (c.start, c.end) else c.text[start - c.start:end - c.start]
                    removed.append(UnsupportedSpan(start=start, end=end, text=text, confidence=c.score,
                                                   reason=c.status.value))
        return removed

    def nothing_sent_after_filter(self, on_hallucination: str) -> bool:
        """Whether ``filter`` dropped every sentence that carried text (the fallback message then goes out)."""
        return (on_hallucination == "filter" and any(r.status == "dropped" for r in self.released)
                and not self.sent().strip())


def _within(spans: dict[tuple[int, int], UnsupportedSpan],
            flagged: list[ClaimVerdict]) -> dict[tuple[int, int], UnsupportedSpan]:
    """The spans that lie inside a flagged claim of the final verdict (``flagged``: by start, not overlapping);
    a span of a claim a later check read again and did not flag is left out."""
    starts = [c.start for c in flagged]
    kept = {}
    for key, span in spans.items():
        i = bisect.bisect_right(starts, span.start) - 1
        if i >= 0 and span.end <= flagged[i].end:
            kept[key] = span
    return kept
