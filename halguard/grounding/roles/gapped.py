"""A conjunct whose verb the passage leaves out: "open from 8 a.m. to 8 p.m. on weekdays and from 9 a.m. to 1 p.m. on
Saturdays". The parser gives its second phrase no frame, so a claim's "open from 9 a.m." on Saturdays read against the
first conjunct's "from 8 a.m." looked like a number of the passage in the wrong place. Here such a conflict is
dropped where a passage has the claim's phrase as a gapped conjunct: "and" (or a comma), then the claim's
preposition, then a phrase with the claim's value (a number, or a time of day by its minutes: "from 9 in the
morning" is "from 9 a.m."), and a word of the claim the conjunct holds besides ("on Saturdays": "On weekdays ... from
9 a.m." is still read against the weekdays' "from 8 a.m.").

Bounded: the claim argument's first preposition only, each evidence text searched once per conflict for at most
:data:`MAX_CONJUNCTS` conjuncts of at most :data:`_CONJUNCT_CHARS` characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from halguard.text.clock import clock_times, covering
from halguard.text.lexical import content_terms, number_mentions

__all__ = ["MAX_CONJUNCTS", "in_gapped_conjunct"]

MAX_CONJUNCTS = 32
_CONJUNCT_CHARS = 60
# A time's own words: no word the claim and the conjunct share besides the value.
_TIME_WORDS = frozenset("a p m am pm morning afternoon evening night noon midnight".split())
_PREPOSITION = re.compile(r"\b(from|to|until|till|at|on|in|for|by|with|between)\s+(?=\S)", re.IGNORECASE)


def _values(text: str) -> set[float]:
    times = clock_times(text)
    return ({-1.0 - minute for t in times for minute in t.minutes}  # a time by its minutes (negative: no count)
            | {round(m.value, 6) for m in number_mentions(text) if covering(times, m.start, m.end) is None})


def _terms(text: str) -> set[str]:
    return {st for _, _, st in content_terms(text)}


def in_gapped_conjunct(phrase: str, claim: str, evidence: Sequence[str]) -> bool:
    """Whether an ``evidence`` text has the ``claim`` argument ``phrase``'s prepositional phrase, by its value, as a
    conjunct whose verb it leaves out, with another word of the claim ("... and from 9 a.m. to 1 p.m. on Saturdays")."""
    preposition = _PREPOSITION.search(phrase)  # the first: "from 9 in the morning" is a "from" phrase
    if preposition is None:
        return False
    ours = _values(phrase[preposition.start():])
    others = _terms(claim) - _TIME_WORDS
    if not ours:
        return False
    conjunct = re.compile(r"(?:\band|,)\s+(?i:" + re.escape(preposition.group(1)) + ")"
                          + r"\s+([^,;:]{1,%d}?)(?=[,;:]|\.\s+[A-Z]|\.?$)" % _CONJUNCT_CHARS)
    return any(ours & _values(m.group(1)) and others & _terms(m.group(1))
               for text in evidence for m in islice(conjunct.finditer(text), MAX_CONJUNCTS))
