"""A price said with "is": "SafeStack's cover is £1.90 a week" says what "SafeStack's own cover, which costs £1.90 per
week" says, whatever another "is" frame of the passage gives the cover ("the minimum cover ... is £2,000").

A claim's copula frame whose differing attribute holds numbers is read against the passage's frames of a price verb
(:data:`PRICE_PREDICATES`): one whose price (its patient) is the attribute's first number, that holds the attribute's
other numbers too, and whose agent is the claim's agent, tells the claim's price ("the minimum cover is £1,000" is not
told by "costs £1.90 for every £1,000 of value"). Any other number in the attribute's place is still a conflict.

A share is no price, either: "Your third child would get 15% off the core day fee" puts no 15 where "the core day
costs £38" has £38 (:func:`of_another_kind`: every number of one argument a percentage, of the other an amount of
money, the frames have matched two things).
"""

from __future__ import annotations

from collections.abc import Sequence

from halguard.grounding.roles.arguments import compare
from halguard.grounding.roles.frames import Argument, Frame
from halguard.text.currency import currency_of
from halguard.text.lexical import number_mentions

__all__ = ["PRICE_PREDICATES", "of_another_kind", "priced_otherwise"]

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


def of_another_kind(claim: Frame, differing: tuple[str, Argument, Argument], evidence: Sequence[Frame],
                    best: Frame) -> bool:
    """Whether the claim's argument and the passage's (``differing``) hold numbers of two kinds: every number of one a
    percentage, of the other an amount of money ("15% off" / "£38")."""
    _, ours, theirs = differing
    kinds = [_kind(arg.text) for arg in (ours, theirs)]
    return None not in kinds and kinds[0] != kinds[1]


def _kind(text: str) -> str | None:
    """"percent" where every number of ``text`` is a percentage, "money" where every one is an amount of money, else
    None (no number, or both)."""
    found = number_mentions(text)
    if found and all(m.is_percent for m in found):
        return "percent"
    if found and all(not m.is_percent and currency_of(text, m) is not None for m in found):
        return "money"
    return None
