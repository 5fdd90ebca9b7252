"""Which answer shapes deserve their own operating point: out-of-fold figures of one threshold for every answer
against three and five shapes (the provenance of halguard.grounding.profile's five shapes, issue 18).

    halguard bench ../shared/data/*_dev.jsonl --jsonl-out preds.jsonl
    python benchmarks/bench_operating_points.py preds.jsonl --data ../shared/data [--folds 5] [--out report.json]

Every scheme is fitted and scored by ``halguard calibrate``'s own code (:func:`halguard.tools.calibrate.
cross_validate`: per shape the F1-best threshold and an isotonic probability map, grouped ``--folds``-fold
cross-validation, groups as ``halguard calibrate`` makes them), pooled over the files as the shipped calibration is.
The schemes differ only in the shape each row is given:

- ``one``: every answer one shape (one fitted threshold, one probability map);
- ``three``: records / short / long (two sentences or fewer, or more), what the first version recorded;
- ``five``: what ``verdict.profile`` records now: records, short/long answers to a question, short/long summaries
  (no question, or one asking for a summary).

The rows are scored once by the bench (``score``, ``profile`` and ``contradiction`` per row); nothing is re-run
here. ``--plot DIR`` writes the out-of-fold reliability diagrams of the five shapes (docs/img/), and the report
gives the ECE a perfectly calibrated probability would show on each file's sample (the noise floor).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from halguard.tools.calibrate import cross_validate, group_of, out_of_fold_predictions
from halguard.tools.metrics import binary_metrics, expected_calibration_error

SCHEMES = {
    "one": lambda profile: "all",
    "three": lambda profile: profile if profile == "records" else profile.split("_")[0],
    "five": lambda profile: profile,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("predictions", help="a 'halguard bench --jsonl-out' file (this version: rows carry 'profile')")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--out")
    ap.add_argument("--plot", metavar="DIR", help="write the out-of-fold reliability diagrams (five shapes) here")
    args = ap.parse_args()
    preds = {}
    with open(args.predictions, encoding="utf-8") as fh:
        for line in fh:
            p = json.loads(line)
            preds[(p["file"], p["id"])] = p
    rows = []
    for path in sorted(Path(args.data).glob("*_dev.jsonl")):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                p = preds.get((path.name, r["id"]))
                if p is None or p["score"] is None:
                    continue
                rows.append({"score": p["score"], "hallucinated": bool(r["hallucinated"]), "profile": p["profile"],
                             "group": group_of(r), "file": path.name, "task": r.get("task_type", "?"),
                             "contradiction": bool(p.get("contradiction"))})
    report: dict = {"rows": len(rows), "folds": args.folds}
    files = sorted({r["file"] for r in rows})
    shipped_05 = {}
    for f in files:
        part = [r for r in rows if r["file"] == f]
        m = binary_metrics([r["hallucinated"] for r in part], [r["score"] >= 0.5 for r in part])
        shipped_05[f] = {"f1": round(m["f1"], 4), "balanced_accuracy": round(m["balanced_accuracy"], 4),
                         "accuracy": round(m["accuracy"], 4)}
    report["threshold_0.5"] = shipped_05
    print("threshold 0.5 for every answer:", json.dumps(shipped_05), flush=True)
    for name, shape_of in SCHEMES.items():
        shaped = [dict(r, profile=shape_of(r["profile"])) for r in rows]
        cv = cross_validate(shaped, folds=args.folds)
        report[name] = cv
        for key in [f"file:{f}" for f in files] + [k for k in cv if "/task:" in k]:
            m = cv[key]
            print(f"{name:6} {key:42} n={m['n']:5} F1 {m['f1']:.3f} acc {m['accuracy']:.3f} "
                  f"bal.acc {m['balanced_accuracy']:.3f} ECE(prob) {m['ece_probability']:.3f}", flush=True)
    # The noise floor of an ECE: a probability that is exactly right still shows an ECE on a finite sample. Labels
    # drawn from the out-of-fold probabilities themselves (200 draws) give the ECE a perfect calibration would show.
    oof = out_of_fold_predictions(rows, folds=args.folds)
    rng = random.Random(0)
    for f in files:
        idx = [i for i, r in enumerate(rows) if r["file"] == f]
        probs = [oof[i][1] for i in idx]
        draws = sorted(expected_calibration_error([rng.random() < p for p in probs], probs) for _ in range(200))
        report.setdefault("ece_noise_floor", {})[f] = {"median": round(draws[100], 4), "p90": round(draws[180], 4)}
        print(f"ECE of a perfectly calibrated probability on {f} (n={len(idx)}): median {draws[100]:.3f}, "
              f"p90 {draws[180]:.3f}", flush=True)
    if args.plot:
        from halguard.tools.plots import write_plots

        preds = [{"file": r["file"], "score": r["score"], "probability": p, "hallucinated": r["hallucinated"],
                  "profile": r["profile"]} for r, (_, p) in zip(rows, oof)]
        for path in write_plots(preds, args.plot):
            print(f"wrote {path}")
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
