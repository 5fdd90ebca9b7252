"""Analysis for shape-aware operating points and calibrated probabilities (issue 18): what per-shape thresholds and
an isotonic calibration per shape would give, out of fold, before anything is shipped.

    halguard bench FILES... --jsonl-out preds.jsonl
    python benchmarks/bench_operating_points.py preds.jsonl --data ../shared/data [--folds 5]

The answer's shape is decided from the input alone, as ``verdict.profile`` records it
(:mod:`halguard.grounding.profile`): ``records`` when a passage is a JSON object or array, ``short`` for an answer
of at most two sentences, ``long`` otherwise. Per dev file and shape, with grouped
``--folds``-fold cross-validation (groups: RAGTruth ``source_id``, HaluEval ``pair_id``, SummEdits the document):
F1 at the shipped threshold (0.5) against F1 at the threshold chosen on the other folds for best F1, and the ECE
of the raw score against the ECE of an isotonic calibration fitted on the other folds. The file's F1 with every
shape at its own out-of-fold threshold is the figure to compare with the shipped one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from halguard.grounding.profile import answer_profile
from halguard.tools.metrics import auroc, best_f1, binary_metrics, expected_calibration_error

SHIPPED = 0.5


def shape(row: dict) -> str:
    return answer_profile(row["answer"], row["context"])  # what the verifier records as verdict.profile


def group(row: dict) -> str:
    key = row.get("source_id") or row.get("pair_id") or json.dumps(row["context"])
    return hashlib.sha1(str(key).encode()).hexdigest()


def isotonic(xs: list[float], ys: list[bool]) -> list[tuple[float, float]]:
    """Pool-adjacent-violators: (upper score of a block, its rate), increasing."""
    blocks: list[list[float]] = []  # [sum of y, count, max x]
    for x, y in sorted(zip(xs, ys)):
        blocks.append([float(y), 1.0, x])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, n, mx = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += n
            blocks[-1][2] = mx
    return [(mx, s / n) for s, n, mx in blocks]


def apply_isotonic(model: list[tuple[float, float]], x: float) -> float:
    for upper, rate in model:
        if x <= upper:
            return rate
    return model[-1][1] if model else 0.5


def analyse(rows: list[dict], folds: int) -> dict:
    out: dict = {}
    fold_of = {r["_key"]: int(group(r), 16) % folds for r in rows}
    oof_pred: dict[str, bool] = {}
    for name in sorted({r["_shape"] for r in rows}):
        part = [r for r in rows if r["_shape"] == name]
        labels = [r["hallucinated"] for r in part]
        scores = [r["_score"] for r in part]
        by_fold = {}
        for f in range(folds):  # each fold's threshold and calibration come from the other folds
            train = [x for x in part if fold_of[x["_key"]] != f]
            xs, ys = [x["_score"] for x in train], [x["hallucinated"] for x in train]
            by_fold[f] = (best_f1(ys, xs)[1] if train else SHIPPED, isotonic(xs, ys))
        thresholds, probs, preds = [], [], []
        for r in part:
            t, model = by_fold[fold_of[r["_key"]]]
            thresholds.append(t)
            preds.append(r["_score"] >= t)
            probs.append(apply_isotonic(model, r["_score"]))
            oof_pred[r["_key"]] = preds[-1]
        a = auroc(labels, scores)
        out[name] = {
            "n": len(part), "positives": sum(labels), "auroc": None if a is None else round(a, 4),
            "f1_shipped": round(binary_metrics(labels, [s >= SHIPPED for s in scores])["f1"], 4),
            "bal_acc_shipped": round(binary_metrics(labels, [s >= SHIPPED for s in scores])["balanced_accuracy"], 4),
            "f1_cv_threshold": round(binary_metrics(labels, preds)["f1"], 4),
            "bal_acc_cv_threshold": round(binary_metrics(labels, preds)["balanced_accuracy"], 4),
            "cv_thresholds": sorted({round(t, 3) for t in thresholds}),
            "ece_raw_score": round(expected_calibration_error(labels, scores), 4),
            "ece_isotonic_cv": round(expected_calibration_error(labels, probs), 4),
        }
    labels = [r["hallucinated"] for r in rows]
    out["file"] = {"n": len(rows),
                   "f1_shipped": round(binary_metrics(labels, [r["_score"] >= SHIPPED for r in rows])["f1"], 4),
                   "f1_per_shape_cv": round(binary_metrics(labels, [oof_pred[r["_key"]] for r in rows])["f1"], 4)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("predictions")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--out")
    args = ap.parse_args()
    preds = {}
    with open(args.predictions, encoding="utf-8") as fh:
        for line in fh:
            p = json.loads(line)
            preds[(p["file"], p["id"])] = p
    report = {}
    for path in sorted(Path(args.data).glob("*_dev.jsonl")):
        rows = []
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                p = preds.get((path.name, r["id"]))
                if p is None or p["score"] is None:
                    continue
                r.update(_key=r["id"], _score=p["score"], _shape=shape(r))
                rows.append(r)
        if rows:
            report[path.name] = analyse(rows, args.folds)
            print(path.name, json.dumps(report[path.name]), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
