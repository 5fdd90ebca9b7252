"""A table's declared scale ("all figures in £ thousands") and fiscal years run into their year ("FY2025"): three
paraphrases of `fresh_2026-12-01g` (issue 45) gave the table's amounts whole ("£7.68 million" for 7,680) and were
flagged; each beside the wrong amount, currency or year that must still be."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.text.scales import declared_scale, scale_currency_words, scaled_values

TABLE = ("Northwind Outdoor Ltd — quarterly sales by region, financial year 2025 (all figures in £ thousands). North: "
         "Q1 420, Q2 465, Q3 510, Q4 390; full-year total 1,785.")


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier(num_threads=1)


@pytest.mark.parametrize(("text", "scale"), [
    ("(all figures in £ thousands)", (1e3, "pound pounds")),
    ("Revenue (in millions of dollars)", (1e6, "dollars")),
    ("Operating data ($ in millions)", (1e6, "dollar dollars")),
    ("Sales (£000s): 7,680", (1e3, "pound pounds")),
    ("Amounts are stated in millions.", (1e6, "")),
    ("Attendance was in the thousands.", None),  # a figure's size, no declaration
    ("Protesters gathered in thousands.", None),  # nothing names the figures
])
def test_a_declared_scale_is_read(text, scale):
    assert declared_scale(text) == scale


def test_scaled_values_and_words():
    assert scaled_values(TABLE, [7680.0, 420.0]) == {7_680_000.0, 420_000.0}
    assert scaled_values("North: 420.", [420.0]) == frozenset()
    assert scale_currency_words(TABLE) == "pound pounds"


@pytest.mark.parametrize(("answer", "label"), [
    ("North's sales totalled £1,785,000 in the year.", "supported"),
    ("North's sales totalled £1.785 million in FY2025.", "supported"),
    ("North's full-year total was 1,785 (£ thousands).", "supported"),
    ("North's sales totalled £1.786 million in FY2025.", "hallucinated"),  # another amount
    ("North's sales totalled £1.785 billion in FY2025.", "hallucinated"),  # another scale
    ("North's sales totalled €1.785 million in FY2025.", "hallucinated"),  # another currency
    ("North's sales totalled £1.785 million in FY2024.", "hallucinated"),  # another year
])
def test_a_table_s_amounts_given_whole(verifier, answer, label):
    assert verifier.verify(answer, [TABLE]).label == label


def test_an_undeclared_table_is_read_as_written(verifier):
    plain = TABLE.replace(" (all figures in £ thousands)", "")
    assert verifier.verify("North's sales totalled £1.785 million in FY2025.", [plain]).label == "hallucinated"


def test_declarations_are_read_in_bounded_time():
    crafted = "figures in " * 50_000 + "(in " * 50_000 + "in thousands " * 20_000
    start = time.perf_counter()
    assert declared_scale(crafted) is not None
    assert declared_scale("(" + "in thousand " * 50_000) is None
    assert time.perf_counter() - start < 5
