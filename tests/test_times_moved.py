"""A time of day of the passage put where the sentence the claim restates gives another ("the course closes at 11:30
a.m." where 11:30 a.m. is the sweep bus's and the course closes at 1:15 p.m.) is a role conflict; the passage's own
times, in their slots or restated from their own sentences, are not."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.scope import scope_of
from halguard.grounding.signals.times_moved import times_moved
from halguard.text.contexts import Source

MARATHON = ("The 2026 Lakeshore City Marathon will start at 6:45 a.m. on Sunday, 18 October, from Harbour Plaza, with "
            "a course closing time of 1:15 p.m. Runners must pick up bibs at the Convention Centre expo between 10:00 "
            "a.m. and 8:00 p.m. Runners who have not reached the 30-kilometre mark by 11:30 a.m. will be moved to a "
            "sweep bus.")


def _moved(claim: str, passage: str = MARATHON) -> list[str]:
    scope = scope_of([Source("p0", passage)], None)
    return [why for _, _, why in times_moved(claim, scope, [passage])]


@pytest.mark.parametrize(("claim", "why"), [
    ("The race begins at 6:45 a.m. on Sunday, October 18, from Harbour Plaza, and the course closes at 11:30 a.m.",
     "11:30 a.m. where the passage has 1:15 p.m."),
    ("The course closes at 11:30 a.m.", "11:30 a.m. where the passage has 1:15 p.m."),
])
def test_a_time_moved_into_another_s_slot_is_a_conflict(claim, why):
    assert _moved(claim) == [why]


@pytest.mark.parametrize("claim", [
    "The marathon starts at 6:45 a.m. and the course closes at 1:15 p.m.",
    # restated from its own sentence, fused with another
    "The race begins at 6:45 a.m. from Harbour Plaza, and runners who have not reached the 30-km mark by 11:30 a.m. "
    "go to a sweep bus.",
    "Bibs can be collected until 8 p.m. at the expo.",
    "The course closes at 9 p.m.",  # a time the passage lacks: the times of day's finding, not a move
])
def test_the_passage_s_times_in_their_slots_are_no_conflict(claim):
    assert _moved(claim) == []


def test_the_verdict():
    verifier = LocalVerifier()
    moved = "The marathon starts at 6:45 a.m. from Harbour Plaza, and the course closes at 11:30 a.m."
    assert verifier.verify(moved, [MARATHON]).label != "supported"
    assert verifier.verify(moved.replace("11:30 a.m.", "1:15 p.m."), [MARATHON]).label == "supported"


def test_bounded_on_crafted_text():
    passage = "The course closes at 1:15 p.m. " * 2_000 + "The bus leaves at 11:30 a.m."
    claim = "The course closes at 11:30 a.m. and " * 2_000
    started = time.perf_counter()
    times_moved(claim, scope_of([Source("p0", passage)], None), [passage])
    assert time.perf_counter() - started < 3.0
