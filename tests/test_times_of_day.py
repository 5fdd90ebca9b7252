"""Times of day written another way, and changed (the twenty-fifth session's fresh paraphrases and user apps):
"21:00" for "9 p.m.", "half past seven in the morning" for "7:30 a.m.", "just after 02:00" for "2 a.m."; and "3 a.m."
where the passage says "3pm", which read digit by digit was a found "3", and "7:15 p.m." in a sentence that copies
"7:15 a.m." but for its half of the day. Each faithful form passes; the same form with a wrong time does not."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.scope import scope_of
from halguard.grounding.signals.times_of_day import times_read
from halguard.text.clock import MAX_TIMES_PER_TEXT, clock_times
from halguard.text.contexts import Source
from tests.test_quantities import _missing

LIBRARY = "Library hours will be extended to 9 p.m. on weekdays at all five branches."
BUS = "The first bus leaves Eastgate at 7:30 a.m. and the last one at 11:15 p.m."
FIRE = "The fire broke out at about 2 a.m. on Sunday and was under control by 6 a.m."
MEETING = "The public meeting begins at 3pm in the town hall."
CLINIC = "The clinic is open 2-4 p.m. on Saturdays."
VAN = ("The board voted on 9 October to close the branch. During the closure, a van will stop in the parking lot every "
       "Tuesday from 3:00 p.m. to 7:00 p.m.; 9% of users live nearby, and the trip costs $9 or 9 km of cycling.")
MUSEUM = "The museum is open from 10:00 to 17:00. Last entry is 45 minutes before closing."
FERRY = "The first ferry leaves Port Cadell at 7:15 a.m. and the last one leaves Innis Mhor at 6:40 p.m."


@pytest.mark.parametrize(("text", "said", "minutes"), [
    ("until 9 p.m. daily", "9 p.m.", {21 * 60}),
    ("until 9pm daily", "9pm", {21 * 60}),
    ("until 21:00 daily", "21:00", {21 * 60}),
    ("just after 02:00", "02:00", {2 * 60}),
    ("at 3:00 in the afternoon", "3:00 in the afternoon", {15 * 60}),
    ("at 3:00", "3:00", {3 * 60, 15 * 60}),  # the writing does not say which half of the day
    ("at half past seven in the morning", "half past seven in the morning", {7 * 60 + 30}),
    ("at a quarter to nine", "a quarter to nine", {8 * 60 + 45, 20 * 60 + 45}),
    ("at seven o'clock in the evening", "seven o'clock in the evening", {19 * 60}),
    ("at 9.30pm", "9.30pm", {21 * 60 + 30}),
    ("at noon", "noon", {12 * 60}),
    ("at 12 a.m.", "12 a.m.", {0}),
])
def test_a_time_is_read_as_the_minutes_it_may_mean(text, said, minutes):
    (time_of_day,) = clock_times(text)
    assert text[time_of_day.start:time_of_day.end] == said
    assert time_of_day.minutes == minutes


@pytest.mark.parametrize("text", ["won 2:1 at home", "a 3-2 win", "2 apples", "8 amps", "a month", "version 3.12",
                                  "won in 2:19:42", "a lap of 1:02.5"])
def test_what_is_no_time_is_not_read_as_one(text):
    assert clock_times(text) == []


def test_a_range_s_bare_first_hour_is_a_time_of_either_half_of_the_day():
    first, second = clock_times(CLINIC)
    assert CLINIC[first.start:first.end] == "2" and first.minutes == {2 * 60, 14 * 60}
    assert second.minutes == {16 * 60}


@pytest.mark.parametrize(("claim", "passage"), [
    ("The libraries will stay open until 21:00 on weekdays.", LIBRARY),
    ("The first bus leaves Eastgate at half past seven in the morning.", BUS),
    ("The last bus leaves at a quarter past eleven at night.", BUS),
    ("The fire broke out just after 02:00 on Sunday.", FIRE),
    ("The meeting begins at 3:00 in the afternoon.", MEETING),
    ("The meeting begins at 15:00.", MEETING),
    ("The clinic opens at 2 p.m. on Saturdays.", CLINIC),
    ("The clinic closes at 16:00 on Saturdays.", CLINIC),
    # reckoned: a passage's time moved by a duration the passage gives (17:00 less 45 minutes)
    ("You need to arrive by 4:15pm, since last entry is 45 minutes before closing.", MUSEUM),
])
def test_a_time_written_another_way_is_not_missing(claim, passage):
    assert _missing(claim, passage) == []


@pytest.mark.parametrize(("claim", "passage", "missing"), [
    ("The meeting begins at 3 a.m.", MEETING, "3 a.m."),  # its 3 is the passage's 3pm's: a changed time
    ("The first bus leaves at half past seven in the evening.", BUS, "half past seven in the evening"),
    ("The fire was under control by 6 p.m.", FIRE, "6 p.m."),
    ("The libraries will stay open until 20:00 on weekdays.", LIBRARY, "20:00"),
    ("The meeting begins at 13:00.", MEETING, "13:00"),
    # its 9 is the passage's only as a date's day, its 3 as a range's: no bare hour
    ("The van stops every Tuesday from 3:00 to 9:00 p.m.", VAN, "9:00 p.m."),
    ("The board met at 9 p.m.", VAN, "9 p.m."),
    ("Last entry is at 4:30 p.m.", MUSEUM, "4:30 p.m."),  # no duration of the passage reckons it
    ("Last entry is at 4:15 p.m.", MUSEUM, "4:15 p.m."),  # one does, but the claim does not say it: no reckoning
])
def test_a_changed_time_is_missing(claim, passage, missing):
    assert missing in _missing(claim, passage)


def test_a_time_s_hour_the_passage_also_writes_as_a_number_is_left_to_the_number_check():
    # "3" stands in the passage outside its time too ("3 buses"), so "3 a.m." is not read as a changed time
    passage = MEETING + " Three buses, the 3, 5 and 7, stop outside."
    assert _missing("The meeting begins at 3 a.m.", passage) == []
    # a record's hours the clock does not read ("10:0-20:0"): its 20 may be the claim's "8 pm"
    record = '{"name": "Blaze Pizza", "hours": {"Monday": "10:0-20:0", "Tuesday": "10:0-20:0"}}'
    assert _missing("It is open from 10 am to 8 pm on Mondays.", record) == []


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier()


@pytest.mark.parametrize(("answer", "passage", "faithful"), [
    ("Library hours will be extended to 21:00 on weekdays at all five branches.", LIBRARY, True),
    ("Library hours will be extended to 20:00 on weekdays at all five branches.", LIBRARY, False),
    ("The public meeting begins at 3:00 in the afternoon in the town hall.", MEETING, True),
    ("The public meeting begins at 3 a.m. in the town hall.", MEETING, False),
    ("The first ferry leaves Port Cadell at a quarter past seven in the morning.", FERRY, True),
    ("The first ferry leaves Port Cadell at 7:15 p.m.", FERRY, False),  # a copy but for its half of the day
])
def test_the_verdicts(verifier, answer, passage, faithful):
    assert (verifier.verify(answer, [passage]).label == "supported") is faithful


def test_times_are_read_in_bounded_time_on_crafted_text():
    crafted = ("12:" * 20_000) + " " + ("half past " * 5_000) + ("9 a " * 10_000) + ("2-" * 10_000) + "4 p.m."
    # a passage and a claim of 20,000 times each: at most MAX_TIMES_PER_TEXT read, each number placed by bisection
    passage, claim = "12:00 " * 20_000, "It opens at " + "9:15 a.m. and " * 20_000 + "noon."
    scope = scope_of([Source("p0", passage)], None)  # (its other readings are timed in test_robustness)
    started = time.perf_counter()
    clock_times(crafted)
    assert len(clock_times(passage)) == MAX_TIMES_PER_TEXT
    times_read(claim, scope)
    assert time.perf_counter() - started < 3.0
