"""A movement and its own numbers (halguard.grounding.signals.direction), and antonym flips read clause by clause.

"Revenue rose to 310 million from 270 million" says the rise in its numbers: where the passage starts from 270
million ("310 million, up from 270 million"), "rose" is the passage's meaning in other words. A movement its own
numbers contradict, or one the passage makes the other way, is wrong; so is "net profit rose" against "Net profit
fell" in a claim that also says something rose correctly.
"""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.direction import (
    change_directions,
    direction_errors,
    directions_reversed,
    directions_shown,
    movements,
    start_values,
)

PASSAGE = ("The company reported revenue of 310 million euros for the third quarter, up from 270 million a year "
           "earlier. Net profit fell to 12 million euros because of higher energy costs.")


def test_movements_read_from_and_to_in_either_order():
    (mv,) = movements("Revenue rose to 310 million euros from 270 million.")
    assert (mv.up, mv.before, mv.after) == (True, 270e6, 310e6)
    (mv,) = movements("Output fell from 40 to 35 tonnes.")
    assert (mv.up, mv.before, mv.after) == (False, 40, 35)
    assert movements("Sales fell from 2019 to 2021.") == []  # a period, not a quantity
    assert movements("Revenue rose to 310 million.") == []  # no starting point: nothing to read


def test_direction_errors_and_reversals():
    assert direction_errors("Net profit rose to 12 million from 15 million.")[0][2].endswith("that is a fall")
    assert direction_errors("Net profit fell to 12 million from 15 million.") == []
    starts = start_values(PASSAGE)
    assert directions_reversed("Revenue fell to 270 million from 310 million.", starts)
    assert directions_reversed("Revenue rose to 310 million from 270 million.", starts) == []
    claim = "Revenue rose to 310 million from 270 million."
    assert [claim[s:e] for s, e in directions_shown(claim, starts)] == ["rose"]
    assert directions_shown(claim, start_values("Revenue was 310 million, against 270 million.")) == []  # no "from"


@pytest.mark.parametrize(("answer", "label"), [
    ("Third-quarter revenue rose to 310 million euros from 270 million.", "supported"),
    ("Revenue climbed from 270 million to 310 million euros in the third quarter.", "supported"),
    ("Third-quarter revenue fell to 310 million euros from 270 million.", "hallucinated"),
    ("Third-quarter revenue fell to 270 million euros from 310 million.", "hallucinated"),
    # one clause right, the other flipped: the flip is read in its own clause
    ("Third-quarter revenue rose to 310 million euros from 270 million, and net profit rose to 12 million euros as "
     "energy costs fell.", "hallucinated"),
])
def test_movements_in_answers(answer, label):
    verdict = LocalVerifier().verify(answer, [PASSAGE], question="How did the company do in Q3?")
    assert verdict.label == label, (verdict.score, [c.signals for c in verdict.claims])


def test_movements_are_bounded_on_crafted_text():
    crafted = "rose from 1 to 2 " * 20_000
    start = time.monotonic()
    assert len(movements(crafted)) == 8
    assert directions_shown("Revenue rose to 3 from 2.", start_values("from 2 " * 50_000))
    assert time.monotonic() - start < 10
    verdict = LocalVerifier().verify("Profit rose, " * 2_000 + "and costs fell.", ["Profit fell, and costs rose."])
    assert verdict.label in ("hallucinated", "supported", "unverified")


def test_percentage_changes_and_their_direction():
    from halguard.grounding.signals.direction import changes_reversed, changes_shown, percent_changes

    text = "Sales were up 9%, costs fell by 3.5 per cent, and online sales make up 22% of the total."
    assert [(text[s:e], value, up) for s, e, value, up in percent_changes(text)] == [("up", 9.0, True),
                                                                                   ("fell", 3.5, False)]
    passages = ["Brennan Foods reported annual sales of 1.4 billion dollars, up 9% from the previous year."]
    changes = change_directions(passages[0])
    assert changes == {9.0: frozenset({True})}
    assert changes_reversed("Sales were 1.4 billion dollars, down 9% on the year.", changes)
    claim = "Brennan Foods reported annual sales of 1.4 billion dollars, a 9% increase on the previous year."
    assert [claim[s:e] for s, e in changes_shown(claim, changes)] == ["increase"]
    verifier = LocalVerifier()
    assert verifier.verify(claim, passages).label == "supported"
    assert verifier.verify(claim.replace("increase", "decrease"), passages).label == "hallucinated"
    # "a rise of 9%", "a fall of 9%": the noun and its number
    rise = "Brennan Foods reported annual sales of 1.4 billion dollars, a rise of 9% on the year before."
    assert [rise[s:e] for s, e in changes_shown(rise, changes)] == ["rise"]
    assert changes_reversed(rise.replace("rise", "fall"), changes)
    assert verifier.verify("Brennan Foods reported annual sales of 1.4 billion dollars, down 9% from the previous "
                           "year.", passages).label == "hallucinated"


def test_a_negated_opposite_says_the_same():
    verifier = LocalVerifier()
    passage = ["The library is closed on Sundays and public holidays."]
    assert verifier.verify("It does not open on Sundays or public holidays.", passage).label == "supported"
    assert verifier.verify("The library is open on Sundays.", passage).label == "hallucinated"


def test_the_same_side_of_a_pair_is_the_same_direction():
    verifier = LocalVerifier()
    passage = ["Systolic pressure fell by an average of 11 mmHg in the drug group, against 3 mmHg on placebo."]
    assert verifier.verify("The drug lowered systolic pressure by 11 mmHg on average.", passage).label == "supported"
    assert verifier.verify("The drug raised systolic pressure by 11 mmHg on average.", passage).label == "hallucinated"
    # a text with both sides of the pair says neither for the word
    from halguard.grounding.signals.antonyms import same_side_in
    from halguard.text.lexical import term_set

    assert same_side_in("lowered", term_set("Pressure fell by 11 mmHg."))
    assert not same_side_in("lowered", term_set("Pressure fell by 11 mmHg while costs rose."))


@pytest.mark.parametrize(("text", "wrong"), [
    ("The default timeout triples, from 10 to 30 seconds.", False),
    ("Sales doubled from 1.4 million to 2.9 million.", False),  # rounded: within FACTOR_TOLERANCE
    ("The fee was halved from 40 to 20 dollars.", False),
    ("The timeout tripled from 10 to 20 seconds.", True),
    ("The fee was halved from 40 to 25 dollars.", True),
])
def test_a_verb_that_says_by_how_much_is_held_to_it(text, wrong):
    assert bool(direction_errors(text)) is wrong
    # a factor that holds is said by the numbers, where a passage starts from the same number
    assert bool(directions_shown(text, {10.0, 40.0, 1_400_000.0})) is not wrong


def test_percentage_changes_are_read_in_linear_time_on_a_run_of_digits():
    # a fuzzed 200 KB check hung here: the percentage's number was tried from every digit of a long run (quadratic)
    import time

    from halguard.grounding.signals.direction import percent_changes

    started = time.perf_counter()
    percent_changes("1" * 200_000)
    percent_changes("up 1" + "1" * 100_000 + "%")
    assert time.perf_counter() - started < 3.0
