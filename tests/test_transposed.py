"""Two things of a copied sentence that trade places are a role conflict; a symmetric relation, a list read in
another order or a phrase moved whole is not."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.closest import ClosestSentence
from halguard.grounding.signals.transposed import MAX_WORDS, transposed_words

COURT = ("The state appeals court ruled on Tuesday that Harlow Chemicals must pay 4 million dollars to the town of "
         "Millbrook for polluting its reservoir. The town's lawyers had argued that the company knew about the leak "
         "for two years. Judge Amelia Ortiz wrote the majority opinion, and Judge Peter Lang dissented.")
TRADE = ("Exports of wheat fell by 12% last year while imports of rice rose by 8%. Kessler met Rao in Geneva, between "
         "the talks in Lyon and Nice. Phobos and Deimos orbit Mars.")


def _transposed(claim: str, passage: str) -> list[str]:
    return [why for _, _, why in transposed_words(claim, ClosestSentence.of(claim, passage), [passage], 0.8)]


@pytest.mark.parametrize(("claim", "passage", "why"), [
    ("The company's lawyers had argued that the town knew about the leak for two years.", COURT,
     "roles swapped: company / town (the passage: town's lawyers had argued that the company)"),
    ("Judge Peter Lang wrote the majority opinion, and Judge Amelia Ortiz dissented.", COURT,
     "roles swapped: Judge Peter Lang / Judge Amelia Ortiz"),
    ("Exports of rice fell by 12% last year while imports of wheat rose by 8%.", TRADE,
     "roles swapped: rice / wheat"),
])
def test_two_things_that_trade_places_in_a_copied_sentence_are_found(claim, passage, why):
    found = _transposed(claim, passage)
    assert len(found) == 1 and found[0].startswith(why)


@pytest.mark.parametrize(("claim", "passage"), [
    ("The town's lawyers had argued that the company knew about the leak for two years.", COURT),  # the sentence
    ("Rao met Kessler in Geneva.", TRADE),  # a symmetric relation
    ("Deimos and Phobos orbit Mars.", TRADE),  # nothing but "and" between them
    ("Kessler met Rao in Geneva, between the talks in Nice and Lyon.", TRADE),
    ("For two years the company knew about the leak.", "The company knew about the leak for two years."),  # moved
    # the passage says it the claim's way too
    ("Ana beat Ben in the final.", "Ben beat Ana in the semi-final. In the final Ana beat Ben in the final."),
    # no copy of the sentence: the other checks' business
    ("The company's new lawyers said the town had known for years.", COURT),
])
def test_what_is_no_exchange(claim, passage):
    assert _transposed(claim, passage) == []


def test_the_verifier_reports_an_exchange_as_a_role_conflict():
    v = LocalVerifier().verify("The company's lawyers had argued that the town knew about the leak for two years.",
                               [COURT])
    assert v.label == "hallucinated"
    claim = v.claims[0]
    assert "role_conflicts" in claim.signals.findings
    assert any("roles swapped: company / town" in r for r in claim.reasons)
    assert LocalVerifier().verify("The town's lawyers had argued that the company knew about the leak for two years.",
                                  [COURT]).label == "supported"


def test_crafted_sentences_are_bounded():
    words = " ".join(f"w{i} x{i}" for i in range(MAX_WORDS))
    assert transposed_words(words, ClosestSentence.of(words, words), [words], 0.8) == []  # over MAX_WORDS: not read
    # a sentence at the limit, every word a candidate: bounded by MAX_CANDIDATES
    at_limit = " ".join(f"Name{i}" if i % 2 else f"thing{i}" for i in range(MAX_WORDS - 1))
    reordered = " ".join(reversed(at_limit.split()))
    started = time.perf_counter()
    transposed_words(reordered, ClosestSentence.of(reordered, at_limit), [at_limit], 0.8)
    assert time.perf_counter() - started < 1.0
