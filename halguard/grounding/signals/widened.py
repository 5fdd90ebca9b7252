"""A scope widened: "Fees for all students, home and international, will rise by 6%" against "The university will
raise tuition fees for international students by 6%"; "Curt Schilling holds the highest strikeout-to-walk ratio
amongst all baseball clubs" against "He is a member of the 3,000-strikeout club and has the highest strikeout-to-walk
ratio of any of its members".

Every word of such a claim can stand in the passages, so the word checks pass it, and nothing is moved for the copy
checks to see: what changed is how much of a group the statement covers. This reads it without a parse, as a role
conflict (the passages' restricted group given as the whole): the claim says "all" or "every" before a noun phrase
(its modifiers and its head noun: "all Corvane passengers"), and

- the passages name the head only restricted: in every passage sentence that has the head, each of its mentions is
  preceded (within its noun phrase) by a restricting quantifier ("most adults", "the first five concerts") or by a
  modifier the claim's phrase lacks ("international students", "business class passengers"), never by a universal
  ("all", "each", "any") and never bare ("Adults with hypertension should ..." is said of every adult);
- the passage sentence with the head that shares most of the claim's other words holds at least
  :data:`WIDENED_SCOPE_OVERLAP` of them: the claim restates that sentence's statement, not another one about the same
  kind of thing ("allows clear representation of all the data points" beside "when you have only a few data points").

"Not all", "almost all" and "nearly every" are no universals. Bounded: at most :data:`MAX_PHRASES` phrases per
claim, each compared with the sentences of the claim's sources (:func:`.closest.source_sentences`: their first
characters) that have its head.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from halguard.grounding.signals.closest import shared_share, source_sentences
from halguard.grounding.signals.paraphrase import UNIT_AND_TIME_WORDS
from halguard.text.lexical import STOPWORDS, base_form, content_terms, stem

__all__ = ["MAX_PHRASES", "WIDENED_SCOPE_OVERLAP", "widened_scopes"]

# The share of the claim's other content words (all but its universal phrase) that the passage sentence restricting
# the head must hold. Hand-set at a half (2026-11-30): on the dev files any value from 0.34 to 0.5 reads the same
# claims (below 0.34 one faithful RAGTruth claim is read, "all the data points" against "only a few data points").
WIDENED_SCOPE_OVERLAP = 0.5
# Universal phrases read per claim (a crafted claim of a thousand "all"s is read for its first few).
MAX_PHRASES = 3
# Words of a noun phrase read after "all" / "every", and before a passage's mention of the head.
_PHRASE_WORDS = 4

_UNIVERSAL = re.compile(r"\b(?:all|every)\b", re.IGNORECASE)
_TOKEN = re.compile(r"[^\W\d_][\w'’-]*|\d+(?:[.,]\d+)*|[^\w\s]")
# Between "all" and its noun: "all of the students", "every one of its".
_DETERMINERS = frozenset("of the its their his her our these those".split())
# Before "all" / "every", these make it no universal.
_WEAKENERS = frozenset("not almost nearly virtually practically".split())
# Before a passage's mention of the head: the group is the whole...
_PASSAGE_UNIVERSALS = frozenset("all every each any both entire whole".split())
# ... or a part of it.
_RESTRICTING = frozenset("some several most many few certain only select selected".split())

Widened = tuple[int, int, str]  # offsets of the claim's universal phrase in its text, and the reason


def _claim_phrase(text: str, after: int) -> tuple[int, list[str]] | None:
    """The noun phrase after a universal at ``after``: its end offset and its words (the head last)."""
    taken: list[str] = []
    end = after
    for m in _TOKEN.finditer(text, after):
        word = m.group().lower()
        if not taken and word in _DETERMINERS:
            continue
        if word in STOPWORDS or not word[0].isalpha() or len(taken) == _PHRASE_WORDS:
            break
        st = stem(word)
        if taken and (word.endswith(("ed", "ing")) or base_form(st) != st):
            break  # "all of its kettle models sold in Canada": the participle starts what is said of them
        taken.append(word)
        end = m.end()
    return (end, taken) if taken else None


def _restriction(sentence: str, head: str, modifiers: set[str]) -> str | None:
    """How ``sentence`` restricts its mentions of ``head`` (a stem): the first restricted mention's words, or None
    where one mention is bare, universal or modified only as the claim's phrase is (or numbered: "the 300 students"
    are all of them)."""
    tokens = [m.group() for m in _TOKEN.finditer(sentence)]
    said = None
    for i, token in enumerate(tokens):
        if stem(token) != head:
            continue
        before: list[str] = []
        restricted = False
        for word in reversed(tokens[max(0, i - _PHRASE_WORDS):i]):
            low = word.lower()
            if low in _PASSAGE_UNIVERSALS or not low[0].isalnum():
                break
            if low in _RESTRICTING:
                before.append(word)
                restricted = True
                break
            if low in STOPWORDS:
                break
            before.append(word)
            restricted = restricted or (not low[0].isdigit() and stem(low) not in modifiers)
        if not restricted:
            return None
        said = said or " ".join([*reversed(before), token])
    return said


def widened_scopes(text: str, sources: Sequence[str]) -> list[Widened]:
    """The universal phrases of ``text`` (a claim's checked text) whose group the passages (``sources``: the texts
    the claim is checked against) name only restricted, in a sentence the claim restates (see the module)."""
    found: list[Widened] = []
    universals = list(islice(_UNIVERSAL.finditer(text), MAX_PHRASES))
    if not universals:
        return found  # every claim passes here: its words are read only where it says "all" or "every"
    claim_terms = {st for _, _, st in content_terms(text)}
    for m in universals:
        before = text[max(0, m.start() - 12):m.start()].lower().split()
        if before and before[-1] in _WEAKENERS:
            continue
        phrase = _claim_phrase(text, m.end())
        if phrase is None:
            continue
        end, words = phrase
        head = stem(words[-1])
        if len(head) < 3 or head in UNIT_AND_TIME_WORDS:
            continue  # "all day", "every week": a time, not a group
        modifiers = {stem(w) for w in words[:-1]}
        others = claim_terms - modifiers - {head, stem(m.group())}
        best, best_share = None, -1.0
        for source in sources:
            for sentence, terms in source_sentences(source):
                if head not in terms:
                    continue
                said = _restriction(sentence, head, modifiers)
                if said is None:
                    break
                share = shared_share(others, set(terms))
                if share > best_share:
                    best, best_share = said, share
            else:
                continue
            best = None  # a passage names the whole group
            break
        if best is not None and best_share >= WIDENED_SCOPE_OVERLAP:
            found.append((m.start(), end, f"scope widened: {text[m.start():end]} (the passage: {best})"))
    return found
