"""Paraphrase sampling (PAS2): reword the question, sample answers, and let a judge compare them."""

from halguard.consistency.judges import ConsistencyJudge, LocalConsistencyJudge
from halguard.consistency.sampling import ParaphraseConsistency

__all__ = ["ConsistencyJudge", "LocalConsistencyJudge", "ParaphraseConsistency"]
