"""What a guard decided for one answer, for the adapter to put into the framework's objects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from halguard.guard.request import FallbackAnswer
from halguard.schema import Verdict

__all__ = ["GuardOutcome"]


@dataclass(frozen=True)
class GuardOutcome:
    """The answer's fate.

    Attributes:
        action: ``"pass"`` (the answer stands), ``"filter"``, ``"fallback"`` or ``"repair"``. A ``"raise"`` policy
            never returns: the core raises :class:`~halguard.errors.HallucinationError` or
            :class:`~halguard.errors.UnverifiedError` instead.
        verdict: The verdict, with the policy's ``action`` (and a fallback answer's check) recorded on it.
        text: The text that replaces the answer (the kept sentences, a fixed fallback message, the repaired
            text); None: the answer stands, or ``fallback`` replaces it.
        fallback: The fallback chain's or engine's answer, which replaces the answer as the framework returned it.
    """

    action: Literal["pass", "filter", "fallback", "repair"]
    verdict: Verdict
    text: str | None = None
    fallback: FallbackAnswer | None = None
