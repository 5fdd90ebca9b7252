"""Bounds, hours, kinds of day and prices (issues 44 and 45), hand-written cases of `fresh_2026-12-03c`, each with its
wrong twin: a negated bound on a time or a number read as the bound and a bound turned around read as a negation
(signals/bounds_turned.py), a day given another day's opening hours (signals/prose_hours.py), working days said as
days (signals/working_days.py), a thing said free that the passages price (signals/priced_free.py), "even if" against
a passage's condition (signals/excepted.py), a condition's clause left out of a claim's plain clauses
(signals/negated_clauses.py), one sum of money in place of a copied sentence's one sum (signals/moved_numbers.py), a
list's item named in another piece of the claim, or its figure in another sentence (signals/list_items.py), "Monday
to Friday" and a day inside a range of days (signals/calendar_names.py), and "closing at 6pm" against "opens 8am to
6pm" (signals/flips.py)."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.claim_verdict import ClaimStatus
from halguard.grounding.signals.bounds_turned import bounds_turned
from halguard.grounding.signals.permission import permission_refused, requirement_denied
from halguard.grounding.signals.priced_free import free_but_priced
from halguard.grounding.signals.prose_hours import hours_agreed, prose_hours_moved
from halguard.grounding.signals.working_days import days_requalified

BULKY = ["Items must be left outside your property, at the front boundary, by 7am on the collection day, but not "
         "before 6pm the previous evening. Crews cannot enter homes or gardens. If you cancel more than two working "
         "days before the collection, you get a full refund; later cancellations are not refunded. Residents "
         "receiving Council Tax Support pay half price."]
SHOP = ["The shop does not open until 10am on Sundays.", "Patients should not take more than 8 tablets in 24 hours.",
        "Visitors must not stay longer than 2 hours."]
DENTIST = ["The practice opens 8am to 6pm Monday to Thursday, 8am to 4pm on Fridays, and 9am to 1pm on the first "
           "Saturday of each month. Emergency slots are released at 8am each weekday.",
           "If you miss an appointment or cancel with less than 24 hours' notice, you will be charged £25 for a "
           "check-up or £50 for a longer treatment."]
VET = ["Annual boosters cost £55, or are included in the Pet Health Plan at £16.50 a month. Rabbits are vaccinated "
       "once a year against myxomatosis and RHD2 for £49."]
DRIVING = ["Lessons can be booked from 7am to 8pm on weekdays and 8am to 4pm on Saturdays; there are no Sunday "
           "lessons.", "If you fail the test, you must wait at least 10 working days before you can retake it."]
BROADBAND = ["Larkspur Fibre's Home 150 package costs £29.99 a month on an 18-month contract, or £34.99 a month on a "
             "30-day rolling plan. There is a one-off set-up fee of £35 on the rolling plan; it is waived on the "
             "18-month contract."]
THEATRE = ["Concessions of £6 off are available to over-65s, full-time students and jobseekers for Monday to Thursday "
           "evening performances and all matinees, but not on Friday or Saturday evenings. Under-16s pay £12 for any "
           "seat when accompanied by an adult."]
MUSEUM = ["Members get unlimited free entry to all paid exhibitions, 10% off in the shop and café.",
          "Refunds are available within 14 days of joining if the card has not been used. Planetarium shows are not "
          "included in membership and cost members £4."]
TOURS = ["Guided tours cost £5. Members go free."]
WARDS = ["Children under 12 may visit only when accompanied by an adult, and are not permitted on Ward 9 (Oncology).",
         "Dogs are not allowed in the café, but they can sit with you on the terrace."]
BANDS = ["NHS patients pay £26.80 for a Band 1 course of treatment, which covers an examination. Band 2, which adds "
         "fillings, root canal work or extractions, costs £73.50."]


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier(num_threads=1)


@pytest.mark.parametrize(("answer", "passages", "label", "contradiction"), [
    # a negated bound states the bound: said in other words, it is the passage's
    ("Items must not be left out before 6pm the previous evening.", BULKY, "supported", False),
    ("Items can't go out until 6pm the previous evening.", BULKY, "supported", False),
    ("On Sundays the shop opens at 10am.", SHOP, "supported", False),
    ("You shouldn't take any more than 8 tablets in 24 hours.", SHOP, "supported", False),
    ("Visitors can't stay for longer than 2 hours.", SHOP, "supported", False),
    # the bound turned around is still the negation's finding
    ("You can put items out before 6pm the previous evening.", BULKY, "hallucinated", True),
    ("The shop opens before 10am on Sundays.", SHOP, "hallucinated", True),
    ("You can take more than 8 tablets in 24 hours.", SHOP, "hallucinated", True),
    ("Visitors can stay longer than 2 hours.", SHOP, "hallucinated", True),
])
def test_a_negated_bound_is_the_bound(verifier, answer, passages, label, contradiction):
    verdict = verifier.verify(answer, passages)
    assert verdict.label == label, answer
    assert any(c.status is ClaimStatus.CONTRADICTION for c in verdict.claims) is contradiction, answer


def test_bounds_turned_reads_kind_and_number():
    assert bounds_turned("You can come after 6pm.", "You must not come after 6pm.")
    assert bounds_turned("Not later than 9am.", "It arrives later than 9 am.")
    assert not bounds_turned("You can come after 6pm.", "You must not come before 6pm.")  # another kind of bound
    assert not bounds_turned("You can come after 7pm.", "You must not come after 6pm.")  # another number


@pytest.mark.parametrize(("answer", "passages", "label"), [
    # a day's own hours, and another day's
    ("The practice is open 8am to 4pm on Fridays.", DENTIST, "supported"),
    ("On Fridays the practice is open from 8am to 6pm.", DENTIST, "hallucinated"),
    ("On Wednesdays the practice is open from 8am to 6pm.", DENTIST, "supported"),  # inside "Monday to Thursday"
    ("On Wednesdays the practice is open from 8am to 4pm.", DENTIST, "hallucinated"),
    ("You can book lessons between 7am and 8pm Monday to Friday or between 8am and 4pm on a Saturday.", DRIVING,
     "supported"),  # "Monday to Friday" is the passage's "weekdays"
])
def test_hours_of_a_day(verifier, answer, passages, label):
    assert verifier.verify(answer, passages).label == label, answer


SATURDAYS = ["The practice opens 8am to 6pm Monday to Thursday, 8am to 4pm on Fridays, and 9am to 1pm on the first "
             "Saturday of each month."]


@pytest.mark.parametrize(("answer", "label", "contradiction"), [
    # a frame read the sentence's first range as the verb's: the day's own hours are no number moved
    ("The practice opens 9am to 1pm on the first Saturday of each month.", "supported", False),
    ("The practice opens 10am to 1pm on the first Saturday of each month.", "hallucinated", True),
])
def test_a_days_own_hours_are_no_moved_number(verifier, answer, label, contradiction):
    verdict = verifier.verify(answer, SATURDAYS)
    assert verdict.label == label
    assert any(c.status is ClaimStatus.CONTRADICTION for c in verdict.claims) is contradiction


def test_prose_hours_read_only_the_days_a_sentence_names():
    assert prose_hours_moved("On Fridays the practice opens at 8am and closes at 6pm.", DENTIST)
    assert hours_agreed("The practice is open 8am to 4pm on Fridays.", DENTIST)
    # Sunday is named nowhere: no week of the passage to compare it with (the missing names' to read)
    assert prose_hours_moved("On Sundays the practice is open from 8am to 6pm.", DENTIST) == []
    # times without their half of the day make no week
    assert prose_hours_moved("On Fridays it is open 8 to 6.", ["It opens 8 to 4 on Fridays."]) == []


def test_closing_time_of_a_range_is_no_antonym(verifier):
    answer = "The practice opens at 8am every weekday, closing at 6pm Monday to Thursday and 4pm on Fridays."
    assert not verifier.verify(answer, DENTIST).claims[0].signals.antonym_flips


@pytest.mark.parametrize(("answer", "passages", "label"), [
    # working days said as days
    ("You'll have to wait at least 10 working days before you can retake the test.", DRIVING, "supported"),
    ("You'll have to wait at least 10 days before you can retake the test.", DRIVING, "hallucinated"),
    # a figure of one sentence's list, another's one sum of money
    ("If you miss a check-up or cancel with less than 24 hours' notice, you'll be charged £25.", DENTIST,
     "supported"),
    ("If you miss a check-up or cancel with less than 24 hours' notice, you'll be charged £50.", DENTIST,
     "hallucinated"),
    ("Rabbits are vaccinated once a year against myxomatosis and RHD2, which costs £49.", VET, "supported"),
    ("Rabbits are vaccinated once a year against myxomatosis and RHD2, which costs £55.", VET, "hallucinated"),
    # the £35 of its own sentence, not the list of monthly prices
    ("The £35 one-off set-up fee is waived on the 18-month contract.", BROADBAND, "supported"),
])
def test_figures_and_kinds_of_day(verifier, answer, passages, label):
    assert verifier.verify(answer, passages).label == label, answer


@pytest.mark.parametrize(("answer", "contradiction"), [
    # a modal's permission where the passage refuses the thing it names
    ("Children under 12 can visit Ward 9 as long as they come with an adult.", True),
    ("Dogs are allowed in the café.", True),
    # granted what the passage grants; refused as the passage refuses
    ("Children under 12 can visit when accompanied by an adult.", False),
    ("Dogs can sit with you on the terrace.", False),
    ("Dogs can't come into the café.", False),
])
def test_permission_refused(verifier, answer, contradiction):
    statuses = [c.status for c in verifier.verify(answer, WARDS).claims]
    assert (ClaimStatus.CONTRADICTION in statuses) is contradiction, answer


def test_permission_needs_the_refused_thing():
    assert permission_refused("You can bring your dog into the café.", WARDS[1])
    assert not permission_refused("You can bring your dog onto the terrace.", WARDS[1])
    assert not permission_refused("If you can, bring your dog into the café.", WARDS[1])  # a condition grants nothing


ROUTER = ["You can cancel within 14 days of your service going live without paying anything, as long as you return "
          "the router."]


@pytest.mark.parametrize(("answer", "denied"), [
    ("You don't need to send the router back.", True),
    ("There's no need to return the router.", True),
    ("You don't have to pay for the router.", False),  # a price: the price checks' to read
    ("You don't need to ring us first.", False),  # nothing the passage requires
    ("You need to send the router back.", False),
])
def test_requirement_denied(answer, denied):
    assert requirement_denied(answer, ROUTER[0]) is denied, answer


def test_a_requirement_the_passage_denies_is_none(verifier):
    # RAGTruth's review: "no need to dress to impress" is the passage's own denial, not a requirement
    passages = ["Nice outdoor patio, pool, and a laid back atmosphere, this is the local neighborhood bar no need to "
                "dress to impress everyone is casual."]
    assert not requirement_denied("There is no need to dress to impress.", passages[0])
    claim = verifier.verify("The bar has a laid-back atmosphere and there is no need to dress to impress.", passages)
    assert all(c.status is not ClaimStatus.CONTRADICTION for c in claim.claims)


def test_one_sum_of_another_labelled_sentence_is_no_moved_number(verifier):
    # "Band 2 ... £73.50" is its own sentence's sum, though the Band 1 sentence shares more of its words
    said = verifier.verify("A Band 2 course of NHS treatment costs £73.50 and covers fillings.", BANDS)
    assert not said.claims[0].signals.role_conflicts


def test_working_days_reason():
    (found,) = days_requalified("Wait at least 10 days.", DRIVING)
    assert "10 working days" in found[2]
    assert days_requalified("Refunds within 14 working days.", ["Refunds are made within 14 days."])
    assert days_requalified("Refunds within 14 business days.", ["Refunds within 14 working days."]) == []


@pytest.mark.parametrize(("answer", "passages", "label"), [
    # "even if" against the passage's condition on the same words
    ("Under-16s can sit in any seat for £12 if they come with an adult.", THEATRE, "supported"),
    ("Under-16s can sit in any seat for £12, even if they come without an adult.", THEATRE, "hallucinated"),
    ("You can get a refund within 14 days of joining, as long as you haven't used your card.", MUSEUM, "supported"),
    ("You can get a refund within 14 days of joining, even if you've already used your card.", MUSEUM,
     "hallucinated"),
    # a condition's clause asserts nothing, the claim's other clause states a negated one plainly
    ("You'll get a full refund if you cancel more than two working days before the collection, and later "
     "cancellations are not refunded.", BULKY, "supported"),
    ("You'll get a full refund if you cancel more than two working days before the collection, and later "
     "cancellations are refunded at half price.", BULKY, "hallucinated"),
])
def test_conditions(verifier, answer, passages, label):
    assert verifier.verify(answer, passages).label == label, answer


def test_only_before_both_items_of_a_list(verifier):
    # "only" before the list's two items ("Friday and Saturday evening" says "Friday or Saturday evenings")
    both = "Full-time students get £6 off at all matinees; only the Friday and Saturday evening shows are excluded."
    assert not verifier.verify(both, THEATRE).claims[0].signals.role_conflicts
    one = "Full-time students get £6 off at all matinees, but only on Friday evenings."
    assert verifier.verify(one, THEATRE).claims[0].signals.role_conflicts


@pytest.mark.parametrize(("answer", "passages", "priced"), [
    ("Yes, members get into the Planetarium shows free along with all the paid exhibitions.", MUSEUM, True),
    ("Members get into all the paid exhibitions free.", MUSEUM, False),
    ("Planetarium shows are not free for members.", MUSEUM, False),  # negated: the passage's
    ("Guided tours are free.", TOURS, True),
    ("Guided tours are free for members.", TOURS, False),  # the passage's "Members go free"
])
def test_free_but_priced(answer, passages, priced):
    assert bool(free_but_priced(answer, passages)) is priced, answer


def test_crafted_bounds_and_prices_read_in_bounded_time():
    passages = ["Not before 6pm, not after 7pm, no more than 8. " * 2000, "X costs £4 and Y is free. " * 2000]
    claim = "You can come before 6pm and after 7pm and take more than 8, free of charge, free, free. " * 200
    times = []
    for size in (1, 4):
        t0 = time.perf_counter()
        bounds_turned(claim * size, passages[0] * size)
        free_but_priced(claim * size, [p * size for p in passages])
        days_requalified(claim * size, passages)
        times.append(time.perf_counter() - t0)
    assert times[1] < 4 * max(times[0], 0.05) + 1.0  # bounded reads: no growth past the caps
