"""The four checks of a file of hand-written role swaps and faithful tellings of the same passages: each swap is a role
conflict and flagged for it, each faithful telling has none and passes. Used by the files of fresh swaps."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from halguard.grounding.roles import role_conflicts

Case = tuple[str, str]  # (passage, claim)


def swap_checks(swaps: Sequence[Case], faithful: Sequence[Case]) -> tuple[Callable[..., None], ...]:
    """The four test functions for ``swaps`` and ``faithful`` (bind them to ``test_...`` names in the test module; the
    ``verifier`` fixture is conftest's)."""

    @pytest.mark.parametrize(("passage", "claim"), swaps)
    def test_a_swap_is_a_role_conflict(passage: str, claim: str) -> None:
        assert role_conflicts(claim, [passage], lambda arg: True)

    @pytest.mark.parametrize(("passage", "claim"), faithful)
    def test_the_faithful_telling_has_no_role_conflict(passage: str, claim: str) -> None:
        assert role_conflicts(claim, [passage], lambda arg: True) == []

    @pytest.mark.parametrize(("passage", "claim"), swaps)
    def test_the_verifier_flags_the_swap(verifier, passage: str, claim: str) -> None:
        verdict = verifier.verify(claim, [passage])
        assert verdict.label == "hallucinated"
        assert any("who did what to whom" in reason for c in verdict.claims for reason in c.reasons)

    @pytest.mark.parametrize(("passage", "claim"), faithful)
    def test_the_verifier_passes_the_faithful_telling(verifier, passage: str, claim: str) -> None:
        assert verifier.verify(claim, [passage]).label == "supported"

    return (test_a_swap_is_a_role_conflict, test_the_faithful_telling_has_no_role_conflict,
            test_the_verifier_flags_the_swap, test_the_verifier_passes_the_faithful_telling)
