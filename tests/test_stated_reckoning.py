"""A claim's own reckoning (halguard.text.stated_reckoning: a multiple, "£4.70 for a single, half the £9.40 adult
fare"; a change, "a climb of 856 m" of its 2,418 m and 1,562 m; a breakdown's total, "918 (460 on 10 mg and 458 on
20 mg)"), a count of its own list of clauses ("two changes: no 10:30 sailing ..., and an earlier last departure"), a
mixed number in words ("two and three-quarter hours") and "half" that names a thing ("half board"): paraphrases of
`fresh_2026-12-01g` and `fresh_2026-12-02` (issue 45) that were flagged, and one fabrication passed for "half board";
each beside the wrong twin that must still be flagged."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.text.lexical import number_mentions
from halguard.text.listed import listed_counts
from halguard.text.stated_reckoning import stated_reckoning

FARES = ("A standard adult single costs £9.40 and a return costs £16.00. Children aged 5 to 15 pay half the adult "
         "fare, and children under 5 travel free. A car with driver costs £38.00 single.")
WINTER = ("The winter timetable changes from 1 October to 31 March: the 10:30 sailing does not run on Tuesdays and "
          "Wednesdays, and the last departure moves to 17:30.")


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier(num_threads=1)


@pytest.mark.parametrize(("text", "multiples"), [
    ("A child would pay £4.70 for a single, half the £9.40 adult fare.", {4.7}),
    ("Half the adult fare of £9.40, i.e. £4.70, is charged.", {4.7}),
    ("The deposit is twice the £12 booking fee, or £24.", {24.0}),
    ("There are 30 reserved seats (a third of the 90 seats).", {30.0}),
    ("A child would pay £5.70 for a single, half the £9.40 adult fare.", set()),  # not half
    ("A child pays £4.70. Half the seats cost £9.40.", set()),  # another sentence: no multiple stated
    ("It costs £4.70 and the adult fare is £9.40.", set()),  # no factor word
    ("The hut sits at 2,418 m, so the trail from 1,562 m involves a climb of 856 m.", {856.0}),
    ("The hut sits at 2,418 m, so the trail from 1,562 m involves a climb of 900 m.", set()),
    ("The budget totals €412.6m, up €18.9m from €393.7m last year.", {18_900_000.0}),
    ("An adult ticket is £18 on weekdays and £21 at weekends, so a weekday visit saves an adult £3.", {3.0}),
    ("918 received the drug (460 on 10 mg and 458 on 20 mg).", {918.0}),
    ("918 received the drug (460 on 10 mg and 448 on 20 mg).", set()),  # three of its numbers make 918 by chance
    ("It had 30 staff (12, 10 and 8).", {30.0}),
])
def test_a_stated_multiple_is_read(text, multiples):
    assert stated_reckoning(text) == multiples


@pytest.mark.parametrize(("text", "counted"), [
    ("Winter brings two changes: no 10:30 sailing on Tuesdays and Wednesdays, and an earlier last departure.", {2.0}),
    ("There are three options: walk, cycle, or take the cable car up the hill.", {3.0}),
    ("Winter brings three changes: no 10:30 sailing on Tuesdays and Wednesdays, and an earlier last departure.",
     set()),
    ("Winter brings two changes, and the timetable is shorter.", set()),  # no list after a colon
])
def test_a_colon_list_of_clauses_is_counted(text, counted):
    assert listed_counts(text) == counted


@pytest.mark.parametrize(("answer", "label"), [
    ("A child aged 5 to 15 would pay £4.70 for a single, half the £9.40 adult fare.", "supported"),
    ("A child aged 5 to 15 would pay £5.70 for a single, half the £9.40 adult fare.", "hallucinated"),
    ("A child aged 5 to 15 would pay £4.70 for a single, half the £9.60 adult fare.", "hallucinated"),
    ("A child aged 5 to 15 would pay £4.70 for a single.", "hallucinated"),  # reckoned from nothing it says
])
def test_a_multiple_is_supported_only_where_right(verifier, answer, label):
    assert verifier.verify(answer, [FARES]).label == label


@pytest.mark.parametrize(("answer", "label"), [
    ("Winter brings two changes: no 10:30 sailing on Tuesdays and Wednesdays, and the last departure at 17:30.",
     "supported"),
    ("Winter brings two changes: no 10:30 sailing on Tuesdays and Wednesdays, and the last departure at 18:30.",
     "hallucinated"),
    ("Winter brings two changes: no 10:30 sailing on Mondays and Wednesdays, and the last departure at 17:30.",
     "hallucinated"),
])
def test_a_counted_list_of_changes_is_checked_item_by_item(verifier, answer, label):
    assert verifier.verify(answer, [WINTER]).label == label


def test_crafted_factor_text_is_read_in_bounded_time():
    crafted = "£4.70" + ", half the" * 20_000 + " £9.40"
    started = time.perf_counter()
    assert stated_reckoning(crafted) == set()
    assert listed_counts("Two changes: " + "a, " * 30_000) == set()
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize(("answer", "flagged"), [
    ("The hut sits at 2,418 m, so trail 314 from Malga Fontane at 1,562 m involves a climb of 856 m.", []),
    ("The hut sits at 2,418 m, so trail 314 from Malga Fontane at 1,562 m involves a climb of 956 m.", ["956"]),
])
def test_a_change_the_claim_reckons_is_checked_by_its_arithmetic(verifier, answer, flagged):
    hut = "The hut stands at 2,418 metres. It is reached from the car park at Malga Fontane (1,562 m) on trail 314."
    signals = verifier.verify(answer, [hut]).claims[0].signals
    assert [n for n in signals.missing_numbers if "956" in n or "856" in n] == flagged


@pytest.mark.parametrize(("text", "value"), [
    ("two and three-quarter hours", 2.75),
    ("two and three-quarters hours", 2.75),
    ("one and two-thirds cups", 1.666667),
    ("one hundred and five people", 105.0),
    ("a thousand and one nights", 1001.0),
])
def test_a_mixed_number_in_words_is_one_number(text, value):
    assert number_mentions(text)[0].value == value


def test_two_numbers_joined_by_and_stay_two():
    assert [m.value for m in number_mentions("two and three people")] == [2.0, 3.0]


HUT_TRAIL = "Trail 314 is a distance of 6.2 km that takes about 2 hours 45 minutes on the way up."


@pytest.mark.parametrize(("answer", "label"), [
    ("Trail 314 takes about two and three-quarter hours on the way up.", "supported"),
    ("Trail 314 takes about two and a quarter hours on the way up.", "hallucinated"),
])
def test_a_mixed_duration_is_compared_by_value(verifier, answer, label):
    assert verifier.verify(answer, [HUT_TRAIL]).label == label


def test_half_that_names_a_thing_is_no_share():
    assert [m.value for m in number_mentions("Half board costs €68 per person.")] == [68.0]
    assert [m.value for m in number_mentions("She ran a half-marathon in under two hours.")] == [2.0]
    assert [m.value for m in number_mentions("Half the seats were empty.")] == [0.5]


def test_a_price_the_passage_never_gives_is_not_met_by_half_board(verifier):
    hut = "Half board costs €68 per person for members and €82 for non-members."
    assert verifier.verify("A bunk-only night costs €50 for members.", [hut]).label == "hallucinated"
