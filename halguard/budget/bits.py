"""The information budget of a claim, in bits.

For a claim, ``prior_yes`` is the verifier's P(supported) without the cited evidence and ``post_yes`` with it.
Reaching a ``target`` probability from the prior takes ``required = KL(Ber(target) || Ber(prior_yes))`` bits; the
evidence supplied ``observed = KL(Ber(post_yes) || Ber(prior_yes))`` bits when it raised the probability, and none
when it lowered it (evidence that makes a claim less likely carries no support for it). ``budget_gap = required -
observed``: positive means the cited evidence does not carry the information needed to reach the target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["BitsRange", "ClaimBudget", "bernoulli_kl_bits", "budget"]

# Probabilities are kept inside [EPS, 1 - EPS]: a verifier's "certain" 1.0 would make every KL infinite. 1e-6 caps one
# claim's budget at about 20 bits, far above any target a caller sets (0.95 from a prior of 0.5 is 0.71 bits).
EPS = 1e-6


def _clamp(p: float) -> float:
    return min(max(p, EPS), 1 - EPS)


def bernoulli_kl_bits(p: float, q: float) -> float:
    """KL(Ber(p) || Ber(q)) in bits."""
    p, q = _clamp(p), _clamp(q)
    return p * math.log2(p / q) + (1 - p) * math.log2((1 - p) / (1 - q))


@dataclass(frozen=True)
class BitsRange:
    """The smallest and largest value over the verifier's prompt variants."""

    min: float
    max: float

    @classmethod
    def of(cls, values: list[float]) -> BitsRange:
        return cls(min(values), max(values))

    def as_dict(self, units: str | None = "bits") -> dict:
        out: dict = {"min": round(self.min, 4), "max": round(self.max, 4)}
        if units:
            out["units"] = units
        return out


@dataclass(frozen=True)
class ClaimBudget:
    """Prior and posterior probabilities and the bits, each as a range over the prompt variants."""

    prior_yes: BitsRange
    post_yes: BitsRange
    required: BitsRange
    observed: BitsRange
    budget_gap: BitsRange

    @property
    def under_budget(self) -> bool:
        """The rule that flags a claim: even the most favourable variant lacks bits (``budget_gap.min > 0``)."""
        return self.budget_gap.min > 0


def budget(priors: list[float], posts: list[float], target: float) -> ClaimBudget:
    """The budget of a claim from paired (prior, posterior) probabilities, one pair per prompt variant.

    ``required``, ``observed`` and ``budget_gap`` are computed per variant, then summarised as ranges, so the
    min and max of the gap come from actual variants (not from mixing one variant's prior with another's posterior).
    """
    if not priors or len(priors) != len(posts):
        msg = "budget needs one prior and one posterior per variant"
        raise ValueError(msg)
    required = [bernoulli_kl_bits(target, q) for q in priors]
    observed = [bernoulli_kl_bits(p, q) if p > q else 0.0 for p, q in zip(posts, priors)]
    gap = [r - o for r, o in zip(required, observed)]
    return ClaimBudget(BitsRange.of(priors), BitsRange.of(posts), BitsRange.of(required), BitsRange.of(observed),
                       BitsRange.of(gap))
