"""A figure a passage lists for one item said of another ("A full day ... costs £15" against "£9 for a full day":
signals/list_items.py), a date's day moved with its month ("by 21 September" where the sentence has "by 30 June"), a
figure moved in a looser copy after the same word and unit ("posted within 14 days"), a difference with a rate between
("£36 a week less"), weekdays, weekends and months inside a range named by the calendar (signals/calendar_names.py),
one quantity in two units in a role's argument ("within four weeks" / "within 28 days"), a duration between two times
of day ("run for three hours from 6pm"), "the two of you", one unit said with an article after a bound ("just under an
hour") and "once a month" of "each month": hand-written cases of `fresh_2026-12-03` (issues 44
and 45), each with its wrong twin."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.calendar_names import named_by_the_calendar
from halguard.grounding.signals.list_items import MAX_SENTENCES, figures_listed_otherwise
from halguard.grounding.signals.scope import Scope, scope_of
from halguard.text.contexts import Source
from halguard.text.quantities import quantities
from halguard.text.rates import days_of_period, every_period_said

PARKING = ["Parking: the multi-storey car park on Fenwick Road charges £2.50 for up to two hours, £4 for up to four "
           "hours and £9 for a full day. Blue Badge holders park free in the ground-floor bays. Relatives of patients "
           "staying longer than 14 days can buy a weekly pass for £15 from the main reception, which is open 8am to "
           "6pm Monday to Friday."]
CAR_CLUB = ["Membership of Roundabout Car Club costs £5 a month, or £50 if paid annually. Cars are booked through the "
            "app for a minimum of one hour, at £7.50 an hour on weekdays and £8.50 an hour at weekends, with a daily "
            "cap of £65."]
HALLS = ["First-year undergraduates who accept their offer by 30 June are guaranteed a room in halls; those who accept "
         "later are placed on a waiting list. Rooms at Brackley Hall cost £168 per week and have en-suite bathrooms; "
         "rooms at Orchard Court cost £132 per week with shared bathrooms. Contracts run for 40 weeks from 21 "
         "September.",
         "A deposit of £250 is due within 14 days of accepting a room and is refunded within 28 days of your contract "
         "ending, less any deductions for damage."]
MUSEUM = ["Members can bring one guest free on weekdays only. Members' Evenings take place on the first Thursday of "
          "each month from 6pm to 9pm.",
          "Joining online gives you a digital card immediately; a plastic card is posted within 10 days. Refunds are "
          "available within 14 days of joining if the card has not been used."]
FERRY = ["From 1 April to 30 September, sailings leave Ardmore Quay at 07:15, 10:30, 14:00 and 18:45. From October to "
         "March the 18:45 sailing does not run.",
         "Fares (single): adult foot passenger £6.40, child (5-15) £3.20, under-5s free."]


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier(num_threads=1)


def _scope(passages: list[str]) -> Scope:
    return scope_of([Source(id=str(i), text=p) for i, p in enumerate(passages)], None)


@pytest.mark.parametrize(("answer", "passages", "label"), [
    # a list's item said with its own figure, and with another item's or another sentence's
    ("A full day in the Fenwick Road multi-storey car park costs £9.", PARKING, "supported"),
    ("A full day in the Fenwick Road multi-storey car park costs £15.", PARKING, "hallucinated"),  # the weekly pass's
    ("Weekend bookings cost £8.50 an hour, with a daily cap of £65.", CAR_CLUB, "supported"),
    ("Weekend bookings cost £7.50 an hour, with a daily cap of £65.", CAR_CLUB, "hallucinated"),  # weekdays'
    # a date's day moved with its month
    ("First-years who accept their offer by 30 June are guaranteed a room in halls.", HALLS, "supported"),
    ("First-years who accept their offer by 21 September are guaranteed a room in halls.", HALLS, "hallucinated"),
    # a looser copy: the same word and unit around another number the passages give elsewhere
    ("You get a digital card when you join online, and the plastic card is usually posted within 10 days.", MUSEUM,
     "supported"),
    ("You get a digital card when you join online, and the plastic card is usually posted within 14 days.", MUSEUM,
     "hallucinated"),
    # a difference with a rate between the number and its comparative: £168 - £132
    ("Orchard Court is £36 a week less than Brackley Hall.", HALLS, "supported"),
    ("Orchard Court is £30 a week less than Brackley Hall.", HALLS, "hallucinated"),
])
def test_figures_said_of_their_own_items(verifier, answer, passages, label):
    assert verifier.verify(answer, passages).label == label, answer


def test_listed_figure_reason_names_the_item():
    found = figures_listed_otherwise("A full day in the Fenwick Road multi-storey costs £15.", PARKING,
                                     _scope(PARKING).context_numbers)
    assert len(found) == 1 and "£9 for a full day" in found[0][2]
    # figures given together are not said item by item; a figure the passages lack is the missing numbers'
    assert figures_listed_otherwise("A full day and two hours cost £9 and £2.50 respectively.", PARKING,
                                    _scope(PARKING).context_numbers) == []
    assert figures_listed_otherwise("A full day costs £11.", PARKING, _scope(PARKING).context_numbers) == []


def test_listed_figures_bounded_on_a_crafted_list():
    sentence = ", ".join(f"£{i} for item{i} thing" for i in range(1, 400)) + "."
    passages = [sentence] * 200
    t0 = time.perf_counter()
    figures_listed_otherwise("The item7 thing costs £9.", passages, _scope(passages[:1]).context_numbers)
    assert time.perf_counter() - t0 < 2.0
    assert MAX_SENTENCES <= 64


@pytest.mark.parametrize(("name", "passages", "named"), [
    ("Monday", ["Members can bring one guest free on weekdays only."], True),
    ("Friday", ["Members can bring one guest free on weekdays only."], True),
    ("Saturday", ["Members can bring one guest free on weekdays only."], False),
    ("Sunday", ["Closed at weekends."], True),
    ("November", FERRY, True),  # inside "From October to March", over the new year
    ("January", FERRY, True),
    ("June", FERRY, False),  # "1 April to 30 September" is a range of dates, not of months; June named nowhere
    ("July", ["The pool is open from May to August."], True),
    ("September", ["The pool is open from May to August."], False),
])
def test_named_by_the_calendar(name, passages, named):
    assert named_by_the_calendar(name, f"It is open in {name}.", _scope(passages)) is named


def test_a_claim_with_a_figure_keeps_its_day_named():
    # a figure said of Saturday may be the weekdays' figure: the name stays the passages' nowhere
    passages = _scope(["Breakfast is served from 7am on weekdays and from 8am at weekends."])
    assert named_by_the_calendar("Saturday", "Guests can come to breakfast on Saturday.", passages)
    assert not named_by_the_calendar("Saturday", "Breakfast is served from 7am on Saturday.", passages)


@pytest.mark.parametrize(("answer", "passages", "label"), [
    # weekdays named by the passages' "weekdays"; a weekend day is not
    ("Members can bring a guest free from Monday to Friday.", MUSEUM, "supported"),
    ("Members can bring a guest free on Saturdays.", MUSEUM, "hallucinated"),
    # a duration between two times of day the passages give
    ("Members' Evenings last for three hours from 6pm.", MUSEUM, "supported"),
    ("Members' Evenings last for four hours from 6pm.", MUSEUM, "hallucinated"),
])
def test_days_and_durations_by_the_calendar(verifier, answer, passages, label):
    assert verifier.verify(answer, passages).label == label, answer


def test_one_quantity_in_two_units_is_no_role_conflict(verifier):
    said = verifier.verify("Your £250 deposit is refunded within four weeks of your contract ending.", HALLS)
    assert said.claims and not said.claims[0].signals.role_conflicts
    other = verifier.verify("Your £250 deposit is refunded within six weeks of your contract ending.", HALLS)
    assert other.label == "hallucinated"


def test_the_two_of_you_is_no_quantity(verifier):
    answer = "Singles for the two of you come to £9.60: £6.40 for you and £3.20 for your child."
    assert not verifier.verify(answer, FERRY).claims[0].signals.missing_numbers
    counted = verifier.verify("The two of them paid £9.60 for singles: £6.40 and £3.20.", FERRY)
    assert counted.claims[0].signals.missing_numbers  # a count of people the passages never give


CROSSING = ["Kestrel Line Ferries, Ardmore Quay to Tarrow Island: the crossing takes 55 minutes."]
CANCELLING = ["Cancelling more than 24 hours before the start is free; within 24 hours you are charged 50% of the "
              "booking."]


@pytest.mark.parametrize(("text", "value", "bound"), [
    ("takes just under an hour", 3600.0, "lt"),
    ("more than a day before", 86400.0, "gt"),
    ("within a week of joining", 604800.0, "lt"),
])
def test_one_unit_said_with_an_article_after_a_bound(text, value, bound):
    (q,) = quantities(text)
    assert (q.base, q.bound) == (value, bound)


def test_an_article_without_a_bound_is_no_quantity():
    assert [q.value for q in quantities("costs £7.50 an hour")] == [7.5]  # a rate's noun


@pytest.mark.parametrize(("answer", "passages", "label"), [
    ("The crossing to Tarrow Island takes just under an hour.", CROSSING, "supported"),  # 55 minutes
    ("The crossing to Tarrow Island takes just over an hour.", CROSSING, "hallucinated"),  # not said: "hour" novel
    ("Cancelling more than a day before the start is free.", CANCELLING, "supported"),  # 24 hours
])
def test_a_unit_said_with_an_article(verifier, answer, passages, label):
    assert verifier.verify(answer, passages).label == label, answer


EVENINGS = ["Members' Evenings take place on the first Thursday of each month from 6pm to 9pm.",
            "Individual membership can be paid by Direct Debit at £6 a month."]


@pytest.mark.parametrize(("answer", "changed"), [
    # "each month" says "once a month"; "£6 a month" is a price per month, no frequency of the evenings
    ("They're held once a month, on the first Thursday.", False),
    ("They're held twice a month, on the first Thursday.", True),
])
def test_once_a_month_is_each_month(verifier, answer, changed):
    claim = verifier.verify(answer, EVENINGS).claims[0]
    assert bool(claim.signals.missing_numbers) is changed
    assert every_period_said(days_of_period("month"), EVENINGS)
    assert not every_period_said(days_of_period("week"), EVENINGS)

