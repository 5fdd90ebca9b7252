"""A claim's role conflicts (:mod:`halguard.grounding.roles`) as a signal: offsets in the answer, with reasons."""

from __future__ import annotations

from collections.abc import Sequence

from halguard.grounding.roles import Argument, role_conflicts
from halguard.grounding.signals.measure import checked_text
from halguard.grounding.signals.scope import Scope
from halguard.text.claims import Claim
from halguard.text.lexical import stem

__all__ = ["claim_role_conflicts"]


def claim_role_conflicts(claim: Claim, evidence: Sequence[str], scope: Scope) -> list[tuple[int, int, str]]:
    """The role conflicts of ``claim`` with its evidence chunks' texts (best first), as ``(start, end, reason)``
    in the answer. The claim is read as the other signals read it (:func:`.measure.checked_text`): "[2]" is no
    number, and "I think" no frame.

    A name or number moved within the passage counts only when the passage (not the question) has it: one the
    passage lacks is the missing names and numbers' finding.
    """
    text = checked_text(claim)

    def elsewhere(arg: Argument) -> bool:
        if arg.numbers & scope.context_numbers:
            return True
        return any(stem(name) in scope.context_terms for name in arg.names)

    return [(claim.start + c.start, claim.start + c.end, c.reason) for c in role_conflicts(text, evidence, elsewhere)]
