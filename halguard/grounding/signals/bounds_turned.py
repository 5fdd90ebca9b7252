"""A bound on a figure turned around: "You can put items out before 6pm the previous evening" against "Items must be
left outside ... by 7am on the collection day, but not before 6pm the previous evening", "The shop opens before 10am"
against "The shop does not open until 10am", "Visitors can stay longer than 2 hours" against "Visitors must not stay
longer than 2 hours".

The negation check reads a negated bound on a number as the bound, not a denial (:func:`.negated_words._blank_bounds`):
"Don't put it out before 6pm", "doesn't open until 10am" and "shouldn't take any more than 8 tablets" state a limit,
as "no earlier than 6pm" and "no more than 8" do, and deny no word. What that reading no longer sees is a bound said
the other way: the same number after a bound word of the same direction (upward: "more than", "over", "longer than",
"after", "later than"...; downward: "less than", "under", "before", "until", "earlier than"...), negated on one side
and not on the other. Read by :func:`.negation.negation_mismatch` where the claim states its evidence sentence's
proposition.

Bounded: at most :data:`MAX_BOUNDS` bounds read from a text.
"""

from __future__ import annotations

import re
from itertools import islice

from halguard.grounding.signals.closest import restates
from halguard.text.lexical import content_terms, term_set
from halguard.text.segment import clause_end, clause_start

__all__ = ["MAX_BOUNDS", "bounds_turned"]

MAX_BOUNDS = 8

_UPWARD = frozenset("more longer higher older greater later over above beyond exceed exceeds exceeding after".split())
# A bound word and the number after it ("before 6pm", "more than 8", "longer than 2 hours"): the word, the number.
_BOUND = re.compile(
    r"\b(?:(more|less|fewer|longer|shorter|higher|lower|older|younger|greater|earlier|sooner|later)\s{1,3}than"
    r"|(before|until|till|after|over|above|beyond|under|below|exceeds?|exceeding))"
    r"\s{1,3}(?:(?:about|around|roughly)\s{1,3})?[$£€]?(\d[\d:.,]*(?:\s?[ap]\.?m\b)?)", re.IGNORECASE)
# A negator a few words before a bound ("don't put it out any earlier than 6pm", "must not stay longer than 2 hours").
_NEGATED = re.compile(r"(?:\b(?:not|never|no)|n['’]t)\s{1,3}(?:[^\W\d_]+\s{1,3}){0,3}(?:any\s{1,3})?$", re.IGNORECASE)
# The characters before a bound read for its negator.
_NEGATOR_REACH = 40
# Where a clause of a claim ends, for the words a bound speaks of: "..., so you'd pay the full adult fare" is another.
_CLAUSE_BREAK = re.compile(r"[,;:]\s|\b(?:so|and|but|while|whereas|because)\b", re.IGNORECASE)


def _bounds(text: str) -> dict[tuple[bool, str], tuple[bool, int]]:
    """The bounds on numbers of ``text``: (upward, number) -> (negated, offset of the bound word). A number read as its
    digits and am/pm ("6pm", "6 pm" and "6 p.m." alike; "8" of "8 tablets")."""
    out: dict[tuple[bool, str], tuple[bool, int]] = {}
    for m in islice(_BOUND.finditer(text), MAX_BOUNDS):
        upward = (m.group(1) or m.group(2)).lower() in _UPWARD
        number = re.sub(r"[\s.,]", "", m.group(3).lower()).rstrip(":")
        negated = bool(_NEGATED.search(text[max(0, m.start() - _NEGATOR_REACH):m.start()]))
        out.setdefault((upward, number), (negated, m.start()))
    return out


def _clause_terms(text: str, at: int) -> set[str]:
    """The content stems of the clause of ``text`` that holds offset ``at`` (:data:`_CLAUSE_BREAK`)."""
    clause = text[clause_start(text, at, _CLAUSE_BREAK):clause_end(text, at, _CLAUSE_BREAK)]
    return {st for _, _, st in content_terms(clause)}


def bounds_turned(claim: str, evidence: str) -> bool:
    """Whether ``claim`` bounds a number of ``evidence`` the other way: a bound word of the same direction before the
    same number, negated in one and not in the other, in a clause of the claim that restates the evidence (at least
    :data:`.closest.RESTATED_OVERLAP` of its content words in it: "free travel doesn't start until 9:30am, so you'd pay
    the full adult fare" turns no bound of "Before 9:30am on weekdays, pass holders pay the full adult fare") (see the
    module)."""
    theirs = _bounds(evidence)
    turned = [at for key, (negated, at) in _bounds(claim).items() if key in theirs and theirs[key][0] != negated]
    if not turned:
        return False
    evidence_terms = term_set(evidence)
    return any(restates(_clause_terms(claim, at), evidence_terms) for at in turned)
