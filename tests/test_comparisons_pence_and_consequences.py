"""A comparison its own numbers deny ("61%, slightly below the national average of 48%": signals/compared.py), pence
joined to the number ("10p" is "£0.10"), a fraction joined to its unit ("a half-hour appointment" is 30 minutes),
"free of charge" read as "free" (no flip either way), a consequence the claim reckons from its own numbers ("30%
comes off, so ... £47.60" of £68), a day moved between the propositions of one sentence and "any" said of a group the
passage restricts ("permitted on any plot" against "on full plots only"): hand-written cases of `fresh_2026-12-02c`
(issues 44 and 45), each with its wrong twin."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.compared import comparison_errors
from halguard.grounding.signals.negation import negation_mismatch
from halguard.grounding.signals.widened import widened_scopes
from halguard.text.currency import cent_values
from halguard.text.lexical import term_set
from halguard.text.quantities import quantities
from halguard.text.rates import rates
from halguard.text.stated_reckoning import stated_reckoning

BIKES = ("Wheelwise recorded 612,000 trips in its first year. Canal Street was the busiest station with 41,300 trips. "
         "Nineteen bikes were stolen, against the 30 the council had budgeted for. A standard bike costs £1 to unlock "
         "plus 10p per minute.")


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier(num_threads=1)


@pytest.mark.parametrize(("text", "wrong"), [
    ("The pass rate in 2025 was 61%, slightly below the national average of 48%.", ["61% is not below 48%"]),
    ("The pass rate in 2025 was 41%, slightly below the national average of 48%.", []),
    ("Thefts totalled 19 bikes, more than the 30 the council had budgeted for.", ["19 is not more than 30"]),
    ("Thefts totalled 19 bikes, fewer than the 30 the council had budgeted for.", []),
    ("Attendance was 36 in autumn, up from 39 in spring.", ["36 is not up from 39"]),
    ("Attendance was 46 in autumn, up from 39 in spring.", []),
    ("It took 90 minutes, more than the 2 hours planned.", ["90 is not more than 2"]),  # 5,400 s against 7,200 s
    ("It took 150 minutes, more than the 2 hours planned.", []),
    ("The club has 300 members, more than 200 of whom are juniors.", []),  # a bound, no comparison
    ("Sales reached 5 million, more than double the 2 million of 2019.", []),  # a multiple
    ("She finished 3rd, below the 2nd-placed runner.", []),  # ordinals
    ("It cost £1.2m, more than the £900,000 budgeted.", []),  # scales applied
    ("The rate was 61%, below the 48 points of the index.", []),  # a percentage against a plain number
    ("In 2019, below the 2021 level of 5.", []),  # years
    ("It costs £6 a month, more than the £60 a year of the old plan.", []),  # rates of two periods
    ("It costs £9 a month, less than the £8 a month of the old plan.", ["9 is not less than 8"]),
])
def test_a_comparison_its_own_numbers_deny(text, wrong):
    assert [why for _, _, why in comparison_errors(text)] == wrong


def test_comparisons_are_bounded_on_crafted_text():
    text = "1 " + "a" * 50_000 + ", more than " + "b " * 50_000 + "2 " + "3, above the 4 " * 2_000
    t0 = time.perf_counter()
    comparison_errors(text)
    assert time.perf_counter() - t0 < 5.0


@pytest.mark.parametrize(("text", "values"), [
    ("plus 10p per minute", {0.1}),
    ("costs 99¢", {0.99}),
    ("opens at 10p.m.", set()),
    ("opens at 10pm", set()),
    ("52 cents", {0.52}),
])
def test_pence_joined_to_the_number(text, values):
    assert cent_values(text) == values


def test_a_fraction_joined_to_its_unit_is_a_duration():
    [half, price] = quantities("A half-hour second-opinion appointment is £85.")
    assert (half.dimension, half.base) == ("time", 1800.0)
    assert price.value == 85.0
    assert quantities("a half-price ticket")[0].dimension == "percent"  # "price" is no unit


@pytest.mark.parametrize(("claim", "evidence", "flipped"), [
    # "there's no charge" says the passage's "free of charge": no flip
    ("If you cancel 48 hours before the lesson there is no charge.",
     "Lessons can be cancelled free of charge up to 48 hours before the start time.", False),
    # the claim's "free of charge" says "free": no denial of a charge the passage gives for something else
    ("Children under five travel free of charge on the ferry.",
     "Children under five travel on the ferry; a charge of £2 applies to bikes.", False),
    # and "free of charge" on both sides hides no other flip ("to stop taking" against "not to stop taking")
    ("Patients are advised to stop taking the affected tablets and contact their pharmacist, who can exchange them "
     "free of charge.", "Patients are advised not to stop taking their medication but to contact their pharmacist, "
     "who can exchange the tablets free of charge.", True),
])
def test_free_of_charge_is_said_not_denied(claim, evidence, flipped):
    assert negation_mismatch(claim, evidence, term_set(claim), term_set(evidence), 0.3) is flipped


@pytest.mark.parametrize(("claim", "flipped"), [
    # "Sundays are off" says the passage's "no Sunday lessons"
    ("Weekday lessons are available between 7am and 8pm and Saturday ones between 8am and 5pm, while Sundays are "
     "off.", False),
    ("Lessons run from 7:00am to 8:00pm on weekdays and 8:00am to 5:00pm on Saturdays and Sundays.", True),
])
def test_a_state_of_absence_says_the_passages_no(claim, flipped):
    evidence = ("Lessons run from 7:00am to 8:00pm on weekdays and 8:00am to 5:00pm on Saturdays, with no Sunday "
                "lessons.")
    assert negation_mismatch(claim, evidence, term_set(claim), term_set(evidence), 0.3) is flipped


@pytest.mark.parametrize(("text", "reckoned"), [
    ("A full plot is £68 a year; 30% comes off, so a full plot would cost you £47.60.", {47.6}),
    ("A full plot is £68 a year; 30% comes off, so a full plot would cost you £45.60.", set()),
    ("Prepaying for ten hours costs £390, effectively £39 an hour.", {39.0}),
    ("Prepaying for ten hours costs £390, effectively £37 an hour.", set()),
    ("Prepaying for ten hours costs £390. It has £39 lessons.", set()),  # no consequence's cue
])
def test_a_consequence_the_claim_reckons(text, reckoned):
    assert stated_reckoning(text) == reckoned


def test_answers_read_end_to_end(verifier):
    checks = [
        ("A standard bike is £1 to unlock and then £0.10 a minute.", "supported"),
        ("A standard bike is £1 to unlock and then £0.20 a minute.", "hallucinated"),
        ("Canal Street was the busiest station with 41,300 trips. Nineteen bikes were stolen, fewer than the 30 the "
         "council had budgeted for.", "supported"),
        ("Canal Street was the busiest station with 41,300 trips. Nineteen bikes were stolen, more than the 30 the "
         "council had budgeted for.", "hallucinated"),
    ]
    for answer, label in checks:
        assert verifier.verify(answer, [BIKES]).label == label, answer


POOL = ("Lane swimming runs from 6:30am to 9:00am on weekdays and from 8:00am to 11:00am on Saturdays; the pool is "
        "closed to lane swimmers on Sundays, when it is reserved for family sessions between 10:00am and 4:00pm.")


@pytest.mark.parametrize(("answer", "moved"), [
    # a copy of the sentence's second proposition with the first one's day in it: a name moved
    ("The pool is closed to lane swimmers on Saturdays, when it is reserved for family sessions between 10:00am and "
     "4:00pm.", True),
    ("The pool is closed to lane swimmers on Sundays, when it is reserved for family sessions between 10:00am and "
     "4:00pm.", False),
    ("Lane swimming runs from 8:00am to 11:00am on Saturdays.", False),
])
def test_a_day_moved_between_the_propositions_of_one_sentence(verifier, answer, moved):
    [claim] = verifier.verify(answer, [POOL]).claims
    assert bool(claim.signals.role_conflicts) is moved


HENS = ("A full plot measures 250 square metres and costs £68 a year. Keeping hens is permitted on full plots only, up "
        "to a maximum of six birds, but cockerels are banned.")


@pytest.mark.parametrize(("claim", "widened"), [
    ("Keeping hens is permitted on any plot, full or half, up to a maximum of six birds.", True),
    ("Keeping hens is permitted on full plots only, up to six birds.", False),
    ("Keeping hens is not permitted on any plot.", False),  # a negated "any" says no universal
    ("If any plot keeps hens, six birds is the maximum.", False),  # nor a condition's
    ("Is keeping hens permitted on any plot?", False),  # nor a question's
])
def test_any_said_of_a_group_the_passage_restricts(claim, widened):
    assert bool(widened_scopes(claim, [HENS])) is widened


VET = ("Membership includes one annual booster vaccination, two health checks a year, monthly flea and worming "
       "treatment, and 10% off all other treatments except referrals and insurance-funded work.")


def test_a_number_is_the_rate_of_its_first_period():
    assert [(r.value, r.period) for r in rates("health checks twice a year and monthly flea treatment")] == [
        (2.0, "year")]
    assert [(r.value, r.period) for r in rates("It costs 70 dollars a year, paid 12 times a year.")] == [
        (70.0, "year"), (12.0, "year")]
    # a period chained to the first is the number's too
    assert [(r.value, r.period) for r in rates("a maximum of 2 hours per day per person")] == [
        (2.0, "day"), (2.0, "person")]


def test_twice_a_year_said_of_two_a_year(verifier):
    right = verifier.verify("It includes a yearly booster, health checks twice a year and monthly flea and worm "
                            "treatment.", [VET])
    assert right.claims[0].status.value != "CONTRADICTION" and not right.claims[0].signals.changed_numbers
    wrong = verifier.verify("It includes a yearly booster, health checks twice a month and monthly flea and worm "
                            "treatment.", [VET])
    assert wrong.label == "hallucinated"


def test_the_passages_own_any_is_no_widening():
    source = ("Remove any remaining nail polish remover residue with a cloth that has been dipped in a solution of "
              "warm water and dish soap, then rinse the coils with water.")
    assert widened_scopes("Remove any remaining residue with a cloth dipped in a solution of warm water and dish "
                          "soap.", [source]) == []
