"""Two things of a copied sentence that trade places: "The company's lawyers had argued that the town knew about the
leak." against "The town's lawyers had argued that the company knew about the leak."; "Judge Peter Lang wrote the
majority opinion, and Judge Amelia Ortiz dissented." against "Judge Amelia Ortiz wrote ... Judge Peter Lang dissented."

Every word of such a claim is the passage's, and often no name is involved ("the company", "the town"), so neither the
word checks nor the moved names (:mod:`.moved`) see it, and the parse-based role check needs two names. This reads
it without a parse, as the same finding (``role_conflicts``): the claim copies its closest evidence sentence (at least
``close_copy_overlap`` of its content words there), and two of its words or names, X before Y, with at least one
content word between them, are such that the claim's words from X to Y, X and Y exchanged, stand in that sentence as
written, while the claim's own words from X to Y stand in no passage. Nothing is exchanged where the words between
are only function words ("Phobos and Deimos", "between Lyon and Nice") or say a symmetric relation ("Kessler met
Rao": :data:`halguard.grounding.roles.SYMMETRIC_PREDICATES`); a phrase moved whole ("In 2019, X ..." for "X ... in
2019") leaves nothing between the two parts, so it is no exchange either.

Bounded: sentences of at most :data:`MAX_WORDS` words, at most :data:`MAX_CANDIDATES` words or names of the claim,
each pair compared once by a substring search.
"""

from __future__ import annotations

import re

from halguard.grounding.roles.matching import SYMMETRIC_PREDICATES
from halguard.grounding.signals.closest import ClosestSentence, shared_share
from halguard.text.lexical import STOPWORDS, base_form, entity_mentions, stem, word_spans

__all__ = ["MAX_CANDIDATES", "MAX_WORDS", "transposed_words"]

# A claim or sentence of more words is not read (a claim is a sentence; the search is quadratic in the candidates).
MAX_WORDS = 80
# The most words or names of a claim that may trade places (pairs: MAX_CANDIDATES ** 2 / 2).
MAX_CANDIDATES = 24
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
# Words between two things that say nothing of which is which ("Lyon versus Nice").
_SYMMETRIC_WORDS = frozenset({"versus", "vs", "v", "alongside", "together", "both", "each", "other"})
_SYMMETRIC_STEMS = frozenset(base_form(stem(p)) for p in SYMMETRIC_PREDICATES if " " not in p)

Token = tuple[int, int, str]  # start, end, the word lower-cased ("'s" a word of its own)


def _tokens(text: str) -> list[Token]:
    """The words of ``text``, lower-cased, a possessive's "'s" split off ("company's": "company", "'s")."""
    out: list[Token] = []
    for s, e in word_spans(text):
        word = text[s:e].lower()
        match = _POSSESSIVE.search(word)
        if match is not None and match.start() > 0:
            out.append((s, s + match.start(), word[:match.start()]))
            out.append((s + match.start(), e, "'s"))
        else:
            out.append((s, e, word))
    return out


def _candidates(text: str, tokens: list[Token]) -> list[tuple[int, int]]:
    """What may trade places, as token index ranges ``[i, j)``: each name (a run of capitalised words) whole, and
    each other word that is no stop word."""
    out: list[tuple[int, int]] = []
    named: set[int] = set()
    for s, e in entity_mentions(text):
        idx = [k for k, (a, b, _) in enumerate(tokens) if a >= s and b <= e and tokens[k][2] != "'s"]
        if idx:
            out.append((idx[0], idx[-1] + 1))
            named.update(range(idx[0], idx[-1] + 1))
    for k, (_, _, word) in enumerate(tokens):
        if k not in named and word not in STOPWORDS and word != "'s" and len(word) > 1:
            out.append((k, k + 1))
    return sorted(set(out))[:MAX_CANDIDATES]


def _says_which_is_which(between: list[str]) -> bool:
    """Whether the words between two things tell them apart: a content word that says no symmetric relation."""
    content = [w for w in between if w not in STOPWORDS and w != "'s" and not w.isdigit()]
    return bool(content) and not any(w in _SYMMETRIC_WORDS or base_form(stem(w)) in _SYMMETRIC_STEMS for w in content)


def _joined(words: list[str]) -> str:
    return " " + " ".join(words) + " "


def transposed_words(text: str, closest: ClosestSentence, sources: list[str], copy_overlap: float
                     ) -> list[tuple[int, int, str]]:
    """The exchanges of ``text`` (a claim, or a part of a fused one) against its ``closest`` sentence, as ``(start,
    end, reason)`` in ``text``: the span from the first of the two things to the second. ``sources``: the passages'
    texts (a claim whose own words from X to Y a passage writes says what that passage says)."""
    claim_terms, sentence = closest.claim_terms, closest.text
    if len(claim_terms) < 3 or not sentence or shared_share(claim_terms, closest.terms) < copy_overlap:
        return []
    ours, theirs = _tokens(text), _tokens(sentence)
    if len(ours) > MAX_WORDS or len(theirs) > MAX_WORDS:
        return []
    words = [w for _, _, w in ours]
    sentence_words = _joined([w for _, _, w in theirs])
    candidates = _candidates(text, ours)
    for n, (i1, j1) in enumerate(candidates):
        for i2, j2 in candidates[n + 1:]:
            first, second, between = words[i1:j1], words[i2:j2], words[j1:i2]
            if i2 < j1 or first == second or not _says_which_is_which(between):
                continue
            exchanged = _joined(second + between + first)
            if exchanged not in sentence_words or _joined(words[i1:j2]) in sentence_words:
                continue
            start, end = ours[i1][0], ours[j2 - 1][1]
            if any(text[start:end] in src for src in sources):
                continue  # a passage says it the claim's way too
            at = sentence_words[:sentence_words.index(exchanged)].count(" ")  # the sentence's tokens before it
            said = sentence[theirs[at][0]:theirs[at + j2 - i1 - 1][1]]
            x, y = text[ours[i1][0]:ours[j1 - 1][1]], text[ours[i2][0]:end]
            return [(start, end, f"roles swapped: {x} / {y} (the passage: {said})")]
    return []
