"""A claim's denied price that says a passage's "free": "children's DVDs don't cost anything" against "except for
children's DVDs, which are free", and "your first pass won't cost you anything" against "there is no charge for a first
pass" (no cost denied that the passage states: the negation checks read it as the passage's own word).

Bounded: at most :data:`MAX_FREE_MENTIONS` mentions of "free" (or "no charge") read in a proposition, each with the
few characters around it.
"""

from __future__ import annotations

import re
from itertools import islice

from halguard.text.lexical import content_terms, stem
from halguard.text.segment import clause_end, clause_start

__all__ = ["MAX_FREE_MENTIONS", "said_free"]

# "Free", said of a thing, denies it a price: "children's DVDs don't cost anything" says the passage's "except for
# children's DVDs, which are free" ("free to leave", "free from", "sugar-free" say no price).
_PRICE_WORDS = frozenset(stem(w) for w in "cost charge pay fee price".split())
_FREE = re.compile(r"(?<![\w-])free\b(?!-)(?!\s{1,3}(?:to|from)\b)(?!\s{1,3}of\s{1,3}(?!charge\b))"
                   # the price denied in other words: "there is no charge for a first pass", "at no extra cost"
                   r"|\bno\s{1,3}(?:extra\s{1,3}|additional\s{1,3})?(?:charge|cost|fee)s?\b"
                   r"|\bwithout\s{1,3}(?:charge|cost)\b", re.IGNORECASE)
# The characters around "free" read for the thing it is said of ("except for children's DVDs, which are free", "no
# charge for a first pass", "free of charge from the PTA uniform swap"), and the mentions of "free" read in a
# proposition.
_FREE_REACH = 60
# ... and after it, to the clause's end: where and when it is free ("free of charge from the PTA uniform swap on the
# first Thursday of each month").
_FREE_AFTER_REACH = 100
# Where the thing "free" is said of begins: a clause's edge, but for the comma of a relative clause ("children's DVDs,
# which are free"): "DVDs cost £1.50, while audiobooks are free" says nothing free of DVDs.
_FREE_CLAUSE_EDGE = re.compile(r"[;:.!?]|\b(?:while|whereas|but|although|though|and)\b"
                               r"|,(?!\s{0,3}(?:which|who|that)\b)", re.IGNORECASE)
MAX_FREE_MENTIONS = 4


def said_free(term: str, clause_terms: set[str] | None, proposition: str) -> bool:
    """Whether the claim's negated price word (``term``: "cost" of "don't cost anything") says what the
    proposition's "free" (or "no charge") says of the same thing: every other content word of the claim's clause
    (``clause_terms``) stands in the clause of the proposition around a "free"."""
    if term not in _PRICE_WORDS or not clause_terms:
        return False
    for m in islice(_FREE.finditer(proposition), MAX_FREE_MENTIONS):
        before = proposition[max(0, m.start() - _FREE_REACH):m.start()]
        after = proposition[m.end():m.end() + _FREE_AFTER_REACH]
        around = {st for _, _, st in content_terms(before[clause_start(before, len(before), _FREE_CLAUSE_EDGE):])
                  + content_terms(after[:clause_end(after, 0, _FREE_CLAUSE_EDGE)])}
        if clause_terms <= around:
            return True
    return False
