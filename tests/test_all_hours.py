"""A window of hours said as every hour ("at all hours" where the passage says "between 6:00 and 10:00") is a role
conflict; the same statement kept to its window, or a passage that says every hour itself, is not."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.all_hours import all_hours_widened

LOADING = ("Staff must report back to council at the 9-month mark. Loading zones for commercial deliveries will remain "
           "available on Larkspur Avenue between 6:00 and 10:00 on weekdays; outside those hours the zones become part "
           "of the bicycle lane.")
OFFICE = "The office is open from 9 a.m. to 5 p.m., and the online portal is available at any time."
HELPLINE = "The helpline is open 24 hours a day."


def _widened(claim: str, passage: str) -> list[str]:
    return [why for _, _, why in all_hours_widened(claim, [passage])]


@pytest.mark.parametrize(("claim", "passage", "why"), [
    ("Loading zones for commercial deliveries will remain available on Larkspur Avenue at all hours, and comments "
     "can be submitted until 31 January 2027.", LOADING, "hours widened: at all hours (the passage: 6:00 and 10:00)"),
    ("The office is open at any time.", OFFICE, "hours widened: at any time (the passage: 9 a.m. to 5 p.m.)"),
])
def test_a_window_said_as_every_hour_is_a_conflict(claim, passage, why):
    assert _widened(claim, passage) == [why]


@pytest.mark.parametrize(("claim", "passage"), [
    ("Loading zones will remain available on Larkspur Avenue between 6 and 10 in the morning on weekdays.", LOADING),
    ("Loading zones on Larkspur Avenue stay available on weekday mornings.", LOADING),
    # the window is another clause's: the portal's own clause says every hour
    ("The online portal is available around the clock.", OFFICE),
    # the passage says every hour itself
    ("The helpline can be reached around the clock.", HELPLINE),
    ("You can reach the helpline day and night.", HELPLINE),
])
def test_what_keeps_the_window_is_no_conflict(claim, passage):
    assert _widened(claim, passage) == []


def test_the_verdicts():
    verifier = LocalVerifier()
    widened = "Loading zones for commercial deliveries will remain available on Larkspur Avenue at all hours."
    kept = ("Loading zones for commercial deliveries will remain available on Larkspur Avenue from 6:00 to 10:00 on "
            "weekdays.")
    assert verifier.verify(widened, [LOADING]).label != "supported"
    assert verifier.verify(kept, [LOADING]).label == "supported"


def test_bounded_on_crafted_text():
    claim = "Loading zones stay available at all hours " + "and zones " * 5_000 + "."
    passage = "Loading zones stay available between 6:00 and 10:00, " * 20_000
    started = time.perf_counter()
    all_hours_widened(claim, [passage])
    assert time.perf_counter() - started < 3.0
