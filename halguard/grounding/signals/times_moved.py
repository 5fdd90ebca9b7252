"""A time of day of the passages moved into a sentence that gives another: "the course closes at 11:30 a.m." against
"The marathon will start at 6:45 a.m. ..., with a course closing time of 1:15 p.m.", where 11:30 a.m. is when "runners
who have not reached the 30-kilometre mark ... will be moved to a sweep bus".

Each number of such a time stands in the passages, and the time itself too, so neither the number check nor the
times of day (:mod:`.times_of_day`) see anything; the slot it fills is another time's. Read as :mod:`.moved_numbers`
reads numbers (a time is a clock's digits and a day part, which the number slots leave out), and reported as the same
finding ("11:30 a.m. where the passage has 1:15 p.m."):

- the claim's time is one the passages give (:attr:`Scope.clocks`), and no passage gives it after any of the few
  content words before the claim's (its slot: "the course *closes* at"; "reached the 30-kilometre mark by 11:30
  a.m." shares none of them);
- exactly one other time of the passages (one the claim does not give) stands after one of those words ("course
  *closing* time of 1:15 p.m."), in a sentence that holds at least :data:`.closest.RESTATED_OVERLAP` of the claim's
  content words (the claim restates it).

Bounded: at most :data:`MAX_TIMES` times a claim and a sentence, the sentences of each passage's first characters
(:func:`.closest.source_sentences`), read only for a claim that gives a time the passages give.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from halguard.grounding.signals.closest import restates, source_sentences
from halguard.grounding.signals.prose_hours import hours_agreed
from halguard.grounding.signals.scope import Scope
from halguard.text.clock import ClockTime, clock_times
from halguard.text.lexical import STOPWORDS, base_form, content_terms, stem

__all__ = ["MAX_TIMES", "times_moved"]

# Times read per claim and per sentence (a crafted text of a thousand times is read for its first few).
MAX_TIMES = 8
# Content words read before a time, within its clause: its slot ("the course closes at").
_SLOT_WORDS = 4
_SLOT_CHARS = 80
# a word ("a.m." one), or a clause's edge (a time's own ":" and "." are none: "between 10:00 a.m. and 8:00 p.m." is
# one slot)
_TOKEN = re.compile(r"\b[AaPp]\.[Mm]\.|[^\W\d_][\w'’-]*|[,;!?()]|[:.](?=\s|$)")
_DAY_PART_WORDS = frozenset({"a.m", "p.m", "am", "pm", "morning", "afternoon", "evening", "night", "noon"})


def _slot(text: str, at: int) -> set[str]:
    """The content-word stems (base forms) of the words before ``text[at]``, back to the clause's start, at most
    :data:`_SLOT_WORDS` of them."""
    words: list[str] = []
    for m in reversed(list(_TOKEN.finditer(text, max(0, at - _SLOT_CHARS), at))):
        word = m.group().lower().rstrip(".")
        if not word[:1].isalpha():
            break  # a clause's edge
        if word in STOPWORDS or word in _DAY_PART_WORDS:
            continue
        words.append(base_form(stem(word)))
        if len(words) == _SLOT_WORDS:
            break
    return set(words)


def times_moved(text: str, scope: Scope, sources: Sequence[str]) -> list[tuple[int, int, str]]:
    """The claim's times of day (offsets in ``text``, a claim's checked text) that the passages (``sources``) give
    elsewhere, put where a sentence the claim restates gives another time (see the module), with the reason."""
    if not scope.clocks:
        return []
    ours = list(islice(clock_times(text), MAX_TIMES))
    if not ours:
        return []
    claim_terms = {st for _, _, st in content_terms(text)}
    claim_minutes = frozenset().union(*(t.minutes for t in ours))
    slotted: list[_Slotted] | None = None  # the passages' times in their slots, read on the first time that asks
    out = []
    for t in ours:
        slot = _slot(text, t.start)
        if not slot or not t.minutes & scope.clocks:
            continue  # no words to place it by, or a time the passages lack (the times of day's finding)
        if slotted is None:
            slotted = _slotted(sources)
        said, others = _in_slot(t, slot, claim_minutes, claim_terms, slotted)
        if not said and len(others) == 1:
            out.append((t.start, t.end, f"{text[t.start:t.end]} where the passage has {others[0]}"))
    if out and hours_agreed(text, sources):
        return []  # the day's own hours, which another day's sentence slot gives otherwise (.prose_hours)
    return out


# A passage sentence's stems and its times of day, each with its slot (the words before it) and as written.
_Slotted = tuple[frozenset[str], list[tuple[ClockTime, set[str], str]]]


def _slotted(sources: Sequence[str]) -> list[_Slotted]:
    """The sentences of the passages that give times of day (:func:`.closest.source_sentences`), read once per
    claim: at most :data:`MAX_TIMES` times a sentence, each with its slot."""
    out = []
    for source in sources:
        for sentence, terms in source_sentences(source):
            times = [(u, _slot(sentence, u.start), sentence[u.start:u.end])
                     for u in islice(clock_times(sentence), MAX_TIMES)]
            if times:
                out.append((terms, times))
    return out


def _in_slot(time: ClockTime, slot: set[str], claim_minutes: frozenset[int], claim_terms: set[str],
             slotted: list[_Slotted]) -> tuple[bool, list[str]]:
    """Whether a passage gives ``time`` after any of the ``slot``'s words, and the other times (as the passages write
    them) they give there, in a sentence that holds at least :data:`.closest.RESTATED_OVERLAP` of the claim's
    ``claim_terms``, that the claim does not give (``claim_minutes``)."""
    others: list[str] = []
    for terms, times in slotted:
        restated = None
        for u, their_slot, written in times:
            if not slot & their_slot:
                continue
            if u.minutes & time.minutes:
                return True, []
            if u.minutes & claim_minutes:
                continue
            if restated is None:
                restated = restates(claim_terms, set(terms))
            if restated:
                others.append(written)
    return False, others
