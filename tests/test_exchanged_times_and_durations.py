"""Two fabrications of `fresh_2026-12-01g` (issue 44) that passed, each beside the paraphrases that must: the two
races' start times exchanged (every time of day is the passage's, the pairing is not), and a duration written in two
units cut to its first ("a time limit of 6 hours" for "6 hours 30 minutes"); and a faithful answer that was flagged: the
minutes between two of the passage's times of day ("45 minutes after" of 7:30 am and 8:15 am)."""

from __future__ import annotations

import pytest

from halguard import LocalVerifier
from halguard.text.measure_phrases import duration_parts
from halguard.text.quantities import quantities

RACE = ("The full marathon starts at 7:30 am from Victoria Park, and the half marathon starts at 8:15 am from the same "
        "location. There is a course time limit of 6 hours 30 minutes for the full marathon and 3 hours 30 minutes "
        "for the half, after which roads reopen.")


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier(num_threads=1)


@pytest.mark.parametrize(("answer", "moved"), [
    ("Full-marathon runners start at 8:15 am from Victoria Park, while the half marathon starts at 7:30 am.", True),
    ("The full marathon starts at 7:30 am and the half marathon at 8:15 am, both from Victoria Park.", False),
    ("The half marathon starts at 8:15 am, 45 minutes after the full marathon's 7:30 am start.", False),
])
def test_exchanged_times_of_day_are_moved_numbers(verifier, answer, moved):
    verdict = verifier.verify(answer, [RACE])
    found = any("moved_numbers" in claim.signals.findings for claim in verdict.claims)
    assert found is moved
    assert (verdict.label == "hallucinated") is moved


def test_one_time_of_day_of_another_event_is_not_a_moved_number(verifier):
    # one time alone is no exchange: the start time a claim gives one race is read by the other findings, not this one
    verdict = verifier.verify("The full marathon starts at 8:15 am.", [RACE])
    assert all("moved_numbers" not in claim.signals.findings for claim in verdict.claims)


def test_the_parts_of_a_duration_in_two_units_are_its_parts():
    found = quantities("a time limit of 6 hours 30 minutes for the full marathon")
    parts = duration_parts(found)
    assert sorted(q.value for q in parts) == [6.0, 30.0]
    assert [q.value for q in found if q not in parts] == [6.5]
    assert duration_parts(quantities("a time limit of 6 hours")) == set()


def test_a_duration_of_one_passage_makes_no_part_of_another(verifier):
    # offsets are each source's own: the second passage's "6 hours", at the first's offsets, is a quantity of its own
    # (the first reading compared offsets across sources and flagged this faithful claim)
    first = "Full marathon: a course time limit of 6 hours 30 minutes."
    second = "Full marathon: a course time limit of 6 hours."
    claim = "The full marathon has a course time limit of 6 hours."
    assert verifier.verify(claim, [first, second]).label == "supported"
    assert verifier.verify(claim, [first]).label == "hallucinated"


@pytest.mark.parametrize(("answer", "label"), [
    ("The course time limit for the full marathon is 6 hours.", "hallucinated"),
    ("The full marathon has a course time limit of 6 hours 30 minutes.", "supported"),
    ("The course time limit for the full marathon is six and a half hours.", "supported"),
    ("The full marathon's course time limit is 390 minutes.", "supported"),
    ("The full marathon's time limit is 6 hours and 30 minutes.", "supported"),
    ("The full marathon's time limit is over 6 hours.", "supported"),
])
def test_a_duration_cut_to_its_first_unit_is_another_value(verifier, answer, label):
    assert verifier.verify(answer, [RACE]).label == label


@pytest.mark.parametrize(("answer", "label"), [
    ("The half marathon starts at 8:15 am, 45 minutes after the full marathon's 7:30 am start.", "supported"),
    ("The half marathon starts 45 minutes after the full marathon.", "supported"),
    ("The half marathon starts 30 minutes after the full marathon.", "hallucinated"),
    ("The half marathon starts two hours after the full marathon.", "hallucinated"),
    ("The half marathon starts 1 hour after the full marathon.", "hallucinated"),  # 45 minutes is no hour rounded
    ("The half marathon starts three quarters of an hour after the full marathon.", "hallucinated"),  # not read
])
def test_minutes_between_two_times_of_day_are_computed(verifier, answer, label):
    assert verifier.verify(answer, [RACE]).label == label
