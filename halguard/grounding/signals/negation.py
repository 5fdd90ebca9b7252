"""A negation on one side only: the claim negates what its closest evidence sentence states, or the reverse."""

from __future__ import annotations

from halguard.text.lexical import negation_flip, term_set
from halguard.text.segment import split_sentences

__all__ = ["closest_sentence", "negation_mismatch"]


def closest_sentence(claim_terms: set[str], evidence: str) -> str:
    """The sentence of ``evidence`` that shares most content words with the claim.

    Negation and antonyms are compared with this sentence, not the whole evidence window: the window's other
    sentence may carry an unrelated "not".
    """
    return max(
        (evidence[a:b] for a, b in split_sentences(evidence)),
        key=lambda sent: len(claim_terms & term_set(sent)),
        default=evidence,
    )


def negation_mismatch(claim: str, closest: str, similarity: float, gate: float) -> bool:
    """Whether the claim and its closest evidence disagree on negation, for evidence at least ``gate`` similar.

    Scoped on the negated word (see :func:`halguard.text.lexical.negation_flip`): on RAGTruth an unscoped check was
    right 1 time in 20.
    """
    return similarity >= gate and negation_flip(claim, closest)
