"""The risk formula: signal weights and the many-claims correction."""

import math

import pytest

from halguard import ScoringWeights
from halguard.grounding.scoring import DEFAULT_WEIGHTS
from halguard.grounding.signals import ClaimMeasurements


def _signals(**kw) -> ClaimMeasurements:
    return ClaimMeasurements(similarity=kw.pop("similarity", 0.9), novel_ratio=kw.pop("novel_ratio", 0.0), **kw)


def test_one_claim_is_not_corrected():
    s = _signals(missing_numbers=[(0, 4)])
    assert DEFAULT_WEIGHTS.risk(s) == DEFAULT_WEIGHTS.risk(s, claims_in_answer=1)


def test_each_claim_of_a_long_answer_needs_more_evidence_against_it():
    s = _signals(missing_numbers=[(0, 4)], novel_terms=[(0, 4)], novel_ratio=0.3)
    risks = [DEFAULT_WEIGHTS.risk(s, claims_in_answer=n) for n in (1, 2, 4, 8)]
    assert risks == sorted(risks, reverse=True)
    z1, z8 = (math.log(r / (1 - r)) for r in (risks[0], risks[3]))
    assert z1 - z8 == pytest.approx(DEFAULT_WEIGHTS.many_claims * math.log(8))


def test_a_changed_number_in_a_two_claim_answer_still_passes_the_threshold():
    # The reason the correction weight is capped at 1 (see docs/how-it-works.md).
    s = _signals(missing_numbers=[(0, 4)])
    assert DEFAULT_WEIGHTS.risk(s, claims_in_answer=2) >= 0.5


def test_wrong_arithmetic_has_its_fixed_risk_only_where_it_blocks():
    from halguard.grounding.blocking import BLOCKING_FINDINGS

    s = _signals(arithmetic_errors=[(0, 4, "2 + 2 is 4, not 5")])
    if "arithmetic_errors" in BLOCKING_FINDINGS:
        assert DEFAULT_WEIGHTS.risk(s, claims_in_answer=50) == 0.97
    else:  # unmeasured on the dev rows: a weighted signal, like a missing number
        assert DEFAULT_WEIGHTS.risk(s) == DEFAULT_WEIGHTS.risk(_signals(missing_numbers=[(0, 4)]))
        assert DEFAULT_WEIGHTS.risk(s) >= 0.5


def test_record_conflicts_raise_the_risk_and_are_capped():
    w = ScoringWeights()
    base = w.risk(_signals())
    one = w.risk(_signals(record_conflicts=[(0, 3)]))
    three = w.risk(_signals(record_conflicts=[(0, 3), (4, 6), (7, 9)]))
    two = w.risk(_signals(record_conflicts=[(0, 3), (4, 6)]))
    assert base < one < two == three
    assert one >= 0.5  # one asserted-but-absent feature flags a well-matched claim on its own
