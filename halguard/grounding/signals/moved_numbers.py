"""A number of the passages moved into a sentence that gives another: "The city of Reykjavík has about 240,000
inhabitants." against "Reykjavík is the capital ... with about 140,000 inhabitants. Around 240,000 people ... live in
the capital region."

A number the passages lack is the missing numbers' finding, and one they give otherwise in a copied sentence is
``changed_number_in_copy``. A number they have, put where its evidence sentence gives another, passes every word
check: each word of the claim, and its number, is the passage's. Read as :mod:`.moved` reads names, and reported as the
same finding (``role_conflicts``, "240,000 where the passage has 140,000"):

- the claim copies its closest evidence sentence but for the number: at least two other content words, at least
  ``close_copy_overlap`` of them in that sentence;
- the claim's number stands in the passages (a number they lack is the missing numbers' finding) but not in that
  sentence, by value (a percentage only as a percentage), or only with no unit of the claim's dimension ("15 W"
  where the claim says "in 15 minutes");
- the sentence has another number, which the claim does not have, in the same slot: the word after both is the same
  content word ("240,000 *inhabitants*" / "140,000 *inhabitants*"), or both words around them are the same, or the
  word before is the same and the words after are two units of one dimension ("delayed by up to three *days*" where
  the sentence has "by up to two *weeks*": the claim's unit then counts as no word of the copy); and
  neither is a year (a year moved is the role check's and the date checks' to read: "died in 1902"), a list marker,
  or a part of a clock time, a score or a range ("1:30", "2-0").

A unit swapped in a copy is read the same way (:func:`units_swapped`): "one additional week for every month of
service" against "for every year of service", the unit words in the same slot, the sentence never with the claim's.
So are two numbers of a copied sentence that trade places (:func:`numbers_exchanged`): "fatigue in 27% and headache
in 34%" against "fatigue (34%) and headache (27%)", each number beside the word the sentence gives the other.

Bounded: at most :data:`MAX_NUMBERS` numbers a side, each compared with the sentence's numbers once.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from itertools import islice

from halguard.grounding.signals.closest import ClosestSentence, shared_share, source_sentences
from halguard.grounding.signals.labels import label_clause
from halguard.grounding.signals.moved import slot_neighbours
from halguard.grounding.signals.scope import Scope
from halguard.text.currency import symbol_before
from halguard.text.dates import MONTHS
from halguard.text.lexical import (
    STOPWORDS,
    NumberMention,
    content_terms,
    is_enumerator,
    number_mentions,
    stem,
    word_spans,
)
from halguard.text.quantities import UNITS, YEAR_RANGE, Quantity, quantities, said_as
from halguard.text.segment import clause_start

__all__ = ["MAX_NUMBERS", "numbers_exchanged", "numbers_moved", "units_swapped"]

# The most numbers of a claim, and of its evidence sentence, compared (a crafted run of digits is not read whole).
MAX_NUMBERS = 16
# The most words of a claim, and of its evidence sentence, read for units (units_swapped).
_MAX_WORDS = 256
# The share of a claim's other words a sentence needs to hold for a number counting the same noun as the sentence's
# other number to be read as moved ("About 40 firefighters and 12 fire engines tackled the fire" against "About 60
# firefighters and 12 fire engines attended": 3 of 4), where any other slot needs close_copy_overlap (0.8).
COUNTED_COPY_OVERLAP = 0.6
# A label's mentions read per passage.
_LABELS_READ = 8
_FIRST_YEAR, _LAST_YEAR = YEAR_RANGE  # a four-digit number in this range is a year (halguard.text.quantities)


def _read(text: str) -> list[NumberMention]:
    """The numbers of ``text`` a slot can hold: not a year, a list marker ("3. Prick the bratwurst") or a part of a
    clock time, a score or a range."""
    return [n for n in number_mentions(text)[:MAX_NUMBERS]
            if not (n.value.is_integer() and _FIRST_YEAR <= n.value <= _LAST_YEAR and text[n.start:n.end].isdigit())
            and not is_enumerator(text, n.start, n.end) and not _joined(text, n.start, n.end)]


def _label_said(text: str, words: list[tuple[int, int]], n: NumberMention, others: list[NumberMention],
                theirs: list[NumberMention], scope: Scope) -> bool:
    """Whether the number is part of a label that a passage writes as the claim does, beside the claim's other
    numbers, which the closest sentence lacks: "a Band 2 course of NHS treatment costs £73.50" names Band 2 as a passage
    prices it ("Band 2, which adds fillings, ... costs £73.50"), whatever the closest sentence says of Band 1 (its
    £26.80 in the claim would make Band 2 a label moved). A label is a capitalised word right before the number,
    inside the sentence ("Band 2", "Terminal 5"); a number after a verb or a bound ("costs £24") is a quantity."""
    if not others or any(_same(k, m) for k in others for m in theirs):
        return False
    i = bisect_left(words, (n.start, n.start)) - 1
    if i < 1:
        return False  # no word before it, or the sentence's first word (capitalised for the sentence)
    s, e = words[i]
    label = text[s:e]
    if not label[:1].isupper() or text[e:n.start] != " " or label.lower() in STOPWORDS:
        return False
    said = re.compile(rf"\b{re.escape(label)} {re.escape(text[n.start:n.end])}(?![\d.,]?\d)")
    any_label = re.compile(rf"\b{re.escape(label)} (\d{{1,3}})\b(?![.,]\d|:\d|%)")
    for src in scope.sources:
        for m in islice(said.finditer(src.text), _LABELS_READ):
            if all(text[k.start:k.end] in label_clause(src.text, m.start(), m.end(), any_label) for k in others):
                return True
    return False


# Where a clause of a passage sentence begins, for the words a quantity of it speaks of.
_CLAUSE_START = re.compile(r"[,;:]|\b(?:while|whereas|but|and)\b", re.IGNORECASE)
_CLAUSE_REACH = 80


def _clause_terms(sentence: str, start: int) -> set[str]:
    """The content stems of the clause of ``sentence`` before ``start`` (at most :data:`_CLAUSE_REACH` characters)."""
    clause = sentence[clause_start(sentence, start, _CLAUSE_START, _CLAUSE_REACH):start]
    return {st for _, _, st in content_terms(clause)}


def _conversions(text: str, n: NumberMention, sentence: str) -> list[Quantity]:
    """The quantities of ``sentence`` that give the claim's quantity at ``n`` (one with a unit) in another unit:
    "fortnightly" of "every two weeks"."""
    claimed = next((q for q in quantities(text, limit=MAX_NUMBERS) if q.start <= n.start < q.end
                    and q.dimension not in (None, "percent")), None)
    if claimed is None:
        return []
    return [q for q in quantities(sentence, limit=MAX_NUMBERS)
            if q.dimension == claimed.dimension and said_as(claimed, [q])]


def _converted_closer(conversions: list[Quantity], sentence: str, m: NumberMention, claim_terms: set[str]) -> bool:
    """Whether one of the sentence's ``conversions`` of the claim's quantity stands in a clause that shares more of
    the claim's words than the clause of the sentence's number ``m``: "Blue and yellow bins will be collected every
    two weeks" says "Blue and yellow bins will be collected fortnightly ..., while the grey bin will be emptied every
    four weeks" (where a passage writes a "two" elsewhere); "The grey bin will be emptied every two weeks" moves the
    four's. (A number the passages give only in another unit is not read as moved: a first version that did blocked a
    held-out paraphrase.)"""
    theirs = len(_clause_terms(sentence, m.start) & claim_terms)
    return any(len(_clause_terms(sentence, q.start) & claim_terms) > theirs for q in conversions)


def _joined(text: str, start: int, end: int) -> bool:
    """Whether the number is one part of a clock time, a score or a range ("1:30", "2-0", "10-12"): the whole is
    what the passage gives, not this part."""
    before, after = text[max(0, start - 2):start], text[end:end + 2]
    return (before[-1:] in (":", "-", "–") and before[:1].isdigit()) or (
        after[:1] in (":", "-", "–") and after[1:].isdigit())


def _one_dimension(ours: str, theirs: str) -> bool:
    """Whether two words are units of one dimension, the same unit included."""
    return ours in UNITS and theirs in UNITS and UNITS[ours][0] == UNITS[theirs][0]


def _same_dimension(ours: str, theirs: str) -> bool:
    """Whether two unit words after the numbers measure one thing in two units ("delayed by up to three days" where
    the passage has "by up to two weeks"): the quantity in the slot is another, as a number after the same word is
    (the unit checks convert one that is the same quantity: "72 hours" for "three days" is no other number)."""
    return ours != theirs and _one_dimension(ours, theirs)


def _two_months(ours: str, theirs: str) -> bool:
    """Whether the words after the numbers are two months: the days of two dates ("accept by 21 September" where the
    sentence has "by 30 June"; a year moved is the date checks' to read)."""
    return ours != theirs and ours in MONTHS and theirs in MONTHS


def _other_dimension(ours: str, theirs: str) -> bool:
    """Whether the word after the claim's number is a unit (``ours``) that the word after the sentence's (``theirs``)
    is not, in any unit of its dimension: "15 minutes" and "15 W" measure two things."""
    return ours in UNITS and not _one_dimension(ours, theirs)


def _unit_after(text: str, spans: list[tuple[int, int]], end: int) -> tuple[str, int]:
    """The unit word after a number ending at ``end`` (lower-case) and where it ends: the next word, or the one after
    it where the next is no unit and that one is ("4 *business* hours", "3 working days"); ``("", end)`` if none."""
    i = bisect_left(spans, (end, end))
    following = [(text[s:e].lower(), e) for s, e in spans[i:i + 2]]
    if following and following[0][0] in UNITS:
        return following[0]
    if len(following) == 2 and following[1][0] in UNITS and following[0][0].isalpha():
        return following[1]
    return ("", end)


def _money(text: str, n: NumberMention) -> bool:
    """Whether the number is a sum of money: a currency symbol before it ("£49", "$ 12")."""
    return symbol_before(text, n) is not None


def _money_said_closer(value: float, claim_terms: set[str], terms: set[str] | frozenset[str], scope: Scope) -> bool:
    """Whether a passage sentence that gives the claim's sum shares at least as many of the claim's words as its
    closest sentence (``terms``) does: "Band 2 ... costs £73.50" is the claim's sentence, not the Band 1 sentence whose
    £26.80 the copy holds."""
    shared = len(claim_terms & terms)
    for src in scope.sources:
        for sentence, their_terms in source_sentences(src.text):
            if len(claim_terms & their_terms) >= shared and any(
                    k.value == value and _money(sentence, k) for k in _read(sentence)):
                return True
    return False


def _same(a: NumberMention, b: NumberMention) -> bool:
    return a.value == b.value and a.is_percent == b.is_percent


def numbers_moved(text: str, closest: ClosestSentence, scope: Scope, copy_overlap: float
                  ) -> list[tuple[int, int, str]]:
    """The claim's numbers (offsets in ``text``) that the passages have but its ``closest`` sentence (of its best
    chunk, or of the passages for a part of a fused claim) gives another number in place of, with the reason in words
    ("240,000 where the passage has 140,000")."""
    ours = _read(text)
    if not ours or not closest.text:
        return []
    claim_terms, sentence = closest.claim_terms, closest.text
    if len(claim_terms) < 2:
        return []
    theirs = _read(sentence)
    claim_words, sentence_words = word_spans(text), word_spans(sentence)
    slots = [slot_neighbours(text, n.start, n.end, claim_words) for n in ours]
    # the claim's units are the slot's to compare, not words to copy ("by up to three days" / "two weeks")
    units = {stem(after) for _, after in slots if after in UNITS}
    overlap = shared_share(claim_terms - units, closest.terms) if theirs else 0.0
    if overlap < min(copy_overlap, COUNTED_COPY_OVERLAP):
        return []
    loose = overlap < copy_overlap  # a looser copy: only a number counting what the sentence's other number counts
    # a close copy's one sum of money in place of the sentence's one sum, whatever the words around it ("Rabbits are
    # vaccinated once a year ..., which costs £55" where the sentence has "... for £49")
    money, their_money = [k for k in ours if _money(text, k)], [k for k in theirs if _money(sentence, k)]
    # (the claim's other numbers all the sentence's: "Band 2 ... costs £73.50" copies no "Band 1 ... £26.80")
    sole_money = (money[0], their_money[0]) if not loose and len(money) == len(their_money) == 1 and all(
        any(_same(k, j) for j in theirs) for k in ours if k is not money[0]) else None
    out = []
    for n, (before, after) in zip(ours, slots):
        written = text[n.start:n.end]
        if n.value not in scope.context_numbers or not any(written in src.text for src in scope.sources):
            continue  # a number the passages lack or only compute (the missing numbers')
        # The sentence's own number, unless the claim gives it a unit the sentence does not: "and 15 W wireless
        # charging" may be moved into another's slot ("in 15 minutes" where the sentence has "in 25 minutes"), while
        # "300 million more than the budget" is the claim's "rose 300 million euros above the budget" however the
        # words around it differ
        if any(_same(n, m) and not _other_dimension(after, slot_neighbours(sentence, m.start, m.end,
                                                                           sentence_words)[1]) for m in theirs):
            continue
        for m in theirs:
            if any(_same(m, k) for k in ours) or m.is_percent != n.is_percent:
                continue
            their_before, their_after = slot_neighbours(sentence, m.start, m.end, sentence_words)
            ours_said, theirs_said = written, sentence[m.start:m.end]
            # a looser copy counts the same thing, or the same unit after the same word ("posted within 14 days"
            # where the sentence has "posted within 10 days")
            if loose and not (after.isalpha() and after == their_after and after not in STOPWORDS
                              and (after not in UNITS or before == their_before)):
                continue
            our_unit, their_unit = _unit_after(text, claim_words, n.end), _unit_after(sentence, sentence_words, m.end)
            if before == their_before and _two_months(after, their_after):
                ours_said, theirs_said = f"{written} {after.title()}", f"{theirs_said} {their_after.title()}"
            elif before == their_before and (_same_dimension(after, their_after) or (
                    (our_unit[0], their_unit[0]) != (after, their_after) and _one_dimension(our_unit[0],
                                                                                           their_unit[0]))):
                # a unit with a word between ("within 4 business hours" where the claim says "within 1 hour")
                ours_said, theirs_said = text[n.start:our_unit[1]], sentence[m.start:their_unit[1]]
            elif (before, after) != (their_before, their_after) and not (
                    after.isalpha() and after == their_after and (after not in STOPWORDS or before == their_before)
            ) and (sole_money != (n, m) or _money_said_closer(n.value, claim_terms, closest.terms, scope)):
                continue  # neither the very slot ("below 140/90" / "below 150/90") nor the same thing counted
            if not _label_said(text, claim_words, n, [k for k in ours if k is not n], theirs, scope) and not (
                    _converted_closer(_conversions(text, n, sentence), sentence, m, claim_terms)):
                out.append((n.start, n.end, f"{ours_said} where the passage has {theirs_said}"))
            break  # (a label read where a move is found: its passages are searched for that number only)
    return out


def units_swapped(text: str, closest: ClosestSentence, copy_overlap: float) -> list[tuple[int, int, str]]:
    """The claim's unit words (offsets in ``text``) where its ``closest`` sentence, which the claim copies otherwise,
    has another unit of the same dimension in the same slot, and never the claim's: "one additional week for every
    *month* of service" against "for every *year* of service". No number moved, so :func:`numbers_moved` reads
    nothing; the quantity is another all the same."""
    claim_words = word_spans(text)
    ours = [(s, e) for s, e in claim_words[:_MAX_WORDS] if text[s:e].lower() in UNITS]
    if not ours or not closest.text:
        return []
    claim_terms, sentence, sentence_terms = closest.claim_terms, closest.text, closest.terms
    sentence_words = word_spans(sentence)
    theirs = [(s, e) for s, e in sentence_words[:_MAX_WORDS] if sentence[s:e].lower() in UNITS]
    units = {stem(text[s:e].lower()) for s, e in ours}
    if not theirs or len(claim_terms - units) < 3 or shared_share(claim_terms - units, sentence_terms) < copy_overlap:
        return []
    claim_units = {text[s:e].lower() for s, e in ours}
    out = []
    for s, e in ours:
        unit = text[s:e].lower()
        if stem(unit) in sentence_terms:
            continue  # the sentence has the claim's unit: no swap, whatever else it has
        before, after = slot_neighbours(text, s, e, claim_words)
        for a, b in theirs:
            other = sentence[a:b].lower()
            if other in claim_units or not _same_dimension(unit, other) or UNITS[unit][1] == UNITS[other][1]:
                continue  # ("km" and "kilometres" are one unit)
            their_before, their_after = slot_neighbours(sentence, a, b, sentence_words)
            if (before, after) == (their_before, their_after) and after:
                out.append((s, e, f"{text[s:e]} where the passage has {sentence[a:b]}"))
                break
    return out


# How far a number's word is looked for, in words either side: "fatigue (34%)", "£15 an hour by community groups"
# (the fourth word after).
_OWNER_REACH = 4


Owner = tuple[str, int]  # a number's word and how many words away it stands


def _owners(text: str, numbers: list[NumberMention], words: list[tuple[int, int]]) -> list[tuple[Owner, Owner]]:
    """The content word nearest before and after each number (within :data:`_OWNER_REACH` words; "" for none), with
    its distance in words: not a stopword, a unit or a number. "fatigue in 27%" gives 27% the word "fatigue" before
    it, two words away."""
    lowered = [text[a:b].lower() for a, b in words]
    content = [w.isalpha() and w not in STOPWORDS and w not in UNITS for w in lowered]
    # a word of a number ("35", "million" of "35 million") ends a walk: the words beyond it are that number's
    starts, ends = [a for a, _ in words], [b for _, b in words]
    of_a_number = [False] * len(words)
    for n in numbers:
        for k in range(bisect_left(starts, n.start), bisect_left(starts, n.end)):
            of_a_number[k] = True
    # where a number's phrase ends: at a coordinating word, or a comma or semicolon before a word ("£7 for adults and
    # £12 ...": "adults" is 7's word, not 12's)
    break_before = [bool(_PHRASE_BREAK.search(text, words[k - 1][1] if k else 0, words[k][0]))
                    for k in range(len(words))]
    out = []
    for n in numbers:
        first_after, last_before = bisect_left(starts, n.end), bisect_right(ends, n.start) - 1
        before = _nearest(range(last_before, max(last_before - _OWNER_REACH, -1), -1), lowered, content,
                          break_before, of_a_number)
        after = _nearest(range(first_after, min(first_after + _OWNER_REACH, len(words))), lowered, content,
                         break_before, of_a_number)
        out.append((before, after))
    return out


def _nearest(walk: range, lowered: list[str], content: list[bool], break_before: list[bool],
             of_a_number: list[bool]) -> Owner:
    """The first content word of ``walk`` (word indices, from a number outwards) and its distance in words; ("", 0)
    where the walk first meets a coordinating word, a word of another number, or a comma or semicolon between two of
    its words."""
    previous = None
    for distance, i in enumerate(walk, 1):
        if lowered[i] in _PHRASE_JOINS or of_a_number[i] or (previous is not None and break_before[max(previous, i)]):
            return ("", 0)
        if content[i]:
            return (lowered[i], distance)
        previous = i
    return ("", 0)


_PHRASE_JOINS = frozenset("and or but while whereas".split())
_PHRASE_BREAK = re.compile(r"[,;]")


def numbers_exchanged(text: str, closest: ClosestSentence, copy_overlap: float) -> list[tuple[int, int, str]]:
    """Two numbers of the claim's ``closest`` sentence (which it copies: ``copy_overlap`` of its content words) that
    trade places in the claim: each stands beside the word the sentence gives the other, on the same side, while the
    sentence never gives it its own word there ("fatigue in 27% and headache in 34%" against "fatigue (34%) and
    headache (27%)"). Returned as the span from the first number to the second, with the reason in words."""
    sentence = closest.text
    ours, theirs = _read(text), _read(sentence)
    if len(ours) < 2 or len(theirs) < 2 or len(closest.claim_terms) < 3 or shared_share(
            closest.claim_terms, closest.terms) < copy_overlap:
        return []
    our_owners = _owners(text, ours, word_spans(text))
    their_owners = _owners(sentence, theirs, word_spans(sentence))
    for i, n1 in enumerate(ours):
        for j in range(i + 1, len(ours)):
            n2 = ours[j]
            if _same(n1, n2):
                continue
            t1 = [k for k, m in enumerate(theirs) if _same(m, n1)]
            t2 = [k for k, m in enumerate(theirs) if _same(m, n2)]
            if len(t1) != 1 or len(t2) != 1:
                continue  # each number once in the sentence, or no pairing to read
            # the sides (0: the words before, 1: after) on which the two trade words, the nearer words first: both
            # can ("tickets cost £7 for adults and £12 for children"), and the reason names the pairing as it reads
            sides = sorted((our_owners[i][side][1] + our_owners[j][side][1], side) for side in (0, 1)
                           if _traded(our_owners[i][side][0], our_owners[j][side][0],
                                      their_owners[t1[0]][side][0], their_owners[t2[0]][side][0]))
            if sides:
                side = sides[0][1]
                o1, o2 = our_owners[i][side][0], our_owners[j][side][0]
                x, y = text[n1.start:n1.end], text[n2.start:n2.end]
                # the sentence's own pairing, its word on the side it stands: o1 with n2's value, o2 with n1's
                pairs = (f"{o1} {y}, {o2} {x}" if side == 0 else f"{y} {o1}, {x} {o2}")
                return [(n1.start, n2.end, f"numbers swapped: {x} / {y} (the passage: {pairs})")]
    return []


def _traded(o1: str, o2: str, s1: str, s2: str) -> bool:
    """Whether the claim's words ``o1`` / ``o2`` of two numbers are the sentence's ``s2`` / ``s1``: exchanged."""
    return bool(o1 and o2) and o1 != o2 and (o1, o2) == (s2, s1)

