"""Roles read in the twenty-fifth session's user apps: a passage's conjunct whose verb it leaves out ("open from 8
a.m. to 8 p.m. on weekdays and from 9 a.m. to 1 p.m. on Saturdays": the Saturday hours have no frame of their own, and
a faithful "open from 9 a.m. until 1 p.m." on Saturdays was a number in the wrong place), and a move whose mover the
passage names by a pronoun ("when it moved from Harbour Road to ... Eastgate Square": the claim's clinic moving from
Eastgate Square to Harbour Road passed); and, from the fresh file, a vote said unanimous where the passage counts
votes against ("voted 7 to 2"). Each faithful form passes; its wrong twin does not."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.roles.gapped import in_gapped_conjunct

HOURS = ("The Eastgate walk-in clinic is open from 8 a.m. to 8 p.m. on weekdays and from 9 a.m. to 1 p.m. on "
         "Saturdays. It is closed on Sundays.")
MOVE = ("Dr. Amara Osei has led the clinic since March 2021, when it moved from Harbour Road to its current site on "
        "Eastgate Square.")


@pytest.mark.parametrize(("phrase", "claim", "gapped"), [
    ("open from 9 a.m.", "On Saturdays the clinic is open from 9 a.m. until 1 p.m.", True),
    ("open from 9 in the morning", "On Saturdays it is open from 9 in the morning.", True),  # the time by its minutes
    ("open from 9 a.m.", "On weekdays the clinic is open from 9 a.m.", False),  # the conjunct is Saturdays'
    ("open from 10 a.m.", "On Saturdays the clinic is open from 10 a.m.", False),  # no conjunct has 10 a.m.
    ("open from 8 a.m.", "On Saturdays the clinic is open from 8 a.m.", False),  # the first conjunct's, not gapped
])
def test_a_phrase_in_a_conjunct_without_its_verb(phrase, claim, gapped):
    assert in_gapped_conjunct(phrase, claim, [HOURS]) is gapped


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier()


@pytest.mark.parametrize(("answer", "passage", "faithful"), [
    ("On Saturdays the clinic is open from 9 a.m. until 1 p.m.", HOURS, True),
    ("On Saturdays the clinic is open from 9 in the morning until 1 in the afternoon.", HOURS, True),
    ("The clinic is open from 9 a.m. to 1 p.m. on Saturdays.", HOURS, True),
    ("On weekdays the clinic is open from 9 a.m. until 8 p.m.", HOURS, False),
    ("The clinic is open from 9 a.m. to 1 p.m. on Sundays.", HOURS, False),
    ("The clinic moved from Harbour Road to Eastgate Square in March 2021.", MOVE, True),
    ("The clinic moved from Eastgate Square to Harbour Road in March 2021.", MOVE, False),
    ("In March 2021 the clinic relocated from Eastgate Square to Harbour Road.", MOVE, False),
])
def test_the_verdicts(verifier, answer, passage, faithful):
    assert (verifier.verify(answer, [passage]).label == "supported") is faithful


def test_gapped_conjuncts_are_read_in_bounded_time():
    passage = "It is open from 8 a.m. on weekdays" + " and from 9 a.m. on Saturdays" * 20_000 + "."
    started = time.perf_counter()
    in_gapped_conjunct("open from 7 a.m.", "On Saturdays it is open from 7 a.m.", [passage])
    assert time.perf_counter() - started < 2.0


VOTE = ("On 9 October 2025, the Brennick County Council voted 7 to 2 to approve a $14.2 million upgrade of the Halden "
        "Street water treatment plant.")


@pytest.mark.parametrize(("answer", "passages", "faithful"), [
    ("The council unanimously approved the $14.2 million upgrade of the Halden Street plant.", [VOTE], False),
    ("The council approved the $14.2 million upgrade of the Halden Street plant by 7 votes to 2.", [VOTE], True),
    ("The council unanimously approved the upgrade.", ["The council approved the upgrade unanimously, 9-0."], True),
])
def test_a_vote_said_unanimous_where_the_passage_counts_votes_against(verifier, answer, passages, faithful):
    assert (verifier.verify(answer, passages).label == "supported") is faithful


def test_years_are_no_vote_count():
    from halguard.text.votes import unanimity_changed

    claim = "It was unanimously approved."
    assert unanimity_changed(claim, ["The council approved funding for 2020 to 2024."]) == []
    assert unanimity_changed(claim, ["The council voted 7-2 to approve funding."]) == [(7, 18)]


def test_votes_are_read_in_bounded_time():
    from halguard.text.votes import unanimity_changed

    started = time.perf_counter()
    unanimity_changed("It passed unanimously.", ["voted " + "7 " * 50_000 + "to 2. " + "passed 9-3; " * 20_000])
    assert time.perf_counter() - started < 2.0
