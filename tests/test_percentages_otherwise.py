"""A percentage whose number the passages write for something else ("11%" where their 11 counts points and their share
is 9%) is a changed number; a share they write, compute another way or give as percentage points is not."""

from __future__ import annotations

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.percentages import percentages_otherwise
from halguard.grounding.signals.scope import scope_of
from halguard.text.contexts import Source

POINTS = ("Members earn 5 points per euro, rising to 8 for Silver and 11 for Gold. The change affects about 2.4 "
          "million members, roughly 9% of whom hold Silver or Gold status.")
SEATS = "The party won 70 of the 100 seats, up 4 percentage points on its 2019 share of 66%."


def _otherwise(claim: str, passage: str) -> list[str]:
    scope = scope_of([Source("p0", passage)], None)
    return [claim[s:e] for s, e in percentages_otherwise(claim, scope)]


@pytest.mark.parametrize(("claim", "passage", "found"), [
    ("About 11% of the members hold Silver or Gold status.", POINTS, ["11%"]),
    ("About eight percent of the members hold Silver or Gold status.", POINTS, ["eight percent"]),
    ("About 9 per cent of the members hold Silver or Gold status.", POINTS, []),
    ("The party won 70% of the seats.", SEATS, []),  # 70 of 100 is 70%
    ("Its share rose 4% to 70%.", SEATS, []),  # percentage points: the passage speaks of the share's points
    ("Members earn 11 points per euro at Gold.", POINTS, []),  # no percentage
])
def test_a_percentage_the_passage_writes_for_something_else(claim, passage, found):
    assert _otherwise(claim, passage) == found


def test_a_passage_of_no_percentages_decides_nothing():
    assert _otherwise("About 11% hold Gold status.", "Gold members earn 11 points per euro.") == []


def test_the_verdicts():
    verifier = LocalVerifier()
    assert verifier.verify("Roughly 11% of the 2.4 million members hold Silver or Gold status.", [POINTS]).label != (
        "supported")
    assert verifier.verify("Roughly 9% of the 2.4 million members hold Silver or Gold status.", [POINTS]).label == (
        "supported")
