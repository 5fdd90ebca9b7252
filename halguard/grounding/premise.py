"""Checks of the retrieved passages before any answer exists: premise support and conflicts between passages.

- **Premise support** (after the false-premise study in "A Stitch in Time Saves Nine"): how well a passage backs
  the question's own assumptions, from its similarity to the question and the share of the question's names,
  numbers and content words it contains. A question about "the 2019 launch of JWST" has a premise a passage
  about a 2021 launch cannot confirm.
- **Conflicts between passages**: closely matching sentences of two passages that give different numbers or
  dates for the same thing.

Framework-free: the LlamaIndex postprocessor and any other caller use the same functions. The weights are
:class:`~halguard.grounding.scoring.PremiseWeights`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from halguard.grounding.scoring import DEFAULT_PREMISE_WEIGHTS, PremiseWeights
from halguard.text.lexical import content_terms, entity_mentions, number_mentions, term_set

__all__ = ["PassageConflict", "PremiseSupport", "passage_conflicts", "premise_support"]

Vectors = dict[str, np.ndarray]  # text -> its unit-length embedding


@dataclass(frozen=True)
class PremiseSupport:
    """How well one passage backs the question's premises (``support`` in 0..1) and what it lacks."""

    support: float
    similarity: float
    missing_names: list[str] = field(default_factory=list)
    missing_numbers: list[str] = field(default_factory=list)
    missing_words: list[str] = field(default_factory=list)

    def as_metadata(self) -> dict[str, Any]:
        return {
            "query_support": round(self.support, 4),
            "query_similarity": round(self.similarity, 4),
            "missing_query_names": self.missing_names,
            "missing_query_numbers": self.missing_numbers,
            "missing_query_words": self.missing_words,
        }


@dataclass(frozen=True)
class PassageConflict:
    """A sentence of passage ``first`` and a closely matching one of passage ``second`` with other numbers."""

    first: int
    second: int
    first_text: str
    second_text: str


def premise_support(question: str, passage: str, vectors: Vectors,
                    weights: PremiseWeights = DEFAULT_PREMISE_WEIGHTS) -> PremiseSupport:
    """Similarity of ``passage`` to ``question``, and which of the question's names, numbers and words it has.

    ``vectors`` must hold the embeddings of both texts.
    """
    terms = term_set(passage)
    numbers = {round(m.value, 6) for m in number_mentions(passage)}
    wanted = [(question[s:e], stem) for s, e, stem in content_terms(question)]
    names = [question[s:e] for s, e in entity_mentions(question)]
    missing_names = [n for n in names if not any(st in terms for _, _, st in content_terms(n))]
    missing_numbers = [question[m.start : m.end] for m in number_mentions(question)
                       if round(m.value, 6) not in numbers]
    missing_words = [w for w, st in wanted if st not in terms]
    coverage = 1 - len(missing_words) / len(wanted) if wanted else 1.0
    similarity = float(vectors[question] @ vectors[passage])
    # Names and numbers in the question are its premises: a passage lacking them cannot confirm them.
    raw = (weights.similarity_weight * similarity + weights.coverage_weight * coverage
           - weights.missing_name * len(missing_names) - weights.missing_number * len(missing_numbers))
    return PremiseSupport(max(0.0, min(1.0, raw)), similarity, missing_names, missing_numbers, missing_words)


def passage_conflicts(sentences: list[list[str]], vectors: Vectors,
                      weights: PremiseWeights = DEFAULT_PREMISE_WEIGHTS) -> list[PassageConflict]:
    """Pairs of closely matching sentences in different passages whose numbers differ.

    ``sentences[i]`` are passage i's sentences; ``vectors`` must hold each sentence's embedding. Each pair of
    passages is compared sentence by sentence, so the cost is quadratic in the sentences of the retrieved set (a
    postprocessor sees a handful of passages).
    """
    found = []
    with_numbers = [[(s, {round(m.value, 6) for m in number_mentions(s)}) for s in ss] for ss in sentences]
    for i in range(len(sentences)):
        for j in range(i + 1, len(sentences)):
            for s_i, n_i in with_numbers[i]:
                for s_j, n_j in with_numbers[j]:
                    if not n_i or not n_j or n_i == n_j:
                        continue
                    if float(vectors[s_i] @ vectors[s_j]) < weights.conflict_similarity:
                        continue
                    found.append(PassageConflict(i, j, s_i, s_j))
    return found
