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
from halguard.grounding.signals.direction import direction_errors, directions_reversed, directions_shown, movements

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
    assert directions_reversed("Revenue fell to 270 million from 310 million.", [PASSAGE])
    assert directions_reversed("Revenue rose to 310 million from 270 million.", [PASSAGE]) == []
    claim = "Revenue rose to 310 million from 270 million."
    assert [claim[s:e] for s, e in directions_shown(claim, [PASSAGE])] == ["rose"]
    assert directions_shown(claim, ["Revenue was 310 million, against 270 million."]) == []  # no "from 270"


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
    assert directions_shown("Revenue rose to 3 from 2.", ["from 2 " * 50_000])
    assert time.monotonic() - start < 10
    verdict = LocalVerifier().verify("Profit rose, " * 2_000 + "and costs fell.", ["Profit fell, and costs rose."])
    assert verdict.label in ("hallucinated", "supported", "unverified")
