"""Two things a passage tells apart by a word of their description, and the number each is given (issue 44):
"Standard plan customers receive a first response within 1 hour" where the passage gives the hour to Business plan
customers "while Standard plan customers receive a first response within 4 business hours". A number the passage
gives another thing, in the frame of the claim's own, is the finding kind ``moved_numbers``; a time of day is not
(a record's "10:30" against a review's "10am")."""

import pytest

from halguard import LocalVerifier
from halguard.grounding.roles.parse import parsed_frames
from halguard.grounding.signals.closest import ClosestSentence
from halguard.grounding.signals.excepted import exceptions_turned
from halguard.grounding.signals.moved_numbers import numbers_moved
from halguard.grounding.signals.scope import scope_of
from halguard.text.contexts import Source

SUPPORT = ("Support tickets are answered by priority. Business plan customers receive a first response within 1 "
           "hour, while Standard plan customers receive a first response within 4 business hours. Enterprise "
           "customers also get a named account manager.")
TWO_SENTENCES = ("Priority tickets get a first reply within 1 hour. Standard tickets get a first reply within 4 "
                 "business hours.")
FERRY = ("Residents of Skerry Island holding a valid Islander Card receive 40% off all foot-passenger fares, but the "
         "discount does not apply to vehicle fares.")
MARATHON = ("The full marathon starts at 7:30 am from Victoria Park, and the half marathon starts at 8:15 am from the "
            "same location.")


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier(num_threads=1)


def _claim(verifier, answer, context):
    (claim,) = verifier.verify(answer, [context], question="How fast is support?").claims
    return claim


@pytest.mark.parametrize("answer", [
    "Standard plan customers receive a first response within 1 hour.",
    "Standard plan customers receive a first response within an hour.",  # "an hour" is the quantity 1
])
def test_a_number_given_to_the_other_description_is_a_moved_number(verifier, answer):
    claim = _claim(verifier, answer, SUPPORT)
    assert "moved_numbers" in claim.signals.findings
    assert any("where the passage has a first response within 4 business hours" in why
               for why in claim.signals.role_conflicts)


@pytest.mark.parametrize("answer", [
    "Business plan customers receive a first response within 1 hour.",
    "Business plan customers receive a first response within an hour.",
    "Standard plan customers receive a first response within 4 business hours.",
    "Enterprise customers also get a named account manager.",
])
def test_each_description_with_its_own_number_is_no_conflict(verifier, answer):
    claim = _claim(verifier, answer, SUPPORT)
    assert claim.signals.role_conflicts == [] and "moved_numbers" not in claim.signals.findings


def test_an_uncontrasted_description_is_the_same_thing(verifier):
    # no frame of the passage says "new" customers get anything else: "new" narrows, it does not tell two apart
    passage = "Customers receive a first response within 1 hour."
    claim = _claim(verifier, "New customers receive a first response within 1 hour.", passage)
    assert claim.signals.role_conflicts == []


def test_a_unit_after_a_qualifier_fills_the_slot():
    scope = scope_of([Source("p0", TWO_SENTENCES)], None)

    def moved(claim):
        return [why for _, _, why in numbers_moved(claim, ClosestSentence.of(claim, TWO_SENTENCES), scope, 0.8)]

    assert moved("Standard tickets get a first reply within 1 hour.") == [
        "1 hour where the passage has 4 business hours"]
    assert moved("Standard tickets get a first reply within 4 business hours.") == []


def test_one_unit_of_time_after_a_preposition_is_the_number_one():
    (frame,) = [f for f in parsed_frames("Customers receive a reply within an hour.") if f.predicate == "receive"]
    assert 1.0 in frame.get("patient")[0].numbers
    (rate,) = [f for f in parsed_frames("Members pay $5 a day.") if f.predicate == "pay"]
    assert all(1.0 not in a.numbers for _, a in rate.slots)  # a rate's "a day" is no quantity


def test_a_discount_that_does_not_apply_said_to_include_it():
    claim = "Islander Card holders get 40% off every fare, including vehicle fares."
    (found,) = exceptions_turned(claim, [FERRY])
    assert "including vehicle fares" in found[2]
    assert exceptions_turned("Islander Card holders get 40% off foot-passenger fares, but not vehicle fares.",
                             [FERRY]) == []


def test_a_time_of_day_given_otherwise_is_no_moved_number(verifier):
    (claim,) = verifier.verify("The full marathon starts at 8:15 am from Victoria Park.", [MARATHON]).claims
    assert claim.signals.role_conflicts and "moved_numbers" not in claim.signals.findings
