"""A day the passages give as an offset from another date ("two days earlier" than 11 April) is found; another day,
an offset from no date of its sentence, and a crafted passage are not."""

from __future__ import annotations

import time

import pytest

from halguard.grounding.signals.scope import scope_of
from halguard.grounding.signals.words import missing_numbers
from halguard.text.contexts import Source
from halguard.text.dates import calendar_dates
from halguard.text.relative_dates import dated_by_offset

TICKETS = ("Tickets go on general sale on 11 April at 10am local time, with a fan presale for mailing-list subscribers "
           "two days earlier. The tour opens in Dublin on 14 September.")


def _missing(claim: str, passage: str) -> list[str]:
    return [claim[s:e] for s, e in missing_numbers(claim, scope_of([Source(id="0", text=passage)], None), set())]


def test_a_month_then_an_ordinal_day_is_a_date():
    assert calendar_dates("a presale on April 9th.", yearless=True) == [(13, 22, (0, 4, 9))]


@pytest.mark.parametrize("claim", [
    "Subscribers can buy in a presale on April 9th.",
    "The presale for subscribers is on 9 April.",
])
def test_a_day_given_as_an_offset_is_found(claim):
    assert _missing(claim, TICKETS) == []


@pytest.mark.parametrize(("claim", "passage", "missing"), [
    ("Subscribers can buy in a presale on April 8th.", TICKETS, ["8"]),  # another day
    ("Subscribers can buy in a presale on April 13th.", TICKETS, ["13"]),  # the offset's other side
    # an offset with no date in its sentence counts from nothing
    ("Subscribers can buy in a presale on April 9th.",
     "Tickets go on general sale on 11 April. A fan presale opens two days earlier than usual.", ["9"]),
])
def test_another_day_is_still_missing(claim, passage, missing):
    assert _missing(claim, passage) == missing


def test_weeks_and_a_month_boundary_and_years():
    passage = "The vote is on 4 March 2027, and postal ballots must arrive two weeks before."
    assert dated_by_offset("Postal ballots are due by 18 February 2027.", 26, 28, [passage])
    assert not dated_by_offset("Postal ballots are due by 18 February 2026.", 26, 28, [passage])


def test_a_whole_date_given_as_an_offset_is_no_changed_date(verifier):
    passage = "Sales open on 11 April 2027, with a presale for subscribers two days earlier."
    assert verifier.verify("The presale for subscribers is on April 9th, 2027.", [passage]).label == "supported"
    changed = verifier.verify("The presale for subscribers is on April 8th, 2027.", [passage])
    assert changed.label == "hallucinated" and changed.claims[0].signals.changed_numbers == ["8"]


def test_offsets_are_bounded_on_a_crafted_passage():
    passage = "On 1 May, two days earlier. " * 20_000
    started = time.perf_counter()
    assert not dated_by_offset("It was on 3 May.", 10, 11, [passage])
    assert time.perf_counter() - started < 2.0


def test_a_claim_of_many_missing_numbers_reads_its_dates_once():
    # each missing number read the claim's dates again: quadratic (1,000 numbers took 2.1 s); now once per claim
    import time

    from halguard.grounding.signals.scope import scope_of
    from halguard.grounding.signals.words import missing_numbers
    from halguard.text.contexts import Source

    scope = scope_of([Source("p0", "The bridge opened on 3 May 1990, two days after 1 May 1990.")], None)
    claim = " ".join(f"It cost {i + 7000} dollars on {i % 20 + 8} June." for i in range(500))
    started = time.perf_counter()
    assert len(missing_numbers(claim, scope, set())) == 1_000  # each amount, and each day of June
    assert time.perf_counter() - started < 2.0
    assert missing_numbers("It opened on 3 May.", scope, set()) == []  # two days after 1 May
