"""A thing a passage's list excludes, said included (halguard.grounding.signals.excluded, issue 44): "including ...
and rent" where the passage says "rent, wages and the repayment of existing debts are excluded"; "as can franchise
outlets" where it says "charities and franchise outlets are not"."""

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.excluded import exclusions_turned

GRANT = ("Grants cover up to 50% of eligible project costs, so applicants must fund the remaining share themselves. "
         "Eligible costs include equipment, shop-front improvements and staff training; rent, wages and the "
         "repayment of existing debts are excluded.")
ELIGIBLE = ("To be eligible, a business must have fewer than 50 employees. Sole traders are eligible; charities and "
            "franchise outlets are not.")


def _turned(claim):
    return [why for _, _, why in exclusions_turned(claim, [GRANT, ELIGIBLE])]


@pytest.mark.parametrize(("claim", "item"), [
    ("It covers up to 50% of eligible costs, including equipment, shop-front improvements, staff training and rent.",
     "rent, wages and the repayment of existing debts are excluded"),
    ("Sole traders can apply, as can franchise outlets, while charities are excluded.",
     "charities and franchise outlets are not"),
    ("Sole traders are eligible, as are charities.", "charities and franchise outlets are not"),
])
def test_an_excluded_item_said_included_is_turned(claim, item):
    (why,) = _turned(claim)
    assert why.endswith(f"(the passage: {item})")


@pytest.mark.parametrize("claim", [
    "It covers up to 50% of eligible costs, including equipment, shop-front improvements and staff training.",
    "Sole traders are eligible, but charities and franchise outlets are not.",  # the claim's own exclusion
    "Sole traders can apply, while charities and franchise outlets cannot.",
    "Equipment is covered, including lathes, and rent is excluded.",  # the claim's list ends at its predicate
    "Applicants pay the remaining share themselves, including rent.",  # no sentence restated excludes rent
])
def test_the_passages_own_sides_and_other_statements_pass(claim):
    assert _turned(claim) == []


def test_a_crafted_claim_is_read_in_bounded_time():
    crafted = "Sole traders are eligible, " + "including charities, " * 5000 + "as can everyone."
    passage = "Sole traders are eligible; " + "charities, " * 5000 + "and outlets are not."
    assert len(exclusions_turned(crafted, [passage])) <= 3


def test_the_verifier_reports_it_as_a_role_conflict():
    verdict = LocalVerifier(num_threads=1).verify(
        "Sole traders can apply, as can franchise outlets.", [ELIGIBLE], question="Who can apply?")
    assert any(why.startswith("exclusion turned: as can franchise outlets") for c in verdict.claims
               for why in c.signals.role_conflicts)
