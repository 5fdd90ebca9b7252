"""The user's own numbers, prices denied in other words, a claim's own totals, negations over "or", durations said
with an article, weekdays against weekends and days denied outside the passages' ranges (issues 44 and 45):
hand-written cases of `fresh_2026-12-02c`, `12-03g` and `12-03h`, each with its wrong twin (text/asked_within.py,
signals/said_free.py, signals/negated_words.py, signals/negation.py, text/stated_reckoning.py,
signals/article_units.py, text/quantities.py, signals/antonyms.py, signals/calendar_names.py, text/lexical.py,
signals/closest.py)."""

from __future__ import annotations

import pytest

from halguard import LocalVerifier
from halguard.grounding.claim_verdict import ClaimStatus
from halguard.grounding.signals.closest import source_sentences
from halguard.grounding.signals.negation import flip_targets, negation_mismatch
from halguard.grounding.signals.said_free import said_free
from halguard.text.asked_within import MAX_BOUNDS, AskedWithin
from halguard.text.lexical import number_mentions, term_set
from halguard.text.stated_reckoning import stated_reckoning

CAR_HIRE = ["Cars returned up to 29 minutes late are not charged; after that a late fee of £25 applies. Drivers aged "
            "21 to 24 pay a young-driver surcharge of £12 per day, capped at £120 per rental."]
CAMPSITE = ["Dogs are welcome, a maximum of 2 per pitch. Residents 65 or over pay half price. Children aged between 5 "
            "and 11 join the kids' club."]
BUS_PASS = ("Applications need proof of age and a recent passport-style photo; there is no charge for a first pass, "
            "but a replacement for a lost pass costs £10.")
BLAZERS = ("New blazers cost £32 from Carlow's Schoolwear on Bridge Street; second-hand blazers are available free of "
           "charge from the PTA uniform swap on the first Thursday of each month.")


@pytest.fixture(scope="module")
def verifier() -> LocalVerifier:
    return LocalVerifier(num_threads=1)


def _asked(claim: str, question: str, sources: list[str]) -> list[str]:
    within = AskedWithin(claim, question, [source_sentences(source) for source in sources])
    return [claim[m.start:m.end] for m in number_mentions(claim) if within(m.start, m.end)]


def test_the_users_number_inside_a_passages_range_or_bound_is_theirs():
    late = "If I bring the car back 20 minutes late, will I be charged?"
    assert _asked("No, so 20 minutes late costs you nothing.", late, CAR_HIRE) == ["20"]
    assert _asked("As a 23-year-old you'd pay the young-driver surcharge.", "I'm 23.", CAR_HIRE) == ["23"]
    assert _asked("Your 7-year-old can join the kids' club.", "Can my 7-year-old go?", CAMPSITE) == ["7"]
    assert _asked("At 70 you pay half price as a resident.", "I'm 70.", CAMPSITE) == ["70"]
    # outside the range or bound, another unit, money, a number the question does not write: still the claim's
    assert not _asked("As a 26-year-old you'd pay the young-driver surcharge.", "I'm 26.", CAR_HIRE)
    assert not _asked("Yes, you can bring 3 dogs to your pitch.", "Can I bring 3 dogs?", CAMPSITE)
    assert not _asked("No, 20 days late costs you nothing.", "If I'm 20 days late?", CAR_HIRE)
    assert not _asked("At 65 you pay half price as a resident.", "I'm 64.", CAMPSITE)
    assert not _asked("Your 4-year-old can join the kids' club.", "Can my 4-year-old go?", CAMPSITE)
    assert not _asked("The late fee is £20.", "Is it £20 if I'm 20 minutes late?", CAR_HIRE)
    assert not _asked("No, so 20 minutes late costs you nothing.", "Will I be charged?", CAR_HIRE)
    assert not _asked("So 20 minutes late costs you nothing.", late, ["Parking bays are 20 to 40 metres long."])


def test_a_passages_bounds_are_read_to_a_bound_count():
    crowded = [" ".join(f"Group {i} takes up to {i + 2} people." for i in range(3 * MAX_BOUNDS))]
    ask = f"We are {3 * MAX_BOUNDS} people in group {3 * MAX_BOUNDS - 1}."
    assert not _asked(f"Group {3 * MAX_BOUNDS - 1} takes your {3 * MAX_BOUNDS} people.", ask, crowded)


def test_the_users_number_is_supported_end_to_end(verifier):
    claim = "Cars returned up to 29 minutes late are not charged, so a car returned {} minutes late is not charged."
    question = "If I bring the car back {} minutes late, will I be charged?"
    assert verifier.verify(claim.format(20), CAR_HIRE, question=question.format(20)).label == "supported"
    assert verifier.verify(claim.format(40), CAR_HIRE, question=question.format(40)).label == "hallucinated"
    assert verifier.verify(claim.format(20), CAR_HIRE, question="Will I be charged?").label == "hallucinated"


def _mismatch(claim: str, evidence: str) -> bool:
    return negation_mismatch(claim, evidence, term_set(claim), term_set(evidence), 0.3)


def test_a_price_denied_as_the_passage_denies_it_is_no_negation_mismatch():
    assert said_free("cost", {"first", "pass"}, "there is no charge for a first pass, but a replacement costs £10")
    assert not said_free("cost", {"replac", "pass"}, "there is no charge for a first pass, but a replacement costs £10")
    assert not _mismatch("No, your first pass won't cost you anything; the £10 fee is for replacing a lost pass.",
                         BUS_PASS)
    assert _mismatch("A replacement for a lost pass won't cost you anything.", BUS_PASS)


def test_costs_nothing_denies_the_price():
    assert flip_targets("Second-hand blazers cost nothing at the PTA uniform swap.") == {"cost"}
    assert flip_targets("It costs you nothing to join.") == {"cost"}
    assert not _mismatch("Second-hand blazers cost nothing at the PTA uniform swap on the first Thursday of each "
                         "month.", BLAZERS)
    assert _mismatch("New blazers from Carlow's Schoolwear on Bridge Street cost nothing.", BLAZERS)


def test_a_total_the_claim_adds_up_after_a_consequences_cue():
    assert stated_reckoning("Taking Premier month to month adds £6, so you'd pay £55 a month instead of £49.") == {55}
    day = "Adding the 8am drop-off (£6) and the 5.30pm pick-up (£8) to the £38 core day brings a full day to £{}."
    assert stated_reckoning(day.format(52)) == {52}
    # one price left out, a time of day added as a price, no cue: not the claim's reckoning
    assert not stated_reckoning(day.format(46))
    assert not stated_reckoning(day.format(54))
    assert not stated_reckoning("Premier adds £6 and costs £55 a month, against £49 a year ago.")


def test_a_claims_total_is_supported_where_its_parts_are(verifier):
    context = ["The core day runs 9am to 3.30pm and costs £38. Early drop-off from 8am is £6 and late pick-up until "
               "5.30pm is £8."]
    question = "How much is a full day with early drop-off and late pick-up?"
    right = verifier.verify(day := "The £38 core day with the £6 early drop-off and the £8 late pick-up comes to £52 "
                            "in total.", context, question=question)
    assert right.claims[0].status is not ClaimStatus.CONTRADICTION and not any(
        "52" in r for r in right.claims[0].reasons)
    wrong = verifier.verify(day.replace("£52", "£48"), context, question=question)
    assert wrong.label == "hallucinated"


LIBRARY = ("Day-pass holders may use the library from 9am to 5pm, Monday to Friday, but cannot borrow items or use the "
           "printers.")


def test_a_negation_runs_on_over_or():
    assert flip_targets("Day-pass holders cannot borrow items or use the printers.") == {"borrow", "use"}
    assert flip_targets("No dogs or cats are allowed.") == {"dog", "cat"}
    assert not flip_targets("You can pay by card or cash.")
    assert _mismatch("Yes, day-pass holders can use the printers, though they can't borrow any items.", LIBRARY)
    assert not _mismatch("Day-pass holders can use the library on weekdays from 9am to 5pm but can't borrow items.",
                         LIBRARY)
    assert not _mismatch("Day-pass holders can't borrow items or use the printers.", LIBRARY)
    # an object after "or" is no denied word, and the reverse reading needs a word both deny
    assert flip_targets("Don't drink tea or coffee in the hour before or after a dose.") == {"drink"}
    assert not _mismatch("Don't drink tea or coffee in the hour before or after a dose, as they can lower absorption.",
                         "Tea and coffee can reduce absorption and should be avoided for an hour before and after a "
                         "dose.")
    door = "When a door latch won't catch, it's because the latch doesn't align with the hole in the strike plate."
    assert not _mismatch("To fix a door that won't lock, first try to align the door latch with the hole in the "
                         "strike plate.", door)


FREEZE = ["Freeze requests must reach front desk supervisor Hannah Price 7 days before the next payment date."]


@pytest.mark.parametrize(("duration", "said"), [("a week", True), ("168 hours", True), ("a month", False)])
def test_a_duration_said_with_an_article_is_the_passages(verifier, duration, said):
    claim = f"Your freeze request has to reach Hannah Price {duration} before your next payment is due."
    novel = verifier.verify(claim, FREEZE).claims[0].signals.novel_terms
    assert (not any(duration.split()[-1] in word for word in novel)) is said


def test_a_month_is_the_calendars():
    from halguard.text.quantities import placed_durations, quantities, said_as
    assert not quantities("Cancel a month before the start.")  # no number written: read only where placed
    [month] = placed_durations("Cancel a month before the start.")
    assert said_as(month, quantities("Cancel 30 days before the start date."))
    assert said_as(month, quantities("Cancel 4 weeks before the start date."))
    assert not said_as(month, quantities("Cancel 6 weeks before the start date."))
    [days] = quantities("Cancel 29 days before the start.")
    assert not said_as(days, quantities("Cancel 30 days before the start date."))


def test_weekdays_are_no_weekends(verifier):
    context = ["During the exam period, 1 May to 14 June, day passes are suspended and alumni access is limited to "
               "weekends."]
    flipped = verifier.verify("During the exam period alumni can only come in on weekdays.", context)
    assert "antonym_flips" in flipped.claims[0].signals.findings
    kept = verifier.verify("During the exam period alumni can only come in at weekends.", context)
    assert "antonym_flips" not in kept.claims[0].signals.findings


def test_the_first_persons_contractions_name_no_one(verifier):
    context = ["Off-Peak allows entry between 10am and 4pm on weekdays and all day at weekends."]
    verdict = verifier.verify("Not on Off-Peak, I'm afraid: on weekdays entry is between 10am and 4pm.", context)
    assert not any("I'm" in name for c in verdict.claims for name in c.signals.missing_entities)


ZONES = ["Zone A restrictions apply Monday to Saturday, 8am to 6.30pm; Zones B and C apply Monday to Friday, 9am to "
         "5pm."]


def test_a_day_denied_outside_the_passages_ranges_of_days_is_theirs(verifier):
    denied = verifier.verify("In Zone B the restrictions apply Monday to Friday, so they don't apply on Sundays.",
                             ZONES)
    assert not any("Sunday" in name for c in denied.claims for name in c.signals.missing_entities)
    # said of the day, not denied; or no range of days in the passages: a name they lack
    said = verifier.verify("In Zone B the restrictions also apply on Sundays.", ZONES)
    assert any("Sunday" in name for c in said.claims for name in c.signals.missing_entities)
    daily = verifier.verify("The restrictions don't apply on Sundays.", ["The restrictions apply daily, 9am to 5pm."])
    assert any("Sunday" in name for c in daily.claims for name in c.signals.missing_entities)


def test_a_bound_after_a_number_and_its_unit_is_no_antonym():
    from halguard.grounding.signals.antonyms import antonym_flips
    evidence = "Cancellations with less notice are charged in full."
    assert not antonym_flips("Cancel 48 hours or more before a lesson and there's no charge.", evidence)
    assert antonym_flips("Cancellations with more notice are charged in full.", evidence)


def test_a_function_word_prefixes_no_word():
    from halguard.grounding.signals.closest import shared_share
    assert shared_share({"lesson", "cancel"}, {"less", "notic"}) == 0.0
    assert shared_share({"cancel", "suppli"}, {"cancellation", "supp"}) == 1.0


def test_a_denied_charge_says_its_thing_in_its_proposition():
    # the charge denied in a bare clause is the cancellation's, not the later cancellations' of the second proposition
    assert not _mismatch("If you cancel 48 hours or more before a lesson, there's no charge.",
                         "Lessons can be cancelled free of charge up to 48 hours before the start time; cancellations "
                         "with less notice are charged in full.")
    assert _mismatch("If you cancel with less notice, there's no charge.",
                     "Cancellations with less notice are charged in full.")


SIBLINGS = ["A 10% discount applies to the second child from the same family and 15% to the third and any further "
            "children, on the core day fee only."]


@pytest.mark.parametrize(("answer", "moved"), [
    ("Your third child would get 10% off the core day fee.", True),
    ("Your second child would get 15% off the core day fee.", True),
    ("Your third child would get 15% off the core day fee.", False),
    ("Your second child gets 10% off the core day fee and your third 15%.", False),
])
def test_a_number_said_of_another_tier(verifier, answer, moved):
    claim = verifier.verify(answer, SIBLINGS).claims[0]
    assert ("role_conflicts" in claim.signals.findings) is moved
    assert (claim.status is ClaimStatus.CONTRADICTION) is moved


CAMP = ["Brambleford Holiday Camp: the core day costs £38; early drop-off from 8am costs £6 and late pick-up until "
        "5.30pm costs £8. A 10% discount applies to the second child from the same family and 15% to the third and any "
        "further children, on the core day fee only."]


@pytest.mark.parametrize(("answer", "blocked"), [
    ("Your third child would get 15% off the core day fee.", False),  # a share against a price: no moved number
    ("Your third child would get 10% off the core day fee.", True),
    ("The core day costs £48.", True),
])
def test_a_share_is_no_price_to_the_role_check(verifier, answer, blocked):
    claim = verifier.verify(answer, CAMP).claims[0]
    assert (claim.status is ClaimStatus.CONTRADICTION) is blocked
    assert not any("where the passage has £38" in reason for reason in claim.reasons)


@pytest.mark.parametrize(("within", "said"), [("a month", True), ("30 days", True), ("two months", False)])
def test_within_a_month_is_within_30_days(verifier, within, said):
    verdict = verifier.verify(f"Refunds are paid within {within} of the request.",
                              ["Refunds are paid within 30 days of the request."])
    assert (verdict.label == "supported") is said


def test_a_kind_named_with_an_ordinal_is_no_tier():
    from halguard.grounding.signals.ordinal_tiers import _pairs
    assert not _pairs("Second-hand blazers cost £5")
    assert not _pairs("First-class stamps cost £1.65")
    assert [(value, ordinal) for value, _, ordinal, _, _ in _pairs("the second child gets 10% off")] == [(10, "second")]
