"""PNG curves for ``halguard bench --plot DIR``: ROC, precision-recall and reliability diagrams.

One figure of each kind per input file (all shapes together, and one curve per answer shape where a shape has
both labels). matplotlib is an optional dependency (``pip install "halguard[plot]"``); it is imported here only, with
the non-interactive Agg backend, so nothing opens a window.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from halguard.errors import HalguardError
from halguard.tools.metrics import auroc, expected_calibration_error, reliability_bins, threshold_counts

__all__ = ["write_plots"]

_MIN_CURVE_ROWS = 20


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, never a window (and no display needed)
        import matplotlib.pyplot as plt
    except ImportError as exc:
        msg = 'the --plot option needs matplotlib: pip install "halguard[plot]"'
        raise HalguardError(msg) from exc
    return plt


def _roc(labels: Sequence[bool], scores: Sequence[float]) -> tuple[list[float], list[float]]:
    pos = sum(labels)
    neg = len(labels) - pos
    points = threshold_counts(labels, scores)
    return [0.0] + [fp / neg for _, _, fp in points], [0.0] + [tp / pos for _, tp, _ in points]


def _pr(labels: Sequence[bool], scores: Sequence[float]) -> tuple[list[float], list[float]]:
    pos = sum(labels)
    points = threshold_counts(labels, scores)
    return [tp / pos for _, tp, _ in points], [tp / (tp + fp) for _, tp, fp in points]


def _slices(preds: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {"all": list(preds)}
    for p in preds:
        if p.get("profile"):
            out.setdefault(p["profile"], []).append(p)
    # A shape gets its own curve from _MIN_CURVE_ROWS rows with both labels (fewer draw noise, not a curve).
    return {k: v for k, v in out.items()
            if len({p["hallucinated"] for p in v}) == 2 and (k == "all" or len(v) >= _MIN_CURVE_ROWS)}


def write_plots(preds: Sequence[dict[str, Any]], out_dir: str | Path) -> list[Path]:
    """Write ``<file>_roc.png``, ``<file>_pr.png`` and ``<file>_reliability.png`` per input file of the
    predictions (rows with a score; unverified rows have none). Returns the paths written."""
    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in preds:
        if p.get("score") is not None:
            by_file[Path(str(p.get("file") or "rows")).stem].append(p)
    written = []
    for stem, rows in sorted(by_file.items()):
        slices = _slices(rows)
        if not slices:
            continue
        fig, ax = plt.subplots(figsize=(5, 5))
        for name, part in slices.items():
            ys, ss = [p["hallucinated"] for p in part], [p["score"] for p in part]
            ax.plot(*_roc(ys, ss), label=f"{name} (n={len(part)}, AUROC {auroc(ys, ss):.3f})",
                    linewidth=2.5 if name == "all" else 1.2)
        ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1)
        ax.set(xlabel="false positive rate", ylabel="true positive rate", title=f"ROC — {stem}")
        ax.legend(fontsize=7, loc="lower right")
        written.append(_save(plt, fig, out / f"{stem}_roc.png"))

        fig, ax = plt.subplots(figsize=(5, 5))
        for name, part in slices.items():
            ys, ss = [p["hallucinated"] for p in part], [p["score"] for p in part]
            ax.plot(*_pr(ys, ss), label=f"{name} (n={len(part)}, base rate {sum(ys) / len(ys):.2f})",
                    linewidth=2.5 if name == "all" else 1.2)
        ax.set(xlabel="recall", ylabel="precision", title=f"Precision-recall — {stem}", xlim=(0, 1), ylim=(0, 1.02))
        ax.legend(fontsize=7, loc="lower left")
        written.append(_save(plt, fig, out / f"{stem}_pr.png"))

        fig, ax = plt.subplots(figsize=(5, 5))
        ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1, label="perfect calibration")
        ys = [p["hallucinated"] for p in rows]
        for key, label in (("probability", "probability"), ("score", "raw score")):
            values = [p.get(key) for p in rows]
            if any(v is None for v in values):
                continue
            points = reliability_bins(ys, values)
            ece = expected_calibration_error(ys, values)
            ax.plot([m for m, _, _ in points], [r for _, r, _ in points], marker="o",
                    label=f"{label} (ECE {ece:.3f})")
        ax.set(xlabel="predicted probability of hallucination", ylabel="observed rate",
               title=f"Reliability — {stem} (n={len(rows)})", xlim=(0, 1), ylim=(0, 1))
        ax.legend(fontsize=7, loc="upper left")
        written.append(_save(plt, fig, out / f"{stem}_reliability.png"))
    return written


def _save(plt: Any, fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
