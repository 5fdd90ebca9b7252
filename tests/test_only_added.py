"""One of a list said to be the only one ("only puppies under 10 weeks old were excluded" where the passage excludes
them and pregnant dogs) is a role conflict; a claim that keeps the list, a passage that says "only" itself, "not
only", "the only" and another statement are not."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.only_added import only_added

TRIAL = ("Dogs received two doses 21 days apart. Puppies under 10 weeks old and pregnant dogs were excluded. The "
         "discount applies to students and seniors.")
VOTE = "Board member Alicia Fenwick cast the only dissenting vote. Only members present may vote."


def _added(claim: str, passage: str = TRIAL) -> list[str]:
    return [why for _, _, why in only_added(claim, [passage])]


@pytest.mark.parametrize(("claim", "why"), [
    ("The dogs received two doses 21 days apart, and only puppies under 10 weeks old were excluded from the study.",
     "only added: only puppies under 10 weeks old (the passage: Puppies under 10 weeks old and pregnant dogs)"),
    ("The discount applies only to students.", "only added: only to students (the passage: students and seniors)"),
    ("Only seniors get the discount.", "only added: Only seniors (the passage: students and seniors)"),
])
def test_one_of_a_list_said_the_only_one_is_a_conflict(claim, why):
    assert _added(claim) == [why]


@pytest.mark.parametrize(("claim", "passage"), [
    ("Only puppies under 10 weeks old and pregnant dogs were excluded.", TRIAL),  # the list kept
    ("The discount applies to students and seniors only.", TRIAL),
    ("Not only puppies were excluded.", TRIAL),
    ("Alicia Fenwick cast the only vote against.", VOTE),
    ("Only members who are present may vote.", VOTE),  # the passage says "only" itself
    ("Only puppies got a third dose.", TRIAL),  # no sentence restated
])
def test_what_keeps_the_list_is_no_conflict(claim, passage):
    assert _added(claim, passage) == []


def test_the_verdicts():
    verifier = LocalVerifier()
    assert verifier.verify("Only puppies under 10 weeks old were excluded.", [TRIAL]).label != "supported"
    assert verifier.verify("Puppies under 10 weeks old were excluded.", [TRIAL]).label == "supported"


def test_bounded_on_crafted_text():
    claim = "Only students " * 5_000 + "get it."
    passage = "The discount applies to " + "students and seniors and " * 20_000 + "staff."
    started = time.perf_counter()
    only_added(claim, [passage])
    assert time.perf_counter() - started < 3.0
