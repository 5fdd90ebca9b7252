"""A thing said free that the passages price: "members get into the Planetarium shows free along with all the paid
exhibitions" against "Members get unlimited free entry to all paid exhibitions ... Planetarium shows are not included
in membership and cost members £4".

Each word of such a claim is the passages', "free" too (said of something else), so the word checks pass it, and the
negation check reads no negator. Read without a parse: a passage sentence prices a thing ("X costs £4", "X are not
included", "X is charged", "X is extra"), X being the words of its clause before that verb ("Planetarium shows"); the
claim says "free" (not "not free") in a clause that holds each of X's words; no passage sentence with X's words says
"free", "no charge", "waived", "exempt", "complimentary" or "included" (not negated); and the claim's other words
(who goes free: "members") are priced too, or never said free: "Guided tours are free for members" against "Guided
tours cost £5. Members go free." is the passage's. Reported as a role conflict, weighted, never a CONTRADICTION: its
precision on real text is unmeasured.

Bounded: at most :data:`MAX_FREE` mentions of "free" read from a claim, and the sentences of the passages' first
characters (:func:`.closest.source_sentences`), each priced thing read within :data:`_SUBJECT_CHARS` characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from halguard.grounding.signals.closest import source_sentences
from halguard.text.lexical import content_terms
from halguard.text.segment import clause_end, clause_start

__all__ = ["MAX_FREE", "free_but_priced"]

MAX_FREE = 4
_PRICED_READ = 8

# "Free" said of a price (not "free to", "free from", "free of", "sugar-free").
_FREE = re.compile(r"(?<![\w-])free\b(?!-)(?!\s{1,3}(?:to|from|of)\b)", re.IGNORECASE)
_NEGATED_BEFORE = re.compile(r"(?:\b(?:not|never|no)|n['’]t)\s{1,3}(?:[^\W\d_]+\s{1,3})?$", re.IGNORECASE)
# What a passage says of a thing it gives no price: free, waived, included (not "not included").
_SAID_FREE = re.compile(r"\b(?:free|waived?|exempt|complimentary|no\s{1,3}(?:extra\s{1,3})?(?:charge|cost|fee)"
                        r"|without\s{1,3}charge|(?<!not )(?<!n't )includ(?:ed|es|ing))\b", re.IGNORECASE)
# A thing priced: "X costs £4", "X cost members £4", "X is £2", "X are not included", "X is charged at", "X are extra".
_PRICED = re.compile(
    r"\b(?:costs?\s{1,3}(?:[^\W\d_]+\s{1,3}){0,2}[$£€]\s?\d|(?:is|are)\s{1,3}(?:not\s{1,3}included|charged|extra"
    r"|payable|chargeable|[$£€]\s?\d)|(?:isn['’]t|aren['’]t)\s{1,3}included)", re.IGNORECASE)
# Where a priced thing's words begin: a clause's edge before its verb.
_CLAUSE_EDGE = re.compile(r"[;:.!?,]|\b(?:and|but|while|whereas|which|that)\b", re.IGNORECASE)
_SUBJECT_CHARS = 60


def _terms(text: str) -> set[str]:
    return {st for _, _, st in content_terms(text)}


def _priced(sources: Sequence[str]) -> list[tuple[set[str], str, set[str]]]:
    """The things the passages price: their words, the sentence, the sentence's words."""
    out = []
    for source in sources:
        for sentence, terms in source_sentences(source):
            if _SAID_FREE.search(sentence):
                continue
            for m in islice(_PRICED.finditer(sentence), _PRICED_READ):
                window = sentence[max(0, m.start() - _SUBJECT_CHARS):m.start()]
                thing = _terms(window[clause_start(window, len(window), _CLAUSE_EDGE):])
                if thing:
                    out.append((thing, sentence, set(terms)))
    return out


def free_but_priced(text: str, sources: Sequence[str]) -> list[tuple[int, int, str]]:
    """The claim's "free" (offsets in ``text``) said of a thing the passages price, with the reason (see the
    module)."""
    frees = [m for m in islice(_FREE.finditer(text), MAX_FREE)
             if not _NEGATED_BEFORE.search(text[max(0, m.start() - 30):m.start()])]
    if not frees:
        return []
    priced = _priced(sources)
    if not priced:
        return []
    said_free = [set(terms) for source in sources for sentence, terms in source_sentences(source)
                 if _SAID_FREE.search(sentence)]
    out = []
    for m in frees:
        clause = _terms(text[clause_start(text, m.start(), _CLAUSE_EDGE):clause_end(text, m.end(), _CLAUSE_EDGE)])
        for thing, sentence, terms in priced:
            if not thing <= clause or any(thing <= free for free in said_free):
                continue
            others = clause - thing - {"free"}
            if terms & others or not any(free & others for free in said_free):
                out.append((m.start(), m.end(), f"free where the passage prices it: {sentence.strip()[:160]}"))
                break
    return out
