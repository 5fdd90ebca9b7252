"""Phrasal verbs and the one-word verbs they mean: "stepped down" is "resigned", "took over" is "acquired", "set up" is
"founded", "lifted off" is "launched".

WordNet's relations (:mod:`halguard.text.wordnet`) are keyed by single words, so a verb with its particle is read as
two words, neither of which the passage uses. :data:`PHRASAL_VERBS` is a hand-written table of common English
phrasal verbs in their everyday sense and the single verbs that say the same (not taken from the development data);
it is read both ways:

- the claim's phrasal verb ("the minister stepped down") is found where the passages use one of its verbs
  ("resigned"): :func:`phrasal_said`;
- the claim's verb ("the minister resigned") is found where a passage uses the phrasal verb ("stepped down"):
  :func:`verb_said_as_phrasal`.

A phrasal verb is its verb (any form) directly followed by its particle. Words of a sibling sense are not in the
table ("take off" as remove, "turn out" as prove): a table entry must be what a grounded answer would write for the
passage's verb. Each scan is one pass of a regular expression over a claim or a source.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from functools import lru_cache

from halguard.text.lexical import base_form, regular_forms, stem

__all__ = ["PHRASAL_VERBS", "phrasal_said", "phrasals_in", "verb_said_as_phrasal"]

PHRASAL_VERBS: dict[str, tuple[str, ...]] = {
    "step down": ("resign", "quit"),
    "take over": ("acquire", "assume", "succeed"),
    "set up": ("establish", "found", "create", "start"),
    "carry out": ("conduct", "perform", "execute"),
    "put off": ("postpone", "delay"),
    "call off": ("cancel",),
    "give up": ("abandon", "quit", "surrender"),
    "turn down": ("reject", "decline", "refuse"),
    "shut down": ("close",),
    "close down": ("close",),
    "break out": ("erupt",),
    "go up": ("rise", "increase", "climb"),
    "go down": ("fall", "decrease", "drop", "decline"),
    "cut back": ("reduce", "cut"),
    "scale back": ("reduce",),
    "step up": ("increase", "intensify"),
    "sign up": ("register", "enrol", "enroll", "join"),
    "look into": ("investigate", "examine"),
    "find out": ("discover", "learn"),
    "point out": ("note", "observe"),
    "pass away": ("die",),
    "hand over": ("transfer",),
    "make up": ("constitute", "comprise", "form"),
    "take part": ("participate",),
    "lay off": ("dismiss", "fire"),
    "pay for": ("fund", "finance", "buy"),
    "team up": ("partner", "collaborate", "cooperate"),
    "set out": ("describe", "outline"),
    "back up": ("support",),
    "sell off": ("sell",),
    "buy out": ("buy", "acquire"),
    "pull out": ("withdraw",),
    "drop out": ("withdraw", "quit"),
    "roll out": ("launch", "introduce", "release"),
    "put forward": ("propose", "suggest"),
    "take off": ("launch", "depart"),
    "lift off": ("launch",),
    "blast off": ("launch",),
    "touch down": ("land",),
    "take place": ("happen", "occur"),
    "hold up": ("delay",),
    "phase out": ("end", "eliminate", "abolish"),
    "bring in": ("introduce",),
    "come back": ("return",),
    "go back": ("return",),
    "send back": ("return",),
    "give back": ("return",),
    "fill in": ("complete",),
    "put out": ("extinguish",),
}

# The most phrasal verbs a claim or a source is read for (a crafted text of a thousand "step down"s is not).
_MAX_FOUND = 64


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[tuple[str, str], tuple[str, tuple[str, ...]]], dict[str, list[str]]]:
    """(a form's stem, particle) -> (the phrasal verb, its single verbs' stems); single verb stem -> its phrasal
    verbs."""
    forward: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
    backward: dict[str, list[str]] = {}
    for phrase, verbs in PHRASAL_VERBS.items():
        verb, particle = phrase.split()
        meaning = tuple(stem(f) for v in verbs for f in regular_forms(v))
        for form in regular_forms(verb):
            forward[(base_form(stem(form)), particle)] = (phrase, meaning)
        for st in meaning:
            backward.setdefault(st, []).append(phrase)
    return forward, backward


_PAIR = re.compile(r"\b([A-Za-z]+)\s+(up|down|over|out|off|for|into|in|back|forward|part|place|away)\b",
                   re.IGNORECASE)


def _phrasals(text: str) -> Iterable[tuple[re.Match[str], str, tuple[str, ...]]]:
    """``(match, phrasal verb, its single verbs' stems)`` of each phrasal verb of the table in ``text`` (the match's
    groups: the verb, the particle)."""
    forward, _ = _tables()
    found = 0
    for m in _PAIR.finditer(text):
        entry = forward.get((base_form(stem(m.group(1).lower())), m.group(2).lower()))
        if entry is not None:
            yield m, *entry
            found += 1
            if found >= _MAX_FOUND:
                return


def phrasal_said(text: str, terms: Collection[str]) -> list[tuple[int, int]]:
    """Spans of the words of ``text``'s phrasal verbs (the verb and the particle) that one of their single verbs in
    ``terms`` (a scope's stems) says."""
    spans: list[tuple[int, int]] = []
    for m, _, meaning in _phrasals(text):
        if any(v in terms for v in meaning):
            spans += [m.span(1), m.span(2)]
    return spans


def phrasals_in(text: str) -> frozenset[str]:
    """The phrasal verbs of the table that ``text`` uses ("step down"), at most :data:`_MAX_FOUND` read."""
    return frozenset(phrase for _, phrase, _ in _phrasals(text))


def verb_said_as_phrasal(term_stem: str, phrasals: Collection[str]) -> bool:
    """Whether a phrasal verb the passages use (``phrasals``: :func:`phrasals_in` of each) means the verb of stem
    ``term_stem`` ("step down" for "resign")."""
    _, backward = _tables()
    wanted = set(backward.get(term_stem, ())) | set(backward.get(base_form(term_stem), ()))
    return bool(wanted) and not wanted.isdisjoint(phrasals)
