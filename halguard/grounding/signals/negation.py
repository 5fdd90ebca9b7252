"""A negation on one side only: the claim negates what its closest evidence sentence states, or the reverse."""

from __future__ import annotations

from bisect import bisect_right

from halguard.text.lexical import base_form, is_negation_cue, negation_flip, term_set, word_spans
from halguard.text.segment import split_sentences

__all__ = ["closest_sentence", "denied_premises", "negation_mismatch", "shared_share"]

# The shorter of two stems that prefix one another counts as the same word from this length on ("supp" for the
# stemmer's "supply", "supply" for "supplied"). Hand-set, not fitted; read only where a negation flip is in
# question (the gate below and the many-claims correction), never to call a word supported.
SHARED_PREFIX_MIN = 4

# A question-only name or number at most this many words after a negation cue is what the answer denies ("not
# Berlin", "not in Berlin", "never built in Berlin"). Hand-set, not fitted: the reach of a denial in a short clause.
DENIAL_REACH_WORDS = 3
# What ends a clause between the cue and the term: "not in Paris; it is in Berlin" denies Paris only.
_CLAUSE_BREAKS = frozenset(".;:!?,()[]\n")


def closest_sentence(claim_terms: set[str], evidence: str) -> str:
    """The sentence of ``evidence`` that shares most content words with the claim.

    Negation and antonyms are compared with this sentence, not the whole evidence window: the window's other
    sentence may carry an unrelated "not".
    """
    return max(
        (evidence[a:b] for a, b in split_sentences(evidence)),
        key=lambda sent: len(claim_terms & term_set(sent)),
        default=evidence,
    )


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
        return len(b) >= SHARED_PREFIX_MIN and any(
            len(o) >= SHARED_PREFIX_MIN and (o.startswith(b) or b.startswith(o)) for o in bases)

    return sum(found(t) for t in claim_terms) / len(claim_terms)


def negation_mismatch(claim: str, closest: str, similarity: float, gate: float, overlap: float = 0.0,
                      close_copy_overlap: float = 1.01) -> bool:
    """Whether the claim and its closest evidence disagree on negation, for evidence at least ``gate`` similar or
    a closest sentence that holds at least ``close_copy_overlap`` of the claim's content words (``overlap``).

    Scoped on the negated word (see :func:`halguard.text.lexical.negation_flip`): on RAGTruth an unscoped check was
    right 1 time in 20. The overlap opens the gate for a copied sentence with a "not" added: the similarity is
    that of the best evidence *window*, which two sentences of a copied paragraph dilute below the gate ("NASA did
    not lead the project" in a copy of the context measured 0.66), while its words show it is about the same thing.
    """
    return (similarity >= gate or overlap >= close_copy_overlap) and negation_flip(claim, closest)


def denied_premises(claim: str, question_only: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans (cue to term) where the claim denies a name or number that only the question states.

    "No, it was built in Paris, not Berlin." answers "Was it built in Berlin?": Berlin is not a claim the passages
    must support, and its "not" is no negation of the evidence. ``question_only`` holds the spans of the claim's
    names and numbers found in the question but not in the passages; the ones within ``DENIAL_REACH_WORDS`` words
    after a negation cue, in the same clause, are returned with their cue. Asserting such a term ("it was built in
    Berlin") is not a denial and stays unsupported.
    """
    if not question_only:
        return []
    words = word_spans(claim)
    ends = [e for _, e in words]
    denied = []
    for start, end in question_only:
        upto = bisect_right(ends, start)
        before = words[max(upto - DENIAL_REACH_WORDS - 1, 0) : upto]
        for cue_start, cue_end in reversed(before):
            if any(ch in _CLAUSE_BREAKS for ch in claim[cue_end:start]):
                break
            if is_negation_cue(claim[cue_start:cue_end]):
                denied.append((cue_start, end))
                break
    return denied
