"""A thing a passage's list excludes, said included: "It covers up to 50% of eligible costs, including equipment,
shop-front improvements, staff training and rent" against "Eligible costs include equipment, shop-front improvements
and staff training; rent, wages and the repayment of existing debts are excluded"; "sole traders can apply, as can
franchise outlets" against "Sole traders are eligible; charities and franchise outlets are not."

:mod:`.excepted` reads an exception a phrase opens ("except for", "excluding"); here the passage's list comes first
and the words after it exclude it: "are excluded", "are not eligible", "are ineligible", "is not covered", or a bare
"are not" that leaves the predicate to the clause before. Every word of such a claim is the passage's (the excluded
item is named right there), so the word checks pass it. Read without a parse, as a role conflict ("exclusion turned:
rent (the passage: rent, wages and the repayment of existing debts are excluded)"):

- the claim names the item in a list it includes: after "including", "as well as", "along with", "plus", or "as can"
  / "as do" / "as are" ... (an item as the clause before, "as can franchise outlets");
- the item is (by at least half of its content words) an item of a list that a passage sentence excludes, in a
  sentence the claim's part restates (at least :data:`.closest.RESTATED_OVERLAP` of its other words);
- the claim does not exclude that item itself (its own "charities are excluded" leaves charities alone).

Bounded: at most :data:`MAX_PHRASES` including phrases a claim, each of at most :data:`_LIST_WORDS` words, read
against the sentences of the claim's sources (:func:`.closest.source_sentences`: their first characters).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from halguard.grounding.signals.closest import fused_parts, part_holding, restates, source_sentences
from halguard.text.lexical import STOPWORDS, content_terms, stem

__all__ = ["MAX_PHRASES", "exclusions_turned"]

# Including phrases read per claim, and excluded lists per sentence (a crafted run of "including" is read for its first
# few).
MAX_PHRASES = 3
# Words of a list read after its opening words, or before the words that exclude it.
_LIST_WORDS = 12

_INCLUDING = re.compile(
    r"\b(?:including|as\s{1,3}well\s{1,3}as|along\s{1,3}with|together\s{1,3}with|plus|"
    r"as\s{1,3}(?:can|could|do|does|did|are|is|were|was|may|might|will|would|must|should))\b", re.IGNORECASE)
# The words after a list that exclude it: a bare "are not" only where it ends the clause ("charities and franchise
# outlets are not.").
_EXCLUDING = re.compile(
    r"\b(?:are|is|were|was)\s{1,3}(?:excluded|ineligible|not\s{1,3}(?:eligible|covered|included|allowed|permitted|"
    r"accepted)\b|not(?=\s{0,3}(?:[.;:,)]|$)))", re.IGNORECASE)
_WORD = re.compile(r"[^\W_][\w'’-]*|[^\w\s]")
# Words that end a list: a clause begins, or its predicate ("equipment is covered, and rent is excluded": the list
# read back from "is excluded" is rent alone).
_LIST_ENDS = frozenset("which who whom whose that where when while whereas although but if unless so is are was were "
                       "be been being has have had can could will would may might must should do does did".split())
_SEPARATORS = frozenset({",", "and", "or"})

Items = list[frozenset[str]]


def _items(words: Sequence[str]) -> Items:
    """The items of a list's words (``,``, "and" and "or" separate them), each as its content-word stems."""
    items: Items = []
    current: set[str] = set()
    for word in [*words, ","]:
        if word in _SEPARATORS:
            if current:
                items.append(frozenset(current))
            current = set()
        elif word not in STOPWORDS and not word[0].isdigit() and word[0].isalnum():
            current.add(stem(word))
    return items


def _after(text: str, at: int) -> tuple[int, Items]:
    """The list after offset ``at``: where it ends and its items."""
    words: list[str] = []
    end = at
    for m in _WORD.finditer(text, at):
        word = m.group().lower()
        if (not word[0].isalnum() and word != ",") or word in _LIST_ENDS or len(words) == _LIST_WORDS:
            break
        words.append(word)
        if word[0].isalnum():
            end = m.end()
    return end, _items(words)


def _before(text: str, at: int) -> Items:
    """The list that ends at offset ``at`` (read back to the clause's start)."""
    words = [m.group().lower() for m in _WORD.finditer(text, 0, at)]
    taken: list[str] = []
    for word in reversed(words):
        if (not word[0].isalnum() and word != ",") or word in _LIST_ENDS or len(taken) == _LIST_WORDS:
            break
        taken.append(word)
    return _items(taken[::-1])


def _excluded_lists(sentence: str) -> list[tuple[str, Items]]:
    """The lists ``sentence`` excludes, each with its words as written (for the reason)."""
    out = []
    for m in islice(_EXCLUDING.finditer(sentence), MAX_PHRASES):
        items = _before(sentence, m.start())
        if items:
            clause_start = max(sentence.rfind(c, 0, m.start()) for c in ";:.") + 1
            out.append((sentence[clause_start:m.end()].strip(), items))
    return out


def _one_of(item: frozenset[str], items: Items) -> bool:
    """Whether ``item`` is one of ``items``: at least half of its words in one of them."""
    return any(2 * len(item & other) >= len(item) for other in items)


def exclusions_turned(text: str, sources: Sequence[str]) -> list[tuple[int, int, str]]:
    """The included items of ``text`` (a claim's checked text) that a list of the sentence it restates excludes, as
    ``(start, end, reason)`` (see the module)."""
    phrases = list(islice(_INCLUDING.finditer(text), MAX_PHRASES))
    if not phrases:
        return []  # every claim passes here: its words are read only where it includes
    own_excluded = [item for _, items in _excluded_lists(text) for item in items]
    parts = fused_parts(text)
    found: list[tuple[int, int, str]] = []
    for m in phrases:
        end, items = _after(text, m.end())
        items = [item for item in items if item and not _one_of(item, own_excluded)]
        if not items:
            continue
        listed = set().union(*items)
        others = {st for _, _, st in content_terms(part_holding(text, parts, m.start()))} - listed
        said = _excluded_where_restated(sources, items, others)
        if said:
            found.append((m.start(), end, f"exclusion turned: {text[m.start():end]} (the passage: {said})"))
    return found


def _excluded_where_restated(sources: Sequence[str], items: Items, others: set[str]) -> str:
    """The words of a passage sentence that exclude one of ``items``, in a sentence that restates the claim's
    ``others``; "" where none does."""
    for source in sources:
        for sentence, terms in source_sentences(source):
            if not restates(others, set(terms), words_min=2):
                continue
            for said, excluded in _excluded_lists(sentence):
                if any(_one_of(item, excluded) for item in items):
                    return said
    return ""
