"""Findings that were false on faithful answers of `fresh_2026-12-01g` (issue 44), each beside its wrong twin: a
negation whose predicate the clause before gives ("cash is not"), a negation another proposition of the evidence says
itself, a place the passage only places further ("at the Expo" for "from the Expo at the Convention Centre"), and one
head word the passage gives two descriptions ("laser cutter", "vinyl cutter")."""

from __future__ import annotations

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.negated_words import negations as _negations
from halguard.grounding.signals.negation import flip_targets, negation_mismatch
from halguard.text.lexical import term_set

PAYMENT = "The practice accepts card and bank transfer but not cash."
PACKS = ("Runners must collect their race packs from the Expo at the Convention Centre on Friday (12 pm-8 pm) or "
         "Saturday (9 am-6 pm); packs will not be available on race morning.")
RACE = "The full marathon starts at 7:30 am from Victoria Park. " + PACKS
MAKERSPACE = ("Before booking the laser cutter or the CNC router, users must complete a 90-minute induction session, "
              "which runs on the first and third Saturday of each month and costs £10. The 3D printers, vinyl cutter "
              "and sewing machines require only a 15-minute safety briefing, which is free.")


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier(num_threads=1)


def _flips(claim: str, evidence: str) -> bool:
    return negation_mismatch(claim, evidence, term_set(claim), term_set(evidence), 0.6)


def test_a_negation_with_its_predicate_before_it_negates_the_subject():
    assert _negations("Card and bank transfer are accepted; cash is not.")[0] == {"cash"}
    assert "outlet" in _negations("Sole traders are eligible; charities and franchise outlets are not.")[0]
    assert _negations("Cash is not accepted.")[0] == flip_targets("Cash is not accepted.")  # a predicate follows
    assert _negations("The one that is not, is.")[0] == set()  # a function word is no subject


def test_cash_is_not_against_but_not_cash():
    assert not _flips("Card and bank transfer are the accepted payment methods; cash is not.", PAYMENT)
    assert _flips("The practice accepts card, bank transfer and cash.", PAYMENT)
    assert _flips("The practice does not accept card.", PAYMENT)  # the negating proposition states "accepts"


def test_a_negation_another_proposition_says_is_that_ones():
    claim = ("Before race day, collect your pack at the Expo - it's open 12-8 pm on Friday and 9 am-6 pm on "
             "Saturday - because packs can't be collected on the morning of the race.")
    assert not _flips(claim, PACKS)
    assert _flips("Runners must not collect their race packs from the Expo on Friday or Saturday.", PACKS)
    assert _flips("Packs will be available on race morning.", PACKS)


@pytest.mark.parametrize(("answer", "label"), [
    ("Runners collect their race packs at the Expo on Friday.", "supported"),
    ("Runners collect their race packs at Victoria Park on Friday.", "hallucinated"),
])
def test_a_place_the_passage_places_further_is_the_same_place(verifier, answer, label):
    verdict = verifier.verify(answer, [RACE])
    assert verdict.label == label
    assert bool(verdict.claims[0].signals.role_conflicts) == (label == "hallucinated")


@pytest.mark.parametrize(("answer", "conflict"), [
    ("The laser cutter, like the CNC router, requires a paid 90-minute induction (£10), unlike the 3D printers, "
     "which need only a free 15-minute safety briefing.", None),
    ("The vinyl cutter requires only a 15-minute safety briefing.", None),
    ("The laser cutter requires only a 15-minute safety briefing.", "The laser cutter where the passage has vinyl"),
    ("The vinyl cutter requires a 90-minute induction session.", "a 90-minute induction session where"),
])
def test_two_descriptions_of_one_head_the_passage_tells_apart(verifier, answer, conflict):
    (claim,) = verifier.verify(answer, [MAKERSPACE]).claims
    found = claim.signals.role_conflicts
    assert (any(why.startswith(conflict) for why in found) if conflict else found == [])


def test_a_moved_number_is_a_contradiction(verifier):
    passage = ("Business plan customers receive a first response within 1 hour, while Standard plan customers "
               "receive a first response within 4 business hours.")
    (claim,) = verifier.verify("Standard plan customers receive a first response within 1 hour.", [passage]).claims
    assert "moved_numbers" in claim.signals.findings
    assert claim.status.value == "CONTRADICTION"
