"""Per-claim verification of cited answers as an information budget in bits (after the Strawberry toolkit's
``detect_hallucination``): how much the cited evidence moves a verifier model towards "supported"."""

from halguard.budget.bits import BitsRange, ClaimBudget, bernoulli_kl_bits, budget
from halguard.budget.detector import BudgetVerifier
from halguard.budget.verifier import adetect_hallucination, detect_hallucination

__all__ = ["BitsRange", "BudgetVerifier", "ClaimBudget", "adetect_hallucination", "bernoulli_kl_bits", "budget",
           "detect_hallucination"]
