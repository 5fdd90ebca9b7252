"""The checks of :class:`~halguard.grounding.verifier.LocalVerifier`'s options, run at construction.

A wrong option raises :class:`~halguard.errors.InvalidInputError` naming it when the verifier is made, not in the
middle of a check (where the guardrail would turn it into an ``unverified`` verdict and hide the mistake).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from halguard.errors import InvalidInputError
from halguard.grounding.calibration import Calibration
from halguard.grounding.embedding import LocalEmbedder
from halguard.grounding.scoring import DEFAULT_WEIGHTS, MEANING_WEIGHTS, ScoringWeights
from halguard.util.options import require_bool, require_fraction, require_positive_int, require_positive_number

__all__ = ["check_judging_options", "check_size_options", "load_calibration"]


def check_judging_options(*, threshold: Any, weak_threshold: Any, time_budget_s: Any, meaning: Any, weights: Any,
                          embedder: Any, model_path: Any, device: Any, num_threads: Any,
                          citation_mode: Any, roles: Any) -> ScoringWeights:
    """Check the options that decide how an answer is judged and by which model.

    Returns:
        The scoring weights to use: ``weights``, or by default the ones that go with ``meaning``.

    Raises:
        InvalidInputError: An option has a wrong type or value (the first one found, in the signature's order).
    """
    for name, value in (("threshold", threshold), ("weak_threshold", weak_threshold)):
        if value is not None:
            require_fraction(name, value)
            if not 0.0 <= value <= 1.0:
                msg = f"{name} must be a number from 0 to 1, got {value!r}"
                raise InvalidInputError(msg)
    require_positive_number("time_budget_s", time_budget_s, allow_none=True, unit="seconds")
    require_bool("meaning", meaning)
    if weights is None:
        weights = MEANING_WEIGHTS if meaning else DEFAULT_WEIGHTS
    if not isinstance(weights, ScoringWeights):
        msg = f"weights must be a halguard.ScoringWeights, got {type(weights).__name__}"
        raise InvalidInputError(msg)
    if embedder is not None and not isinstance(embedder, LocalEmbedder):
        msg = f"embedder must be a halguard LocalEmbedder, got {type(embedder).__name__}"
        raise InvalidInputError(msg)
    for name, value in (("model_path", model_path), ("device", device)):
        if value is not None and not isinstance(value, (str, os.PathLike)):
            msg = f"{name} must be a str or None, got {type(value).__name__}"
            raise InvalidInputError(msg)
    if num_threads is not None:
        require_positive_int("num_threads", num_threads)
    if citation_mode not in ("strict", "lenient"):
        msg = f"citation_mode must be 'strict' or 'lenient', got {citation_mode!r}"
        raise InvalidInputError(msg)
    require_bool("roles", roles)
    if threshold is not None and weak_threshold is not None and weak_threshold > threshold:
        msg = f"need 0 <= weak_threshold <= threshold <= 1, got {weak_threshold} and {threshold}"
        raise InvalidInputError(msg)
    return weights


def load_calibration(calibration: str | os.PathLike[str] | Mapping[str, Any] | Calibration | None,
                     meaning: bool) -> Calibration | None:
    """The calibration named by the ``calibration`` option (``"default"``: the shipped one that goes with
    ``meaning``; None: none).

    Raises:
        CalibrationError: The calibration cannot be read (an :class:`~halguard.errors.InvalidInputError`).
    """
    if isinstance(calibration, str) and calibration == "default":
        return Calibration.default(meaning=meaning)
    if calibration is None:
        return None
    return Calibration.load(calibration)


def check_size_options(*, top_k: Any, sentences_per_chunk: Any, max_chunk_chars: Any, max_answer_chars: Any,
                       max_context_chars: Any, max_question_chars: Any, faiss_min_chunks: Any, batch_size: Any,
                       candidates_per_claim: Any) -> None:
    """Check the sizes and limits a check works with: each a positive int (``candidates_per_claim`` may be None).

    Raises:
        InvalidInputError: A size is not a positive int, or ``max_chunk_chars`` is under 50.
    """
    for name, value in (("top_k", top_k), ("sentences_per_chunk", sentences_per_chunk),
                        ("max_answer_chars", max_answer_chars), ("max_context_chars", max_context_chars),
                        ("max_question_chars", max_question_chars),
                        ("batch_size", batch_size), ("faiss_min_chunks", faiss_min_chunks)):
        require_positive_int(name, value)
    require_positive_int("max_chunk_chars", max_chunk_chars, minimum=50)
    if candidates_per_claim is not None:
        require_positive_int("candidates_per_claim", candidates_per_claim)
