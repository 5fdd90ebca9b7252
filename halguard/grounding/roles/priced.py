"""A price said with "is": "SafeStack's cover is £1.90 a week" says what "SafeStack's own cover, which costs £1.90 per
week" says, whatever another "is" frame of the passage gives the cover ("the minimum cover ... is £2,000").

A claim's copula frame whose differing attribute holds numbers is read against the passage's frames of a price verb
(:data:`PRICE_PREDICATES`): one whose price (its patient) is the attribute's first number, that holds the attribute's
other numbers too, and whose agent is the claim's agent, tells the claim's price ("the minimum cover is £1,000" is not
told by "costs £1.90 for every £1,000 of value"). Any other number in the attribute's place is still a conflict.
"""

from __future__ import annotations

from collections.abc import Sequence

from halguard.grounding.roles.arguments import compare
from halguard.grounding.roles.frames import Argument, Frame
from halguard.text.lexical import number_mentions

__all__ = ["PRICE_PREDICATES", "priced_otherwise"]

# Verbs whose patient is a price (lemmas).
PRICE_PREDICATES = frozenset({"cost", "charge", "price", "sell"})


def priced_otherwise(claim: Frame, differing: tuple[str, Argument, Argument], evidence: Sequence[Frame],
                     best: Frame) -> bool:
    """Whether a frame of a price verb other than the conflicting one (``best``) gives the claim's agent the numbers
    its copula frame's attribute (``differing``) states."""
    role, ours, _ = differing
    if claim.predicate != "be" or role != "attr" or not ours.numbers:
        return False
    agents = [a for r, a in claim.slots if r == "agent"]
    said = number_mentions(ours.text)
    if not agents or not said:
        return False
    price = said[0].value  # the attribute's first number is its price ("£1.90 a week per £1,000 of value")
    return any(
        frame is not best and frame.predicate in PRICE_PREDICATES and not frame.negated
        and any(price in arg.numbers for arg in frame.get("patient"))
        and ours.numbers <= {n for _, arg in frame.slots for n in arg.numbers}
        and any(compare(a, o, "agent") == "same" for a in agents for o in frame.get("agent"))
        for frame in evidence)
