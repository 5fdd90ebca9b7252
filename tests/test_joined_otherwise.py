"""Two things joined otherwise than the passage joins them ("both" for its "or", "either" for its "and", "both" for
one it says "only") are a role conflict; a claim that joins them as the passage does, or says "only" itself, is not."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.joined import joined_otherwise

FEES = ("Monthly maintenance fee: $12. The fee is waived for any statement cycle in which the account has (a) "
        "direct deposits totalling $500 or more, or (b) a minimum daily balance of $1,500, or (c) an account holder "
        "aged 24 or younger.")
BOTH_NEEDED = "The fee is waived if you have direct deposits of $500 and a balance of $1,500."
TRIAL = ("The primary endpoint was met for the 30 mg dose only; the 10 mg result did not reach statistical "
         "significance after adjustment for multiple comparisons.")


def _joined(claim: str, *passages: str) -> list[str]:
    return [why for _, _, why in joined_otherwise(claim, list(passages))]


@pytest.mark.parametrize(("claim", "passage", "why"), [
    ("The $12 monthly fee is waived if you have both direct deposits of $500 or more and a minimum daily balance of "
     "$1,500.", FEES, "joined otherwise: both direct deposits of $500 or more and a minimum daily balance of $1,500 "
     "(the passage: direct deposits totalling $500 or more, or (b) a minimum)"),
    ("The fee is waived if you have either direct deposits of $500 or a balance of $1,500.", BOTH_NEEDED,
     "joined otherwise: either direct deposits of $500 or a balance of $1,500 (the passage: direct deposits of $500 "
     "and a balance)"),
    # fused with another statement: its own part restates the sentence
    ("The primary endpoint was met for both the 10 mg and 30 mg doses, and Corvanta plans to discuss a Phase 3 "
     "program.", TRIAL, "joined otherwise: both the 10 mg and 30 mg doses (the passage: 30 mg dose only)"),
])
def test_a_join_turned_is_a_conflict(claim, passage, why):
    assert _joined(claim, passage) == [why]


@pytest.mark.parametrize(("claim", "passage"), [
    ("The fee is waived if you have either direct deposits of $500 or more or a minimum daily balance of $1,500.",
     FEES),
    ("The fee is waived only if you have both direct deposits of $500 and a balance of $1,500.", BOTH_NEEDED),
    ("The primary endpoint was met for the 30 mg dose, but not for the 10 mg dose.", TRIAL),
    # the claim says "only" itself: its "both" is another statement
    ("Both the 10 mg and 30 mg doses were tested, and the primary endpoint was met for the 30 mg dose only.", TRIAL),
    # a sentence the claim does not restate
    ("Both direct deposits and balances are shown on the statement.", FEES),
])
def test_a_join_kept_is_no_conflict(claim, passage):
    assert _joined(claim, passage) == []


def test_the_verdicts():
    verifier = LocalVerifier()
    turned = "The fee is waived if you have both direct deposits of $500 or more and a minimum daily balance of $1,500."
    kept = "The fee is waived if you have direct deposits of $500 or more, or a minimum daily balance of $1,500."
    assert verifier.verify(turned, [FEES]).label != "supported"
    assert verifier.verify(kept, [FEES]).label == "supported"


def test_bounded_on_crafted_text():
    claim = "Fees are waived for both " + "deposits and balances, both " * 5_000 + "holders."
    passage = "Fees are waived for deposits or " + "balances or holders, " * 20_000 + "only savers."
    started = time.perf_counter()
    joined_otherwise(claim, [passage])
    assert time.perf_counter() - started < 3.0
