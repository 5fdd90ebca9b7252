"""Hours widened to all hours: "loading zones will remain available on Larkspur Avenue at all hours" against "Loading
zones will remain available on Larkspur Avenue between 6:00 and 10:00 on weekdays; outside those hours the zones
become part of the bicycle lane".

Every word of such a claim stands in the sentence it restates, and "at all hours" has no number for the number checks
to read: what changed is the condition, a window of hours said as every hour. Read without a parse, as a role
conflict: the claim says every hour ("at all hours", "at any time", "around the clock", "24 hours a day", "24/7",
"day and night") and no time of day of its own, and a clause of a passage sentence that holds at least
:data:`.closest.RESTATED_OVERLAP` of the claim's other content words (two at least: it restates that statement) gives
a window of two times of day ("between 6:00 and 10:00", "from 9 a.m. to 5 p.m."). A passage that says every hour
itself for the statement (in a clause that restates it as much) leaves it alone. Bounded: the phrase is read once per
claim, against the sentences of the claim's sources (:func:`.closest.source_sentences`: their first characters).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from halguard.grounding.signals.closest import RESTATED_WORDS_MIN, restates, source_sentences
from halguard.text.clock import clock_times
from halguard.text.lexical import content_terms, term_set

__all__ = ["all_hours_widened", "every_hour_spans", "says_every_hour"]


_ALL_HOURS = re.compile(r"\b(?:at\s{1,3}all\s{1,3}hours|at\s{1,3}any\s{1,3}(?:time|hour)|any\s{1,3}time\s{1,3}of\s{1,3}"
                        r"(?:the\s{1,3})?(?:day|night)|around\s{1,3}the\s{1,3}clock|round\s{1,3}the\s{1,3}clock|"
                        r"24\s{0,3}(?:hours|hrs)\s{1,3}a\s{1,3}day|24\s{0,2}/\s{0,2}7|day\s{1,3}and\s{1,3}night|"
                        r"day\s{1,3}or\s{1,3}night|all\s{1,3}day\s{1,3}and\s{1,3}night)\b", re.IGNORECASE)
# Where a passage sentence's clause ends: a window of hours is its own clause's ("open from 9:00 to 17:00, and the
# online portal is available at any time").
_CLAUSE_BREAK = re.compile(r";|,\s{0,3}(?:and|but|while|whereas|although|though)\b|\b(?:but|while|whereas)\b",
                           re.IGNORECASE)
# Two times of day that make a window: "between X and Y", "from X to Y", "X-Y", "X to Y", "X until Y".
_JOINS = re.compile(r"^\s{0,3}(?:and|to|until|till|through|-|–|—)\s{0,3}$", re.IGNORECASE)

Widened = tuple[int, int, str]


def every_hour_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` says every hour with numbers ("24/7", "24 hours a day"): numbers that count no thing."""
    return [m.span() for m in _ALL_HOURS.finditer(text) if m.group()[:1].isdigit()]


def says_every_hour(sources: Sequence[str]) -> bool:
    """Whether a source says every hour in any words ("around the clock", "24/7", "at any time")."""
    return any(_ALL_HOURS.search(source) for source in sources)


def all_hours_widened(text: str, sources: Sequence[str]) -> list[Widened]:
    """The every-hour phrase of ``text`` (a claim's checked text) where the clause it restates gives a window of hours
    (see the module); at most one."""
    phrase = _ALL_HOURS.search(text)
    if phrase is None or clock_times(text):
        return []  # every claim passes here: its words are read only where it says every hour and gives no time
    others = {st for _, _, st in content_terms(text[:phrase.start()] + " " + text[phrase.end():])}
    window = ""
    for source in sources:
        for sentence, _ in source_sentences(source):
            for clause in _CLAUSE_BREAK.split(sentence):
                if not restates(others, set(term_set(clause)), words_min=RESTATED_WORDS_MIN):
                    continue
                if _ALL_HOURS.search(clause):
                    return []  # the passage says every hour of the statement itself
                window = window or _window_of(clause)
    if not window:
        return []
    return [(phrase.start(), phrase.end(), f"hours widened: {phrase.group()} (the passage: {window})")]


def _window_of(clause: str) -> str:
    """The first window of two times of day in ``clause`` ("6:00 and 10:00"), as written; "" where there is none."""
    times = clock_times(clause)
    for first, second in zip(times, times[1:]):
        if _JOINS.match(clause[first.end:second.start]):
            return clause[first.start:second.end]
    return ""
