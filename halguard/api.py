"""Module-level entry points: ``halguard.verify`` and ``halguard.averify`` with a shared default detector."""

from __future__ import annotations

import threading
from typing import Any

from halguard.detector import Detector
from halguard.errors import InputTypeError, InvalidInputError
from halguard.schema import Verdict

__all__ = ["averify", "default_detector", "resolve_detector", "verify"]

_default: Detector | None = None
_default_lock = threading.Lock()


def default_detector() -> Detector:
    """The process-wide default detector: a :class:`~halguard.grounding.verifier.LocalVerifier` with default options."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                from halguard.grounding.verifier import LocalVerifier

                _default = LocalVerifier()
    return _default


def resolve_detector(detector: Any) -> Detector:
    """``detector``, or the shared default when it is None, or the detector a name stands for (``"local"``,
    ``"local-meaning"``, ``"naive"``, ``"nli:<model>"``, ``"hhem:<model>"``, ``"minicheck:<model>"``,
    ``"spans:<model>"``: :func:`halguard.detectors.make_detector`,
    built now); the one place a component picks its detector.

    Raises:
        InputTypeError: ``detector`` is neither None, a name nor a :class:`~halguard.detector.Detector`.
        InvalidInputError: an unknown name, or one that needs options a name cannot give (an LLM detector's URL).
        ModelNotAvailableError: a model name that is not here and cannot be fetched now.
    """
    if detector is None:
        return default_detector()
    if isinstance(detector, str):
        from halguard.detectors import make_detector

        return make_detector(detector)
    if not isinstance(detector, Detector):
        msg = f"detector must be a halguard.Detector or a detector name, got {type(detector).__name__}"
        raise InputTypeError(msg)
    return detector


def _detector(detector: Detector | None, options: dict[str, Any]) -> Detector:
    if detector is not None and options:
        msg = f"pass options to the detector you built, not beside it: {sorted(options)}"
        raise InvalidInputError(msg)
    if options:
        from halguard.grounding.verifier import LocalVerifier

        return LocalVerifier(**options)
    return resolve_detector(detector)


def verify(
    answer: str,
    contexts: Any,
    question: str | None = None,
    *,
    detector: Detector | None = None,
    **options: Any,
) -> Verdict:
    """Check ``answer`` against the retrieved ``contexts``.

    Args:
        answer: The generated answer.
        contexts: The retrieved passages: a str, or a list of str, ``(id, text)`` pairs or
            :class:`~halguard.text.contexts.Source`.
        question: The user's question; short answers are checked in its context.
        detector: The detector to use (default: a shared :class:`~halguard.grounding.verifier.LocalVerifier`).
        **options: Options for a new ``LocalVerifier`` (e.g. ``threshold=0.6``) when no detector is given.

    Returns:
        The :class:`~halguard.schema.Verdict`; ``label`` is ``"unverified"`` when the check could not run.
    """
    return _detector(detector, options).verify(answer, contexts, question=question)


async def averify(
    answer: str,
    contexts: Any,
    question: str | None = None,
    *,
    detector: Detector | None = None,
    **options: Any,
) -> Verdict:
    """Async twin of :func:`verify`."""
    return await _detector(detector, options).averify(answer, contexts, question=question)
