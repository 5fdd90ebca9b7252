import random

import pytest
import sklearn.metrics as sk

from halguard.tools.metrics import auroc, best_f1, binary_metrics, percentile


def test_auroc_matches_sklearn_with_ties():
    rng = random.Random(0)
    labels = [rng.random() < 0.4 for _ in range(300)]
    scores = [round(rng.random() + (0.3 if y else 0), 1) for y in labels]
    assert auroc(labels, scores) == pytest.approx(sk.roc_auc_score(labels, scores))
    assert auroc([True, True], [0.1, 0.2]) is None


def test_binary_metrics_and_best_f1():
    labels = [True, True, False, False, True]
    preds = [True, False, False, True, True]
    m = binary_metrics(labels, preds)
    assert m["precision"] == pytest.approx(sk.precision_score(labels, preds))
    assert m["recall"] == pytest.approx(sk.recall_score(labels, preds))
    assert m["f1"] == pytest.approx(sk.f1_score(labels, preds))
    assert m["balanced_accuracy"] == pytest.approx(sk.balanced_accuracy_score(labels, preds))
    scores = [0.9, 0.4, 0.1, 0.5, 0.8]
    f1, t = best_f1(labels, scores)
    brute = max(sk.f1_score(labels, [s >= th for s in scores]) for th in scores)
    assert f1 == pytest.approx(brute)
    assert sk.f1_score(labels, [s >= t for s in scores]) == pytest.approx(f1)


def test_percentile():
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([5], 95) == 5


def test_operating_points_and_calibration_error():
    from halguard.tools.metrics import expected_calibration_error, precision_at_recall, recall_at_precision

    labels = [True, True, False, True, False, False]
    scores = [0.9, 0.8, 0.7, 0.6, 0.3, 0.1]
    assert precision_at_recall(labels, scores, 0.6) == (1.0, 0.8)  # the top two: recall 2/3, precision 1
    assert precision_at_recall(labels, scores, 1.0) == (0.75, 0.6)
    assert recall_at_precision(labels, scores, 0.75) == (1.0, 0.6)
    assert recall_at_precision([False, True], [0.9, 0.1], 0.9) is None
    assert expected_calibration_error([True, False], [1.0, 0.0]) == 0.0
    assert expected_calibration_error([True, False], [0.0, 1.0]) == 1.0
    # 10 answers at 0.7, of which 7 are wrong: perfectly calibrated.
    assert abs(expected_calibration_error([True] * 7 + [False] * 3, [0.7] * 10)) < 1e-12
