"""The evidence sentence a claim restates: the sentence of its best chunk that shares most of its words
(:func:`closest_sentence`, :class:`ClosestSentence`), and, for a claim that fuses two statements (:func:`fused_parts`),
each part's closest sentence of the passages (:func:`source_sentences`). The negation, antonym and copy checks
(a name, number, unit or two words moved: :mod:`.roles`) compare a claim with this sentence, not with a whole window.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from halguard.grounding.signals.bounds import PASSAGE_HEAD_CHARS
from halguard.text.lexical import STOPWORDS, base_form, content_terms, number_mentions, term_set
from halguard.text.segment import split_sentences
from halguard.util.cache_budgets import SOURCE_SENTENCES_BYTES
from halguard.util.memo import deep_entry_size, memoize_text

__all__ = ["RESTATED_OVERLAP", "RESTATED_WORDS_MIN", "SENTENCES_SCANNED_CHARS", "ClosestSentence", "closest_sentence",
           "evidence_sentences", "fused_parts", "part_holding", "restates", "sentence_of_numbers", "shared_share",
           "source_sentences"]

# The shorter of two stems that prefix one another counts as the same word from this length on ("supp" for the
# stemmer's "supply", "supply" for "supplied"). Hand-set, not fitted; read only where a negation flip is in
# question (the gate below and the many-claims correction), never to call a word supported.
SHARED_PREFIX_MIN = 4
# The share of a claim's other content words (all but the phrase a check reads) that a passage sentence must hold to be
# the sentence the claim restates, not another statement about the same thing: for the checks that read a phrase
# against the sentence it restates (a scope widened, an exception turned, "only" added, two things joined otherwise, a
# window of hours, a time or a version moved). Hand-set at a half (2026-11-30, with the widened-scope check): on the dev
# files any value from 0.34 to 0.5 read the same claims (below 0.34 one faithful RAGTruth claim was read, "all the data
# points" against "only a few data points"); a claim that fuses two statements holds about half of each sentence's
# words ("The race begins at 6:45 a.m. ..., and the course closes at 11:30 a.m.": 0.75).
RESTATED_OVERLAP = 0.5
# The fewest of those words a restated sentence holds where a check asks for them ("shown on the statement" shares one
# word with any sentence about a statement cycle: one shared word restates nothing).
RESTATED_WORDS_MIN = 2


def closest_sentence(claim_terms: set[str], evidence: str) -> str:
    """The sentence of ``evidence`` that shares most content words with the claim.

    Negation and antonyms are compared with this sentence, not the whole evidence window: the window's other
    sentence may carry an unrelated "not".
    """
    return max(
        evidence_sentences(evidence),
        key=lambda sent: len(claim_terms & term_set(sent)),
        default=evidence,
    )


@dataclass(frozen=True)
class ClosestSentence:
    """A claim's content-word stems (``claim_terms``) and the sentence of its best evidence chunk that shares most
    of them (``text``, its stems ``terms``), read once per claim for the checks of a copied sentence with one thing
    moved (a name, a number, a unit, two words trading places: :mod:`.roles`)."""

    claim_terms: set[str]
    text: str
    terms: set[str]

    @classmethod
    def of(cls, claim: str, evidence: str) -> ClosestSentence:
        """The closest sentence of ``evidence`` (a chunk's text; "" for none) to ``claim`` (a claim's text)."""
        claim_terms = {st for _, _, st in content_terms(claim)}
        sentence = closest_sentence(claim_terms, evidence) if evidence else ""
        return cls(claim_terms, sentence, term_set(sentence))

    @classmethod
    def among(cls, claim: str, sources: Sequence[str]) -> ClosestSentence:
        """The closest sentence of any of ``sources`` (the passages' texts: the first wins a tie) to ``claim``: a
        part of a fused claim (:func:`fused_parts`) copies a sentence that need not be in its claim's evidence chunks,
        which were found for the claim as a whole."""
        claim_terms = {st for _, _, st in content_terms(claim)}
        best, best_terms, shared = "", frozenset[str](), -1
        for text in sources:
            for sentence, terms in source_sentences(text):
                n = len(claim_terms & terms)
                if n > shared:
                    best, best_terms, shared = sentence, terms, n
        return cls(claim_terms, best, set(best_terms))


# A source's sentences read for the parts of fused claims: those of its first this many characters (a megabyte
# passage is not split again for each claim; a fused claim restates what a page says, mostly near its top).
SENTENCES_SCANNED_CHARS = PASSAGE_HEAD_CHARS


@memoize_text(SOURCE_SENTENCES_BYTES, sizer=deep_entry_size)
def source_sentences(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The sentences of a source's first :data:`SENTENCES_SCANNED_CHARS` characters, each with its stems."""
    head = text[:SENTENCES_SCANNED_CHARS]
    return tuple((head[a:b], frozenset(term_set(head[a:b]))) for a, b in split_sentences(head))


# Where one claim fuses two statements of the passages ("... to 60% in 15 minutes, and the phone goes on sale on 9
# October"), so that it copies neither of their sentences whole: a semicolon, or a comma with the word that joins two
# propositions; or a comma and "which", whose clause ends the statement before it ("About 40 firefighters tackled the
# fire, which broke out ...": the clause itself, without its subject, would copy any sentence of its verb, and is not a
# part). At most _MAX_FUSED_PARTS parts (a crafted claim of a thousand joins is read as four).
_FUSED_JOIN = re.compile(r";\s|,\s+(?:and|while|whereas|but|with|though|although|yet|plus|(which))\s", re.IGNORECASE)
_MAX_FUSED_PARTS = 4
_MIN_PART_WORDS = 3


def fused_parts(text: str) -> list[tuple[int, str]]:
    """The parts of a claim that fuses statements (:data:`_FUSED_JOIN`), with where each starts in ``text``; none
    for a claim of one statement."""
    edges, relative = [0], set()
    for m in _FUSED_JOIN.finditer(text):
        if len(edges) >= _MAX_FUSED_PARTS:
            break
        edges.append(m.end())
        if m.group(1):
            relative.add(m.end())
    if len(edges) == 1:
        return []
    edges.append(len(text))
    # a part of fewer content words copies any sentence that has them ("with Sofia", "and 2019")
    return [(a, text[a:b]) for a, b in zip(edges, edges[1:])
            if a not in relative and len(content_terms(text[a:b])) >= _MIN_PART_WORDS]


def sentence_of_numbers(values: set[float], evidence: str) -> str | None:
    """The sentence of ``evidence`` that states most of the numbers ``values`` (a claim's), None where none states
    one. A claim that restates a figure ("had a staff of 3,400") says it of the sentence that gives the figure ("had
    3,400 employees"), which may share fewer of its other words than a sentence about the same company."""
    if not values:
        return None
    best, shared = None, 0
    for sentence in evidence_sentences(evidence):
        n = len(values & {round(m.value, 6) for m in number_mentions(sentence)})
        if n > shared:
            best, shared = sentence, n
    return best


# One claim's best evidence chunk is split into sentences by each check that reads it (the signals, the moved names,
# the verbs said otherwise: pysbd, ~1 ms a chunk), so a chunk's sentences (chunks up to this long) are kept, for the
# last _SENTENCES_MEMO_ENTRIES chunks (~2 MiB of keys; docs/guarantees.md, "Memory").
_SENTENCES_MEMO_CHARS = 4000
_SENTENCES_MEMO_ENTRIES = 512


def _split(evidence: str) -> tuple[str, ...]:
    return tuple(evidence[a:b] for a, b in split_sentences(evidence))


_sentences = lru_cache(maxsize=_SENTENCES_MEMO_ENTRIES)(_split)


def evidence_sentences(evidence: str) -> tuple[str, ...]:
    """The sentences of an evidence chunk, remembered for chunks up to :data:`_SENTENCES_MEMO_CHARS`."""
    return _sentences(evidence) if len(evidence) <= _SENTENCES_MEMO_CHARS else _split(evidence)


def part_holding(text: str, parts: Sequence[tuple[int, str]], offset: int) -> str:
    """The part of a fused claim (``parts``: :func:`fused_parts` of ``text``) that holds ``offset``: the statement a
    phrase there is in; the whole ``text`` where no part holds it (a claim of one statement, or a part too short to
    be read alone)."""
    return next((part for at, part in parts if at <= offset < at + len(part)), text)


def restates(others: set[str], sentence_terms: set[str], *, words_min: int = 1) -> bool:
    """Whether a sentence (``sentence_terms``, its stems) holds :data:`RESTATED_OVERLAP` of a claim's ``others`` (its
    content words but those of the phrase a check reads), and at least ``words_min`` of them."""
    share = shared_share(others, sentence_terms)
    return share >= RESTATED_OVERLAP and share * len(others) >= words_min


def shared_share(claim_terms: set[str], sentence_terms: set[str]) -> float:
    """The share of the claim's content-word stems that its closest evidence sentence also has, irregular verb
    forms read as their base ("lead" / "led", "build" / "built") and stems that prefix one another at least
    ``SHARED_PREFIX_MIN`` long as one. It tells a copied sentence with an added "not" from a paraphrase: "NASA did
    not lead the project" holds 2 of its 3 stems in "NASA led the project" by the stems alone."""
    if not claim_terms:
        return 0.0
    bases = {base_form(t) for t in sentence_terms}

    def found(term: str) -> bool:
        b = base_form(term)
        if b in bases:
            return True
        # a function word prefixes no word of its own: "less" is no "lesson", "under" no "understand"
        return len(b) >= SHARED_PREFIX_MIN and b not in STOPWORDS and any(
            len(o) >= SHARED_PREFIX_MIN and o not in STOPWORDS and (o.startswith(b) or b.startswith(o)) for o in bases)

    return sum(found(t) for t in claim_terms) / len(claim_terms)
