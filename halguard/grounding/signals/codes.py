"""A code's number changed: "SARS-CoV-4" where the passages write "SARS-CoV-2", "F-35" where they write "F-16",
"World War III" where they write "World War II".

The digits joined to a name by a hyphen are part of a code, not a quantity (:func:`.words.missing_numbers` skips
them, so "4" is not looked up on its own), and the name before them is found in the passages: the code as a whole
is what a fabrication changes. A code is changed where the passages write its name with other numbers and never
with the claim's ("SARS-CoV-2" only); a name they never write with a number says nothing ("COVID-19" against
"COVID" is the same disease). A name's Roman numeral ("World War II", "Henry VIII", "Super Bowl LVII") is read
the same way, by the capitalised word before it: "World War III" has "War II" of the passages' "World War II"
(its words are all theirs, so no name is missing). A version ("5.8.2") is changed where the passages write versions,
none of them the claim's, or where the sentence the claim restates writes another in its place.
"""

from __future__ import annotations

import re
from itertools import islice

from halguard.grounding.signals.closest import RESTATED_OVERLAP, shared_share, source_sentences
from halguard.grounding.signals.scope import Scope
from halguard.text.lexical import term_set

__all__ = ["changed_codes"]

Span = tuple[int, int]

# A name (a capital somewhere in it, hyphenated parts allowed) and the digits joined to it by a hyphen.
_CODE = re.compile(r"\b([A-Za-z][A-Za-z0-9]{0,19}(?:-[A-Za-z][A-Za-z0-9]{0,19}){0,3})-(\d{1,4})\b")
# A capitalised word and the Roman numeral after it ("War II", "Henry VIII"); the numeral's own pattern keeps it to
# well-formed numerals up to 3999, so the scan is linear.
_ROMAN = r"(?=[MDCLXVI])M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
_NAMED_NUMERAL = re.compile(rf"\b([A-Z][a-z]{{1,19}}) ({_ROMAN})\b")
_ROMAN_VALUES = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}
# The most codes of one claim read (each is one scan of every passage).
_MAX_CODES = 8
# The characters of a claim read for the words it shares with a sentence (a claim restates one sentence; a crafted
# one of thousands of words is not compared whole with each of the passages' sentences).
_CLAIM_CHARS = 2_000
# A version or another dotted identifier of three parts or more ("5.8.2", "10.0.19045", "192.168.0.1"): the number
# reader takes "5.8.2" as 5.8, so "5.8.1" would stand for it. A part of four digits with two parts of at most 31 is
# a date ("30.06.2026"), which the date readers read.
_DOTTED = re.compile(r"(?<![\w.])v?(\d{1,6}(?:\.\d{1,6}){2,5})(?!\w|\.\d)", re.IGNORECASE)


def changed_codes(text: str, scope: Scope) -> list[Span]:
    """The codes of the claim whose name the passages write only with other numbers (spans in ``text``)."""
    found: list[Span] = []
    for m in islice(_CODE.finditer(text), _MAX_CODES):
        name, number = m.group(1), int(m.group(2))
        if not any(c.isupper() for c in name):
            continue  # "top-10", "run-3": words, not a code's name
        written = _numbers_written_with(name, scope)
        if written and number not in written:
            found.append((m.start(), m.end()))
    for m in islice(_NAMED_NUMERAL.finditer(text), _MAX_CODES):
        if m.group(2) in ("", "I"):
            # the numeral's parts are all optional ("Washington Dulles" matches an empty one before "D"); a lone "I"
            # may be "Elizabeth I" or a pronoun ("before meeting Anna I had ...")
            continue
        written = _numerals_written_with(m.group(1), scope)
        if written and _roman_value(m.group(2)) not in written:
            found.append((m.start(), m.end()))
    return found + _versions_changed(text, scope)


def _versions_changed(text: str, scope: Scope) -> list[Span]:
    """The claim's versions ("5.8.2") that the passages write nowhere, where they write versions, or that the passage
    sentence the claim restates (:data:`.closest.RESTATED_OVERLAP` of its words, the most of any with a version) gives
    another in the same place ("affects versions 5.6.0 through 5.8.2" where it says "through 5.8.1", and 5.8.2 is the
    fixed version of another sentence)."""
    versions = [m for m in islice(_DOTTED.finditer(text), _MAX_CODES) if not _dotted_date(m.group(1))]
    if not versions:
        return []
    sentences = [(sentence, terms) for src in scope.sources for sentence, terms in source_sentences(src.text)
                 if _DOTTED.search(sentence)]
    if not sentences:
        return []  # the passages write no version: a claim's is read as its number
    written = {m.group(1) for sentence, _ in sentences for m in _DOTTED.finditer(sentence)}
    claim_terms = term_set(text[:_CLAIM_CHARS])
    share, restated = max((shared_share(claim_terms, set(terms)), sentence) for sentence, terms in sentences)
    in_place = {_word_before(restated, m.start()): m.group(1) for m in _DOTTED.finditer(restated)}
    return [(m.start(1), m.end(1)) for m in versions if m.group(1) not in written or (
        share >= RESTATED_OVERLAP and m.group(1) not in in_place.values()
        and _word_before(text, m.start()) in in_place)]


def _word_before(text: str, start: int) -> str:
    """The word before ``start``, lower-cased ("" at the start)."""
    words = re.findall(r"[\w'’]+", text[max(0, start - 40):start].lower())
    return words[-1] if words else ""


def _dotted_date(dotted: str) -> bool:
    """Whether a dotted identifier is a date ("30.06.2026", "2026.06.30"): a part of four digits, the others at most
    31."""
    parts = dotted.split(".")
    return len(parts) == 3 and sum(len(p) == 4 for p in parts) == 1 and all(int(p) <= 31 for p in parts if len(p) != 4)


def _numbers_written_with(name: str, scope: Scope) -> set[int]:
    """The numbers the passages join to ``name`` ("SARS-CoV-2", "SARS-CoV 2", "F16"), case aside."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(name)}[- ]?(\d{{1,4}})(?![\d.,]\d)", re.IGNORECASE)
    return {int(m.group(1)) for src in scope.sources for m in pattern.finditer(src.text)}


def _numerals_written_with(word: str, scope: Scope) -> set[int]:
    """The values of the Roman numerals the passages write right after ``word`` ("War II" -> {2})."""
    pattern = re.compile(rf"\b{re.escape(word)} ({_ROMAN})\b")
    return {_roman_value(m.group(1)) for src in scope.sources for m in pattern.finditer(src.text) if m.group(1)}


def _roman_value(numeral: str) -> int:
    """The value of a well-formed Roman numeral ("LVII" -> 57)."""
    values = [_ROMAN_VALUES[c] for c in numeral]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
