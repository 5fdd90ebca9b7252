"""Equal shares: an amount a passage says is shared equally between parties gives each party's share.

"The prize, worth 50,000 pounds, will be shared equally between the author and her translator" says that each
receives 25,000 pounds; a grounded answer writes that figure, which the passage never writes, and was a missing (and
changed) number. :func:`equal_shares` gives each such share's value, for the numbers a passage states. Only an
explicit "equally" (or "evenly") is read: "shared between" alone does not say how.
"""

from __future__ import annotations

import re

from halguard.text.lexical import number_mentions
from halguard.text.number_words import word_numbers

__all__ = ["equal_shares"]

_SHARED_EQUALLY = re.compile(
    r"\b(?:shared|split|divided)\s{1,3}(?:equally|evenly)\s{1,3}(?:between|among(?:st)?)\s{1,3}([^.;:!?]{1,120})",
    re.IGNORECASE)
# Where the list of parties ends: a verb or a clause after it ("between the two winners, who ...").
_LIST_END = re.compile(r",\s{0,3}(?:who|which|that|with|and\s{1,3}(?:will|would|was|were|is|are))\b|\b(?:who|which|"
                       r"that|will|would|was|were|is|are|has|have|had|after|before|in|on|at|for)\b", re.IGNORECASE)
_PARTY_SEPARATOR = re.compile(r",\s{0,3}(?:and\s{1,3})?|\s{1,3}and\s{1,3}", re.IGNORECASE)
# The amount shared stands this far before the verb at most, in its sentence ("worth 50,000 pounds, which will be").
_AMOUNT_REACH = 160
_SENTENCE_END = re.compile(r"[.;!?]\s")
# Counts of parties that are no split of an amount ("between the 4,000 members": each share would be a pittance that
# no answer states; a count this large is read as a count, not a list).
_MAX_PARTIES = 50
_MAX_FOUND = 16  # shares read per passage: a crafted passage of a thousand "shared equally"s is not


def equal_shares(text: str) -> set[float]:
    """Each party's share of every amount ``text`` says is shared equally: the last number in the ``_AMOUNT_REACH``
    characters of its sentence before the verb, divided by the parties (a number of them, "the three winners", or
    the names listed, "the author and her translator"). Empty where the parties cannot be counted."""
    out: set[float] = set()
    for found, m in enumerate(_SHARED_EQUALLY.finditer(text)):
        if found >= _MAX_FOUND:
            break
        before = text[max(0, m.start() - _AMOUNT_REACH) : m.start()]
        ends = [e.end() for e in _SENTENCE_END.finditer(before)]
        before = before[ends[-1] :] if ends else before
        amounts = [n.value for n in number_mentions(before) if not n.is_percent]
        parties = _parties(m.group(1))
        if amounts and parties and 1 < parties <= _MAX_PARTIES:
            out.add(round(amounts[-1] / parties, 6))
    return out


def _parties(listed: str) -> int | None:
    """How many parties ``listed`` names: the number it opens with ("the three winners", "its 4 founders"), else
    the items of its list ("the author and her translator": 2)."""
    end = _LIST_END.search(listed)
    listed = listed[: end.start()] if end else listed
    head = listed.split()[:3]
    for number in word_numbers(" ".join(head)):
        return int(number.value) if number.value == int(number.value) else None
    for mention in number_mentions(" ".join(head)):
        return int(mention.value) if mention.value == int(mention.value) else None
    last_and = listed.lower().rfind(" and ")
    if last_and >= 0:
        # what follows the last item after a comma is an apposition ("the author and her translator, Daniel Moss")
        comma = listed.find(",", last_and)
        listed = listed[:comma] if comma >= 0 else listed
    items = [part for part in _PARTY_SEPARATOR.split(listed) if part.strip()]
    return len(items) if len(items) > 1 else None
