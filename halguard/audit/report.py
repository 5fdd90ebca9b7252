"""``report.html``: one self-contained page (no network, no script) to look at an audit.

Overall and per-slice rates (by source, model, question cluster, answer shape and input file), the riskiest answers
with their unsupported spans highlighted (``<mark class="span">``) and, beside each claim, its status and the
closest evidence, and plots as inline PNGs (the risk histogram, and the rate per day when rows carry timestamps;
left out, with a note, without matplotlib). Every text from the logs is HTML-escaped: answers and passages are
untrusted.
"""

from __future__ import annotations

import base64
import html
import io
import json
from typing import Any

from halguard.audit.store import AuditStore

__all__ = ["RISKIEST", "render_report"]

RISKIEST = 50  # answers shown in full, riskiest first
_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;
vertical-align:top}th{background:#f4f4f4}.num{text-align:right}
mark.span{background:#ffb3b3;border-bottom:2px solid #c00}
.answer{white-space:pre-wrap;background:#fafafa;padding:.5em;border:1px solid #eee}
.ev{color:#555;font-size:.92em}.bad{color:#b00;font-weight:600}.ok{color:#070}.tiles span{display:inline-block;
margin-right:2em}.tiles b{font-size:1.4em;display:block}img{max-width:48%;margin-right:1%}
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _highlight(answer: str, spans: list[dict[str, Any]]) -> str:
    """The answer with each unsupported span wrapped in ``<mark class="span">`` (overlaps merged, all escaped)."""
    merged: list[list[Any]] = []
    for s in sorted(spans, key=lambda s: (s["start"], s["end"])):
        start, end = max(0, int(s["start"])), min(len(answer), int(s["end"]))
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
            merged[-1][2].append(s.get("reason") or "")
        else:
            merged.append([start, end, [s.get("reason") or ""]])
    out, pos = [], 0
    for start, end, reasons in merged:
        out.append(_e(answer[pos:start]))
        title = "; ".join(r for r in reasons if r)[:300]
        out.append(f'<mark class="span" title="{_e(title)}">{_e(answer[start:end])}</mark>')
        pos = end
    out.append(_e(answer[pos:]))
    return "".join(out)


def _percent(rate: float | None) -> str:
    return "—" if rate is None else f"{100 * rate:.1f}%"


def _rate_table(rows: list[dict[str, Any]], label: str) -> str:
    if not rows:
        return ""
    body = "".join(
        f"<tr><td>{_e(r['value'])}</td><td class=num>{r['answers']}</td><td class=num>{r['hallucinated']}</td>"
        f"<td class=num>{r['unverified']}</td><td class=num>{_percent(r['hallucination_rate'])}</td></tr>"
        for r in rows)
    return (f"<h3>By {_e(label)}</h3><table><tr><th>{_e(label)}</th><th>answers</th><th>hallucinated</th>"
            f"<th>unverified</th><th>rate</th></tr>{body}</table>")


def _plots(scores: Any, by_day: list[dict[str, Any]]) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return '<p class="ev">Plots need matplotlib (pip install "halguard[audit]").</p>'
    images = []
    if len(scores):
        fig, ax = plt.subplots(figsize=(5, 3.2))
        ax.hist(scores, bins=40, range=(0, 1), color="#4a78b5")
        ax.set(xlabel="risk score", ylabel="answers", title="Risk of the checked answers")
        images.append(fig)
    days = [d for d in by_day if d["hallucination_rate"] is not None]
    if days:
        fig, ax = plt.subplots(figsize=(5, 3.2))
        ax.plot(range(len(days)), [100 * d["hallucination_rate"] for d in days], marker="o", color="#b5474a")
        step = max(1, len(days) // 6)
        ax.set_xticks(range(0, len(days), step), [d["value"] for d in days][::step], rotation=30, fontsize=7)
        ax.set(ylabel="hallucinated (%)", title="Hallucination rate per day")
        images.append(fig)
    out = []
    for fig in images:
        buf = io.BytesIO()
        fig.tight_layout()
        fig.savefig(buf, format="png", dpi=80)
        plt.close(fig)
        out.append(f'<img alt="plot" src="data:image/png;base64,{base64.b64encode(buf.getvalue()).decode()}">')
    return "".join(out)


def _riskiest(store: AuditStore) -> str:
    import pyarrow.compute as pc

    ranked = store.read("answers", ["row_id", "score", "label"])  # the texts are read for the top rows only
    flagged = ranked.filter(pc.equal(ranked.column("label"), "hallucinated"))
    if flagged.num_rows == 0:
        return "<p>No answer was flagged.</p>"
    order = [("score", "descending"), ("row_id", "ascending")]
    top_ids = flagged.take(pc.sort_indices(flagged, sort_keys=order)[:RISKIEST]).column("row_id").to_pylist()
    top = store.read("answers", ["row_id", "id", "file", "line", "question", "answer", "score", "probability",
                                 "profile", "model", "label", "spans_json"], row_ids=top_ids)
    top = top.take(pc.sort_indices(top, sort_keys=order))
    claims = store.read("claims", row_ids=top.column("row_id").to_pylist()).to_pylist()
    by_row: dict[str, list[dict[str, Any]]] = {}
    for c in claims:
        by_row.setdefault(c["row_id"], []).append(c)
    blocks = []
    for r in top.to_pylist():
        spans = json.loads(r["spans_json"] or "[]")
        rows = []
        for c in sorted(by_row.get(r["row_id"], []), key=lambda c: c["claim_index"]):
            flagged_claim = c["status"] in ("CONTRADICTION", "HALLUCINATION")
            evidence = (f'<div class="ev">closest evidence ({_e(c["evidence_source"])}, similarity '
                        f'{c["evidence_similarity"]}): {_e(c["evidence_text"])}</div>' if c["evidence_text"] else "")
            rows.append(f'<tr><td>{_e(c["text"])}</td><td class="{"bad" if flagged_claim else "ok"}">'
                        f'{_e(c["status"])}</td><td class=num>{c["score"]:.2f}</td>'
                        f'<td>{_e("; ".join(c["reasons"] or []))}{evidence}</td></tr>')
        probability = "" if r["probability"] is None else f", probability {r['probability']:.2f}"
        blocks.append(
            f'<div class="risky" data-row-id="{_e(r["row_id"])}"><h3>{_e(r["id"] or r["row_id"])} — risk '
            f'{r["score"]:.2f}'
            f'{probability} ({_e(r["profile"])}{", " + _e(r["model"]) if r["model"] else ""})</h3>'
            f'<p class="ev">{_e(r["file"])}:{r["line"]}</p>'
            f'{"<p><b>Question:</b> " + _e(r["question"]) + "</p>" if r["question"] else ""}'
            f'<div class="answer">{_highlight(r["answer"], spans)}</div>'
            f'<table><tr><th>claim</th><th>status</th><th>risk</th><th>why, and the closest evidence</th></tr>'
            f'{"".join(rows)}</table></div>')
    return "".join(blocks)


def render_report(store: AuditStore, summary: dict[str, Any]) -> str:
    """The report page of an audit folder, as one HTML string."""
    import pyarrow.compute as pc

    scores = store.read("answers", ["score"]).column("score")
    scores = pc.drop_null(scores).to_numpy()
    rate = summary.get("hallucination_rate")
    tiles = (f'<div class="tiles"><span><b>{summary["answers"]}</b>answers</span>'
             f'<span><b>{summary["hallucinated"]}</b>hallucinated</span>'
             f'<span><b>{_percent(rate)}</b>of those checked</span>'
             f'<span><b>{summary["unverified"]}</b>unverified</span>'
             f'<span><b>{summary["unreadable_input_rows"]}</b>unreadable input rows</span>'
             f'<span><b>{summary.get("id_collisions", 0)}</b>ids reused for other content</span></div>')
    reasons = "".join(f"<li>{_e(k)}: {v}</li>" for k, v in sorted(summary.get("unverified_reasons", {}).items()))
    slices = "".join(_rate_table(summary["by"].get(key, []), label) for key, label in (
        ("sources", "source"), ("model", "model"), ("cluster", "question cluster"), ("profile", "answer shape"),
        ("file", "input file")))
    last = summary.get("last_run", {})
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
        "style-src 'unsafe-inline'\">"
        f"<title>halguard audit</title><style>{_CSS}</style></head><body>"
        f"<h1>halguard audit</h1>{tiles}"
        f'<p class="ev">Last run: {_e(last.get("checked"))} answers checked with {_e(last.get("detector"))} on the '
        f'{_e(last.get("engine"))} engine in {_e(last.get("seconds"))} s; {_e(last.get("skipped_done"))} already '
        "done. The rate is hallucinated / (hallucinated + supported): unverified answers are counted apart, never "
        f"as supported.</p>{'<h2>Why answers are unverified</h2><ul>' + reasons + '</ul>' if reasons else ''}"
        f"<h2>Plots</h2>{_plots(scores, summary.get('by_day', []))}"
        f"<h2>Rates by slice</h2>{slices or '<p>No slice fields in these rows.</p>'}"
        f"<h2>Riskiest answers</h2><p class=ev>Unsupported spans are highlighted; hover for why.</p>"
        f"{_riskiest(store)}</body></html>"
    )
