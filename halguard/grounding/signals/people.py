""""People" said by the evidence's kind of person, where the claim counts them as the passages count that kind.

A faithful answer says "480 people were evacuated" of "480 residents were evacuated" (:func:`halguard.text.wordnet.
names_people`: any kind or group of people of the evidence says "people"). But "480 people" of "480 homes were
evacuated, and 30 firefighters ..." moves the homes' number onto people: the evidence's firefighters say "people",
not these. So a counted "people" ("480 people", "about 480 more people") is not said where the passages count that
number only with things that are no people; an uncounted one ("people in Pike Hollow"), or one whose number the
passages count nothing with ("a staff of twelve were hired"), by any kind of the evidence.
"""

from __future__ import annotations

from collections.abc import Collection

from halguard.text.counts import CountIndex
from halguard.text.lexical import number_mentions
from halguard.text.wordnet import PEOPLE_WORDS, names_people

__all__ = ["people_said_here"]

# Characters read before the word for its number ("about 480 more people").
_REACH = 24
_BETWEEN = frozenset({"", "more", "other", "additional"})


def people_said_here(text: str, start: int, term_stem: str, nearby: Collection[str], counts: CountIndex) -> bool:
    """Whether the claim word at ``start`` of ``text`` (stem ``term_stem``) is a general word for people that the
    evidence (``nearby``: its stems) says, and, where the claim counts it, that the passages (``counts``) count the
    claim's number with a kind of people, or with nothing."""
    if term_stem not in PEOPLE_WORDS or not names_people(nearby):
        return False
    before = text[max(0, start - _REACH):start]
    numbers = number_mentions(before)
    if not numbers or before[numbers[-1].end:].strip().lower() not in _BETWEEN:
        return True
    things = counts.things.get(numbers[-1].value, ()) if counts else ()
    # a number the passages count nothing with ("a staff of twelve were hired") leaves the kind to the evidence
    return not things or any(thing and names_people(thing[:1]) for thing in things)
