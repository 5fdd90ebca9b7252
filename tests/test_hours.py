"""Opening hours compared day by day with a JSON record's week (halguard.grounding.signals.hours)."""

import json
import time

import pytest

from halguard import ClaimStatus
from halguard.grounding.signals.hours import hours_conflicts
from halguard.grounding.signals.records import opening_hours

# A Yelp-style listing's week (RAGTruth Data2txt records write "17:0" for 17:00; tests/data/README.md).
WEEK = {"Monday": "17:30-23:0", "Tuesday": "17:0-21:0", "Wednesday": "17:0-21:0", "Thursday": "17:0-21:0",
        "Friday": "17:0-22:0", "Saturday": "17:0-22:0", "Sunday": "9:0-14:0"}
RECORD = json.dumps({"name": "Finch & Fork", "city": "Santa Barbara", "state": "CA", "hours": WEEK,
                     "attributes": {"WiFi": "free", "RestaurantsTakeOut": True}})
TABLE = opening_hours(RECORD)


def test_the_week_is_read_from_the_record():
    assert TABLE == {0: (1050, 1380), 1: (1020, 1260), 2: (1020, 1260), 3: (1020, 1260), 4: (1020, 1320),
                     5: (1020, 1320), 6: (540, 840)}
    assert opening_hours("Open Monday to Friday from 9 to 5.") is None  # prose is no record
    assert opening_hours(json.dumps({"hours": {"Monday": "9-5", "Funday": "9-5"}})) is None  # not a week
    # two weeks: which one would a claim mean?
    assert opening_hours(json.dumps({"hours": WEEK, "kitchen": {"hours": dict(WEEK, Sunday="10:0-13:0")}})) is None
    assert opening_hours(json.dumps({"opening": {"Mon": "9:00 AM - 5:00 PM"}})) == {0: (540, 1020)}


@pytest.mark.parametrize("claim", [
    "It is open Tuesday to Thursday from 5:00 PM to 9:00 PM and on Sunday from 9 am to 2 pm.",
    "Hours are 5 PM to 9 PM Tuesday through Thursday, and 9:00-14:00 on Sundays.",
    "On Friday and Saturday it stays open from 5 pm until 10 pm.",
    "It opens from 5 to 9 on Tuesdays.",  # no am/pm: either half of the day
    "It is open from 5 PM to 9 PM on weekdays, with later hours on Monday.",  # Monday is an exception; Friday loose
    "Recent reviews rate it 4.0 to 5.0 stars.",  # no day, and a rating
    "It was closed on Tuesday from 5 to 9 for a private event.",  # "closed" is not read
    "We sat outside from 5 to 10 and watched the sun set.",  # "sat", "sun": no days
    "It is open until 10 pm on Fridays and Saturdays.",  # a closing time alone
    "It is open from 5 pm to 9 pm Tuesday to Saturday, with extended hours until 10 pm on Fridays and Saturdays.",
    "Happy hour runs until 6 pm on Tuesdays, when it is open from 5 pm.",  # not the business's closing time
])
def test_hours_the_record_lists_are_no_conflict(claim):
    assert hours_conflicts(claim, [TABLE]) == []


@pytest.mark.parametrize(("claim", "span", "why"), [
    ("It is open Monday to Saturday from 5:00 PM to 9:00 PM.", "5:00 PM to 9:00 PM", "Monday as 17:30-23:00"),
    ("It is open from 5 pm to 9 pm on Sunday.", "5 pm to 9 pm", "Sunday as 9:00-14:00"),
    ("On Sundays it serves brunch from 9am to 3pm.", "9am to 3pm", "Sunday as 9:00-14:00"),
    ("It is open from 5 to 10 on Tuesdays.", "5 to 10", "Tuesday as 17:00-21:00"),
    ("It is known for its late hours (until 11 PM from Tuesday to Saturday).", "until 11 PM", "Tuesday as 17:00-21:00"),
    ("It is open from 5 pm to 9 pm every day, and until 10 pm on Fridays.", "5 pm to 9 pm", "Monday as 17:30-23:00"),
])
def test_hours_the_record_lists_otherwise_conflict(claim, span, why):
    found = hours_conflicts(claim, [TABLE])
    assert [claim[s:e] for s, e, _ in found][:1] == [span]
    assert why in found[0][2]


def test_a_day_the_record_does_not_list_is_a_closed_day():
    table = {d: (660, 1320) for d in range(6)}  # no Sunday
    found = hours_conflicts("It is open seven days a week from 11am to 10pm.", [table])
    assert found and "no hours on Sunday" in found[0][2]
    assert hours_conflicts("It is open Monday to Saturday from 11am to 10pm.", [table]) == []


def test_a_claim_conflicts_only_with_every_record():
    other = {d: (1050, 1260) for d in range(7)}
    claim = "It is open Tuesday from 5:30 PM to 9 PM."
    assert hours_conflicts(claim, [TABLE])
    assert hours_conflicts(claim, [TABLE, other]) == []  # the claim may be about the other business


def test_an_hour_past_midnight_said_as_pm_is_the_same_hour():
    # "11:30-2:0" closes at 2 am; RAGTruth's annotators took "11:30 am to 2:00 pm" as faithful to it.
    assert hours_conflicts("It is open Monday from 11:30 am to 2:00 pm.", [{0: (690, 120)}]) == []


@pytest.mark.parametrize("text", [
    "1 " * 50_000 + "to",
    "Monday " * 30_000 + "5 to 9",
    "mon-tue " * 30_000 + "5 pm to 9 pm",
    "5 to 9 monday and " * 20_000,
    "Monday," + " " * 100_000 + "and Tuesday 5 to 9",
    "5 " + " \t" * 50_000 + "to 9 on Monday",
    "open until 9 pm on Monday " * 20_000,
])
def test_crafted_text_is_read_in_bounded_time(text):
    t0 = time.perf_counter()
    hours_conflicts(text, [TABLE])
    assert time.perf_counter() - t0 < 1.0


def test_verifier_flags_wrong_hours_and_passes_right_ones(verifier):
    wrong = verifier.verify("Finch & Fork is open Monday to Saturday from 5:00 PM to 9:00 PM.", [RECORD])
    claim = wrong.claims[0]
    assert wrong.label == "hallucinated" and claim.status == ClaimStatus.CONTRADICTION
    assert claim.signals.hours_conflicts == ["5:00 PM to 9:00 PM: the record lists Monday as 17:30-23:00"]
    assert "hours_conflicts" in claim.signals.blocking
    assert any("opening hours" in r for r in claim.reasons)
    assert "5:00 PM to 9:00 PM" in [s.text for s in wrong.spans]
    right = verifier.verify("Finch & Fork is open Tuesday to Thursday from 5:00 PM to 9:00 PM.", [RECORD])
    assert right.claims[0].signals.hours_conflicts == []
    assert right.claims[0].status != ClaimStatus.CONTRADICTION


@pytest.mark.parametrize(("claim", "why"), [
    ("The restaurant is open seven days a week, with varying hours depending on the day.", "no hours on Monday"),
    ("It operates daily for breakfast and lunch.", "no hours on Monday"),
])
def test_days_open_without_times_must_be_days_the_week_lists(claim, why):
    table = {d: (540, 900) for d in range(1, 7)}  # closed on Monday
    found = hours_conflicts(claim, [table])
    assert found and why in found[0][2]
    assert hours_conflicts("It is open Tuesday through Sunday.", [table]) == []
    assert hours_conflicts("It is open every day except Monday.", [table]) == []  # an exception is not read
    assert hours_conflicts("It has seven days a week of specials.", [table]) == []  # no word of opening


def test_varying_hours_against_a_week_of_the_same_hours():
    same = {d: (420, 0) for d in range(7)}
    claim = "The restaurant is open from Monday to Sunday, with hours varying through the week."
    found = hours_conflicts(claim, [same])
    assert found and "the same hours on every day" in found[0][2]
    assert hours_conflicts("Its hours vary through the week.", [TABLE]) == []  # they do
