"""Numbers a claim computes from two numbers of one passage sentence (halguard.text.derived).

"Seven percentage points ahead" of "46% ... with 39%" is the passage's fact said as a difference; "lost more than
nine-tenths of its area" of "25,000 ... less than 2,000 square kilometres" a share. Neither is a missing number.
A wrong difference, a share the numbers do not give, a pair from two sentences or from a sentence about something
else still is one.
"""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.scope import scope_of
from halguard.grounding.signals.words import novel_terms
from halguard.text.contexts import Source
from halguard.text.derived import MAX_SENTENCES, derived, reckoning_spans
from halguard.text.lexical import content_terms
from halguard.text.listed import listed_counts
from halguard.text.quantities import quantities
from tests.test_quantities import _missing

ELECTION = ("In Sunday's mayoral election, Rosa Delgado won 46% of the vote, ahead of the incumbent, Martin Keane, "
            "with 39%. Four other candidates shared the remaining 15%. Turnout was 52%, up from 44% in 2019.")
VARGA = "The painter Ilona Varga was born in Szeged in 1902 and died in Vienna in 1987."
LAKE = ("Lake Chad covered about 25,000 square kilometres in the 1960s, but by the 1980s it had shrunk to less than "
        "2,000 square kilometres. The decline was caused by droughts.")

BANK = ("Ardent Mutual Bank reported a pre-tax profit of £412 million for the third quarter, up from £365 million a "
        "year earlier.")
ADVISORY = "The bug was reported on 2 November 2026 by Tomasz Wielgus, and the patch was published on 19 November."

COMPUTED = [
    # a difference in money written after its currency sign ("by £47 million"), and days between two dates
    ("Ardent Mutual's pre-tax profit climbed by £47 million from a year earlier to £412 million.", BANK),
    ("Wielgus reported the bug on November 2, 2026, and the patch was published 17 days later.", ADVISORY),
    ("The patch was published 17 days after Wielgus reported the bug.", ADVISORY),
    ("The patch was published about two weeks later than the report.", ADVISORY.replace("19 November", "16 November")),
    ("Rosa Delgado finished seven percentage points ahead of Martin Keane.", ELECTION),
    ("Delgado beat Keane by 7 points.", ELECTION),
    ("Turnout rose by eight points.", ELECTION),
    ("Between the 1960s and the 1980s Lake Chad lost more than nine-tenths of its area.", LAKE),
    ("Lake Chad shrank by over 90% between the 1960s and the 1980s.", LAKE),
    ("The Aster plant employs three times as many workers as the Brill plant.",
     "The Aster plant employs 900 workers and the Brill plant 300 workers."),
    ("Nilsen ran the company for twelve years.", "Nilsen ran the company from 1990 to 2002, when he retired."),
    ("The new bridge is 40 metres longer than the old one.",
     "The old bridge was 310 metres long; the new bridge is 350 metres long."),
    # an age of a birth year and a later year of one sentence, or one less (the birthday not yet come)
    ("Born in Szeged, Ilona Varga died in Vienna at the age of 85.", VARGA),
    ("Ilona Varga died aged 84.", VARGA),
    ("The 85-year-old painter Ilona Varga died in Vienna in 1987.", VARGA),
]

NOT_COMPUTED = [
    ("Ardent Mutual's pre-tax profit climbed by £57 million from a year earlier to £412 million.", BANK),
    ("Wielgus reported the bug on November 2, 2026, and the patch was published 16 days later.", ADVISORY),
    # a wrong difference
    ("Rosa Delgado finished five percentage points ahead of Martin Keane.", ELECTION),
    # two sentences' numbers (46% and 15%) give no difference
    ("Delgado finished 31 points ahead of the four other candidates.", ELECTION),
    # a share the numbers do not give ("less than 2,000" of "about 25,000" is more than nine-tenths lost, not half)
    ("Between the 1960s and the 1980s Lake Chad lost half of its area.", LAKE),
    # an exact share where the passage only bounds one number
    ("Lake Chad lost exactly 92% of its area.", LAKE),
    # no word asks for a computation: "seven" is just a number
    ("Rosa Delgado won seven districts.", ELECTION),
    ("The Aster plant employs four times as many workers as the Brill plant.",
     "The Aster plant employs 900 workers and the Brill plant 300 workers."),
    ("Nilsen ran the company for fifteen years.", "Nilsen ran the company from 1990 to 2002, when he retired."),
    # a level, not a share: 5% is what was lost of 200 to 190, but "fell to 5%" says where it ended
    ("Unemployment in Karsby fell to 5% last year.", "Unemployment in Karsby fell from 200 to 190 people last year."),
    # a percentage with no word asking for a share
    ("Karsby's unemployment rate is 5%.", "Unemployment in Karsby fell from 200 to 190 people last year."),
    # a decimal is read to its last digit: 900 / 300 is 3, not "2.6 times"
    ("The Aster plant employs 2.6 times as many workers as the Brill plant.",
     "The Aster plant employs 900 workers and the Brill plant 300 workers."),
    # "times" of a count of events is no ratio
    ("Silva scored 3 times in the group stage.", "Silva scored 12 goals in 4 matches of the group stage."),
    # an age two years apart from what the years give, and a number no word marks as an age
    ("Ilona Varga died at the age of 87.", VARGA),
    ("Ilona Varga painted 85 portraits in Vienna.", VARGA),
    # a sentence about something else (no shared words) computes nothing for the claim
    ("The harbour is 40 metres deeper than the canal.",
     "The old bridge was 310 metres long; the new bridge is 350 metres long."),
    # a day of a date is no quantity: 40% is not 4 of the 10 of "Tuesday 10 November"
    ("The committee approved the 320-home scheme by 7 votes to 4, and it will include 96 affordable homes, "
     "representing 40% of the total.",
     "Councillors voted 7 to 4 on Tuesday 10 November 2026 to approve a 320-home development. The scheme will "
     "include 96 affordable homes, representing 30% of the total."),
]


@pytest.mark.parametrize(("claim", "passage"), COMPUTED)
def test_a_number_the_claim_computes_from_one_sentence_is_not_missing(claim, passage):
    assert _missing(claim, passage) == []


@pytest.mark.parametrize(("claim", "passage"), NOT_COMPUTED)
def test_a_number_the_passage_does_not_give_stays_missing(claim, passage):
    assert _missing(claim, passage) != []


def test_how_a_number_was_reckoned_is_no_novel_word():
    claim = "Rosa Delgado finished seven percentage points ahead of Martin Keane."
    assert [claim[s:e] for s, e in reckoning_spans(claim)] == ["percentage points"]
    scope = scope_of([Source("p0", ELECTION)], None)
    novel = [claim[s:e] for s, e in novel_terms(content_terms(claim), scope, claim, set())]
    assert "percentage" not in novel and "points" not in novel
    # "points" alone is a word of the fact: 30 points are not the passage's 30 goals
    scored = "Silva scored 30 points this season."
    assert reckoning_spans(scored) == []
    goals = scope_of([Source("p0", "Silva scored 30 goals this season.")], None)
    assert "points" in [scored[s:e] for s, e in novel_terms(content_terms(scored), goals, scored, set())]
    # ... unless the passages give percentages: "eight points" is then a difference of two of them
    turnout = "Turnout rose by eight points."
    assert [turnout[s:e] for s, e in reckoning_spans(turnout, percentages=True)] == ["points"]
    election = scope_of([Source("p0", ELECTION)], None)
    assert "points" not in [turnout[s:e] for s, e in novel_terms(content_terms(turnout), election, turnout, set())]
    for later in ("The patch came 17 days later.", "The patch came 17 days after the report."):
        assert [later[s:e] for s, e in reckoning_spans(later)] == ["days"]
    ratio = "Aster has three times as many workers."
    assert [ratio[s:e] for s, e in reckoning_spans(ratio)] == ["times"]
    # an age's words are the number's: "at the age of 85", "aged 84", "85 years old", "an 85-year-old"
    for aged, words in (("She died at the age of 85.", ["age"]), ("She died aged 84.", ["aged"]),
                        ("She was 85 years old.", ["years", "old"]), ("The 85-year-old painter", ["year", "old"])):
        assert sorted(aged[s:e] for s, e in reckoning_spans(aged)) == sorted(words)


def test_the_verifier_no_longer_blocks_a_computed_difference():
    verifier = LocalVerifier()
    faithful = verifier.verify("Delgado beat Keane by seven percentage points.", [ELECTION])
    wrong = verifier.verify("Delgado beat Keane by nine percentage points.", [ELECTION])
    assert not faithful.claims[0].signals.missing_numbers
    assert wrong.claims[0].signals.missing_numbers
    assert wrong.claims[0].score > faithful.claims[0].score


def test_a_passage_of_many_numbers_is_read_in_bounded_time():
    # 20,000 sentences of eight numbers each: only MAX_SENTENCES are read, and a claim compares a bounded number
    passage = " ".join(f"Plant {i} made {i} cars, {i + 1} vans, {i + 2} bikes, {i + 3} boats, {i + 4} carts, "
                       f"{i + 5} sleds, {i + 6} kites and {i + 7} drums." for i in range(20_000))
    claim = "Plant 3 made 999,999 more cars than vans."
    started = time.perf_counter()
    q = next(q for q in quantities(claim) if q.value == 999_999)
    assert not derived(claim, q, [passage])
    assert time.perf_counter() - started < 5.0
    assert MAX_SENTENCES < 20_000


@pytest.mark.parametrize(("claim", "counted"), [
    ("His two predecessors, John Paul II and Benedict XVI, both avoided the term.", {2.0}),
    ("The three winners: Anna, Ben and Carl.", {3.0}),
    ("The two friends (Albert and Bernard) talk.", {2.0}),
    ("The four founders, Ann, Bo, Cy, and Di, met in 1990.", {4.0}),
    # the list does not have the count's items: the number is still the passages' to give
    ("The three winners: Anna and Carl.", set()),
    ("It has four ports, two USB-C and two HDMI.", set()),
    ("Two people died, and three were injured.", set()),
    ("Jacobo worked with associates in the two states.", set()),
])
def test_a_count_of_the_claims_own_list_is_its_reckoning(claim, counted):
    assert listed_counts(claim) == counted


def test_a_listed_count_is_no_missing_number_but_a_wrong_one_is():
    verifier = LocalVerifier()
    passages = ["Pope John Paul II and Pope Benedict XVI avoided the word, though both acknowledged the tragedy."]
    right = verifier.verify("His two predecessors, John Paul II and Benedict XVI, both avoided the word.", passages)
    wrong = verifier.verify("His three predecessors, John Paul II and Benedict XVI, both avoided the word.", passages)
    assert right.claims[0].signals.missing_numbers == []
    assert wrong.claims[0].signals.missing_numbers == ["three"]


@pytest.mark.parametrize(("claim", "reckoned"), [
    ("142 riders started the race but only 96 finished, so 46 riders failed to complete it.", {46.0}),
    ("Of 142 starters 96 finished, leaving forty-six who did not.", {46.0}),
    ("96 finished and 46 abandoned, a total of 142 starters.", {142.0}),
    # no cue: a number equal to a difference of two others is a fact to find
    ("Revenue rose from 10 to 30 million, and profit was 20 million.", set()),
    # a cue before a number no pair gives
    ("142 riders started and 96 finished, so 45 riders abandoned.", set()),
])
def test_a_difference_or_sum_of_the_claims_own_numbers_is_its_reckoning(claim, reckoned):
    from halguard.text.derived import own_reckoning

    assert own_reckoning(claim) == reckoned


def test_the_claims_own_difference_is_no_missing_number():
    passage = "Race organisers said 142 riders started and 96 finished."
    verifier = LocalVerifier()
    faithful = verifier.verify("142 riders started but only 96 finished, so 46 riders did not finish.", [passage])
    wrong = verifier.verify("142 riders started but only 96 finished, so 36 riders did not finish.", [passage])
    assert not faithful.claims[0].signals.missing_numbers
    assert wrong.claims[0].signals.missing_numbers == ["36"]
