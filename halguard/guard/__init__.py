"""The framework-free guard: what both adapters' guards do between reading an answer and returning it.

- :class:`GuardRequest`: one answer to check (question, text, evidence, how it is recorded);
- :class:`GuardCore`: the check, paraphrase sampling, the policy, the fallback and the repair (``run`` / ``arun``);
- :class:`GuardHooks`: per call, what the core may ask of the framework (re-ask, fall back, trace, report);
- :class:`GuardOutcome`: what the adapter puts back into the framework's objects;
- :mod:`halguard.failures` (re-exported here): the one place a failure inside a check becomes ``unverified``.
"""

from halguard.guard.core import GuardCore
from halguard.failures import acheck_answer, check_answer, internal_error
from halguard.guard.outcome import GuardOutcome
from halguard.guard.request import FallbackAnswer, GuardHooks, GuardRequest, evidence_of

__all__ = [
    "FallbackAnswer",
    "GuardCore",
    "GuardHooks",
    "GuardOutcome",
    "GuardRequest",
    "acheck_answer",
    "check_answer",
    "evidence_of",
    "internal_error",
]
