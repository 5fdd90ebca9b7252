"""Detection metrics without extra dependencies: AUROC, precision/recall/F1, best-F1 threshold, operating points
(precision at a recall, recall at a precision) and the expected calibration error."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["auroc", "best_f1", "binary_metrics", "expected_calibration_error", "percentile", "precision_at_recall",
           "recall_at_precision", "reliability_bins", "threshold_counts"]


def auroc(labels: Sequence[bool], scores: Sequence[float]) -> float | None:
    """Area under the ROC curve (Mann-Whitney U with average ranks for ties); None if one class is absent."""
    pairs = sorted(zip(scores, labels), key=lambda p: p[0])
    n_pos = sum(1 for _, y in pairs if y)
    n_neg = len(pairs) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    rank_sum, i = 0.0, 0
    while i < len(pairs):
        j = i
        while j + 1 < len(pairs) and pairs[j + 1][0] == pairs[i][0]:
            j += 1
        avg_rank = (i + j) / 2 + 1
        rank_sum += avg_rank * sum(1 for k in range(i, j + 1) if pairs[k][1])
        i = j + 1
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def binary_metrics(labels: Sequence[bool], predictions: Sequence[bool]) -> dict[str, float]:
    """Precision, recall, F1, accuracy and balanced accuracy for the positive (hallucinated) class."""
    tp = sum(1 for y, p in zip(labels, predictions) if y and p)
    fp = sum(1 for y, p in zip(labels, predictions) if not y and p)
    fn = sum(1 for y, p in zip(labels, predictions) if y and not p)
    tn = sum(1 for y, p in zip(labels, predictions) if not y and not p)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    tnr = tn / (tn + fp) if tn + fp else 0.0
    n = len(labels)
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "accuracy": (tp + tn) / n if n else 0.0,
        "balanced_accuracy": (recall + tnr) / 2,
    }


def best_f1(labels: Sequence[bool], scores: Sequence[float]) -> tuple[float, float]:
    """The best F1 over all thresholds, and the threshold (predict positive when score >= threshold)."""
    n_pos = sum(1 for y in labels if y)
    pairs = sorted(zip(scores, labels), key=lambda p: -p[0])
    best, tp, fp, i = (0.0, 1.0), 0, 0, 0
    while i < len(pairs):  # sweep thresholds from high to low, one distinct score at a time
        t = pairs[i][0]
        while i < len(pairs) and pairs[i][0] == t:
            tp += pairs[i][1]
            fp += not pairs[i][1]
            i += 1
        f1 = 2 * tp / (tp + fp + n_pos) if n_pos else 0.0
        if f1 > best[0]:
            best = (f1, t)
    return best


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation."""
    if not values:
        return float("nan")
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def threshold_counts(labels: Sequence[bool], scores: Sequence[float]) -> list[tuple[float, int, int]]:
    """(threshold, true positives, false positives) flagging at or above every distinct score, highest first."""
    pairs = sorted(zip(scores, labels), key=lambda p: -p[0])
    out, tp, fp, i = [], 0, 0, 0
    while i < len(pairs):
        t = pairs[i][0]
        while i < len(pairs) and pairs[i][0] == t:
            tp += pairs[i][1]
            fp += not pairs[i][1]
            i += 1
        out.append((t, tp, fp))
    return out


def _sweep(labels: Sequence[bool], scores: Sequence[float]) -> list[tuple[float, float, float]]:
    """(threshold, precision, recall) at every distinct score, from the highest threshold down."""
    n_pos = sum(1 for y in labels if y)
    return [(t, tp / (tp + fp), tp / n_pos if n_pos else 0.0) for t, tp, fp in threshold_counts(labels, scores)]


def precision_at_recall(labels: Sequence[bool], scores: Sequence[float], recall: float) -> tuple[float, float] | None:
    """The best precision among thresholds reaching at least ``recall``, and that threshold; None without
    positives."""
    points = [(p, t) for t, p, r in _sweep(labels, scores) if r >= recall]
    return max(points) if points and any(labels) else None


def recall_at_precision(labels: Sequence[bool], scores: Sequence[float],
                        precision: float) -> tuple[float, float] | None:
    """The best recall among thresholds keeping at least ``precision``, and that threshold; None when no threshold
    keeps it."""
    points = [(r, t) for t, p, r in _sweep(labels, scores) if p >= precision]
    return max(points) if points else None


def expected_calibration_error(labels: Sequence[bool], probabilities: Sequence[float], *, bins: int = 10) -> float:
    """ECE: the mean, weighted by bin size, of |observed rate - mean predicted probability| over ``bins``
    equal-width probability bins."""
    if not labels:
        return float("nan")
    return sum(abs(rate - mean) * n for mean, rate, n in reliability_bins(labels, probabilities, bins)) / len(labels)


def reliability_bins(labels: Sequence[bool], probabilities: Sequence[float],
                     bins: int = 10) -> list[tuple[float, float, int]]:
    """(mean predicted probability, observed rate, rows) per non-empty equal-width bin, lowest first."""
    totals = [[0.0, 0, 0] for _ in range(bins)]  # sum of probabilities, positives, count
    for y, p in zip(labels, probabilities):
        b = totals[min(int(p * bins), bins - 1)]
        b[0] += p
        b[1] += bool(y)
        b[2] += 1
    return [(s / n, pos / n, n) for s, pos, n in totals if n]
