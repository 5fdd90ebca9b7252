"""Numbered labels: "Band 2", "Line 14", "Terminal 5" name one of several things a passage numbers alike, and a
figure the passages give one of them is not another's: "From 9 March, Line 14 will be extended by 2.4 kilometres"
against "Harlow Vale Transit will reroute Line 14 ... Line 7, which currently terminates at Ashby Cross, will be
extended by 2.4 kilometres" gives Line 7's extension to Line 14. Every word and number of such a claim is the
passage's, so the word checks pass it, and its closest sentence may be either label's.

A label is a capitalised word (not a month or a weekday: dates are the date checks') and a number of one to three
digits right after it, that the passages write with at least two numbers (a family: "Line 7", "Line 14"). The
claim's label is moved when a number the claim says of it (after it, in its clause) stands in the passages only in
the clauses of another label of the family (:func:`label_clause`: a label's sentence, cut at the family's other
mentions), never in the claim label's, and the claim names no label of that family but its own ("every 12 minutes,
against Line 7's 20" names both). Reported as a role conflict, not a moved number, so never a CONTRADICTION: it
fires on no dev claim (its precision on real text is unmeasured), and on a held-out hand-written file its first
version flagged a paraphrase's claim.

Bounded: at most :data:`MAX_LABELS` labels of a claim, :data:`MENTIONS_READ` mentions of a family and of a number
in the passages, each clause :data:`LABEL_REACH` characters either side at most.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from halguard.text.dates import MONTHS, WEEKDAYS
from halguard.text.lexical import number_mentions

__all__ = ["LABEL_REACH", "MAX_LABELS", "MENTIONS_READ", "SAID_OF_CHARS", "label_clause", "labels_moved"]

MAX_LABELS = 4
MENTIONS_READ = 32
# How far a label's clause is read either side of its mention (characters: a long sentence).
LABEL_REACH = 300

_LABEL = re.compile(r"\b([A-Z][a-z]{1,15}) (\d{1,3})\b(?![.,]\d|:\d|%)")
_NOT_LABELS = frozenset((*MONTHS, *WEEKDAYS))
_SENTENCE_ENDS = (". ", "; ", "? ", "! ")
# What a claim says of its label is read to the end of the label's clause, this many characters at most.
SAID_OF_CHARS = 160
_CLAUSE_END = re.compile(r"[.;:!?](?:\s|$)|,\s+(?:and|but|while|whereas|which|who|although|though)\b"
                         r"|\s(?:while|whereas|although|though)\s", re.IGNORECASE)


def label_clause(source: str, start: int, end: int, family: re.Pattern[str]) -> str:
    """The stretch of ``source`` a label's mention at ``start:end`` speaks of: its sentence (at most
    :data:`LABEL_REACH` characters either side), cut at the other mentions of its ``family`` ("Band 2, ... costs
    £73.50, and Band 3, ... costs £319.10": £319.10 is Band 3's, and £73.50 not)."""
    left = source[max(0, start - LABEL_REACH):start]
    cut = max(left.rfind(end_mark) for end_mark in _SENTENCE_ENDS)
    opening = cut + 1 if cut >= 0 else 0
    # after another mention of the family in the sentence, what stands before this one is the other's
    begin = len(left) if family.search(left, opening) else opening
    right = source[end:end + LABEL_REACH]
    stops = [i for i in (right.find(end_mark) for end_mark in _SENTENCE_ENDS) if i >= 0]
    other_after = family.search(right)
    stop = min([len(right), *stops, *([other_after.start()] if other_after else [])])
    return left[begin:] + source[start:end] + right[:stop + 1]


def labels_moved(text: str, sources: Sequence[str]) -> list[tuple[int, int, str]]:
    """The labels of ``text`` (a claim's checked text; offsets in it) given a figure the passages (``sources``) give
    another label of the family, with the reason in words (see the module)."""
    labels = [m for m in islice(_LABEL.finditer(text), MAX_LABELS) if m.group(1).lower() not in _NOT_LABELS]
    if not labels:
        return []  # every claim passes here: it is read only where it names a numbered label
    label_spans = [(m.start(2), m.end(2)) for m in _LABEL.finditer(text)]
    found = []
    for m in labels:
        word, number = m.group(1), m.group(2)
        family = re.compile(rf"\b{re.escape(word)} (\d{{1,3}})\b(?![.,]\d|:\d|%)")
        named = {int(other.group(2)) for other in _LABEL.finditer(text) if other.group(1) == word}
        said = _said_of(text, m.end(), family)
        figures = [said[n.start:n.end] for n in number_mentions(said)
                   if not any(a <= m.end() + n.start < b for a, b in label_spans) and n.end - n.start >= 2]
        owner = _owner(figures, number, named, sources, family)
        if owner is not None:
            figure, theirs = owner
            found.append((m.start(), m.end(), f"{m.group()} where the passage gives {figure} to {word} {theirs}"))
    return found


def _said_of(text: str, end: int, family: re.Pattern[str]) -> str:
    """What the claim says of its label ending at ``end``: the words after it to its clause's end (:data:`_CLAUSE_END`,
    at most :data:`SAID_OF_CHARS` characters) or the family's next mention; "Line 14 buses run every 12 minutes, and
    the extension to Millbrook is 2.4 km" says 2.4 of no line."""
    said = text[end:end + SAID_OF_CHARS]
    stops = [m.start() for m in (_CLAUSE_END.search(said), family.search(said)) if m is not None]
    return said[:min(stops)] if stops else said


def _owner(figures: list[str], number: str, named: set[int], sources: Sequence[str], family: re.Pattern[str]
           ) -> tuple[str, str] | None:
    """A figure of the claim and the other label of the family whose clauses alone hold it in the passages; None if
    none (the claim's label holds each, or the passages give one outside any clause of the family)."""
    clauses: dict[str, list[str]] = {}
    for source in sources:
        for mention in islice(family.finditer(source), MENTIONS_READ):
            clauses.setdefault(mention.group(1), []).append(
                label_clause(source, mention.start(), mention.end(), family))
    if number not in clauses or len(clauses) < 2:
        return None  # no family, or the claim's label is none of its members
    for figure in figures:
        as_written = re.compile(rf"(?<![\d.,]){re.escape(figure)}(?![\d]|[.,]\d)")
        if any(as_written.search(clause) for clause in clauses[number]):
            continue
        holders = {other for other, said in clauses.items() if any(as_written.search(clause) for clause in said)}
        if len(holders) != 1 or int(next(iter(holders))) in named:
            continue
        written = sum(len(list(islice(as_written.finditer(source), MENTIONS_READ))) for source in sources)
        held = sum(len(as_written.findall(clause)) for said in clauses.values() for clause in said)
        if written <= held:  # the passages give it nowhere but in that label's clauses
            return figure, next(iter(holders))
    return None
