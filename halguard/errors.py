"""The halguard exception tree, documented in one place.

::

    HalguardError                      base of everything halguard raises
    ├── InvalidInputError (ValueError)  a value halguard cannot check (bad option, malformed record)
    │   ├── CalibrationError            a calibration file or mapping that cannot be read or is malformed
    │   ├── InputTooLargeError          a file or stdin over its documented size limit (never read whole)
    │   └── UnsafePathError             a folder others could write (a link, another user's, group/other-writable)
    ├── InputTypeError (TypeError)      an argument of the wrong type (answer not a str, context not text)
    ├── ModelLoadError (RuntimeError)   the local model or an optional dependency is missing or broken
    ├── ProviderError (RuntimeError)    an LLM call failed for good (after retries, or past its deadline)
    └── HallucinationError              raised by guards whose policy is "raise"; carries the verdict
        └── UnverifiedError             raised by guards that fail closed when a check could not run

Data conditions that are not programming errors (no context retrieved, an empty answer, an answer
too long to check) do not raise: they come back as a verdict labelled ``unverified`` with the
reason in ``Verdict.errors``, so the caller's policy decides whether to fail open or closed.

A guard's :class:`HallucinationError` says what happened by counts, positions and error codes
(:func:`verdict_summary`), never by quoting the answer, the question, the contexts or an error message (which may
quote them): an exception's message and stack trace end up in logs and traces (an OpenTelemetry span that an
exception leaves records both). The texts stay on ``exc.verdict``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from halguard.schema import Verdict

__all__ = [
    "CalibrationError",
    "HallucinationError",
    "HalguardError",
    "InputTooLargeError",
    "InputTypeError",
    "InvalidInputError",
    "ModelLoadError",
    "ModelNotAvailableError",
    "ProviderError",
    "UnsafePathError",
    "UnverifiedError",
    "verdict_summary",
]

_LISTED_CLAIMS = 10  # how many flagged claim positions a summary names


class HalguardError(Exception):
    """Base class of every exception halguard raises on purpose."""


class InvalidInputError(HalguardError, ValueError):
    """A value that halguard cannot work with."""


class CalibrationError(InvalidInputError):
    """A calibration (``LocalVerifier(calibration=...)``) that cannot be read or lacks the expected fields."""


class InputTooLargeError(InvalidInputError):
    """A file or stream over its documented size limit: refused from its size, or once one byte past the limit was
    read, never read whole."""


class UnsafePathError(InvalidInputError):
    """A folder halguard would trust (the response cache's) that another user could have written: a symlink, not
    owned by the user, or writable by group or others. Refused, as ssh refuses such a ``~/.ssh``."""


class InputTypeError(HalguardError, TypeError):
    """An argument of the wrong type."""


class ModelLoadError(HalguardError, RuntimeError):
    """The local model, or an optional dependency it needs, could not be loaded."""


class ModelNotAvailableError(ModelLoadError):
    """The model is neither a folder here nor in the Hugging Face cache, and cannot be downloaded now (offline, or
    the hub does not have it). The message names the model and how to fetch it."""


class ProviderError(HalguardError, RuntimeError):
    """An LLM call failed for good (after retries, or with an error that retrying cannot fix).

    Checks that call an LLM turn it into an ``unverified`` verdict; it reaches the caller only from direct
    :class:`~halguard.llm.providers.ChatModel` calls.
    """


class HallucinationError(HalguardError):
    """An answer was judged hallucinated and the policy says to raise.

    Args:
        message: Human-readable summary.
        verdict: The full verdict, so handlers (``with_fallbacks``, retries) can inspect it.
    """

    def __init__(self, message: str, verdict: Verdict | None = None) -> None:
        super().__init__(message)
        self.verdict = verdict


class UnverifiedError(HallucinationError):
    """The check could not run and the policy fails closed."""


def verdict_summary(verdict: Verdict) -> str:
    """``verdict`` in words that quote none of the request's texts: for an exception's message and a trace.

    A check that did not run is named by its error codes (``"not checked: no_context"``); its messages are left
    out, since they may quote the input (a provider's error repeating the prompt). Otherwise the claims are
    counted, and the flagged ones named by their position in ``verdict.claims``
    (``"1 of 2 claims unsupported (claims [1])"``).
    """
    if verdict.errors:
        return "not checked: " + ", ".join(e.code for e in verdict.errors)
    flagged = [i for i, c in enumerate(verdict.claims) if c.status.is_flagged]
    if flagged:
        return f"{len(flagged)} of {len(verdict.claims)} claims unsupported (claims {flagged[:_LISTED_CLAIMS]})"
    return f"{len(verdict.claims)} claims supported by the retrieved context"
