"""``halguard calibrate``: fit per-shape operating points and probabilities on labelled rows, and say how well
they hold out of fold.

Rows follow the development-data schema (the same as ``halguard bench``): ``{id, question, context: [...], answer,
hallucinated}``; a ``group`` field (else ``source_id``, else ``pair_id``, else the context itself) keeps rows that
share a source in one fold, so no fold is scored on a document it was fitted on. The local verifier scores every
row (or ``--predictions`` reuses the ``score`` and ``profile`` of a ``halguard bench --jsonl-out`` file), then:

1. per answer shape with enough rows (:func:`~halguard.grounding.calibration.enough_rows`), the F1-best threshold,
   the weak threshold at 0.8 of it, and an isotonic map from score to probability
   (:func:`~halguard.grounding.calibration.fit_shape`); a shape with too few rows keeps the ``base`` calibration's
   entry (by default the shipped one), and the fallback entry is fitted on every row;
2. the same fit, repeated in grouped ``folds``-fold cross-validation, scores each row with a calibration that did
   not see its group: those figures, per file and per shape, go in the calibration's ``provenance`` and are what
   to expect on new data like the rows (the fit on every row is what is shipped).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from halguard.errors import InvalidInputError
from halguard.grounding.calibration import (
    DEFAULT_FALSE_ALARM_BUDGETS,
    THRESHOLD_FLOOR,
    Calibration,
    ShapeCalibration,
    enough_rows,
    fit_shape,
)
from halguard.tools.metrics import auroc, binary_metrics, expected_calibration_error
from halguard.util.files import MAX_JSONL_LINE_BYTES, iter_lines_limited
from halguard.util.safejson import loads

__all__ = ["DEFAULT_FOLDS", "calibrate_files", "cross_validate", "fit_calibration", "group_of",
           "out_of_fold_predictions"]

DEFAULT_FOLDS = 5


def group_of(row: dict[str, Any]) -> str:
    """The cross-validation group of a labelled row (see the module docstring)."""
    for key in ("group", "source_id", "pair_id"):
        if row.get(key) not in (None, ""):
            return f"{key}:{row[key]}"
    return "context:" + json.dumps(row.get("context"), sort_keys=True, default=str)


def _fold(group: str, folds: int) -> int:
    return int(hashlib.sha1(group.encode("utf-8")).hexdigest(), 16) % folds  # stable across runs and machines


# A false-alarm budget: one share for every shape, a share per shape (a shape not named has none), or none.
FalseAlarmBudget = float | Mapping[str, float] | None


def budget_of(false_alarm_budget: FalseAlarmBudget, shape: str) -> float | None:
    """The budget of one shape (``""``: the fallback fitted on every row, which a per-shape budget leaves free)."""
    if isinstance(false_alarm_budget, Mapping):
        return false_alarm_budget.get(shape)
    return false_alarm_budget


def fit_calibration(scores: Sequence[float], labels: Sequence[bool], profiles: Sequence[str | None], *,
                    contradictions: Sequence[bool] | None = None, base: Calibration | None = None,
                    floor: float = THRESHOLD_FLOOR,
                    false_alarm_budget: FalseAlarmBudget = None) -> tuple[Calibration, list[str]]:
    """Fit every shape that has enough rows; returns the calibration and the shapes kept from ``base``.

    ``contradictions``: rows with a blocking claim at or above the contradiction threshold (a contradiction, or a
    short answer's floor: flagged whatever the shape's threshold; ``halguard bench --jsonl-out``'s
    ``contradiction``); ``floor``: the lowest threshold a shape may get; ``false_alarm_budget``: a shape's threshold
    is the F1-best of those flagging at most this share of its faithful rows (one share for all, or per shape:
    :func:`budget_of`).
    """
    if not scores:
        msg = "no scored rows to calibrate on"
        raise InvalidInputError(msg)
    forced = [False] * len(scores) if contradictions is None else [bool(c) for c in contradictions]
    by_shape: dict[str, tuple[list[float], list[bool], list[bool]]] = defaultdict(lambda: ([], [], []))
    for s, y, p, f in zip(scores, labels, profiles, forced):
        by_shape[p or ""][0].append(float(s))
        by_shape[p or ""][1].append(bool(y))
        by_shape[p or ""][2].append(f)
    shapes: dict[str, ShapeCalibration] = dict(base.shapes) if base is not None else {}
    fitted = set()
    for name, (xs, ys, fs) in by_shape.items():
        if name and enough_rows(ys):
            shapes[name] = fit_shape(xs, ys, floor=floor, forced=fs,
                                     false_alarm_budget=budget_of(false_alarm_budget, name))
            fitted.add(name)
    if enough_rows(labels):
        fallback = fit_shape(scores, labels, floor=floor, forced=forced,
                             false_alarm_budget=budget_of(false_alarm_budget, ""))
    elif base is not None:
        fallback = base.fallback
    else:
        msg = (f"too few labelled rows to calibrate: {len(labels)} rows, {sum(map(bool, labels))} hallucinated "
               "(need at least 40, with 8 of each label)")
        raise InvalidInputError(msg)
    kept = sorted(set(shapes) - fitted)
    return Calibration(shapes=shapes, fallback=fallback), kept


def _figures(labels: list[bool], scores: list[float], flagged: list[bool], probs: list[float]) -> dict[str, Any]:
    m = binary_metrics(labels, flagged)
    a = auroc(labels, scores)
    faithful = sum(1 for y in labels if not y)
    false_alarms = sum(1 for y, f in zip(labels, flagged) if f and not y)
    return {"n": len(labels), "positives": sum(labels), "auroc": None if a is None else round(a, 4),
            "f1": round(m["f1"], 4), "precision": round(m["precision"], 4), "recall": round(m["recall"], 4),
            # the share of faithful answers flagged: what a false-alarm budget caps
            "faithful_flagged": round(false_alarms / faithful, 4) if faithful else None,
            "accuracy": round(m["accuracy"], 4), "balanced_accuracy": round(m["balanced_accuracy"], 4),
            "ece_probability": round(expected_calibration_error(labels, probs), 4),
            "ece_raw_score": round(expected_calibration_error(labels, scores), 4)}


def cross_validate(rows: Sequence[dict[str, Any]], *, folds: int = DEFAULT_FOLDS,
                   base: Calibration | None = None, floor: float = THRESHOLD_FLOOR,
                   false_alarm_budget: FalseAlarmBudget = None) -> dict[str, Any]:
    """Out-of-fold figures of :func:`fit_calibration` per file, per file and task, and per shape.

    ``rows``: dicts with ``score``, ``hallucinated``, ``profile``, ``group``, ``file``, ``task`` and optionally
    ``contradiction`` (flagged whatever the threshold).
    """
    out_of_fold = out_of_fold_predictions(rows, folds=folds, base=base, floor=floor,
                                          false_alarm_budget=false_alarm_budget)
    slices: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        slices[f"file:{r['file']}"].append(i)
        slices[f"file:{r['file']}/task:{r['task']}"].append(i)
        slices[f"shape:{r['profile']}"].append(i)
    report = {}
    for name in sorted(slices):
        idx = slices[name]
        report[name] = _figures([rows[i]["hallucinated"] for i in idx], [rows[i]["score"] for i in idx],
                                [out_of_fold[i][0] for i in idx], [out_of_fold[i][1] for i in idx])
    return report


def out_of_fold_predictions(rows: Sequence[dict[str, Any]], *, folds: int = DEFAULT_FOLDS,
                            base: Calibration | None = None,
                            floor: float = THRESHOLD_FLOOR,
                            false_alarm_budget: FalseAlarmBudget = None) -> list[tuple[bool, float]]:
    """Per row, ``(flagged, probability)`` from a calibration fitted on the other folds (rows as in
    :func:`cross_validate`)."""
    if folds < 2:
        msg = f"folds must be at least 2, got {folds}"
        raise InvalidInputError(msg)
    out_of_fold: list[tuple[bool, float]] = [(False, 0.0)] * len(rows)
    fold_of = [_fold(r["group"], folds) for r in rows]
    for f in range(folds):
        train = [r for r, k in zip(rows, fold_of) if k != f]
        if not train:
            continue
        cal, _ = fit_calibration([r["score"] for r in train], [r["hallucinated"] for r in train],
                                 [r["profile"] for r in train], base=base, floor=floor,
                                 false_alarm_budget=false_alarm_budget,
                                 contradictions=[bool(r.get("contradiction")) for r in train])
        for i, (r, k) in enumerate(zip(rows, fold_of)):
            if k == f:
                entry = cal.for_profile(r["profile"])
                flagged = r["score"] >= entry.threshold or bool(r.get("contradiction"))
                out_of_fold[i] = (flagged, entry.probability(r["score"]))
    return out_of_fold


def _budget_words(false_alarm_budget: FalseAlarmBudget) -> str:
    if isinstance(false_alarm_budget, Mapping):
        shares = sorted(set(false_alarm_budget.values()))
        return "".join(f" (within {share:.0%} false alarms for " + ", ".join(
            sorted(s for s, v in false_alarm_budget.items() if v == share)) + ")" for share in shares)
    return "" if false_alarm_budget is None else f" within {false_alarm_budget:.0%} false alarms"


def calibrate_files(paths: Sequence[Path], *, folds: int = DEFAULT_FOLDS, limit: int | None = None,
                    predictions: Path | None = None, base: Calibration | Literal["default"] | None = "default",
                    floor: float = THRESHOLD_FLOOR, progress: bool = True, detector: str = "local",
                    false_alarm_budget: FalseAlarmBudget = DEFAULT_FALSE_ALARM_BUDGETS,
                    detector_options: dict[str, Any] | None = None) -> tuple[Calibration, dict[str, Any]]:
    """Score (or read the scores of) the labelled rows of ``paths``, fit, cross-validate; returns the calibration
    (its ``provenance`` holds the cross-validated figures) and the report.

    ``false_alarm_budget``: a shape's threshold flags at most this share of its faithful rows (by default the shipped
    calibration's, :data:`~halguard.grounding.calibration.DEFAULT_FALSE_ALARM_BUDGETS`: the long shapes within 25%;
    None or 1.0: the plain F1-best threshold). ``base``: the calibration whose entries shapes with too few rows
    keep (``"default"``: the shipped one; None: such shapes get no entry and use the fallback). ``detector``: the
    :func:`~halguard.detectors.make_detector` name whose scores are calibrated (run without a calibration, so its
    raw risk is what is fitted); a model detector (``nli:...``, ``spans:...``; ``detector_options`` by name) is
    loaded before any row is read.
    """
    from halguard.detectors import make_detector
    from halguard.tools.bench import load_rows, run_rows

    # Built first: a wrong name or a missing model fails before the rows are read and scored.
    scorer = None if predictions is not None else _uncalibrated(detector, make_detector, detector_options or {})
    if base == "default":
        base = Calibration.default()

    rows = load_rows(paths, limit=limit)
    bad = [r.get("id") for r in rows if not isinstance(r.get("hallucinated"), bool)]
    if bad:
        msg = f"{len(bad)} rows have no boolean 'hallucinated' label (first: id {bad[0]!r})"
        raise InvalidInputError(msg)
    if predictions is not None:
        scored = {}
        for number, line in iter_lines_limited(predictions, MAX_JSONL_LINE_BYTES, what="predictions file"):
            try:  # streamed, bounded per line and in nesting: no line is held whole
                p = loads(line) if line is not None else None
            except ValueError:
                p = None
            if not isinstance(p, dict):
                msg = f"{predictions}:{number}: not a JSON object of at most {MAX_JSONL_LINE_BYTES:,} bytes"
                raise InvalidInputError(msg)
            scored[(p.get("file"), p.get("id"))] = p
        preds = [scored.get((r["_file"], r.get("id"))) or {"score": None} for r in rows]
        if any("profile" not in p or "contradiction" not in p for p in preds if p.get("score") is not None):
            msg = (f"{predictions} has no 'profile' and 'contradiction' per row: write it with this version's "
                   "halguard bench --jsonl-out")
            raise InvalidInputError(msg)
    else:
        preds = run_rows(scorer, rows, progress=progress)
    usable = [{"score": p["score"], "hallucinated": r["hallucinated"], "profile": p["profile"], "group": group_of(r),
               "file": r["_file"], "task": r.get("task_type", "?"), "contradiction": bool(p.get("contradiction"))}
              for r, p in zip(rows, preds) if p.get("score") is not None]
    calibration, kept = fit_calibration([u["score"] for u in usable], [u["hallucinated"] for u in usable],
                                        [u["profile"] for u in usable], base=base, floor=floor,
                                        false_alarm_budget=false_alarm_budget,
                                        contradictions=[u["contradiction"] for u in usable])
    report = cross_validate(usable, folds=folds, base=base, floor=floor, false_alarm_budget=false_alarm_budget)
    provenance = {
        "detector": detector if predictions is None else f"predictions of {Path(predictions).name}",
        "fitted_on": {Path(p).name: sum(1 for u in usable if u["file"] == Path(p).name) for p in paths},
        "unscored_rows": len(rows) - len(usable),
        "kept_from_base": kept,
        **_method(floor, folds, false_alarm_budget),
        "cross_validated": report,
    }
    return Calibration(shapes=calibration.shapes, fallback=calibration.fallback, provenance=provenance), report


def _method(floor: float, folds: int, false_alarm_budget: FalseAlarmBudget) -> dict[str, Any]:
    """How a calibration was fitted, for its provenance."""
    from halguard import __version__

    rule = "F1-best threshold" + _budget_words(false_alarm_budget)
    return {
        "method": f"per shape: {rule} at or above {floor} (answers with a blocking claim, a contradiction or a "
                  "short answer's floor, are flagged whatever the threshold), weak threshold 0.8 of it, isotonic map "
                  "over score bins; "
                  f"figures below: grouped {folds}-fold cross-validation (groups: group, source_id, pair_id or the "
                  "context)",
        "false_alarm_budget": dict(false_alarm_budget) if isinstance(false_alarm_budget, Mapping)
        else false_alarm_budget,
        "halguard_version": __version__,
        "created": _dt.datetime.now(_dt.timezone.utc).date().isoformat(),
    }


def to_markdown(calibration: Calibration, report: dict[str, Any]) -> str:
    """The fitted operating points and the out-of-fold figures, as Markdown tables."""
    lines = ["| shape | rows | hallucinated | threshold | weak threshold |", "|---|---|---|---|---|"]
    for name, e in sorted(calibration.shapes.items()):
        lines.append(f"| {name} | {e.rows or 'kept'} | {e.positives if e.rows else '-'} | {e.threshold:.3f} | "
                     f"{e.weak_threshold:.3f} |")
    fb = calibration.fallback
    lines.append(f"| (fallback) | {fb.rows} | {fb.positives} | {fb.threshold:.3f} | {fb.weak_threshold:.3f} |")
    lines += ["", "Out of fold:", "", "| slice | n | AUROC | F1 | recall | faithful flagged | accuracy | bal. acc | "
              "ECE probability | ECE score |", "|---|---|---|---|---|---|---|---|---|---|"]
    for name, m in report.items():
        auc = "-" if m["auroc"] is None else f"{m['auroc']:.3f}"
        alarms = "-" if m["faithful_flagged"] is None else f"{m['faithful_flagged']:.1%}"
        lines.append(f"| {name} | {m['n']} | {auc} | {m['f1']:.3f} | {m['recall']:.3f} | {alarms} | "
                     f"{m['accuracy']:.3f} | {m['balanced_accuracy']:.3f} | {m['ece_probability']:.3f} | "
                     f"{m['ece_raw_score']:.3f} |")
    return "\n".join(lines) + "\n"


def _uncalibrated(name: str, make_detector: Any, options: dict[str, Any]) -> Any:
    """The detector ``name`` scoring with its raw risk (no calibration), as calibration fits it."""
    from halguard.grounding.verifier import LocalVerifier

    if name in ("local", "local-meaning") and not options:
        return LocalVerifier(calibration=None, meaning=name == "local-meaning")
    detector = make_detector(name, **options)
    if getattr(detector, "calibration", None) is not None:
        detector.calibration = None  # fitted on the raw risk, whatever the model ships with
    return detector
