"""Per-shape operating points and calibrated probabilities (halguard.grounding.calibration, halguard calibrate)."""

from __future__ import annotations

import itertools
import json
import random
import time

import pytest

from halguard import ClaimStatus, LocalVerifier
from halguard.errors import InvalidInputError
from halguard.grounding.blocking import BLOCKING_FINDINGS, SHORT_ANSWER_FLOORS
from halguard.grounding.calibration import (
    PROBABILITY_FLOOR,
    Calibration,
    CalibrationError,
    ShapeCalibration,
    choose_threshold,
    fit_shape,
    isotonic_knots,
)
from halguard.grounding.profile import PROFILES, answer_profile, asks_for_summary
from halguard.tools.calibrate import cross_validate, fit_calibration, group_of
from halguard.tools.cli import main
from halguard.tools.metrics import expected_calibration_error

PASSAGE = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It is 330 metres tall."


def synthetic(n: int, seed: int = 0) -> tuple[list[float], list[bool]]:
    """Scores whose true probability of hallucination is score**2 (so the raw score is miscalibrated)."""
    rng = random.Random(seed)
    scores = [rng.random() for _ in range(n)]
    return scores, [rng.random() < s * s for s in scores]


# -- fitting ----------------------------------------------------------------------------------------------------------


def test_isotonic_map_is_monotone_clipped_and_calibrates_a_miscalibrated_score():
    scores, labels = synthetic(4000)
    knots = isotonic_knots(scores, labels)
    assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in itertools.pairwise(knots))
    assert all(PROBABILITY_FLOOR <= p <= 1 - PROBABILITY_FLOOR for _, p in knots)
    entry = ShapeCalibration(threshold=0.5, weak_threshold=0.4, knots=knots)
    test_scores, test_labels = synthetic(4000, seed=1)  # held-out rows from the same distribution
    probs = [entry.probability(s) for s in test_scores]
    assert expected_calibration_error(test_labels, test_scores) > 0.1  # the raw score is off...
    assert expected_calibration_error(test_labels, probs) < 0.04  # ...the fitted probability is not
    assert entry.probability(0.5) == pytest.approx(0.25, abs=0.08)


def test_isotonic_knots_keep_equal_scores_in_one_bin_and_reject_bad_input():
    knots = isotonic_knots([0.3] * 50 + [0.9] * 50, [False] * 40 + [True] * 10 + [True] * 45 + [False] * 5)
    assert [k[0] for k in knots] == [0.3, 0.9]
    assert knots[0][1] == pytest.approx(0.2) and knots[1][1] == pytest.approx(0.9)
    with pytest.raises(CalibrationError):
        isotonic_knots([], [])
    with pytest.raises(ValueError):  # CalibrationError is a ValueError too
        isotonic_knots([0.1], [True, False])


def test_threshold_is_the_f1_best_and_the_weak_threshold_a_fixed_fraction_of_it():
    scores = [0.1, 0.2, 0.3, 0.6, 0.7, 0.8, 0.9]
    labels = [False, False, True, False, False, True, True]
    assert choose_threshold(scores, labels) == 0.8  # F1 0.8 at 0.8; 0.75 at 0.3, 0.67 at 0.9
    entry = fit_shape(scores * 10, labels * 10)
    assert entry.threshold == 0.8 and entry.weak_threshold == pytest.approx(0.64)
    assert entry.rows == 70 and entry.positives == 30
    assert choose_threshold([0.2, 0.4], [False, False]) == 1.0  # nothing to catch: flag nothing


def test_shape_entries_are_validated():
    with pytest.raises(CalibrationError, match="weak_threshold"):
        ShapeCalibration(threshold=0.3, weak_threshold=0.4, knots=((0.0, 0.1),))
    with pytest.raises(CalibrationError, match="non-decreasing"):
        ShapeCalibration(threshold=0.5, weak_threshold=0.4, knots=((0.2, 0.5), (0.6, 0.1)))
    with pytest.raises(CalibrationError, match="knot"):
        ShapeCalibration(threshold=0.5, weak_threshold=0.4, knots=())
    with pytest.raises(CalibrationError, match=r"\[0, 1\]"):
        ShapeCalibration(threshold=0.5, weak_threshold=0.4, knots=((0.2, 1.5),))


# -- files ------------------------------------------------------------------------------------------------------------


def test_calibration_round_trips_through_a_file(tmp_path):
    scores, labels = synthetic(500)
    cal, kept = fit_calibration(scores, labels, ["short_answer"] * 250 + ["long_summary"] * 250)
    assert kept == [] and set(cal.shapes) == {"short_answer", "long_summary"}
    path = tmp_path / "profile.json"
    cal.save(path)
    loaded = Calibration.load(path)
    assert loaded.to_dict() == cal.to_dict()
    assert loaded.for_profile("records") is loaded.fallback  # a shape without an entry uses the fallback
    assert not list(tmp_path.glob(".*.tmp"))  # written to a temporary name, then renamed


@pytest.mark.parametrize("content, match", [
    ("not json", "cannot read"),
    ('{"format": "something-else"}', "not a halguard calibration"),
    ('{"format": "halguard-calibration/1", "shapes": []}', "shapes"),
    ('{"format": "halguard-calibration/1", "shapes": {"records": {"threshold": 0.5}}, "fallback": {}}', "records"),
])
def test_a_bad_calibration_file_is_a_clear_error(tmp_path, content, match):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CalibrationError, match=match):
        Calibration.load(path)
    with pytest.raises(InvalidInputError):
        LocalVerifier(calibration=str(path))
    with pytest.raises(CalibrationError, match="cannot read"):
        Calibration.load(tmp_path / "missing.json")
    with pytest.raises(CalibrationError, match="path, a mapping"):
        Calibration.load(42)  # type: ignore[arg-type]


def test_the_shipped_calibration_covers_every_shape_and_says_where_it_comes_from():
    cal = Calibration.default()
    assert set(cal.shapes) == set(PROFILES)
    prov = cal.provenance
    assert set(prov["fitted_on"]) == {"ragtruth_dev.jsonl", "halueval_qa_dev.jsonl", "summedits_dev.jsonl"}
    assert "file:ragtruth_dev.jsonl" in prov["cross_validated"]
    for entry in cal.shapes.values():
        assert entry.rows >= 40 and 0 < entry.weak_threshold <= entry.threshold < 1


# -- the answer's shape -----------------------------------------------------------------------------------------------


def test_the_shape_follows_the_question_the_length_and_the_passages():
    one = "The tower was completed in 1889."
    three = "The tower was completed in 1889. It is in Paris. It is 330 metres tall."
    assert answer_profile(one, [PASSAGE], question="When was it completed?") == "short_answer"
    assert answer_profile(three, [PASSAGE], question="Tell me about the tower.") == "long_answer"
    assert answer_profile(one, [PASSAGE]) == "short_summary"  # no question: a restatement of the passages
    assert answer_profile(three, [PASSAGE], question="Summarize the following news in 50 words:") == "long_summary"
    assert answer_profile(three, ['{"tower": {"height_m": 330}}'], question="Describe it.") == "records"
    assert asks_for_summary("  ") and asks_for_summary("TL;DR please") and not asks_for_summary("Who built it?")


def test_summary_detection_is_bounded_on_crafted_questions():
    start = time.perf_counter()
    assert not asks_for_summary("sum" * 300_000)
    assert not asks_for_summary("(" * 1_000_000 + "summary")  # past the first 300 characters: not read
    assert time.perf_counter() - start < 0.5


# -- the verifier -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def verifiers():
    return LocalVerifier(), LocalVerifier(calibration=None), LocalVerifier(threshold=0.9)


def test_each_shape_is_judged_at_its_own_threshold_with_a_probability(verifiers):
    default, _, _ = verifiers
    cal = Calibration.default()
    short = default.verify("It was completed in 1889.", [PASSAGE], question="When was the tower completed?")
    summary = default.verify("The tower was completed in 1889.", [PASSAGE])
    for verdict, shape in ((short, "short_answer"), (summary, "short_summary")):
        assert verdict.profile == shape
        entry = cal.for_profile(shape)
        assert verdict.threshold == entry.threshold
        assert verdict.probability == pytest.approx(entry.probability(verdict.score), abs=1e-4)
        assert verdict.hallucination_detected is (verdict.score >= entry.threshold)
    invented = default.verify("It was completed in 1925 by Gustave Flaubert.", [PASSAGE],
                              question="When was the tower completed?")
    assert invented.label == "hallucinated" and invented.probability > short.probability


def test_an_explicit_threshold_wins_and_no_calibration_means_no_probability(verifiers):
    _, uncalibrated, fixed = verifiers
    answer, question = "It was completed in 1925 by Gustave Flaubert.", "When was the tower completed?"
    v = fixed.verify(answer, [PASSAGE], question=question)
    assert v.threshold == 0.9 and v.probability is not None
    assert v.hallucination_detected is (v.score >= 0.9)
    assert all(c.status.value != "weak_support" or c.score >= 0.4 for c in v.claims)
    u = uncalibrated.verify(answer, [PASSAGE], question=question)
    assert u.threshold == 0.5 and u.probability is None and u.score == v.score
    assert uncalibrated.verify("", [PASSAGE]).probability is None  # unverified: never a probability


def test_a_custom_calibration_moves_the_label_not_the_score(tmp_path, verifiers):
    default, _, _ = verifiers
    # (no name the passage lacks: a short answer's floor would flag that whatever the threshold, below)
    answer, question = "It was designed by a committee of engineers from abroad.", "Who designed the tower?"
    base = default.verify(answer, [PASSAGE], question=question)
    lenient = {"format": "halguard-calibration/1",
               "shapes": {"short_answer": {"threshold": 0.999, "weak_threshold": 0.998,
                                           "knots": [[0.0, 0.2], [1.0, 0.3]]}},
               "fallback": {"threshold": 0.5, "weak_threshold": 0.4, "knots": [[0.0, 0.5]]}}
    path = tmp_path / "lenient.json"
    path.write_text(json.dumps(lenient), encoding="utf-8")
    for source in (lenient, str(path), path, Calibration.load(lenient)):
        v = LocalVerifier(calibration=source).verify(answer, [PASSAGE], question=question)
        assert v.score == base.score and v.label == "supported" and v.threshold == 0.999
        assert v.probability == pytest.approx(0.2 + 0.1 * v.score, abs=1e-4)
    # A claim the evidence contradicts (a changed year) is flagged from 0.5 on whatever the shape's threshold...
    changed = "It was completed in 1925."
    v = LocalVerifier(calibration=lenient).verify(changed, [PASSAGE], question="When was it completed?")
    assert v.label == "hallucinated" and v.threshold == 0.999 and v.claims[0].status.value == "CONTRADICTION"
    # ...but an explicit threshold wins for every claim.
    assert LocalVerifier(threshold=0.9999, calibration=lenient).verify(changed, [PASSAGE]).label == "supported"


LENIENT_SHORT = {"format": "halguard-calibration/1",
                 "shapes": {shape: {"threshold": 0.999, "weak_threshold": 0.998, "knots": [[0.0, 0.2], [1.0, 0.3]]}
                            for shape in ("short_answer", "short_summary", "long_summary")},
                 "fallback": {"threshold": 0.5, "weak_threshold": 0.4, "knots": [[0.0, 0.5]]}}


@pytest.mark.parametrize(("answer", "question", "kind"), [
    ("The tower was designed by Gustave Flaubert.", None, "missing_entities"),  # a short summary
    ("It was designed by Gustave Flaubert.", "Who designed the tower?", "missing_entities"),  # a short answer
    ("The Eiffel Tower is 410 metres tall.", None, "changed_numbers"),
])
def test_a_short_answers_floor_flags_it_whatever_its_shapes_threshold(answer, question, kind):
    v = LocalVerifier(calibration=LENIENT_SHORT).verify(answer, [PASSAGE], question=question)
    claim = v.claims[0]
    assert v.threshold == 0.999 and v.label == "hallucinated" and v.score < 0.999
    assert claim.status.is_flagged and kind in claim.signals.blocking and kind in SHORT_ANSWER_FLOORS


def test_a_floor_holds_in_short_answers_only():
    # The same unsupported name in a long summary: a weighted signal there (right about half the time on RAGTruth)
    long = ("The Eiffel Tower was completed in 1889. It was built for the World's Fair in Paris. It is 330 metres "
            "tall. The tower was designed by Gustave Flaubert.")
    v = LocalVerifier(calibration=LENIENT_SHORT).verify(long, [PASSAGE])
    assert v.profile == "long_summary" and v.label == "supported"
    assert "missing_entities" in v.claims[-1].signals.findings and not v.claims[-1].signals.blocking
    # Words alone are no floor: novel words weigh, whatever the shape
    v = LocalVerifier(calibration=LENIENT_SHORT).verify("The tower was built by a committee of engineers.", [PASSAGE])
    assert v.profile == "short_summary" and v.label == "supported" and not v.claims[0].signals.blocking
    assert "missing_entities" not in BLOCKING_FINDINGS  # a floor is not a contradiction
    assert v.claims[0].status != ClaimStatus.CONTRADICTION


# -- halguard calibrate -----------------------------------------------------------------------------------------------


def write_rows(tmp_path, n=240):
    """Labelled rows and bench-style predictions for them (two shapes, groups of two rows)."""
    scores, labels = synthetic(n, seed=3)
    rows, preds = [], []
    for i, (s, y) in enumerate(zip(scores, labels)):
        shape = "short_answer" if i % 2 else "long_summary"
        rows.append({"id": f"r{i}", "task_type": "QA" if i % 2 else "Summary", "question": "q", "context": ["c"],
                     "answer": "a", "hallucinated": y, "group": f"g{i // 2}"})
        preds.append({"file": "rows.jsonl", "id": f"r{i}", "score": s, "profile": shape, "contradiction": False})
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "preds.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds), encoding="utf-8")
    return rows


def test_cross_validation_scores_each_group_with_a_fit_that_did_not_see_it():
    rows = [{"score": s, "hallucinated": y, "profile": "short_answer", "group": f"g{i}", "file": "f", "task": "QA"}
            for i, (s, y) in enumerate(zip(*synthetic(400, seed=5)))]
    report = cross_validate(rows, folds=5)
    assert report["file:f"]["n"] == 400 and report["file:f"]["ece_probability"] < report["file:f"]["ece_raw_score"]
    # Labels unrelated to the score: a fit that saw the test rows would look better than chance; out of fold it
    # cannot, so the probability stays near the base rate everywhere.
    rng = random.Random(9)
    noise = [dict(r, hallucinated=rng.random() < 0.5) for r in rows]
    assert cross_validate(noise, folds=5)["file:f"]["ece_probability"] < 0.12
    assert group_of({"source_id": "7"}) == group_of({"source_id": "7", "context": ["other"]})
    with pytest.raises(InvalidInputError):
        cross_validate(rows, folds=1)


def test_calibrate_cli_fits_from_predictions_and_the_verifier_reads_the_file(tmp_path, capsys):
    write_rows(tmp_path)
    out = tmp_path / "profile.json"
    code = main(["calibrate", str(tmp_path / "rows.jsonl"), "--predictions", str(tmp_path / "preds.jsonl"),
                 "--out", str(out), "--base", "none", "--md-out", str(tmp_path / "cal.md"), "--quiet"])
    assert code == 0
    cal = Calibration.load(out)
    assert set(cal.shapes) == {"short_answer", "long_summary"}
    assert cal.provenance["fitted_on"] == {"rows.jsonl": 240}
    assert "shape:short_answer" in cal.provenance["cross_validated"]
    assert "| short_answer | 120 |" in capsys.readouterr().out
    assert LocalVerifier(calibration=str(out)).calibration.to_dict() == cal.to_dict()


def test_calibrate_cli_keeps_the_shipped_entries_of_shapes_with_too_few_rows(tmp_path, capsys):
    out = tmp_path / "profile.json"
    assert main(["calibrate", "tests/data/dev_examples.jsonl", "--out", str(out), "--quiet"]) == 0
    cal, shipped = Calibration.load(out), Calibration.default()
    assert cal.provenance["kept_from_base"] == sorted(shipped.shapes)  # 17 rows: nothing is refitted
    assert all(cal.shapes[k] == shipped.shapes[k] for k in shipped.shapes)


def test_calibrate_cli_reports_bad_input_with_exit_code_two(tmp_path, capsys):
    assert main(["calibrate", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "x.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    write_rows(tmp_path)
    assert main(["calibrate", str(tmp_path / "rows.jsonl"), "--predictions", str(tmp_path / "preds.jsonl"),
                 "--out", str(tmp_path / "x.json"), "--folds", "1"]) == 2
    (tmp_path / "unlabelled.jsonl").write_text(json.dumps({"id": 1, "answer": "a", "context": ["c"]}) + "\n",
                                               encoding="utf-8")
    assert main(["calibrate", str(tmp_path / "unlabelled.jsonl"), "--out", str(tmp_path / "x.json")]) == 2
    assert "hallucinated" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_probability_interpolates_between_knots_and_stays_fast_on_a_huge_file():
    entry = ShapeCalibration(threshold=0.5, weak_threshold=0.4, knots=((0.2, 0.1), (0.4, 0.3), (0.4, 0.5), (0.8, 0.9)))
    assert [entry.probability(s) for s in (0.0, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0)] == pytest.approx(
        [0.1, 0.1, 0.2, 0.3, 0.7, 0.9, 0.9])
    n = 1_000_000  # a calibration file is user input: a million knots still cost a binary search per verdict
    huge = ShapeCalibration(threshold=0.5, weak_threshold=0.4, knots=tuple((i / n, i / n) for i in range(n)))
    start = time.perf_counter()
    assert [round(huge.probability(s), 6) for s in (0.123456, 0.5, 0.999999)] == [0.123456, 0.5, 0.999999]
    assert time.perf_counter() - start < 0.05
