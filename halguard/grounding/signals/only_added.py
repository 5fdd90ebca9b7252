"""One of a list said to be the only one: "only puppies under 10 weeks old were excluded" against "Puppies under 10
weeks old and pregnant dogs were excluded"; "the offer applies only to students" against "applies to students and
seniors".

Every word of such a claim stands in the sentence it restates, and "only" is a light word, so the word checks pass it:
what changed is that the claim shuts out what the passage lists beside its thing. Read without a parse, as a role
conflict: the claim says "only" before a phrase, a passage sentence that holds at least
:data:`.closest.RESTATED_OVERLAP` of the other content words of the claim (of its part, where it fuses statements:
:func:`.closest.fused_parts`) says the phrase's words in a list ("... and pregnant dogs", "students and seniors") whose
other item's words the claim never says, and no such sentence says "only", "sole", "solely", "alone", "exclusively" or
"just" itself. "Not only", "only if", "only when", "only after", "if only" and "the only"
(a description: "the only dissenting vote") are not read.

Bounded: at most :data:`MAX_PHRASES` phrases per claim, each compared with the sentences of the claim's sources
(:func:`.closest.source_sentences`: their first characters).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from halguard.grounding.signals.closest import (
    RESTATED_OVERLAP,
    fused_parts,
    part_holding,
    shared_share,
    source_sentences,
)
from halguard.text.lexical import STOPWORDS, content_terms, stem

__all__ = ["MAX_PHRASES", "only_added"]

MAX_PHRASES = 3
_PHRASE_WORDS = 5

_ONLY = re.compile(r"\bonly\b(?!\s{1,3}(?:if|when|after|once|because|where|until)\b)", re.IGNORECASE)
_NOT_BEFORE = frozenset({"not", "the", "if", "an", "my", "his", "her", "its", "their", "our", "your"})
_EXCLUSIVE = re.compile(r"\b(?:only|sole|solely|alone|exclusively|just)\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W_][\w'’-]*|[^\w\s]")
# What joins a list's items ("X and Y", "X, Y", "X as well as Y", "X or Y", "both X and Y").
_JOINS = frozenset({"and", "or", ",", "plus"})
_PHRASE_ENDS = frozenset("which who whom whose that where when while and or but were was are is will would can could "
                         "must should may might have has had be been".split())

# After a join, these start a clause, not a list's item ("... and there was", "... and they said").
_CLAUSE_STARTS = frozenset("there it he she they we i you this these those so then because since yet".split())
# "Only" before a number says how few ("takes only 25 people" for "limited to 25 people"), not which of a list.
_BEFORE_A_NUMBER = re.compile(
    r"\s{1,3}(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|a\s{1,3}few|a\s{1,3}handful)\b)", re.IGNORECASE)

Added = tuple[int, int, str]


def _phrase(text: str, after: int) -> list[tuple[int, str]]:
    """The phrase after "only" at ``after``: its content-word stems in order, each with where its word ends."""
    stems: list[tuple[int, str]] = []
    for i, m in enumerate(_WORD.finditer(text, after)):
        word = m.group().lower()
        if not word[0].isalnum() or (word in _PHRASE_ENDS and stems) or i == _PHRASE_WORDS:
            break
        if word not in STOPWORDS and not word[0].isdigit():
            stems.append((m.end(), stem(word)))
    return stems


def only_added(text: str, sources: Sequence[str]) -> list[Added]:
    """The "only" phrases of ``text`` (a claim's checked text) whose thing the sentence it restates lists beside
    another the claim never says (see the module)."""
    found: list[Added] = []
    phrases = [m for m in islice(_ONLY.finditer(text), MAX_PHRASES)
               if text[max(0, m.start() - 8):m.start()].lower().split()[-1:] not in ([w] for w in _NOT_BEFORE)]
    if not phrases:
        return found  # every claim passes here: its words are read only where it says "only"
    claim_terms = {st for _, _, st in content_terms(text)}
    parts = fused_parts(text)
    for m in phrases:
        phrase = _phrase(text, m.end())
        if not phrase or _BEFORE_A_NUMBER.match(text, m.end()):
            continue
        # the statement "only" is in: its part of a claim that fuses two ("..., and only puppies ... were excluded")
        part = part_holding(text, parts, m.start())
        listed, said = _listed_beside(sources, [st for _, st in phrase],
                                      {st for _, _, st in content_terms(part)} - {"only"}, claim_terms)
        if listed:
            end = phrase[said - 1][0]
            found.append((m.start(), end, f"only added: {text[m.start():end]} (the passage: {listed})"))
    return found


def _listed_beside(sources: Sequence[str], stems: list[str], part_terms: set[str], claim_terms: set[str]
                   ) -> tuple[str, int]:
    """The list of a restated passage sentence that holds the phrase ``stems`` (its longest start the sentence says
    whole: "seniors" of "Only seniors get the discount") beside an item whose words the claim (``claim_terms``) never
    says, as written there, and how many of the phrase's words it says; "" where none does, or a restated sentence
    says "only" itself. A sentence is restated where it holds :data:`.closest.RESTATED_OVERLAP` of ``part_terms`` (the
    claim's statement) other than the phrase's."""
    listed, listed_said = "", 0
    for source in sources:
        for sentence, terms in source_sentences(source):
            said = next((k for k in range(len(stems), 0, -1) if set(stems[:k]) <= terms), 0)
            if not said or shared_share(part_terms - set(stems[:said]), set(terms)) < RESTATED_OVERLAP:
                continue
            if _EXCLUSIVE.search(sentence):
                return "", 0
            if not listed:
                listed, listed_said = _list_of(sentence, stems[:said], claim_terms), said
    return listed, listed_said


def _list_of(sentence: str, stems: list[str], claim_terms: set[str]) -> str:
    """The words from the phrase's first word through the next list item (or from the item before it), where that
    item says content words the claim does not; "" where the phrase stands in no such list."""
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(sentence)]
    firsts = [i for i, (_, _, w) in enumerate(words) if stem(w) == stems[0]]
    for i in firsts[:MAX_PHRASES]:
        j = i  # the phrase's last word in the sentence: its words, and the small words and numbers between them
        while j + 1 < len(words) and j - i < 2 * _PHRASE_WORDS:
            word = words[j + 1][2]
            if word in _JOINS or not (stem(word) in stems or word in STOPWORDS or word[0].isdigit()):
                break
            j += 1
        after = _item(words, j + 1, 1, claim_terms)
        before = _item(words, i - 1, -1, claim_terms)
        if after is not None:
            return sentence[words[i][0]:words[after][1]]
        if before is not None:
            return sentence[words[before][0]:words[j][1]]
    return ""


def _item(words: list[tuple[int, int, str]], at: int, step: int, claim_terms: set[str]) -> int | None:
    """Where a list item the claim does not say ends (``step`` 1: after a join at ``at``) or starts (-1: before it);
    None where ``words[at]`` is no join or each of the item's content words is the claim's ("pregnant dogs" is no
    item of a claim that says "dogs" only)."""
    if not 0 <= at < len(words) or words[at][2] not in _JOINS:
        return None
    k, new, last = at + step, False, None
    while 0 <= k < len(words) and abs(k - at) <= _PHRASE_WORDS:
        word = words[k][2]
        if (word in _PHRASE_ENDS or word in _CLAUSE_STARTS) and last is None:
            return None  # a clause joined, no item: "machines and there was some kind of ..."
        if not word[0].isalnum() or ((word in _PHRASE_ENDS or word in STOPWORDS) and last is not None):
            break  # the item ends: "(applies to) students and seniors", "and pregnant dogs (were excluded)"
        if word not in STOPWORDS and not word[0].isdigit():
            new, last = new or not _said(word, claim_terms), k
        k += step
    return last if new else None


def _said(word: str, claim_terms: set[str]) -> bool:
    """Whether the claim says ``word``, plural or singular: the stemmer makes "evenings" "evening" but "evening"
    "even" ("Friday and Saturday evening shows" says "Saturday evenings")."""
    return stem(word) in claim_terms or (word.endswith("s") and stem(word[:-1]) in claim_terms)
