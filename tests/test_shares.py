"""Equal shares: an amount shared equally gives each party's share (halguard.text.shares)."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.text.shares import equal_shares

PRIZE = ("The novel 'Salt Roads' by Camila Ortuzar won this year's International Book Prize, worth 50,000 pounds, "
         "which will be shared equally between the author and her translator, Daniel Moss. The judges chose it from "
         "a shortlist of six books.")


@pytest.mark.parametrize(("text", "shares"), [
    (PRIZE, {25_000.0}),  # ", Daniel Moss" is an apposition, not a third party
    ("The 3 million dollar jackpot was split equally among the three winners.", {1_000_000.0}),
    ("The estate of 900,000 euros was divided equally between his son, his daughter and his widow in 2019.",
     {300_000.0}),
    ("Profits of 10 million are split evenly between Acme and Beta, who founded it.", {5_000_000.0}),
    ("The prize money was shared between the two finalists.", set()),  # not said to be equal
    ("The 12,000 pounds raised will be shared equally among the 4,000 members.", set()),  # a count, not a list
    ("It was shared equally between the two of them.", set()),  # no amount
])
def test_each_partys_share(text, shares):
    assert equal_shares(text) == shares


def test_a_share_the_passage_implies_is_no_missing_number():
    verifier = LocalVerifier()
    claim = verifier.verify("Camila Ortuzar and her translator Daniel Moss will each get 25,000 pounds from the prize.",
                            [PRIZE]).claims[0]
    assert claim.signals.missing_numbers == [] and claim.status.value != "CONTRADICTION"
    wrong = verifier.verify("Camila Ortuzar and her translator Daniel Moss will each get 30,000 pounds from the prize.",
                            [PRIZE]).claims[0]
    assert wrong.signals.missing_numbers == ["30,000"]


def test_crafted_text_is_read_in_bounded_time():
    text = ("worth 10 pounds shared equally between " + "a, " * 100 + "and b. ") * 2_000
    start = time.perf_counter()
    assert equal_shares(text)
    assert time.perf_counter() - start < 2.0
