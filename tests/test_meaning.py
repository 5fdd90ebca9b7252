"""The claim checker (halguard.grounding.meaning): premises, shipped weights, scoring, and its place in the verifier."""

from __future__ import annotations

import json
import shutil
import time

import pytest

from halguard import LocalVerifier
from halguard.errors import ModelLoadError
from halguard.grounding.calibration import Calibration
from halguard.grounding.meaning import ClaimChecker, join_evidence
from halguard.grounding.meaning.checker import WEIGHTS_DIR
from halguard.grounding.scoring import DEFAULT_WEIGHTS, MEANING_WEIGHTS

CONTEXT = ("Northwind Logistics acquired Palmera Freight in March 2019 for 7 million dollars. "
           "Palmera, founded in 2004, employs 1,200 people across four depots.")


@pytest.fixture(scope="module")
def checker() -> ClaimChecker:
    return ClaimChecker.shared()


# -- premises ---------------------------------------------------------------------------------------------------------

def test_join_evidence_keeps_document_order_and_merges_overlapping_windows():
    texts = ["A one. B two. C three.", "X other."]
    ranked = [(0, 14, 22), (1, 0, 8), (0, 7, 22)]  # best first: "C three.", "X other.", "B two. C three."
    assert join_evidence(ranked, texts) == "B two. C three. X other."


def test_join_evidence_keeps_the_best_chunk_and_stops_at_the_budget():
    texts = ["a" * 50 + " " + "b" * 50]
    assert join_evidence([(0, 51, 101), (0, 0, 50)], texts, max_chars=60) == "b" * 50
    assert join_evidence([(0, 0, 101)], texts, max_chars=20) == "a" * 20  # even the best is cut to the budget


# -- shipped weights --------------------------------------------------------------------------------------------------

def test_shipped_weights_match_their_manifest():
    manifest = json.loads((WEIGHTS_DIR / "manifest.json").read_text())
    size = (WEIGHTS_DIR / manifest["weights"]).stat().st_size
    assert size <= 25 * 2**20  # the cap on what the model adds to the repository
    assert ClaimChecker.available()


def test_tampered_weights_are_refused(tmp_path):
    target = tmp_path / "weights"
    shutil.copytree(WEIGHTS_DIR, target)
    manifest = json.loads((target / "manifest.json").read_text())
    blob = bytearray((target / manifest["weights"]).read_bytes())
    blob[-1] ^= 0xFF
    (target / manifest["weights"]).write_bytes(bytes(blob))
    with pytest.raises(ModelLoadError, match="SHA-256"):
        ClaimChecker(target).warm_up()


def test_missing_weights_are_a_model_load_error(tmp_path):
    assert not ClaimChecker.available(tmp_path)
    with pytest.raises(ModelLoadError):
        ClaimChecker(tmp_path).score(["a premise."], ["a claim."])


# -- scoring ----------------------------------------------------------------------------------------------------------

def test_scores_are_probabilities_with_spans_inside_the_claim(checker):
    claims = ["Northwind Logistics bought Palmera Freight in 2019.", "Palmera Freight was founded by NASA in 1962."]
    scores = checker.score([CONTEXT, CONTEXT], claims)
    for claim, score in zip(claims, scores):
        assert 0.0 <= score.risk <= 1.0
        assert abs(score.supported_probability + score.risk - 1.0) < 1e-9
        assert all(0 <= a < b <= len(claim) for a, b in score.spans)
    assert checker.score([CONTEXT], claims[:1])[0] is scores[0]  # cached per (premise, claim)
    ClaimChecker.clear_shared_caches()  # what halguard bench --compare does between detectors
    alone = checker.score([CONTEXT], claims[:1])[0]
    assert alone is not scores[0] and alone.risk == scores[0].risk  # a score does not depend on its neighbours


def test_a_blown_deadline_stops_scoring(checker):
    from halguard.text.segment import BudgetExceeded

    with pytest.raises(BudgetExceeded):
        checker.score([CONTEXT], ["An uncached claim about depots in 2031."], deadline=time.monotonic() - 1)


# -- inside the verifier ----------------------------------------------------------------------------------------------

def test_meaning_true_reads_every_claim_with_the_checker():
    verifier = LocalVerifier(meaning=True)
    assert verifier.weights is MEANING_WEIGHTS and verifier.calibration is Calibration.default(meaning=True)
    verdict = verifier.verify("Northwind Logistics acquired Palmera Freight in 2019. It employs 1,200 people.",
                              [CONTEXT])
    assert len(verdict.claims) == 2 and all(c.signals.meaning_support is not None for c in verdict.claims)
    assert verdict.label != "unverified"


def test_the_default_is_the_rules_alone():
    verifier = LocalVerifier()
    assert verifier.meaning is False and verifier.claim_checker is None and verifier.weights is DEFAULT_WEIGHTS
    assert verifier.calibration is Calibration.default(meaning=False)
    verdict = verifier.verify("Northwind Logistics acquired Palmera Freight in 2019.", [CONTEXT])
    assert all(c.signals.meaning_support is None for c in verdict.claims)


def test_the_checker_changes_the_risk_by_its_weight():
    """The combined logit is ``rules_scale`` x the rules' plus ``meaning`` x the checker's logit (no hidden terms)."""
    import math
    from dataclasses import replace

    from halguard.grounding.signals import ClaimMeasurements

    s = ClaimMeasurements(similarity=0.9, novel_ratio=0.0)
    z_rules = MEANING_WEIGHTS.signals_logit(s)
    for p in (0.1, 0.5, 0.9):
        risk = MEANING_WEIGHTS.risk(replace(s, meaning_risk=p))
        expected = (MEANING_WEIGHTS.rules_scale * z_rules + MEANING_WEIGHTS.meaning * math.log(p / (1 - p))
                    + MEANING_WEIGHTS.meaning_bias)
        assert abs(math.log(risk / (1 - risk)) - expected) < 1e-9
    assert MEANING_WEIGHTS.risk(s) == MEANING_WEIGHTS.risk(replace(s, meaning_risk=None))


def test_meaning_must_be_a_bool():
    with pytest.raises(ValueError, match="meaning"):
        LocalVerifier(meaning="yes")  # type: ignore[arg-type]


def test_a_failing_checker_makes_the_answer_unverified_never_supported(monkeypatch):
    def broken(self, *args, **kwargs):
        msg = "out of memory"
        raise RuntimeError(msg)

    monkeypatch.setattr(ClaimChecker, "score", broken)
    verdict = LocalVerifier(meaning=True).verify("Northwind Logistics acquired Palmera Freight in 2019.", [CONTEXT])
    assert verdict.label == "unverified"
    assert verdict.errors[0].code == "internal_error"


def test_the_shipped_model_is_the_whole_network_with_three_classes():
    import json

    from halguard.grounding.meaning.checker import WEIGHTS_DIR
    from halguard.grounding.meaning.network import CLASSES

    manifest = json.loads((WEIGHTS_DIR / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["classes"] == list(CLASSES) and manifest["trained_layers"] == 6


def test_a_short_answer_read_with_its_question_is_left_to_the_rules():
    verifier = LocalVerifier(meaning=True)
    verdict = verifier.verify("1889", ["The Eiffel Tower was completed in 1889."],
                              question="When was the Eiffel Tower completed?")
    assert verdict.claims and all(c.signals.meaning_support is None for c in verdict.claims)


def test_the_model_reads_which_number_belongs_to_which_thing():
    context = ["In the trial, 12% of patients reported nausea and 5% reported headache."]
    [right] = ClaimChecker.shared().score(context, ["Nausea was reported by 12% of patients."])
    [swapped] = ClaimChecker.shared().score(context, ["5% of patients reported nausea."])
    assert right.risk < 0.5 <= swapped.risk


def test_the_model_never_talks_a_finding_down():
    """A claim with a finding (a changed number) keeps at least the rules' risk, whatever the model says."""
    import math
    from dataclasses import replace

    from halguard.grounding.signals import ClaimMeasurements

    # a number changed in a copy of the evidence: a finding kind that blocks (halguard.grounding.blocking)
    s = ClaimMeasurements(similarity=0.95, novel_ratio=0.0, missing_numbers=["5,000"], evidence_has_numbers=True,
                          evidence_overlap=1.0)
    assert "changed_number_in_copy" in s.finding_kinds() and s.contradicts
    assert not MEANING_WEIGHTS.corrected(s)
    rules = 1 / (1 + math.exp(-MEANING_WEIGHTS.signals_logit(s)))
    assert MEANING_WEIGHTS.risk(replace(s, meaning_risk=0.001)) >= rules - 1e-12


@pytest.mark.parametrize(("context", "claim"), [
    ("The kit costs 5 dollars.", "The kit costs 5,000 dollars."),
    ("The founder died in 2019, aged 88.", "The founder died in 2019, aged eighty-six."),
])
def test_meaning_true_still_flags_a_changed_number(context, claim):
    assert LocalVerifier(meaning=True).verify(claim, [context]).label == "hallucinated"
