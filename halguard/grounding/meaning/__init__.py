"""Meaning: halguard's own claim-checking model (a MiniLM cross-encoder trained in ``training/``).

- :mod:`.evidence`: the premise a claim is read against;
- :mod:`.network`: the network and how pairs are tokenized;
- :mod:`.checker`: loading the shipped weights (offline, checksummed) and scoring claims;
- :mod:`.hf_model`: the checker as a Hugging Face model (scored by :mod:`halguard.models.entailment`, exported
  for ``nli:``).
"""

from halguard.grounding.meaning.checker import ClaimChecker, MeaningScore, export_claim_checker
from halguard.grounding.meaning.evidence import join_evidence

__all__ = ["ClaimChecker", "MeaningScore", "export_claim_checker", "join_evidence"]
