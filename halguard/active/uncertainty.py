"""A concept's uncertainty from the generator's token probabilities.

The generated tokens are laid end to end to give each one a character span in the generated text; a concept
(a character span) takes the tokens that overlap it, and their probabilities are combined: the **minimum** (the
paper's best technique: one unlikely token is enough to doubt the concept), the mean, or the normalised product
(the geometric mean, which does not punish long concepts for their length).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from typing import Literal

from halguard.llm.providers import TokenLogprob

__all__ = ["TokenSpans", "Uncertainty", "combine"]

Uncertainty = Literal["min", "mean", "product"]


def combine(probabilities: Sequence[float], how: Uncertainty = "min") -> float:
    """The probabilities of a concept's tokens as one number (``how``: min, mean or normalised product)."""
    if not probabilities:
        msg = "no token probabilities to combine"
        raise ValueError(msg)
    if how == "min":
        return min(probabilities)
    if how == "mean":
        return sum(probabilities) / len(probabilities)
    if how == "product":
        return math.exp(sum(math.log(max(p, 1e-12)) for p in probabilities) / len(probabilities))
    msg = f"uncertainty must be 'min', 'mean' or 'product', got {how!r}"
    raise ValueError(msg)


class TokenSpans:
    """Generated tokens placed on the generated text.

    Args:
        text: The generated text as the caller sees it (the reply's text).
        tokens: The reply's tokens with their log-probabilities.

    The tokens, laid end to end, should spell ``text``; a provider that trimmed the text's leading whitespace is
    allowed for. When they spell something else the map is unusable and every lookup returns None (the caller
    then treats the concept as uncertain: it is validated, not trusted).
    """

    def __init__(self, text: str, tokens: Sequence[TokenLogprob] | None) -> None:
        self.aligned = False
        self._starts: list[int] = []
        self._probabilities: list[float] = []
        if not tokens:
            return
        joined = "".join(t.token for t in tokens)
        shift = joined.find(text) if text else -1
        if shift < 0 or joined[:shift].strip():  # only trimmed leading whitespace may differ
            return
        position = -shift
        for t in tokens:
            self._starts.append(position)
            self._probabilities.append(math.exp(t.logprob))
            position += len(t.token)
        self._ends = [*self._starts[1:], position]
        self.aligned = True

    def probability(self, start: int, end: int, how: Uncertainty = "min") -> float | None:
        """The combined probability of the tokens overlapping ``text[start:end]``; None when the tokens do not map."""
        if not self.aligned or end <= start:
            return None
        first = max(0, bisect_right(self._starts, start) - 1)
        picked, i = [], first
        while i < len(self._starts) and self._starts[i] < end:  # stops at the concept's end: bounded by its length
            if self._ends[i] > start and self._ends[i] > self._starts[i]:
                picked.append(self._probabilities[i])
            i += 1
        return combine(picked, how) if picked else None
