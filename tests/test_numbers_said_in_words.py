"""Numbers a grounded answer says in its own words (the thirty-third session's fresh paraphrases): "half a dozen" for
"six", a duration written in two units, a total the answer adds up itself, "all but six" of 85 and 79, and a negated
bound ("shouldn't go over six") for the passage's "no more than six". Each faithful form passes; the same form with a
wrong number does not."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.negation import flip_targets
from halguard.text.derived import own_reckoning, reckoning_spans
from halguard.text.number_words import word_numbers
from halguard.text.quantities import quantities
from tests.test_quantities import _missing

DOSE = ("Adults and children over 12 may take one or two tablets every four to six hours, with no more than six "
        "tablets in 24 hours.")
FINAL = ("Second seed Mira Kovalenko won the Halden Open on Sunday, defeating unseeded Ana Duarte 6-3, 4-6, 7-5 in a "
         "final lasting two hours and 41 minutes.")
FARES = ("A return ticket costs 90 kroner for adults and 45 kroner for children under 16; bicycles travel for an "
         "extra 20 kroner.")
PILOT = "In a pilot involving 85 patients, 79 went home on the day of surgery."


@pytest.mark.parametrize(("text", "value"), [
    ("half a dozen tablets", 6.0), ("half a million people", 500_000.0), ("half the seats", 0.5),
    ("three and a half hours", 3.5),
])
def test_half_of_a_dozen_or_a_scale_is_one_number(text, value):
    assert word_numbers(text)[0].value == value


def test_a_duration_in_two_units_is_also_read_as_one():
    read = {FINAL[q.start:q.end]: q.base for q in quantities(FINAL)}
    assert read["two hours and 41 minutes"] == 2 * 3600 + 41 * 60
    assert read["two hours"] == 7200  # the parts stay
    # the smaller unit first, or a bounded second part, is no one duration
    assert {"2 minutes and 3 hours"}.isdisjoint("2 minutes and 3 hours"[q.start:q.end]
                                                 for q in quantities("2 minutes and 3 hours"))
    assert len(quantities("2 hours and about 40 minutes")) == 2


@pytest.mark.parametrize(("claim", "passage"), [
    ("An adult shouldn't go over half a dozen tablets in any 24-hour period.", DOSE),
    ("Kovalenko beat Duarte in a final that went on for more than two and a half hours.", FINAL),
    ("Kovalenko beat Duarte in a final that lasted 161 minutes.", FINAL),
    ("Of the 85 patients in the pilot, all but six went home on the day of surgery.", PILOT),
])
def test_a_number_said_in_other_words_is_not_missing(claim, passage):
    assert _missing(claim, passage) == []


@pytest.mark.parametrize(("claim", "passage"), [
    ("An adult shouldn't go over half a dozen tablets in any 10-hour period.", DOSE),
    # (a passage without the score: its "6-3" gives a 3)
    ("Kovalenko beat Duarte in a final that went on for more than three hours.", FINAL.replace(" 6-3, 4-6, 7-5", "")),
    ("Kovalenko beat Duarte in a final that lasted 151 minutes.", FINAL),
    ("Of the 85 patients in the pilot, all but seven went home on the day of surgery.", PILOT),
])
def test_the_same_words_with_a_wrong_number_stay_missing(claim, passage):
    assert _missing(claim, passage) != []


@pytest.mark.parametrize(("claim", "reckoned", "words"), [
    ("It would come to 110 kroner altogether: 90 kroner for the ticket plus 20 kroner for the bike.", {110.0},
     ["come to", "altogether", "plus"]),
    ("That is £45 in total, £30 and £15.", {45.0}, ["in total"]),
    # a wrong total is no reckoning (its number is missing); its words are still the total's
    ("It would come to 120 kroner altogether: 90 kroner for the ticket plus 20 kroner for the bike.", set(),
     ["come to", "altogether", "plus"]),
    # "plus" is no reckoning's word without a total
    ("The suite has a balcony plus a kitchen.", set(), []),
])
def test_a_total_the_claim_adds_up_is_its_reckoning(claim, reckoned, words):
    assert own_reckoning(claim) == reckoned
    assert sorted(claim[s:e] for s, e in reckoning_spans(claim)) == sorted(words)


@pytest.mark.parametrize(("text", "negated"), [
    ("An adult shouldn't go over six tablets in any 24-hour period.", set()),
    ("You must not take more than six tablets.", set()),
    ("Speeds must not exceed 40 mph.", set()),
    # without a number after it the words are a proposition's
    ("He did not go over the bridge.", {"bridg"}),
    ("It was not the first time.", {"first"}),
])
def test_a_negated_bound_before_a_number_negates_no_word(text, negated):
    assert flip_targets(text) == negated


def test_the_verifier_passes_these_paraphrases_and_flags_their_wrong_twins():
    verifier = LocalVerifier()
    faithful = [
        ("An adult shouldn't go over six tablets in any 24-hour period.", DOSE),
        ("It would come to 110 kroner altogether: 90 kroner for the adult return ticket plus 20 kroner for the bike.",
         FARES),
        ("Second seed Mira Kovalenko beat unseeded Ana Duarte 6-3, 4-6, 7-5 in a final that lasted 161 minutes.",
         FINAL),
    ]
    wrong = [
        ("An adult shouldn't go over eight tablets in any 24-hour period.", DOSE),
        ("It would come to 120 kroner altogether: 90 kroner for the adult return ticket plus 20 kroner for the bike.",
         FARES),
        ("Second seed Mira Kovalenko beat unseeded Ana Duarte 6-3, 4-6, 7-5 in a final that lasted 171 minutes.",
         FINAL),
    ]
    assert [verifier.verify(a, [p]).label for a, p in faithful] == ["supported"] * 3
    assert [verifier.verify(a, [p]).label for a, p in wrong] == ["hallucinated"] * 3


def test_crafted_runs_of_durations_and_negations_are_read_in_bounded_time():
    text = "1 hour and 2 minutes, " * 3000 + "not go over " * 3000 + "an hour and a half, " * 3000 \
        + "nine per cent " * 3000 + "an " * 10000
    started = time.perf_counter()
    quantities(text)
    flip_targets(text)
    own_reckoning(text)
    assert time.perf_counter() - started < 5.0


@pytest.mark.parametrize(("claim", "passage", "faithful"), [
    # a fraction of one unit is that share of the unit, not a percentage
    ("Conservators will spend roughly half a year cleaning the painting.",
     "Conservators will spend about six months cleaning the canvas.", True),
    ("Conservators will spend roughly half a year cleaning the painting.",
     "Conservators will spend about four months cleaning the canvas.", False),
    # "under a 20-year agreement": the article makes "20-year" a modifier, no bound ("under a million" is one)
    ("The cooperative has agreed to buy the plant's electricity for two decades.",
     "Output will be sold to the cooperative under a 20-year power purchase agreement.", True),
    ("The cooperative has agreed to buy the plant's electricity for three decades.",
     "Output will be sold to the cooperative under a 20-year power purchase agreement.", False),
])
def test_a_measure_written_in_words_is_read_as_one(claim, passage, faithful):
    assert (_missing(claim, passage) == []) is faithful


@pytest.mark.parametrize(("claim", "reckoned"), [
    ("The council approved a $48.2 million budget, $2.8 million less than the $51 million the mayor asked for.",
     {2_800_000.0}),
    ("At $12.5 million, the grant is $4.5 million more than the $8 million Marston College received.", {4_500_000.0}),
    # the word says which way: 48.2 is not 2.8 more than 51
    ("The council approved a $48.2 million budget, $2.8 million more than the $51 million the mayor asked for.",
     set()),
    # a gap no third number of the claim gives is a fact to find
    ("The grant is $4.5 million more than the $8 million Marston College received.", set()),
])
def test_a_gap_the_claim_states_between_its_own_numbers_is_its_reckoning(claim, reckoned):
    assert own_reckoning(claim) == reckoned


HOTEL = ("Parking costs €18 per night, and breakfast is an extra €12 per person. The spa session lasts one hour and 15 "
         "minutes.")


@pytest.mark.parametrize(("claim", "faithful"), [
    # a total of two numbers of one passage sentence, as a cue of a total asks; its words are the total's
    ("One night's parking plus breakfast for one person comes to €30 in total.", True),
    ("One night's parking plus breakfast for one person comes to €36 in total.", False),
    # "one" before a unit is one of it, so "one hour and 15 minutes" is 75 minutes
    ("A spa session runs for 75 minutes.", True),
    ("A spa session runs for 90 minutes.", False),
])
def test_a_total_of_a_passage_sentence_and_one_of_a_unit_are_read(claim, faithful):
    assert (_missing(claim, HOTEL) == []) is faithful
    words = [claim[s:e] for s, e in reckoning_spans(claim)]
    assert ("in total" in words and "plus" in words) if "total" in claim else words == []


FLIGHT = "The flight from Oslo to Bergen takes 90 minutes."
TRIAL = ("In a phase 3 trial, the oral drug tolvarex reduced the number of migraine days by an average of 4.1 days per "
         "month, compared with 2.3 days for placebo. Nausea was reported by 9% of patients on tolvarex.")


@pytest.mark.parametrize(("text", "value", "said"), [
    ("The flight takes an hour and a half.", 5400.0, "an hour and a half"),
    ("The flight takes one and a half hours.", 5400.0, "one and a half hours"),
    ("The climb takes two days and a half.", 2.5 * 86400, "two days and a half"),
    ("The flight takes about an hour and a half.", 5400.0, "an hour and a half"),
])
def test_a_unit_and_a_half_is_one_quantity(text, value, said):
    read = quantities(text)
    assert [(text[q.start:q.end], q.base) for q in read] == [(said, value)]
    assert read[0].bound == ("about" if "about" in text else None)


@pytest.mark.parametrize(("claim", "passage", "missing"), [
    ("The flight takes an hour and a half.", FLIGHT, []),
    ("The flight takes one and a half hours.", FLIGHT, []),
    ("The flight takes an hour and a half.", FLIGHT.replace("90", "60"), ["a half"]),
    ("The flight takes one and a half hours.", FLIGHT.replace("90", "100"), ["one and a half"]),
    # "one" alone is still no number; "a half" alone is still a share
    ("One of the flights takes a half of the day.", FLIGHT, ["a half"]),
])
def test_a_unit_and_a_half_is_found_by_its_value(claim, passage, missing):
    assert _missing(claim, passage) == missing


@pytest.mark.parametrize(("claim", "faithful"), [
    # "per cent" / "percent" after a number said in words are its sign, not words to look up
    ("Nausea was reported by nine per cent of patients on tolvarex.", True),
    ("Nausea was reported by nine percent of patients on tolvarex.", True),
    ("Nausea was reported by eight percent of patients on tolvarex.", False),
    # a difference after "an advantage of" is the two figures' difference
    ("Tolvarex cut migraine days by 4.1 a month against 2.3 on placebo, an advantage of 1.8 days a month.", True),
    ("Tolvarex cut migraine days by 4.1 a month against 2.3 on placebo, an advantage of 2.8 days a month.", False),
])
def test_percent_words_and_an_advantage_are_read_with_their_number(claim, faithful):
    assert (LocalVerifier().verify(claim, [TRIAL]).label == "supported") is faithful


def test_six_percent_a_year_is_a_rate_not_six_years():
    assert [q.dimension for q in quantities("Prices rose six percent a year.")] == ["percent"]


def test_the_remaining_sum_after_a_currency_sign_is_the_claims_reckoning():
    claim = ("The museum paid €2.3 million, of which the foundation covered €900,000 and the museum's budget supplied "
             "the remaining €1.4 million.")
    assert own_reckoning(claim) == {1_400_000.0}
    assert own_reckoning(claim.replace("€1.4", "€1.6")) == set()


def test_a_decimal_difference_with_a_unit_is_held_to_its_last_digit():
    # the rounding of "2.8 days" is 0.05 days (it was read in seconds: any difference of days passed)
    claim = "Tolvarex cut migraine days by 4.1 a month against 2.3 on placebo, an advantage of 2.8 days a month."
    assert _missing(claim, TRIAL) == ["2.8"]
    assert _missing(claim.replace("2.8", "1.8"), TRIAL) == []
