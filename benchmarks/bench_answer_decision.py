"""Does an answer decision learned from its claims beat the shipped one (issue 45, step 2)?

    python benchmarks/bench_answer_decision.py ../shared/data/ragtruth_dev.jsonl [../shared/data/summedits_dev.jsonl]

The shipped decision flags an answer when its riskiest claim reaches the shape's threshold, after the many-claims
correction (docs/how-it-works.md). Here the default LocalVerifier (one torch thread) scores every row once, and a
logistic regression per file and answer shape reads the answer's claim risks (the highest and the second highest as
logits, the mean logit, ln(claims), the share of claims flagged, how many are flagged, whether one is a
contradiction, the share at or above 0.5) in grouped 5-fold cross-validation (groups: the source passage, as
``halguard calibrate``). Printed per slice: AUROC, F1 and faithful answers flagged of the shipped decision and of the
learned one out of fold (its threshold the best F1 of each training fold). Needs scikit-learn (the dev extra).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path


def claim_rows(path: Path) -> list[dict]:
    """One record per checked row: its label, group, shape, the shipped decision, its claims' risks and statuses."""
    import torch

    from halguard.grounding.verifier import LocalVerifier
    from halguard.tools.bench import load_rows
    from halguard.tools.calibrate import group_of

    torch.set_num_threads(1)
    verifier = LocalVerifier()
    out = []
    for row in load_rows([path]):
        verdict = verifier.verify(row["answer"], row["context"], question=row.get("question"))
        if verdict.label == "unverified" or not verdict.claims:
            continue
        out.append({"y": bool(row["hallucinated"]), "group": group_of(row), "profile": verdict.profile,
                    "flagged": verdict.label == "hallucinated", "score": verdict.score,
                    "claims": [(c.score, c.status.value) for c in verdict.claims]})
    return out


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def features(record: dict) -> list[float]:
    risks = sorted((score for score, _ in record["claims"]), reverse=True)
    statuses = [status for _, status in record["claims"]]
    n = len(risks)
    flagged = sum(s in ("hallucination", "contradiction") for s in statuses)
    return [_logit(risks[0]), _logit(risks[1]) if n > 1 else -5.0, sum(map(_logit, risks)) / n, math.log(n),
            flagged / n, min(flagged, 3), float("contradiction" in statuses), sum(r >= 0.5 for r in risks) / n]


def compare(records: list[dict]) -> dict[str, tuple[float, float]]:
    """{"auroc" | "f1" | "faithful_flagged": (shipped, learned out of fold)}."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score, roc_auc_score
    from sklearn.model_selection import GroupKFold

    x = np.array([features(r) for r in records])
    y = np.array([r["y"] for r in records])
    shipped = np.array([r["flagged"] for r in records])
    learned = np.zeros(len(records))
    learned_flag = np.zeros(len(records), dtype=bool)
    for train, test in GroupKFold(n_splits=5).split(x, y, [r["group"] for r in records]):
        model = LogisticRegression(max_iter=1000).fit(x[train], y[train])
        fitted = model.predict_proba(x[train])[:, 1]
        best = max(np.linspace(0.05, 0.95, 91), key=lambda t: f1_score(y[train], fitted >= t))
        learned[test] = model.predict_proba(x[test])[:, 1]
        learned_flag[test] = learned[test] >= best

    def faithful_flagged(flags):
        return float((flags & ~y).sum() / max(1, (~y).sum()))

    return {"auroc": (roc_auc_score(y, [r["score"] for r in records]), roc_auc_score(y, learned)),
            "f1": (f1_score(y, shipped), f1_score(y, learned_flag)),
            "faithful_flagged": (faithful_flagged(shipped), faithful_flagged(learned_flag))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    for path in args.files:
        records = claim_rows(path)
        slices = {f"{path.stem} / {shape}": [r for r in records if r["profile"] == shape]
                  for shape in sorted({r["profile"] for r in records})}
        slices[f"{path.stem} / all"] = records
        for name, part in slices.items():
            if len(part) < 60 or len({r["y"] for r in part}) < 2:
                continue
            figures = compare(part)
            print(f"{name}: n={len(part)} " + ", ".join(f"{k} {a:.3f} -> {b:.3f}" for k, (a, b) in figures.items()))


if __name__ == "__main__":
    main()
