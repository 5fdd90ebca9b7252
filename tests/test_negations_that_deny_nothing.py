"""Negations that deny nothing the passage says, read as CONTRADICTION on paraphrases of `fresh_2026-12-02` (issue
44: a blocking finding must be right): "at no cost" (it says "free"), "€40 for non-members" beside "€30 for members"
(a group's name, no denied clause) and a contrast's "not" ("glass belongs in the green box, not the blue-lidded bin"
against a passage whose blue-lidded bins are for paper); and an exception turned around by "even if" against
"unless". Each beside the wrong twin that must still be found."""

from __future__ import annotations

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.excepted import exceptions_turned
from halguard.grounding.signals.flips import clauses
from halguard.grounding.signals.negated_clauses import negation_dropped
from halguard.grounding.signals.negation import flip_targets, negation_mismatch
from halguard.text.lexical import term_set


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier(num_threads=1)


def test_at_no_cost_denies_no_cost():
    assert "cost" not in flip_targets("Households of six or more can request a second blue bin at no cost.")
    assert "cost" in flip_targets("The second bin does not cost anything.")


BINS = ("Households of six or more people may apply for a second blue bin free of charge, while replacement bins for "
        "lost or damaged containers cost £25 each.")
HUT = ("Half board costs €68 per person for members of Alpine clubs and €82 for non-members, and a bunk-only "
       "overnight costs €30 for members and €40 for non-members.")


def test_a_group_named_with_non_is_no_negated_clause():
    claim = "A bunk-only night costs thirty euros for Alpine club members or forty for everyone else."
    assert negation_dropped([c for _, c in clauses(claim)], [HUT]) is None
    # a clause that only denies still is one: "members are not admitted" against a claim that they are
    denied = "Members of Alpine clubs are not admitted to the bunk room after 22:00."
    admitted = "Members of Alpine clubs are admitted to the bunk room after 22:00."
    assert negation_dropped([c for _, c in clauses(admitted)], [denied]) == denied


@pytest.mark.parametrize(("answer", "context", "label"), [
    ("Households of six or more people may apply for a second blue bin at no cost.", BINS, "supported"),
    ("A bunk-only night costs thirty euros for Alpine club members or forty for everyone else.", HUT, "supported"),
    ("A bunk-only night costs thirty euros for Alpine club members or fifty for everyone else.", HUT, "hallucinated"),
])
def test_negations_that_deny_nothing_flag_nothing(verifier, answer, context, label):
    verdict = verifier.verify(answer, [context])
    assert verdict.label == label
    assert not any(c.signals.negation_mismatch for c in verdict.claims if c.signals)


REPAYMENT = ("Those who do not return for at least 6 months after the end of paid leave must repay the enhanced "
             "portion of their pay, unless the reason is redundancy or serious ill health.")


def test_an_exception_by_unless_turned_into_even_if_is_a_role_conflict():
    turned = ("Staff who don't come back for at least six months after their paid leave finishes have to repay the "
              "enhanced part of their pay, even if the reason is redundancy or serious ill health.")
    (found,) = exceptions_turned(turned, [REPAYMENT])
    assert "unless the reason is redundancy" in found[2]
    kept = turned.replace("even if", "unless")
    assert exceptions_turned(kept, [REPAYMENT]) == []


BINS_AND_GLASS = ("Blue-lidded bins are for paper, cardboard, food tins, drinks cans and plastic bottles, while glass "
                  "bottles and jars go in the separate 44-litre green box.")


@pytest.mark.parametrize(("claim", "flipped"), [
    ("Glass belongs in the separate green box, not the blue-lidded bin.", False),
    ("Glass bottles and jars go in the separate green box, not the blue-lidded bin.", False),
    ("Glass bottles and jars go in the blue-lidded bin, not the separate green box.", True),
    ("Glass bottles and jars do not go in the separate green box.", True),
])
def test_a_contrast_denies_only_what_the_passage_says_of_its_subject(claim, flipped):
    assert negation_mismatch(claim, BINS_AND_GLASS, term_set(claim), term_set(BINS_AND_GLASS), 0.6) is flipped


HAUSA = ('Hausa ( ) ("Yaren Hausa" or "Harshen Hausa") is the Chadic language (a branch of the Afroasiatic language '
         'family) with the largest number of speakers, spoken as a first language by more than 70 million people.')


@pytest.mark.parametrize(("claim", "flipped"), [
    ("Fulfulde is a Chadic language with the largest number of speakers, not Hausa.", True),
    ("Hausa is the Chadic language with the largest number of speakers, not Fulfulde.", False),
])
def test_a_contrast_reads_a_bracketed_statement_whole(claim, flipped):
    # a HaluEval fabrication the first version of the contrast rule passed: the statement was cut at its brackets
    assert negation_mismatch(claim, HAUSA, term_set(claim), term_set(HAUSA), 0.6) is flipped
