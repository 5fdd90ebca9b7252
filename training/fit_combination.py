"""Fit how the local verifier combines its rules with the claim checker, by grouped cross-validation.

    python -m training.fit_combination ../shared/data/{ragtruth_dev,halueval_qa_dev,summedits_dev}.jsonl \
        --features .cache/training/claims.jsonl

Step 1 (slow, cached in ``--features``): the verifier reads every dev row with the claim checker and records, per
claim, the rules' logit (:meth:`ScoringWeights.signals_logit`), whether the many-claims correction applies, the
claim count it uses, and the checker's P(unsupported).

Step 2: a grid over ``rules_scale``, ``meaning`` and ``many_claims`` (an answer's score is its riskiest claim's)
maximising the mean AUROC of the three files. In grouped 5-fold cross-validation (groups as ``halguard calibrate``
makes them: a source, a question pair or a context) each fold is scored with the grid point chosen on the other
four; those out-of-fold AUROCs are what is reported. The point chosen on every row is what ships
(``MEANING_WEIGHTS``), with ``meaning_bias`` set so that the pooled rows' F1-best threshold sits at 0.5.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from dataclasses import replace
from pathlib import Path

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from halguard.grounding.many_claims import claims_corrected_for
from halguard.grounding.scoring import DEFAULT_WEIGHTS
from halguard.grounding.verifier import LocalVerifier
from halguard.schema import Verdict
from halguard.tools.calibrate import _fold, group_of
from halguard.tools.metrics import auroc, best_f1

RULES_SCALES = (0.0, 0.25, 0.5, 0.75, 1.0)
MEANING_WEIGHTS_GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
MANY_CLAIMS = (0.0, 0.5, 1.0)
FOLDS = 5


class RecordingVerifier(LocalVerifier):
    """The verifier, keeping each scored answer's measured claims and the claim count its correction uses."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.recorded: list = []

    def _measure_claims(self, job, vectors, index, deadline):
        claims, measured = super()._measure_claims(job, vectors, index, deadline)
        threshold = self.operating_point(None)[0]
        self.recorded.append((measured, claims_corrected_for(measured, threshold, len(job.claims), self.weights)))
        return claims, measured


def recorded_rows(verifier: RecordingVerifier, paths: list[Path], *, keep: Callable[[dict], bool] = lambda row: True
                  ) -> Iterator[tuple[Path, dict, Verdict, list, int]]:
    """Each dev row ``keep`` accepts, checked by ``verifier``: ``(file, row, verdict, measured claims, the claim
    count the correction uses)``; rows the verifier could not read (``unverified``) are left out."""
    for path in paths:
        for line in path.open(encoding="utf-8"):
            row = json.loads(line)
            if not keep(row):
                continue
            verifier.recorded.clear()
            verdict = verifier.verify(row["answer"], row["context"], question=row.get("question"))
            if verifier.recorded and verdict.label != "unverified":
                yield (path, row, verdict, *verifier.recorded[-1])


def grouped_out_of_fold(rows: list[dict], choose: Callable[[list[dict]], Any],
                        score: Callable[[list[dict], Any], np.ndarray]) -> tuple[np.ndarray, list]:
    """Grouped :data:`FOLDS`-fold cross-validation (groups as ``halguard calibrate`` makes them): each fold's rows
    scored with what ``choose`` picks on the other folds; ``(out-of-fold scores, the choice per fold)``."""
    oof = np.empty(len(rows))
    chosen = []
    for fold in range(FOLDS):
        train = [r for r in rows if _fold(r["group"], FOLDS) != fold]
        test_idx = [i for i, r in enumerate(rows) if _fold(r["group"], FOLDS) == fold]
        choice = choose(train)
        chosen.append(choice)
        oof[test_idx] = score([rows[i] for i in test_idx], choice)
    return oof, chosen


def collect(paths: list[Path], out: Path, *, weights_dir: Path | None = None, fold: int | None = None) -> None:
    """Record every row's claims (``fold``: only the rows of that fold of :mod:`training.dev_pairs`'s grouped
    cross-validation, read by the model in ``weights_dir`` that was trained without them)."""
    from halguard.grounding.meaning import ClaimChecker
    from training.dev_pairs import FOLDS as DEV_FOLDS

    verifier = RecordingVerifier(calibration=None)
    verifier.claim_checker = ClaimChecker(weights_dir) if weights_dir is not None else ClaimChecker.shared()
    in_fold = (lambda row: True) if fold is None else (lambda row: _fold(group_of(row), DEV_FOLDS) == fold)
    with out.open("w", encoding="utf-8") as fh:
        for path, row, verdict, measured, n in recorded_rows(verifier, paths, keep=in_fold):
            claims = []
            for m in measured:
                s = m.signals
                claims.append({"z": DEFAULT_WEIGHTS.signals_logit(s), "corrected": DEFAULT_WEIGHTS.corrected(s),
                               "arithmetic": bool(s.arithmetic_errors), "meaning": s.meaning_risk,
                               "foreign": m.foreign})
            fh.write(json.dumps({"file": path.stem, "id": row["id"], "group": group_of(row),
                                 "task": row.get("task_type"), "profile": verdict.profile,
                                 "label": bool(row["hallucinated"]), "n": n, "claims": claims}) + "\n")


def answer_scores(rows: list[dict], rules_scale: float, meaning: float, many_claims: float,
                  bias: float = 0.0) -> np.ndarray:
    """Each row's score (its riskiest claim's) with these weights, through :meth:`ScoringWeights.combine`."""
    weights = replace(DEFAULT_WEIGHTS, rules_scale=rules_scale, meaning=meaning, many_claims=many_claims,
                      meaning_bias=bias)
    out = np.empty(len(rows))
    for i, row in enumerate(rows):
        out[i] = max((weights.arithmetic_risk if c["arithmetic"] else
                      weights.combine(c["z"], c["meaning"], corrected=c["corrected"], claims_in_answer=row["n"])
                      for c in row["claims"]), default=0.0)
    return out


def _mean_auroc(rows: list[dict], scores: np.ndarray) -> float:
    values = []
    for name in sorted({r["file"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["file"] == name]
        values.append(auroc([rows[i]["label"] for i in idx], scores[idx].tolist()) or 0.5)
    return float(np.mean(values))


def best_point(rows: list[dict]) -> tuple[tuple[float, float, float], float]:
    best, best_value = None, -1.0
    for point in itertools.product(RULES_SCALES, MEANING_WEIGHTS_GRID, MANY_CLAIMS):
        if point[0] == 0.0 and point[1] == 0.0:
            continue
        value = _mean_auroc(rows, answer_scores(rows, *point))
        if value > best_value:
            best, best_value = point, value
    return best, best_value


def shape_points(rows: list[dict]) -> dict[str, tuple[float, float, float]]:
    """The best grid point per answer shape (each shape's rows alone), where the shape has both labels; a shape
    where the rules alone (meaning 0) do as well keeps the rules."""
    out = {}
    for shape in sorted({r["profile"] for r in rows}):
        part = [r for r in rows if r["profile"] == shape]
        if len({r["label"] for r in part}) < 2:
            continue
        point, value = best_point(part)
        rules = _mean_auroc(part, answer_scores(part, 1.0, 0.0, DEFAULT_WEIGHTS.many_claims))
        out[shape] = point if value > rules else (1.0, 0.0, DEFAULT_WEIGHTS.many_claims)
    return out


def shape_scores(rows: list[dict], points: dict[str, tuple[float, float, float]]) -> np.ndarray:
    rules = (1.0, 0.0, DEFAULT_WEIGHTS.many_claims)
    out = np.empty(len(rows))
    for i, row in enumerate(rows):
        out[i] = answer_scores([row], *points.get(row["profile"], rules))[0]
    return out


def by_shape(rows: list[dict], scores: np.ndarray) -> dict:
    """AUROC per answer shape (each shape's rows pooled over the files)."""
    out = {}
    for shape in sorted({r["profile"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["profile"] == shape]
        if len({rows[i]["label"] for i in idx}) == 2:
            out[shape] = round(auroc([rows[i]["label"] for i in idx], scores[idx].tolist()), 4)
    return out


def fit_per_shape(rows: list[dict]) -> dict:
    """Grouped cross-validation of a per-shape choice (the model used only on the shapes where it wins)."""
    oof, chosen = grouped_out_of_fold(rows, shape_points, shape_scores)
    rules_only = answer_scores(rows, 1.0, 0.0, DEFAULT_WEIGHTS.many_claims)
    return {"out_of_fold": report(rows, oof), "out_of_fold_by_shape": by_shape(rows, oof),
            "rules_only_by_shape": by_shape(rows, rules_only), "chosen_per_fold": chosen,
            "shipped": shape_points(rows)}


def report(rows: list[dict], scores: np.ndarray) -> dict:
    out = {}
    for name in sorted({r["file"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["file"] == name]
        out[name] = round(auroc([rows[i]["label"] for i in idx], scores[idx].tolist()) or 0.5, 4)
        for task in sorted({rows[i]["task"] for i in idx if rows[i]["task"]}):
            tidx = [i for i in idx if rows[i]["task"] == task]
            if len({rows[i]["label"] for i in tidx}) == 2 and len({r["task"] for r in rows if r["file"] == name}) > 1:
                out[f"{name}/{task}"] = round(auroc([rows[i]["label"] for i in tidx], scores[tidx].tolist()), 4)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--weights", type=Path, default=None,
                        help="the claim checker's weights folder to read the rows with (default: the shipped one)")
    parser.add_argument("--features", type=Path, default=Path(".cache/training/claims.jsonl"))
    parser.add_argument("--predictions-out", type=Path, default=None,
                        help="write each row's score with the shipped weights, in halguard bench --jsonl-out's "
                             "shape, for halguard calibrate --predictions (contradiction is not recorded: False)")
    parser.add_argument("--per-shape", action="store_true",
                        help="also fit one grid point per answer shape (the model only where it wins), in grouped CV")
    parser.add_argument("--fold-weights", type=Path, nargs=2, default=None, metavar=("FOLD0", "FOLD1"),
                        help="stage 3's fold models (each trained without its fold): every row is read by the "
                             "model that did not train on it")
    args = parser.parse_args(argv)
    if not args.features.is_file():
        args.features.parent.mkdir(parents=True, exist_ok=True)
        if args.fold_weights:
            parts = []
            for fold, weights in enumerate(args.fold_weights):
                part = args.features.with_suffix(f".fold{fold}.jsonl")
                collect(args.files, part, weights_dir=weights, fold=fold)
                parts.append(part.read_text(encoding="utf-8"))
            args.features.write_text("".join(parts), encoding="utf-8")
        else:
            collect(args.files, args.features, weights_dir=args.weights)
    rows = [json.loads(line) for line in args.features.open(encoding="utf-8")]
    rules_only = answer_scores(rows, 1.0, 0.0, DEFAULT_WEIGHTS.many_claims)
    oof, chosen = grouped_out_of_fold(rows, lambda train: best_point(train)[0],
                                      lambda part, point: answer_scores(part, *point))
    point, value = best_point(rows)
    scores = answer_scores(rows, *point)
    # The bias that puts the pooled F1-best threshold at even odds.
    _, threshold = best_f1([r["label"] for r in rows], scores.tolist())
    bias = -math.log(threshold / (1 - threshold)) if point[1] and 0 < threshold < 1 else 0.0
    result = {"rules_only": report(rows, rules_only), "out_of_fold": report(rows, oof),
              "chosen_per_fold": chosen, "shipped": {"rules_scale": point[0], "meaning": point[1],
                                                     "many_claims": point[2], "meaning_bias": round(bias, 4)},
              "in_sample": report(rows, scores)}
    if args.per_shape:
        result["per_shape"] = fit_per_shape(rows)
    print(json.dumps(result, indent=2))
    if args.predictions_out is not None:
        shipped = answer_scores(rows, point[0], point[1], point[2], bias)
        with args.predictions_out.open("w", encoding="utf-8") as fh:
            for row, score in zip(rows, shipped):
                fh.write(json.dumps({"file": row["file"] + ".jsonl", "id": row["id"], "score": float(score),
                                     "profile": row["profile"], "contradiction": False}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
