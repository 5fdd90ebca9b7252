"""Shares, factors and counts said otherwise (the twenty-fifth session's fresh file and probes): an ordinal after a
number ("three hundred and ten ninth-graders" was read as 310/9), "one in five" for "20%", "a quarter of a million" for
250,000, the remaining share of a whole ("58% ... the remaining 42%"), a difference said with "off" ("shaving 2.6
seconds off"), "doubled from 125,000 to 250,000" where the passage says "twice", the unit of a span the claim reckons
("for three and a half years" of "from January 2021 to June 2024"), and "the least common" where the passage says
"the most common". Each faithful form passes; the same form with a wrong value does not."""

from __future__ import annotations

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.antonyms import antonym_flips
from halguard.text.derived import own_reckoning
from halguard.text.lexical import number_mentions
from tests.test_quantities import _missing

MERGER = "Nordvik shareholders will own 58% of the new firm, and Hollin shareholders own the rest."
STARTUP = "Startup time on Linux dropped from 4.2 seconds to 1.6 seconds in internal benchmarks."
TRIAL = "The most common side effect was nausea, reported by 9% of those on the drug versus 4% on placebo."
SURVEY = "The survey found that 48% of residents support the plan, while 20% oppose it and 25% are undecided."
SALES = "Sales reached 250,000 units in 2025, twice the 125,000 sold in 2024."
PERIOD = "The company misclassified the workers as independent contractors between January 2021 and June 2024."


@pytest.mark.parametrize(("text", "number"), [
    ("a pilot with three hundred and ten ninth-graders", ("three hundred and ten", 310.0)),
    ("one in five residents", ("one in five", 0.2)),
    ("1 in 4 adults", ("1 in 4", 0.25)),
    ("a quarter of a million units", ("a quarter of a million", 250_000.0)),
    ("two thirds of voters", ("two thirds", 0.666667)),
    ("one fifth of the budget", ("one fifth", 0.2)),
])
def test_an_ordinal_after_a_number_is_no_share(text, number):
    assert [(text[m.start:m.end], m.value) for m in number_mentions(text)] == [number]


@pytest.mark.parametrize("text", ["a third-party app", "the fifth-generation jet"])
def test_an_ordinal_in_a_compound_is_no_number(text):
    assert number_mentions(text) == []


def test_a_difference_said_with_off_is_not_missing():
    assert _missing("Startup fell from 4.2 seconds to 1.6, shaving 2.6 seconds off.", STARTUP) == []
    assert _missing("Startup fell from 4.2 seconds to 1.6, shaving 2.4 seconds off.", STARTUP) == ["2.4"]


def test_the_remaining_share_of_a_whole_is_the_claim_s_own_reckoning():
    assert own_reckoning("Nordvik holds 58% of the firm and Hollin the remaining 42%.") == {42.0}
    assert own_reckoning("Nordvik holds 58% of the firm and Hollin the remaining 40%.") == set()
    assert own_reckoning("Nordvik holds 58% of the firm and Hollin 42%.") == set()  # no cue: a fact to find


def test_last_year_is_the_year_before_not_the_opposite_of_first():
    assert not antonym_flips("Earnings grew, compared to a loss last year.", "Earnings grew in the first quarter.")
    assert antonym_flips("It was the last album of the band.", "It was the first album of the band.")


def test_a_fused_claim_s_clause_is_read_against_its_other_evidence_chunks(verifier):
    # the best chunk is the trial's first sentences; "The most common side effect was nausea" is in another
    passage = ('A phase 2 trial of the experimental migraine drug velorantib, run by Halcyon Therapeutics at 22 '
               'sites in Canada and Germany, enrolled 640 adults with chronic migraine. Participants taking the 50 '
               'mg daily dose had an average of 4.1 fewer migraine days per month after 12 weeks, compared with 2.3 '
               'fewer days in the placebo group. The most common side effect was nausea, reported by 9% of those on '
               'the drug versus 4% on placebo. Results were presented in Lisbon in June 2026.')
    answer = ("In the trial of 640 adults with chronic migraine, nausea was the least common side effect, reported by "
              "9% of patients on velorantib compared with 4% on placebo.")
    verdict = verifier.verify(answer, [passage])
    assert verdict.label == "hallucinated"
    assert any("the opposite of the closest evidence: least" in why for c in verdict.claims for why in c.reasons)
    faithful = answer.replace("least common", "most common")
    assert verifier.verify(faithful, [passage]).label == "supported"


def test_most_and_least_are_opposites_but_at_least_is_a_bound():
    assert antonym_flips("Nausea was the least common side effect.", TRIAL)
    assert not antonym_flips("At least 9% of those on the drug reported nausea.", TRIAL)
    assert not antonym_flips("Nausea was the most common side effect.", TRIAL)


def test_a_count_of_a_count_is_no_share_before_a_time_unit_or_over_a_year():
    assert [m.value for m in number_mentions("scored 2 in 10 minutes")] == [2.0, 10.0]
    assert [m.value for m in number_mentions("sold 5 in 2025")] == [5.0, 2025.0]
    assert [m.value for m in number_mentions("rated 4 out of 5 stars")] == [4.0, 5.0]  # a rating on its scale


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier()


@pytest.mark.parametrize(("answer", "passage", "faithful"), [
    ("Nordvik shareholders will own 58% of the new firm and Hollin shareholders the remaining 42%.", MERGER, True),
    ("Nordvik shareholders will own 58% of the new firm and Hollin shareholders the remaining 40%.", MERGER, False),
    ("Startup time on Linux dropped from 4.2 seconds to 1.6 seconds, cutting 2.6 seconds off.", STARTUP, True),
    ("Startup time on Linux dropped from 4.2 seconds to 1.6 seconds, cutting 2.4 seconds off.", STARTUP, False),
    ("The least common side effect was nausea, reported by 9% of those on the drug versus 4% on placebo.", TRIAL,
     False),
    ("Roughly half of residents support the plan, while one in five oppose it.", SURVEY, True),
    ("Roughly half of residents support the plan, while one in three oppose it.", SURVEY, False),
    ("Sales doubled from 125,000 units in 2024 to 250,000 in 2025.", SALES, True),
    ("Sales tripled from 125,000 units in 2024 to 250,000 in 2025.", SALES, False),
    ("Sales reached a quarter of a million units in 2025.", SALES, True),
    ("Sales reached a third of a million units in 2025.", SALES, False),
    ("For three and a half years, the company misclassified the workers as independent contractors.", PERIOD, True),
    ("For four and a half years, the company misclassified the workers as independent contractors.", PERIOD, False),
])
def test_the_verdicts(verifier, answer, passage, faithful):
    assert (verifier.verify(answer, [passage]).label == "supported") is faithful
