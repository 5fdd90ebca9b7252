"""The one place a check that broke inside halguard becomes an ``unverified`` verdict.

A guardrail sits in the request path: a bug, a model that failed to load or a provider that broke the detector must
not surface as a raw exception out of a guard. Bad input is different: the caller passed something that cannot be
checked (an :class:`~halguard.errors.InvalidInputError` or :class:`~halguard.errors.InputTypeError`), and the
guards raise it so the caller sees the mistake; observers (callback handlers, the audit) record it as ``unverified``
instead (``bad_input="unverified"``).
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from halguard.detector import Detector
from halguard.errors import InputTypeError, InvalidInputError
from halguard.schema import Verdict

__all__ = ["BAD_INPUT", "acheck_answer", "check_answer", "internal_error", "log_failure"]

logger = logging.getLogger("halguard.guard")

BAD_INPUT = (InvalidInputError, InputTypeError)
"""The errors that mean the caller's input cannot be checked (a guard raises them)."""
_MESSAGE_CHARS = 200  # an exception's text can be anything (a whole prompt): the verdict keeps its start


def log_failure(log: logging.Logger, what: str, exc: BaseException, *, level: int = logging.WARNING) -> None:
    """Log that ``what`` failed with ``exc``: its type at ``level``, its text and traceback at DEBUG only, since an
    exception's text can quote the answer, the question or a passage (docs/guarantees.md, "Files and logs")."""
    log.log(level, "%s failed: %s (details at DEBUG)", what, type(exc).__name__)
    log.debug("%s failed", what, exc_info=exc)


def internal_error(detector: Detector, exc: BaseException, *, what: str = "the check") -> Verdict:
    """The verdict for a check that failed inside halguard: ``unverified`` with the code ``internal_error``."""
    log_failure(logger, f"halguard {what}", exc)
    return Verdict.unverified(
        "internal_error",
        f"{what} failed: {type(exc).__name__}: {str(exc)[:_MESSAGE_CHARS]}",
        detector=detector.name,
        threshold=detector.threshold,
    )


def _bad_input(detector: Detector, exc: BaseException) -> Verdict:
    return Verdict.unverified("bad_input", f"{type(exc).__name__}: {str(exc)[:_MESSAGE_CHARS]}",
                              detector=detector.name, threshold=detector.threshold)


def check_answer(detector: Detector, answer: str, contexts: Any, *, question: str | None = None,
                 bad_input: Literal["raise", "unverified"] = "raise", what: str = "the check") -> Verdict:
    """``detector.verify``, with a failure inside the check turned into ``unverified`` (``internal_error``).

    Args:
        detector: The detector that checks.
        answer: The text checked.
        contexts: The evidence, in any form the detector takes.
        question: The question the answer responds to.
        bad_input: ``"raise"``: a halguard bad-input error propagates (guards); ``"unverified"``: it becomes an
            ``unverified`` verdict with the code ``bad_input`` (observers, which must never break what they watch).
        what: How the failure is described ("the check", "the final check").

    Raises:
        InvalidInputError: the input cannot be checked and ``bad_input="raise"``.
        InputTypeError: likewise, for an input of the wrong type.
    """
    try:
        return detector.verify(answer, contexts, question=question)
    except BAD_INPUT as exc:
        if bad_input == "raise":
            raise
        return _bad_input(detector, exc)
    except Exception as exc:  # noqa: BLE001 - a guard turns its own failures into "unverified"
        return internal_error(detector, exc, what=what)


async def acheck_answer(detector: Detector, answer: str, contexts: Any, *, question: str | None = None,
                        bad_input: Literal["raise", "unverified"] = "raise", what: str = "the check") -> Verdict:
    """Async twin of :func:`check_answer`."""
    try:
        return await detector.averify(answer, contexts, question=question)
    except BAD_INPUT as exc:
        if bad_input == "raise":
            raise
        return _bad_input(detector, exc)
    except Exception as exc:  # noqa: BLE001
        return internal_error(detector, exc, what=what)
