"""Plain-text rendering of a verdict: a claim table people can read in a terminal."""

from __future__ import annotations

import textwrap
import unicodedata

from halguard.schema import Verdict

__all__ = ["format_verdict"]


def _printable(text: str) -> str:
    """``text`` with control and format characters written as escapes: an answer can hold terminal escape
    sequences, and a table printed to a terminal must not run them."""
    return "".join(
        ch if ch in " \t\n" or unicodedata.category(ch) not in ("Cc", "Cf", "Co", "Cs") else ch.encode(
            "unicode_escape").decode("ascii")
        for ch in text
    )


def _cut(text: str, width: int) -> str:
    text = " ".join(_printable(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def format_verdict(verdict: Verdict, *, width: int = 120) -> str:
    """Render ``verdict`` as a header line plus one row per claim (status, risk, span, claim, evidence)."""
    score = "n/a" if verdict.score is None else f"{verdict.score:.2f}"
    calibrated = "" if verdict.probability is None else f"probability={verdict.probability:.2f}  "
    shape = "" if verdict.profile is None else f"shape={verdict.profile}  "
    lines = [
        f"verdict: {verdict.label.upper()}  risk={score}  {calibrated}threshold={verdict.threshold:.2f}  {shape}"
        f"claims={len(verdict.claims)}  skipped={len(verdict.skipped)}  {verdict.latency_ms:.0f} ms  "
        f"[{_printable(verdict.detector)}]"
    ]
    lines.extend(f"  ! {_printable(e.code)}: {_printable(e.message)}" for e in verdict.errors)
    if verdict.claims:
        text_w = max(20, (width - 36) // 2)
        ev_w = max(20, width - 36 - text_w)
        lines.append(f"  {'status':<14}{'risk':>5}  {'span':<11}{'claim':<{text_w}} best evidence")
        for c in verdict.claims:
            ev = c.evidence[0] if c.evidence else None
            ev_txt = f"[{ev.source_id}] {ev.text}" if ev else "-"
            lines.append(
                f"  {c.status.value:<14}{c.score:>5.2f}  {f'{c.start}-{c.end}':<11}"
                f"{_cut(c.text, text_w - 1):<{text_w}} {_cut(ev_txt, ev_w)}"
            )
            flagged = c.status.is_flagged
            for reason in c.reasons[1:] if flagged else []:
                lines.extend("      - " + ln for ln in textwrap.wrap(_printable(reason), width - 8)[:2])
    for s in verdict.skipped:
        lines.append(f"  {'(skipped)':<14}{'':>5}  {f'{s.start}-{s.end}':<11}{_cut(s.text, 40)} ({_printable(s.reason)})")
    if verdict.spans:
        lines.append("  unsupported spans: " + "; ".join(f"{s.start}-{s.end} {s.text!r}" for s in verdict.spans))
    return "\n".join(lines)
