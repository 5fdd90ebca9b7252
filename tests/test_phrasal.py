"""Phrasal verbs read as the verbs they mean (halguard.text.phrasal), both ways; a phrasal verb of another meaning is
still a word of its own."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.text.lexical import stem, term_set
from halguard.text.phrasal import PHRASAL_VERBS, phrasal_said, phrasals_in, verb_said_as_phrasal


@pytest.mark.parametrize(("claim", "passage"), [
    ("The minister stepped down on Friday.", "The minister resigned on Friday."),
    ("The minister resigned on Friday.", "The minister stepped down on Friday."),
    ("Northwind took over Palmera in 2021.", "Northwind acquired Palmera in 2021."),
    ("Two nurses set up the company in 1998.", "The company was founded in 1998 by two nurses."),
    ("The rocket was launched at 9:14 a.m.", "The rocket lifted off at 9:14 a.m."),
    ("The European Investment Bank paid for the expansion.",
     "The expansion was funded by the European Investment Bank."),
    ("The match was called off because of rain.", "The match was cancelled because of rain."),
])
def test_a_phrasal_verb_and_its_verb_say_the_same(claim, passage):
    verdict = LocalVerifier().verify(claim, [passage])
    assert verdict.label == "supported", [c.signals.novel_terms for c in verdict.claims]


@pytest.mark.parametrize(("claim", "passage"), [
    ("The minister stepped up on Friday.", "The minister resigned on Friday."),  # another particle, another verb
    ("The minister stayed on until Friday.", "The minister resigned on Friday."),
    ("The company laid off 200 workers.", "The company hired 200 workers."),
    ("The plant was shut down in 2019.", "The plant was sold in 2019."),
])
def test_another_phrasal_verb_is_no_synonym(claim, passage):
    verdict = LocalVerifier().verify(claim, [passage])
    assert verdict.label == "hallucinated", [c.signals.novel_terms for c in verdict.claims]


def test_the_table_reads_both_ways():
    claim = "She stepped down in May."
    assert [claim[s:e] for s, e in phrasal_said(claim, term_set("She resigned in May."))] == ["stepped", "down"]
    assert phrasals_in("She stepped down in May.") == {"step down"}
    assert verb_said_as_phrasal(stem("resigned"), phrasals_in("She stepped down in May."))
    assert not verb_said_as_phrasal(stem("resigned"), phrasals_in("She stepped up in May."))
    assert all(len(phrase.split()) == 2 and verbs for phrase, verbs in PHRASAL_VERBS.items())


def test_phrasal_scan_is_bounded():
    crafted = "stepped down " * 50_000
    start = time.monotonic()
    assert len(phrasal_said(crafted, {"resign"})) == 2 * 64
    assert verb_said_as_phrasal(stem("resign"), phrasals_in(crafted))
    assert time.monotonic() - start < 10
