"""JSON records compared field by field (RAGTruth Data2txt-style contexts)."""

import json

import pytest

from halguard import ClaimStatus
from halguard.grounding.signals.records import absent_feature_mentions, absent_features

# Trimmed from a RAGTruth Data2txt record (Yelp business listing), tests/data/README.md has the license.
RECORD = json.dumps({
    "name": "Finch & Fork",
    "address": "31 W Carrillo St",
    "city": "Santa Barbara",
    "attributes": {
        "BusinessParking": {"garage": True, "street": True, "lot": False, "valet": True},
        "RestaurantsReservations": True,
        "OutdoorSeating": False,
        "WiFi": "free",
        "RestaurantsTakeOut": "None",
        "Ambience": {"romantic": False, "intimate": False, "classy": True, "upscale": False},
    },
    "business_stars": 4.0,
})


def test_absent_features_are_read_from_the_record():
    feats = absent_features(RECORD)
    assert {"outdoor seating", "romantic", "intimate", "upscale", "lot"} <= feats
    assert "reservations" not in feats  # true
    assert "take out" not in feats  # "None" means unknown in listings, not absent
    assert "wi fi" not in feats


@pytest.mark.parametrize("text", ["plain prose, not a record", "{not json", "", "[1, 2, 3]"])
def test_non_records_have_no_absent_features(text):
    assert absent_features(text) == frozenset()


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        # Real RAGTruth Data2txt claims that annotators marked as conflicts.
        ("The ambiance is described as nice, with a classy and upscale atmosphere.", ["upscale"]),
        ("Customers can enjoy outdoor seating and free WiFi.", ["outdoor seating"]),
        ("The bakery has a cozy and intimate atmosphere.", ["intimate"]),
        # Negated mentions agree with the record.
        ("However, outdoor seating is not available.", []),
        ("There is no valet, garage, or lot parking.", []),
        ("It is classy without being romantic.", []),
        # Written as one word or hyphenated.
        ("Guests love the outdoor-seating area.", ["outdoor seating"]),
    ],
)
def test_claims_asserting_absent_features(claim, expected):
    found = absent_feature_mentions(claim, absent_features(RECORD))
    assert [phrase for _, _, phrase in found] == expected
    for start, end, phrase in found:
        assert claim[start:end].lower().replace("-", " ") == phrase


def test_verifier_reports_a_record_conflict(verifier):
    answer = "Finch & Fork is located at 31 W Carrillo St in Santa Barbara. Customers can enjoy outdoor seating."
    v = verifier.verify(answer, [RECORD])
    assert v.hallucination_detected
    claim = v.claims[1]
    assert claim.status == ClaimStatus.CONTRADICTION
    assert claim.signals.record_conflicts == ["outdoor seating"]
    assert any("record marks absent" in r for r in claim.reasons)
    assert any("outdoor seating" in s.text and "record marks this absent" in s.reason for s in v.spans)
    assert v.claims[0].signals.record_conflicts == []


def test_verifier_accepts_a_negated_record_feature(verifier):
    answer = "Finch & Fork in Santa Barbara does not offer outdoor seating."
    v = verifier.verify(answer, [RECORD])
    assert v.claims[0].signals.record_conflicts == []


def test_quoted_no_values_from_listing_exports_read_as_absent():
    record = json.dumps({"attributes": {"WiFi": "u'no'", "Alcohol": "'none'", "NoiseLevel": "u'quiet'"}})
    assert absent_features(record) == frozenset({"wi fi"})
    claim = "The cafe offers free Wi-Fi."
    assert [p for _, _, p in absent_feature_mentions(claim, absent_features(record))] == ["wi fi"]


def test_offsets_stay_exact_around_characters_that_change_length_when_lowered():
    claim = "İstanbul Café offers OUTDOOR SEATING."
    found = absent_feature_mentions(claim, frozenset({"outdoor seating"}))
    assert [claim[s:e] for s, e, _ in found] == ["OUTDOOR SEATING"]


def test_overlapping_features_keep_the_longest_match():
    found = absent_feature_mentions("They have outdoor seating.", frozenset({"outdoor seating", "seating"}))
    assert [p for _, _, p in found] == ["outdoor seating"]
