"""A thing the passage excepts, said included ("including interlibrary loans" for "except for interlibrary loans"), is a
role conflict; and the reverse. A claim that restates another statement, excepts and includes itself, or keeps the
passage's side is not."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.excepted import exceptions_turned

HOLDS = ("Holds placed at Eastgate will be rerouted to the Central branch on Pell Street, except for interlibrary "
         "loans, which must be collected at the Northside branch.")
POINTS = "Basic Economy fares will earn no points, except on routes to Iceland and the Faroe Islands."
MUSEUM = ("The museum is open Tuesday to Sunday from 10:00 to 17:00. The museum is closed on Mondays except bank "
          "holiday Mondays, and closed on 25 and 26 December.")
PIZZA = "The lunch deal covers every pizza on the menu, including the calzone, for 12 euros."


def _turned(claim: str, *passages: str) -> list[str]:
    return [why for _, _, why in exceptions_turned(claim, list(passages))]


@pytest.mark.parametrize(("claim", "passage", "why"), [
    ("Holds placed at Eastgate, including interlibrary loans, will be rerouted to the Central branch.", HOLDS,
     "exception turned: including interlibrary loans (the passage: except for interlibrary loans)"),
    ("Basic Economy fares will earn no points on any route, even on routes to Iceland.", POINTS,
     "exception turned: even on routes to Iceland (the passage: except on routes to Iceland)"),
    ("The lunch deal covers every pizza on the menu except the calzone.", PIZZA,
     "exception turned: except the calzone (the passage: including the calzone)"),
    # fused with another sentence's fact: its own clause restates the excepting sentence
    ("The museum is open Tuesday to Sunday from 10:00 to 17:00, but it is closed on all Mondays, including bank "
     "holiday Mondays.", MUSEUM,
     "exception turned: including bank holiday Mondays (the passage: except bank holiday Mondays)"),
])
def test_an_exception_turned_is_a_conflict(claim, passage, why):
    assert _turned(claim, passage) == [why]


@pytest.mark.parametrize(("claim", "passage"), [
    # the passage's side kept, in other words
    ("Holds will go to the Central branch, apart from interlibrary loans.", HOLDS),
    ("Basic Economy fares earn no points other than on routes to Iceland.", POINTS),
    ("The lunch deal covers every pizza, the calzone included, for 12 euros.", PIZZA),
    ("The museum opens Tuesday to Sunday, but it is closed on Mondays, except bank holiday Mondays.", MUSEUM),
    # a clause of too few words of its own is not read alone
    ("Tours run daily from 10:00; including Mondays.", MUSEUM),
    # another statement about the thing: the claim does not restate the excepting sentence
    ("Interlibrary loans, including those placed at Eastgate, must be collected at the Northside branch.", HOLDS),
    # the claim's own exception and inclusion are its statement
    ("Holds, including renewals but not interlibrary loans, will be rerouted to the Central branch.", HOLDS),
])
def test_what_keeps_the_passage_s_side_is_no_conflict(claim, passage):
    assert _turned(claim, passage) == []


def test_the_verdicts():
    verifier = LocalVerifier()
    turned = "Holds placed at Eastgate, including interlibrary loans, will be rerouted to the Central branch."
    kept = "Holds placed at Eastgate will go to the Central branch on Pell Street, except interlibrary loans."
    assert verifier.verify(turned, [HOLDS]).label != "supported"
    assert verifier.verify(kept, [HOLDS]).label == "supported"


def test_bounded_on_crafted_text():
    claim = "Holds, including " + "interlibrary loans, including " * 5_000 + "loans, will be rerouted."
    passage = "Holds will be rerouted, except for " + "interlibrary loans and " * 20_000 + "maps."
    started = time.perf_counter()
    exceptions_turned(claim, [passage])
    assert time.perf_counter() - started < 3.0
