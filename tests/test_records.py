"""JSON records compared field by field (RAGTruth Data2txt-style contexts)."""

import json
import time

import pytest

from halguard import ClaimStatus
from halguard.grounding.signals.records import (
    absent_feature_mentions,
    absent_features,
    denied_feature_mentions,
    present_features,
    stated_feature_words,
    unknown_feature_mentions,
    unknown_features,
)

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


# A listing with every kind of value a feature can have: affirmed, absent, unknown, and the record's own words.
LISTING = json.dumps({
    "name": "Sound Garden",
    "city": "Goleta",
    "categories": "Karaoke, Music Venues, Bars",
    "hours": {"Monday": "17:0-23:0"},
    "attributes": {
        "RestaurantsTakeOut": True,
        "RestaurantsDelivery": "True",
        "WiFi": "None",
        "OutdoorSeating": None,
        "Music": "None",
        "NoiseLevel": "u'loud'",
        "HappyHour": "False",
        "BusinessParking": {"garage": None, "street": True},
    },
})


def test_stated_features_are_the_keys_whose_values_say_yes_or_no():
    words = stated_feature_words(LISTING).split()
    assert {"take", "out", "takeout", "delivery", "noise", "level", "noiselevel", "parking", "street", "happy",
            "happyhour"} <= set(words)  # "HappyHour": "False" states it: "there is no happy hour" is the record's
    for unstated in ("wifi", "outdoor", "music", "garage", "city", "name", "hours", "monday"):
        assert unstated not in words  # unknown, or a name, a place, a time: no feature the record states
    assert stated_feature_words("plain prose") == ""


def test_unknown_features_are_the_none_keys_the_record_does_not_say_otherwise():
    feats = unknown_features(LISTING)
    assert {"wi fi", "outdoor seating", "garage"} <= feats
    assert "music" not in feats  # "Music": "None" in a record whose categories are "Music Venues"
    assert "happy hour" not in feats and "take out" not in feats
    assert unknown_features("plain prose") == frozenset()


@pytest.mark.parametrize(("claim", "expected"), [
    ("It offers WiFi and outdoor seating.", ["outdoor seating", "wi fi"]),
    ("Whether it has WiFi is unknown.", []),  # says what the record says
    ("There is no WiFi.", []),
    ("Takeout and delivery are available.", []),
])
def test_claims_asserting_unknown_features(claim, expected):
    found = unknown_feature_mentions(claim, unknown_features(LISTING))
    assert sorted(phrase for _, _, phrase in found) == expected


def test_verifier_reads_a_records_keys_and_its_unknowns(verifier):
    v = verifier.verify("Sound Garden in Goleta offers takeout and delivery. It also offers free WiFi.", [LISTING])
    said, unknown = v.claims
    assert said.signals.record_unknowns == [] and not {"takeout", "delivery"} & set(said.signals.novel_terms)
    assert unknown.signals.record_unknowns == ["WiFi"]
    assert "record_unknowns" in unknown.signals.findings and "record_unknowns" not in unknown.signals.blocking
    assert unknown.status != ClaimStatus.CONTRADICTION  # the record does not say there is none
    assert any("record leaves unknown: WiFi" in r for r in unknown.reasons)
    assert unknown.score > said.score


def test_present_features_are_the_keys_whose_values_say_yes():
    feats = present_features(RECORD)
    assert {"garage", "street", "valet", "reservations", "wi fi", "classy"} <= feats  # true, and "WiFi": "free"
    assert not {"lot", "outdoor seating", "take out", "romantic"} & feats  # false, "None"
    assert "wi fi" not in present_features(json.dumps({"WiFi": "paid"}))  # a level: "no free WiFi" is no conflict
    assert present_features("plain prose") == frozenset()


@pytest.mark.parametrize(("claim", "expected"), [
    ("It does not provide WiFi or takeout.", ["take out", "wi fi"]),
    ("It offers a lot, but no valet, garage or street parking.", ["garage", "street", "valet"]),
    ("There is no WiFi, and they offer outdoor seating.", ["wi fi"]),  # a new subject ends the denial's reach
    ("It has outdoor seating and does not take reservations.", ["reservations"]),  # the feature before the cue
    ("The ambiance is casual, not trendy or upscale.", ["trendy", "upscale"]),
    ("It is not trendy as it has a casual ambiance.", ["trendy"]),
    ("The data does not mention reservations or WiFi.", []),  # what the record says, not what the business has
    ("Without reservations, walk-ins wait for an hour.", ["reservations"]),
    ("Takeout is available.", []),
    ("It offers not only takeout but also outdoor seating.", []),  # a focus, not a denial
    ("It has lot parking, not to mention free WiFi.", []),
])
def test_claims_denying_features(claim, expected):
    feats = frozenset({"take out", "wi fi", "garage", "street", "valet", "reservations", "outdoor seating", "casual",
                       "trendy", "upscale"})
    assert sorted(phrase for _, _, phrase in denied_feature_mentions(claim, feats)) == expected


def test_a_stated_feature_is_denied_only_in_the_cues_own_phrase():
    feats = frozenset({"street", "valet"})
    listed = "It does not offer validated parking, street parking is available."
    assert [p for _, _, p in denied_feature_mentions(listed, feats)] == ["street"]  # a list, for unknowns
    assert denied_feature_mentions(listed, feats, across_commas=False) == []
    assert [p for _, _, p in denied_feature_mentions("There is no valet parking.", feats, across_commas=False)
            ] == ["valet"]


def test_verifier_reports_a_denied_feature(verifier):
    record = json.dumps({"name": "Casa Blanca", "attributes": {
        "RestaurantsTakeOut": True, "WiFi": "no", "OutdoorSeating": True, "Music": None,
        "BusinessParking": {"garage": None, "street": None, "lot": True, "valet": False}}})
    v = verifier.verify("Casa Blanca has outdoor seating but does not provide WiFi or takeout.", [record])
    (claim,) = v.claims
    assert claim.status == ClaimStatus.CONTRADICTION and claim.signals.record_conflicts == ["takeout"]
    assert any("denies what the record marks there: takeout" in r for r in claim.reasons)
    v = verifier.verify("Casa Blanca has lot parking, but no valet, garage or street parking.", [record])
    (claim,) = v.claims
    assert claim.signals.record_unknowns == ["garage", "street"] and claim.status == ClaimStatus.HALLUCINATION
    assert any("denies what the record leaves unknown: garage, street" in r for r in claim.reasons)
    for faithful in ("Casa Blanca offers takeout and outdoor seating, but no WiFi or valet parking.",
                     "The listing does not say whether Casa Blanca has music."):
        (claim,) = verifier.verify(faithful, [record]).claims
        assert not claim.signals.record_conflicts and not claim.signals.record_unknowns, faithful


@pytest.mark.parametrize("claim", [
    "no wifi. " * 20_000,
    "It does not offer " + "wifi, " * 30_000,
    "no " * 40_000 + "wifi",
])
def test_denials_are_read_in_bounded_time(claim):
    start = time.perf_counter()
    denied_feature_mentions(claim, frozenset({"wi fi", "take out", "outdoor seating"}))
    assert time.perf_counter() - start < 2.0
