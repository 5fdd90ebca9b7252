"""The many-claims correction: how many claims an answer's claim risks are corrected for.

The riskiest of many *mostly supported* claims is high by chance, so each claim's risk is lowered for the number
of claims in its answer (:meth:`~halguard.grounding.scoring.ScoringWeights.risk`). This module decides that number.
"""

from __future__ import annotations

from collections.abc import Sequence

from halguard.grounding.measured_claim import MeasuredClaim
from halguard.grounding.scoring import ScoringWeights

__all__ = ["CORRECTION_MAX_CLAIMS", "MAJORITY_MIN_CLAIMS", "MAJORITY_UNSUPPORTED", "claims_corrected_for"]

# The correction counts at most this many claims, so an answer stops diluting its own flags as it grows: 150
# invented sentences once scored 0.762 against a 0.763 threshold. On ragtruth_dev and 400 summedits_dev rows (925
# answers, all but one with fewer than 20 claims) a cap of 20 changes no label; 10 cost 0.002 F1 (+7 false
# positives).
CORRECTION_MAX_CLAIMS = 20
# An answer of at least MAJORITY_MIN_CLAIMS claims, more than MAJORITY_UNSUPPORTED of which reach the threshold on
# their own, is judged without the correction: "mostly unsupported", the words. Short answers are left
# out: paraphrasing summaries often have most of a few claims above the threshold alone, and applying the rule
# from 2 claims cost RAGTruth 31 false positives (F1 0.728 -> 0.708); from 20 claims it changes no dev label.
MAJORITY_UNSUPPORTED = 0.5
MAJORITY_MIN_CLAIMS = 20


def claims_corrected_for(measured: Sequence[MeasuredClaim], threshold: float, n_claims: int,
                         weights: ScoringWeights) -> int:
    """The claim count of the many-claims correction: the answer's ``n_claims``, at most
    :data:`CORRECTION_MAX_CLAIMS`, and none for a long answer most of whose ``measured`` claims are unsupported.

    Uncapped, the correction grew with every sentence, so volume diluted: 150 invented sentences once scored 0.762
    against a threshold of 0.763, and longer answers only scored lower. When more than half the claims of a long
    answer reach the threshold on their own (under ``weights``), that is not chance, and no claim is corrected
    (:data:`MAJORITY_UNSUPPORTED`, :data:`MAJORITY_MIN_CLAIMS`).
    """
    n = len(measured)
    if n >= MAJORITY_MIN_CLAIMS:
        alone = sum(1 for m in measured if m.risk(weights) >= threshold)
        if alone > MAJORITY_UNSUPPORTED * n:
            return 1
    return min(n_claims, CORRECTION_MAX_CLAIMS)
