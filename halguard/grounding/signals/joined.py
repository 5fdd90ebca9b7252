"""Two things joined otherwise than the passage joins them: "the fee is waived if you have both direct deposits of $500
or more and a minimum daily balance of $1,500" against "waived for any cycle in which the account has (a) direct
deposits totalling $500 or more, or (b) a minimum daily balance of $1,500"; "the primary endpoint was met for both the
10 mg and 30 mg doses" against "met for the 30 mg dose only"; and "either A or B" where the passage needs A and B.

Every word of such a claim stands in the sentence it restates, so the word checks pass it, and nothing moved: what
changed is the condition (one of two asked as both, or both as one of two) or the scope (a thing the passage says alone
given a companion). Read without a parse, as a role conflict: the claim joins two items with "both ... and" or
"either ... or"; a passage sentence (with the two after it: a list the splitter cuts) that holds at least
:data:`.closest.RESTATED_OVERLAP` of the claim's other content words, and two at least (it restates that statement),
says a word of each item that the other lacks, and joins them the other way (only "or" between them for the claim's
"both", only "and" for its "either"), or says one item with "only" beside it and not the other (unless the claim says
"only" itself). Bounded: at most :data:`MAX_JOINS` joins per claim, each compared with the sentences of the claim's
sources (:func:`.closest.source_sentences`: their first characters).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from halguard.grounding.signals.closest import RESTATED_WORDS_MIN, fused_parts, part_holding, restates, source_sentences
from halguard.text.lexical import STOPWORDS, content_terms, stem

__all__ = ["MAX_JOINS", "joined_otherwise"]

# Joins read per claim (a crafted claim of a thousand "both"s is read for its first few).
MAX_JOINS = 3
# Words of an item read ("both *direct deposits of $500 or more* and ...").
_ITEM_WORDS = 8
# Sentences read together: a sentence and the items of a list the sentence splitter cuts after it.
_WINDOW_SENTENCES = 3

_JOIN = re.compile(r"\b(both|either)\b", re.IGNORECASE)
_WORD = re.compile(r"\$?\d+(?:[.,]\d+)*%?|[^\W_][\w'’-]*|[^\w\s]")
# Words that end the second item: a clause or another statement begins.
_ITEM_ENDS = frozenset("which who whom whose that where when while but were was are is will would can could must "
                       "should may might have has had be been to for".split())
# Words that keep the passage's items apart from one another: for the claim's "both", the passage's "or" must stand
# between them and no "and"; for its "either", "and" and no "or".
_OR = frozenset({"or"})
_AND = frozenset({"and", "both", "plus"})
_ONLY = frozenset({"only", "solely", "exclusively", "alone"})

Joined = tuple[int, int, str]


def _items(text: str, after: int, joiner: str) -> tuple[int, set[str], set[str]] | None:
    """The two items after "both" / "either" at ``after``: the end of the second, and the stems of each (numbers
    kept: "the 10 mg and 30 mg doses"). None where the join word never comes."""
    first: set[str] = set()
    second: set[str] = set()
    current, end, taken = first, after, 0
    for m in _WORD.finditer(text, after):
        word = m.group().lower()
        if word == joiner and current is first and first:
            current, taken = second, 0
            continue
        if (not word[0].isalnum() and word[0] != "$") or taken == _ITEM_WORDS or (
                current is second and word in _ITEM_ENDS and second):
            break
        taken += 1
        if word not in STOPWORDS:
            current.add(stem(word.lstrip("$").rstrip("%")))
        end = m.end()
    return (end, first, second) if first and second else None


def joined_otherwise(text: str, sources: Sequence[str]) -> list[Joined]:
    """The "both ... and" / "either ... or" joins of ``text`` (a claim's checked text) that the sentence it restates
    joins the other way, or says of one item only (see the module)."""
    found: list[Joined] = []
    joins = list(islice(_JOIN.finditer(text), MAX_JOINS))
    if not joins:
        return found  # every claim passes here: its words are read only where it says "both" or "either"
    parts = fused_parts(text)
    restricts = _ONLY & {w.lower() for w in _WORD.findall(text)}  # the claim's own "only" is its own statement
    for m in joins:
        both = m.group(1).lower() == "both"
        read = _items(text, m.end(), "and" if both else "or")
        if read is None:
            continue
        end, first, second = read
        own_first, own_second = first - second, second - first
        if not own_first or not own_second:
            continue
        # the statement the join is in: its part of a claim that fuses two ("..., and Corvanta plans to ...")
        part = part_holding(text, parts, m.start())
        others = {st for _, _, st in content_terms(part)} - first - second
        said = _said_otherwise(sources, own_first, own_second, others, both, both and not restricts)
        if said:
            found.append((m.start(), end, f"joined otherwise: {text[m.start():end]} (the passage: {said})"))
    return found


def _said_otherwise(sources: Sequence[str], first: set[str], second: set[str], others: set[str], both: bool,
                    alone: bool) -> str:
    """The words of a restated passage sentence that join the two items (``first`` / ``second``: each one's own stems)
    the other way, or (``alone``) say one with "only"; "" where none does."""
    for source in sources:
        sentences = source_sentences(source)
        for at in range(len(sentences)):
            # a sentence and the few after it: a list's items may be split apart ("... has (a) X, or | (b) Y, or")
            window = sentences[at:at + _WINDOW_SENTENCES]
            sentence = " ".join(text for text, _ in window)
            if not restates(others, set().union(*(terms for _, terms in window)), words_min=RESTATED_WORDS_MIN):
                continue
            words = [(w.start(), w.end(), w.group().lower()) for w in _WORD.finditer(sentence)]
            stems = [stem(w.lstrip("$").rstrip("%")) for _, _, w in words]
            at_first = [i for i, st in enumerate(stems) if st in first]
            at_second = [i for i, st in enumerate(stems) if st in second]
            if alone and (said := _said_alone(words, at_first, at_second) or _said_alone(words, at_second, at_first)):
                return said
            if not at_first or not at_second:
                continue
            a, b = sorted((at_first[0], at_second[0]))
            between = {w for _, _, w in words[a + 1:b]}
            wanted, unwanted = (_OR, _AND) if both else (_AND, _OR)
            if between & wanted and not between & unwanted:
                return sentence[words[a][0]:words[b][1]]
    return ""


def _said_alone(words: list[tuple[int, int, str]], at_one: list[int], at_other: list[int]) -> str:
    """The words of one item with "only" beside it (within two words), where the other item is not said before the
    "only": "the 30 mg dose only"; "" where there is none."""
    for i in at_one[:MAX_JOINS]:
        for j in range(max(0, i - 2), min(len(words), i + 4)):
            if words[j][2] in _ONLY and not any(k < max(i, j) for k in at_other if abs(k - i) <= 6):
                a, b = min(i, j), max(i, j)
                return " ".join(w for _, _, w in words[a:b + 1])
    return ""
