"""``halguard bench``: run a detector over labelled JSONL files and report detection quality and cost.

Input rows follow the development-data schema: ``{id, task_type, question, context: [...], answer,
labels: [{start, end, ...}], hallucinated}`` (``question_is_generic_instruction`` rows are checked without
the question). Deterministic: rows in file order, no sampling. ``compare`` runs more detectors over the same rows
in the same process, one after the other, for a side-by-side table.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from halguard.detector import Detector
from halguard.detectors import make_detector
from halguard.errors import InvalidInputError
from halguard.schema import ClaimStatus
from halguard.tools.metrics import (
    auroc,
    best_f1,
    binary_metrics,
    expected_calibration_error,
    percentile,
    precision_at_recall,
    recall_at_precision,
)
from halguard.util.files import MAX_JSONL_LINE_BYTES, iter_lines_limited
from halguard.util.safejson import loads

__all__ = ["UNVERIFIED_RANK", "bench", "load_rows", "make_detector", "run_rows", "span_f1", "summarize",
           "to_markdown"]


# The score an unverified row (no risk) ranks with in AUROC and best-F1: neutral, halfway between the labels; the
# label metrics count it as "not flagged".
UNVERIFIED_RANK = 0.5


def load_rows(paths: Iterable[Path], *, task: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
    """Rows of the JSONL files (``limit`` per file, after the ``task`` filter), tagged with their file.

    Raises:
        InvalidInputError: a line that is not JSON or too long, or no row at all (a run that checks nothing must
            not look like one that passed).
    """
    paths = list(paths)
    rows = []
    for path in paths:
        taken = 0
        for number, line in iter_lines_limited(path, MAX_JSONL_LINE_BYTES, what="input"):
            if limit is not None and taken >= limit:
                break
            if line is None:  # streamed and bounded per line and in nesting: no line is held whole
                msg = f"{path}:{number}: a line over {MAX_JSONL_LINE_BYTES:,} bytes"
                raise InvalidInputError(msg)
            try:
                rec = loads(line)
            except ValueError as exc:
                msg = f"{path}:{number}: not JSON: {str(exc)[:200]}"
                raise InvalidInputError(msg) from exc
            if task is not None and rec.get("task_type") != task:
                continue
            rec["_file"] = Path(path).name
            rows.append(rec)
            taken += 1
    if not rows:
        names = ", ".join(str(p) for p in paths)
        msg = f"read no rows from {names}" + (f" with task_type {task!r}" if task is not None else "")
        raise InvalidInputError(msg)
    return rows


def run_rows(detector: Detector, rows: list[dict[str, Any]], *, progress: bool = True) -> list[dict[str, Any]]:
    """Verify every row; returns one prediction record per row (for metrics and ``--jsonl-out``)."""
    out = []
    step = max(1, len(rows) // 20)
    t_start = time.perf_counter()
    seen: set[int] = set()
    for i, rec in enumerate(rows, 1):
        question = None if rec.get("question_is_generic_instruction") else rec.get("question")
        key = hash(json.dumps(rec["context"], sort_keys=True, default=str))
        first_sight = key not in seen
        seen.add(key)
        t0 = time.perf_counter()
        verdict = detector.verify(rec["answer"], rec["context"], question=question)
        ms = (time.perf_counter() - t0) * 1000
        out.append({
            "id": rec.get("id"), "file": rec.get("_file"), "task": rec.get("task_type", "?"),
            "hallucinated": bool(rec["hallucinated"]), "label": verdict.label, "score": verdict.score,
            "probability": verdict.probability, "profile": verdict.profile,
            # A blocking claim (a contradiction, a short answer's floor) flags the answer below its shape's threshold
            # (halguard calibrate fits around it); the name is the field's since it held contradictions alone.
            "contradiction": any(c.status == ClaimStatus.CONTRADICTION
                                 or (c.status.is_flagged and c.signals is not None and bool(c.signals.blocking))
                                 for c in verdict.claims),
            "latency_ms": round(ms, 3),
            "pred_spans": [[s.start, s.end] for s in verdict.spans],
            "gold_spans": [[lab["start"], lab["end"]] for lab in rec.get("labels") or []],
            "has_span_labels": bool(rec.get("labels")) or not rec["hallucinated"],
            "errors": [e.code for e in verdict.errors],
            "llm_calls": verdict.usage.llm_calls, "input_tokens": verdict.usage.input_tokens,
            "output_tokens": verdict.usage.output_tokens,
            # First sight: no earlier row of this run had this context (its passages had to be embedded).
            "first_sight": first_sight,
        })
        if progress and (i % step == 0 or i == len(rows)):
            rate = i / (time.perf_counter() - t_start)
            print(f"\r  {i}/{len(rows)} rows ({rate:.1f}/s)", end="" if i < len(rows) else "\n", file=sys.stderr)
    return out


def span_f1(preds: list[dict[str, Any]]) -> float | None:
    """Character-level F1 of predicted unsupported spans against labelled spans (rows that carry spans)."""
    tp = fp = fn = 0
    seen = False
    for p in preds:
        if not p["has_span_labels"] or (p["hallucinated"] and not p["gold_spans"]):
            continue
        seen = True
        pred = {i for s, e in p["pred_spans"] for i in range(s, e)}
        gold = {i for s, e in p["gold_spans"] for i in range(s, e)}
        tp += len(pred & gold)
        fp += len(pred - gold)
        fn += len(gold - pred)
    if not seen or tp + fp + fn == 0:
        return None
    return 2 * tp / (2 * tp + fp + fn)


def _ece(preds: list[dict[str, Any]], key: str) -> float | None:
    """The ECE of ``key`` read as a probability, over the rows that have one (None: no row has)."""
    rows = [p for p in preds if p.get(key) is not None]
    if not rows:
        return None
    return round(expected_calibration_error([p["hallucinated"] for p in rows], [p[key] for p in rows]), 4)


def _metrics(preds: list[dict[str, Any]]) -> dict[str, Any]:
    labels = [p["hallucinated"] for p in preds]
    scores = [p["score"] if p["score"] is not None else UNVERIFIED_RANK for p in preds]
    m = binary_metrics(labels, [p["label"] == "hallucinated" for p in preds])
    bf1, bt = best_f1(labels, scores)
    a = auroc(labels, scores)
    points = {f"precision_at_recall_{r}": precision_at_recall(labels, scores, r) for r in (0.8, 0.9)}
    points.update({f"recall_at_precision_{p}": recall_at_precision(labels, scores, p) for p in (0.8, 0.9)})
    return {"n": len(preds), "precision": round(m["precision"], 4), "recall": round(m["recall"], 4),
            "f1": round(m["f1"], 4), "accuracy": round(m["accuracy"], 4), "auroc": None if a is None else round(a, 4),
            "balanced_accuracy": round(m["balanced_accuracy"], 4), "best_f1": round(bf1, 4),
            "best_threshold": round(bt, 4), "unverified": sum(1 for p in preds if p["label"] == "unverified"),
            "latency_p50_ms": round(percentile([p["latency_ms"] for p in preds], 50), 2),
            "latency_p95_ms": round(percentile([p["latency_ms"] for p in preds], 95), 2),
            # The calibrated probability's ECE, and the raw risk's read as a probability (it is not calibrated: this
            # says how far off it is).
            "ece_probability": _ece(preds, "probability"),
            "ece_of_score": _ece(preds, "score"),
            **{k: None if v is None else {"value": round(v[0], 4), "threshold": round(v[1], 4)}
               for k, v in points.items()}}


def summarize(preds: list[dict[str, Any]], *, detector: str, load_s: float, wall_s: float,
              torch_threads: int | None = None) -> dict[str, Any]:
    """The report: overall and per-task metrics, span F1, latency, throughput, load time and peak RSS."""
    by_task: dict[str, list] = defaultdict(list)
    by_file: dict[str, list] = defaultdict(list)
    by_profile: dict[str, list] = defaultdict(list)
    for p in preds:
        by_task[p["task"]].append(p)
        by_file[p["file"]].append(p)
        if p.get("profile"):
            by_profile[p["profile"]].append(p)
    lat = [p["latency_ms"] for p in preds]
    sf1 = span_f1(preds)
    return {
        "detector": detector,
        "overall": _metrics(preds),
        "by_task": {t: _metrics(ps) for t, ps in sorted(by_task.items())},
        # The answer shapes (verdict.profile): each has its own operating point and probability map.
        "by_profile": {k: _metrics(ps) for k, ps in sorted(by_profile.items())},
        "by_file": {f: {"overall": _metrics(ps), "by_task": {t: _metrics([p for p in ps if p["task"] == t])
                                                            for t in sorted({p["task"] for p in ps})}}
                    for f, ps in sorted(by_file.items())},
        "span_f1": None if sf1 is None else round(sf1, 4),
        "latency_ms": {"p50": round(percentile(lat, 50), 2), "p95": round(percentile(lat, 95), 2)},
        "latency_by_sight_ms": _by_sight(preds),
        "llm_per_answer": {k: round(sum(p.get(k, 0) for p in preds) / max(len(preds), 1), 2)
                           for k in ("llm_calls", "input_tokens", "output_tokens")},
        "throughput_per_s": round(len(preds) / wall_s, 2) if wall_s > 0 else None,
        "load_s": round(load_s, 3),
        "torch_threads": torch_threads,  # per encode (LocalVerifier.num_threads); None: torch's own setting
        # Linux reports ru_maxrss in KiB.
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def _by_sight(preds: list[dict[str, Any]]) -> dict[str, Any]:
    """p50 / p95 of the checks of a context no earlier row had (first sight: its passages are embedded) and of
    contexts seen before (warm: served from the embedding cache), separately: their costs differ by far."""
    out: dict[str, Any] = {}
    for name, want in (("first_sight", True), ("warm", False)):
        lat = [p["latency_ms"] for p in preds if p.get("first_sight") is want]
        out[name] = {"n": len(lat), "p50": round(percentile(lat, 50), 2) if lat else None,
                     "p95": round(percentile(lat, 95), 2) if lat else None}
    return out


def _row(name: str, m: dict[str, Any]) -> str:
    auc = "-" if m["auroc"] is None else f"{m['auroc']:.3f}"
    return (f"| {name} | {m['n']} | {auc} | {m['precision']:.3f} | {m['recall']:.3f} | {m['f1']:.3f} | "
            f"{m['best_f1']:.3f} @ {m['best_threshold']:.2f} | {m['balanced_accuracy']:.3f} | {m['unverified']} | "
            f"{m['latency_p50_ms']:.0f} / {m['latency_p95_ms']:.0f} |")


def _points_row(name: str, m: dict[str, Any]) -> str:
    def cell(key: str) -> str:
        v = m.get(key)
        return "-" if v is None else f"{v['value']:.3f} @ {v['threshold']:.2f}"

    ece = "-" if m.get("ece_of_score") is None else f"{m['ece_of_score']:.3f}"
    ece_p = "-" if m.get("ece_probability") is None else f"{m['ece_probability']:.3f}"
    return (f"| {name} | {ece_p} | {ece} | {cell('precision_at_recall_0.8')} | {cell('precision_at_recall_0.9')} | "
            f"{cell('recall_at_precision_0.8')} | {cell('recall_at_precision_0.9')} |")


def to_markdown(report: dict[str, Any]) -> str:
    lines = [f"# halguard bench — {report['detector']}", "",
             "| slice | n | AUROC | P | R | F1 | best F1 | bal. acc | unverified | p50 / p95 ms |",
             "|---|---|---|---|---|---|---|---|---|---|",
             _row("overall", report["overall"])]
    for file, data in report["by_file"].items():
        lines.append(_row(file, data["overall"]))
        if len(data["by_task"]) > 1:
            lines.extend(_row(f"{file} / {t}", m) for t, m in data["by_task"].items())
    lines.extend(_row(f"shape {k}", m) for k, m in report.get("by_profile", {}).items())
    lines += ["", "| slice | ECE of probability | ECE of score | P @ R 0.8 | P @ R 0.9 | R @ P 0.8 | R @ P 0.9 |",
              "|---|---|---|---|---|---|---|", _points_row("overall", report["overall"])]
    for file, data in report["by_file"].items():
        lines.append(_points_row(file, data["overall"]))
        if len(data["by_task"]) > 1:
            lines.extend(_points_row(f"{file} / {t}", m) for t, m in data["by_task"].items())
    lines.extend(_points_row(f"shape {k}", m) for k, m in report.get("by_profile", {}).items())
    lines += ["", f"span F1: {report['span_f1']}", f"latency p50 {report['latency_ms']['p50']} ms, "
              f"p95 {report['latency_ms']['p95']} ms; throughput {report['throughput_per_s']}/s; "
              f"model load {report['load_s']} s; peak RSS {report['peak_rss_mb']} MB; "
              f"torch threads per encode: {report.get('torch_threads') or 'torch default'}"]
    sight = report.get("latency_by_sight_ms") or {}
    if sight.get("first_sight", {}).get("n") or sight.get("warm", {}).get("n"):
        first, warm = sight["first_sight"], sight["warm"]
        lines.append(f"first sight of the context: n={first['n']}, p50 {first['p50']} / p95 {first['p95']} ms; "
                     f"context seen before: n={warm['n']}, p50 {warm['p50']} / p95 {warm['p95']} ms")
    llm = report.get("llm_per_answer") or {}
    if llm.get("llm_calls"):
        lines.append(f"LLM per answer: {llm['llm_calls']} calls, {llm['input_tokens']} input and "
                     f"{llm['output_tokens']} output tokens")
    if report.get("compared"):
        lines += ["", *_side_by_side(report)]
    return "\n".join(lines) + "\n"


def _side_cells(m: dict[str, Any] | None) -> str:
    if m is None:  # a slice this detector's report lacks (cannot happen on the same rows; a hand-made report can)
        return "- | - | - | -"
    auc = "-" if m["auroc"] is None else f"{m['auroc']:.3f}"
    return f"{auc} | {m['f1']:.3f} | {m['balanced_accuracy']:.3f} | {m['latency_p50_ms']:.0f}"


def _side_by_side(report: dict[str, Any]) -> list[str]:
    """The ``compared`` section of :func:`to_markdown`: the main detector's and each compared detector's figures on
    the same slices, main first."""
    reports = [(report["detector"], report), *report["compared"].items()]
    names = ", ".join(f"`{name}`" + (" (main)" if i == 0 else "") for i, (name, _) in enumerate(reports))
    lines = ["## Side by side (same rows, one run)", "",
             f"Detectors, main first: {names}. Each ran over the same rows, one after another in this process, "
             "from empty embedding and claim-checker caches; a model an earlier detector loaded stays loaded and "
             "is not loaded again (a later detector's model load may repeat that first load's figure).", "",
             "| slice | n | " + " | ".join(f"{name} AUROC | F1 | bal. acc | p50 ms" for name, _ in reports) + " |",
             "|---|---|" + "---|---|---|---|" * len(reports)]

    def row(label: str, pick) -> str:  # pick: a report -> its metrics for this slice (None: it has none)
        return (f"| {label} | {pick(report)['n']} | " + " | ".join(_side_cells(pick(r)) for _, r in reports)
                + " |")

    lines.append(row("overall", lambda r: r["overall"]))
    for file, data in report["by_file"].items():
        lines.append(row(file, lambda r, f=file: r["by_file"].get(f, {}).get("overall")))
        if len(data["by_task"]) > 1:
            lines.extend(row(f"{file} / {t}", lambda r, f=file, t=t: r["by_file"].get(f, {}).get("by_task", {}).get(t))
                         for t in data["by_task"])
    lines.append("")
    for i, (name, r) in enumerate(reports):
        lines.append(f"- `{name}`{' (main)' if i == 0 else ''}: span F1 {r['span_f1']}; model load {r['load_s']} s; "
                     f"peak RSS {r['peak_rss_mb']} MB")
    # ru_maxrss is the process's high-water mark: a later detector's figure includes what the earlier ones left
    # loaded, so it bounds that detector's footprint from above, never measures it alone.
    lines.append("")  # not a continuation of the last list item
    lines.append("Peak RSS is process-wide, read after each detector's run: it includes every detector run before it "
                 "(and the models they left loaded), so only the main detector's is its own.")
    return lines


def _empty_shared_caches() -> None:
    """Empty the process-wide text caches the local detectors share (the embedders' and the claim checkers'); the
    loaded models stay.

    A detector run after another over the same rows would otherwise find every passage already embedded and every
    claim already read, and its latency would be a cache's, not a check's. The small per-function text memos
    (sentence scope, records) are kept: they cost microseconds, not forward passes.
    """
    from halguard.grounding.embedding import LocalEmbedder
    from halguard.grounding.meaning.checker import ClaimChecker

    LocalEmbedder.clear_shared_caches()
    ClaimChecker.clear_shared_caches()


def _run_one(det: Detector, rows: list[dict[str, Any]], *, name: str, progress: bool, fresh_caches: bool,
             ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Warm ``det`` up, run it over ``rows``; returns its report (under ``name``) and its per-row predictions."""
    load_s = det.warm_up()
    if fresh_caches:
        _empty_shared_caches()
    t0 = time.perf_counter()
    preds = run_rows(det, rows, progress=progress)
    report = summarize(preds, detector=name, load_s=load_s, wall_s=time.perf_counter() - t0,
                       torch_threads=getattr(det, "num_threads", None))
    return report, preds


def bench(paths: list[Path], *, detector: str = "local", limit: int | None = None, task: str | None = None,
          threshold: float | None = None, progress: bool = True, llm_url: str | None = None,
          llm_model: str | None = None, compare: Sequence[str] = (),
          compared_preds: dict[str, list[dict[str, Any]]] | None = None,
          detector_options: dict[str, Any] | None = None,
          ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run the whole benchmark; returns (report, the main detector's per-row predictions).

    Args:
        paths: JSONL files in the development-data schema.
        detector: the main detector (a :func:`make_detector` name).
        limit: the first ``limit`` rows of each file (after ``task``).
        task: only rows of this ``task_type``.
        threshold: the risk threshold of every detector (None: each one's own).
        progress: print a progress line to stderr.
        llm_url: the OpenAI-compatible base URL of the LLM detectors.
        llm_model: the model name on that server.
        compare: more detector names to run over exactly the same rows after the main one, with the same
            options. Their reports go in ``report["compared"]``, keyed by the detector's ``name`` (with the
            name given here appended, ``"local:all-MiniLM-L6-v2 (local-meaning)"``, when an earlier detector has
            that name already).
        compared_preds: a dict to receive each compared detector's per-row predictions, keyed as in
            ``report["compared"]`` (the return value keeps its two items for existing callers).

    Returns:
        The report (:func:`summarize`'s, plus ``compared``: empty without ``compare``) and the main detector's
        per-row predictions.

    Raises:
        InvalidInputError: a name in ``compare`` repeats the main detector or another compared one, or an LLM
            detector has no ``llm_url``.
    """
    names = [detector, *compare]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        msg = (f"--compare {', '.join(repeated)}: each detector runs once (the main one is {detector}); "
               "the same detector twice with the same options would only measure it twice")
        raise InvalidInputError(msg)
    # Every detector is built before any runs: a bad option (an LLM detector without --llm-url) fails in seconds,
    # not after the main run. Building loads no model; warm_up does, in _run_one.
    detectors = [make_detector(n, threshold, llm_url=llm_url, llm_model=llm_model,
                               **(detector_options or {} if i == 0 else {})) for i, n in enumerate(names)]
    rows = load_rows(paths, task=task, limit=limit)
    # Without compare the run is as it always was; with it every detector starts from the same empty caches.
    fresh = bool(compare)
    main_det = detectors.pop(0)
    report, preds = _run_one(main_det, rows, name=main_det.name, progress=progress, fresh_caches=fresh)
    del main_det  # drop what only the main detector holds before the next one loads
    report["compared"] = {}
    taken = {report["detector"]}
    for cli_name in compare:
        det = detectors.pop(0)
        key = det.name if det.name not in taken else f"{det.name} ({cli_name})"
        taken.add(key)
        if progress:
            print(f"  compare: {key}", file=sys.stderr)
        report["compared"][key], rows_of = _run_one(det, rows, name=key, progress=progress, fresh_caches=fresh)
        del det
        if compared_preds is not None:
            compared_preds[key] = rows_of
    return report, preds
