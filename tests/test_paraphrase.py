"""Issue 45: a novel word that the evidence says in other words is support; a false-alarm budget sets thresholds."""

from __future__ import annotations

import json
import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.calibration import Calibration, choose_threshold
from halguard.grounding.embedding import LocalEmbedder
from halguard.grounding.signals.paraphrase import said_in_other_words
from halguard.tools.cli import main


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier(meaning=False)


@pytest.fixture(scope="module")
def embedder():
    return LocalEmbedder.shared()


@pytest.mark.parametrize(("answer", "context", "word"), [
    ("Every listing must display a registration number.", "Every listing must show a registration number.",
     "display"),
    ("Northwind bought Palmera Freight, a trucking firm, for 410 million euros.",
     "Northwind has acquired Palmera Freight, a regional trucking company, for 410 million euros.", "firm"),
])
def test_a_word_said_in_other_words_is_support_and_says_what_it_matched(verifier, answer, context, word):
    verdict = verifier.verify(answer, [context])
    assert verdict.label == "supported"
    signals = verdict.claims[0].signals
    assert word not in signals.novel_terms
    assert any(p.startswith(f"{word} = ") for p in signals.paraphrased), signals.paraphrased


@pytest.mark.parametrize(("answer", "context", "word"), [
    ("Over 12 weeks the drug lowered systolic pressure by 11 mmHg on average.",
     "Over 12 weeks, the drug reduced systolic blood pressure by an average of 11 mmHg.", "lowered"),
    ("Reykjavik is the biggest city in Iceland.", "Reykjavik is the capital and largest city of Iceland.", "biggest"),
])
def test_the_same_side_of_a_pair_of_opposites_is_found_before_the_model_reads(verifier, answer, context, word):
    verdict = verifier.verify(answer, [context])
    assert verdict.label == "supported"
    assert word not in verdict.claims[0].signals.novel_terms and verdict.claims[0].signals.paraphrased == []


@pytest.mark.parametrize(("answer", "context"), [
    # A sibling unit, another month, an opposite: close in the model's reading, never the same.
    ("The trail is 12 miles long.", "The trail is 12 kilometres long."),
    ("The museum reopened in November 2021.", "The museum reopened in December 2021."),
    ("Sales were larger than in 2022.", "Sales were higher than in 2022."),
])
def test_siblings_and_opposites_are_never_aligned(verifier, answer, context):
    verdict = verifier.verify(answer, [context])
    assert verdict.claims[0].signals.paraphrased == []


def test_a_negated_claim_is_not_cleared_by_a_positive_evidence_word(verifier):
    verdict = verifier.verify("Celeborn is not married.", ["Celeborn is an Elf, and the husband of Galadriel."])
    assert verdict.claims[0].signals.paraphrased == [] and verdict.label == "hallucinated"


def test_the_alignment_vetoes_units_and_opposites_before_the_threshold(embedder):
    claim, evidence = "Prices fell by a week.", "Prices rose by a day."
    states = embedder.word_states([claim, evidence])
    novel = [(7, 11), (17, 21)]  # fell, week
    found = said_in_other_words(claim, novel, states[0], [(evidence, states[1])], threshold=0.0)
    assert not [p for p in found if p.evidence_word in ("rose", "day")]
    assert not [p for p in found if (p.start, p.end) == (17, 21)]  # "week" is never aligned at all


def test_word_states_are_words_with_unit_rows_and_cached(embedder):
    (states,) = embedder.word_states(["The firm's revenue rose 12%."])
    text = "The firm's revenue rose 12%."
    assert [text[s:e] for s, e in states.spans] == ["The", "firm", "s", "revenue", "rose", "12"]
    assert states.vectors.shape == (6, embedder.dimension)
    assert abs(float((states.vectors[1] ** 2).sum()) - 1.0) < 1e-4
    assert embedder.word_states([text])[0] is states


def test_word_states_stop_at_the_deadline(embedder):
    texts = [f"A text never read before, number {i}." for i in range(20)]
    assert embedder.word_states(texts, deadline=time.monotonic() - 1) == [None] * 20
    read = embedder.word_states(texts[:1])
    assert embedder.word_states(texts[:2], deadline=time.monotonic() - 1) == [read[0], None]  # cached: no batch run


def test_nothing_is_cleared_once_the_budget_is_spent(verifier):
    from halguard.grounding.measured_claim import align_paraphrases

    answer, context = ("Every listing must display a registration number.",
                       "Every listing must show a registration number.")
    verdict = verifier.verify(answer, [context])
    assert verdict.claims[0].signals.paraphrased  # it clears "display" with time left
    # With the deadline past, align_paraphrases returns before reading: the measured claim keeps its novel words.
    calls = []

    class Recording:
        def word_states(self, texts, **kw):  # pragma: no cover - must not be reached
            calls.append(texts)
            return []

    align_paraphrases(None, [object()], [type("M", (), {"signals": type("S", (), {"novel_terms": [(4, 11)]})(),
                                                        "foreign": False, "idx": [0]})()],
                      Recording(), weights=verifier.weights, num_threads=1, deadline=time.monotonic() - 1)
    assert calls == []


def test_a_false_alarm_budget_picks_the_best_threshold_within_it():
    scores = [0.9, 0.8, 0.7, 0.6, 0.55, 0.52]
    labels = [True, False, True, True, False, False]
    assert choose_threshold(scores, labels) == 0.6  # best F1, flagging 1 of 3 faithful rows
    assert choose_threshold(scores, labels, false_alarm_budget=0.0) == 0.9
    assert choose_threshold(scores, labels, false_alarm_budget=0.34) == 0.6
    assert choose_threshold(scores, labels, false_alarm_budget=0.67) == 0.6  # a budget caps, it does not lower
    with pytest.raises(ValueError, match="false_alarm_budget"):
        choose_threshold(scores, labels, false_alarm_budget=2.0)
    # Contradictions flagged whatever the threshold spend the budget first.
    assert choose_threshold(scores, labels, forced=[False, True, False, False, True, False],
                            false_alarm_budget=0.34) == 1.0


def test_calibrate_cli_takes_a_false_alarm_budget(tmp_path, capsys):
    rows, preds = [], []
    for i in range(240):
        y = i % 3 == 0
        s = (0.6 + 0.3 * ((i * 7) % 10) / 10) if y else (0.3 + 0.5 * ((i * 3) % 10) / 10)
        rows.append({"id": f"r{i}", "task_type": "QA", "question": "q", "context": ["c"], "answer": "a",
                     "hallucinated": y, "group": f"g{i // 2}"})
        preds.append({"file": "rows.jsonl", "id": f"r{i}", "score": s, "profile": "short_answer",
                      "contradiction": False})
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "preds.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds), encoding="utf-8")
    out = tmp_path / "c.json"
    assert main(["calibrate", str(tmp_path / "rows.jsonl"), "--predictions", str(tmp_path / "preds.jsonl"),
                 "--out", str(out), "--base", "none", "--false-alarm-budget", "0.1", "--quiet"]) == 0
    cal = Calibration.load(out)
    faithful = [p["score"] for p, r in zip(preds, rows) if not r["hallucinated"]]
    flagged = sum(s >= cal.shapes["short_answer"].threshold for s in faithful)
    assert flagged <= 0.1 * len(faithful)
    assert cal.provenance["false_alarm_budget"] == 0.1
    assert main(["calibrate", str(tmp_path / "rows.jsonl"), "--predictions", str(tmp_path / "preds.jsonl"),
                 "--out", str(out), "--false-alarm-budget", "1.5", "--quiet"]) == 2
    assert "--false-alarm-budget" in capsys.readouterr().err


def test_the_default_budget_caps_the_long_shapes_only(tmp_path):
    # The same scores under two shapes: the default budget (DEFAULT_FALSE_ALARM_BUDGETS) caps the long shape's false
    # alarms and leaves the short shape at its F1-best threshold, where one unsupported fact must still flag.
    from halguard.grounding.calibration import DEFAULT_FALSE_ALARM_BUDGET, DEFAULT_FALSE_ALARM_BUDGETS
    from halguard.tools.calibrate import budget_of, fit_calibration

    assert budget_of(DEFAULT_FALSE_ALARM_BUDGETS, "records") == DEFAULT_FALSE_ALARM_BUDGET
    assert budget_of(DEFAULT_FALSE_ALARM_BUDGETS, "short_summary") is None
    assert budget_of(0.1, "short_summary") == 0.1 and budget_of(None, "records") is None
    scores, labels = [], []
    for i in range(200):
        y = i % 3 != 0  # mostly hallucinated: the F1-best threshold flags nearly every row
        scores.append(0.55 + 0.4 * ((i * 7) % 10) / 10 if y else 0.55 + 0.35 * ((i * 3) % 10) / 10)
        labels.append(y)
    cal, _ = fit_calibration(scores * 2, labels * 2, ["records"] * 200 + ["short_summary"] * 200,
                             false_alarm_budget=DEFAULT_FALSE_ALARM_BUDGETS)
    faithful = [s for s, y in zip(scores, labels) if not y]

    def flagged(shape: str) -> float:
        return sum(s >= cal.shapes[shape].threshold for s in faithful) / len(faithful)

    assert flagged("records") <= DEFAULT_FALSE_ALARM_BUDGET < flagged("short_summary")
    plain, _ = fit_calibration(scores * 2, labels * 2, ["records"] * 200 + ["short_summary"] * 200)
    assert cal.shapes["short_summary"].threshold == plain.shapes["short_summary"].threshold
    assert cal.shapes["records"].threshold > plain.shapes["records"].threshold
