"""Negation read clause by clause: a negated clause of the claim that a passage sentence states plainly
(:func:`negated_clause`), and a plain clause of the claim that states what a passage clause negates
(:func:`negation_dropped`). The sentence-level check (:func:`.negation.negation_mismatch`) needs the whole claim to
copy its evidence; a claim that fuses or rewords sentences around one clause never does. Both are the same finding
as the sentence-level one, measured with it (docs/how-it-works.md, "Which findings block")."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from halguard.grounding.signals.closest import evidence_sentences, shared_share
from halguard.grounding.signals.negation import (
    CLAUSE_BREAK,
    FLIP_CUES,
    LEXICAL_NEGATORS,
    RECORD_TEXT,
    denied_otherwise,
    flip_targets,
    privative_forms,
)
from halguard.grounding.signals.said_free import said_free
from halguard.text.lexical import base_form, content_terms, has_negation, negated_terms, stem, term_set, word_spans

__all__ = ["CLAUSE_TERMS_MIN", "NEGATED_CLAUSE_SHARE", "NEGATED_CLAUSE_TERMS_MIN", "negated_clause", "negation_dropped"]

# A negated clause is read against the evidence only when it keeps at least this many content words besides the
# negated one: "not for elderly users" (one) says too little to align; "would not be perfect for Samantha's office"
# (three) states a proposition. Hand-set, not fitted.
CLAUSE_TERMS_MIN = 2
# A negation with an exception states the exception: "cannot sue unless the language is imputed to all members" is
# "may sue if it is", which is what the passage says.
_EXCEPTED = re.compile(r"\b(?:unless|until|except|only\s+(?:if|when)|other\s+than|but\s+for)\b", re.IGNORECASE)


# A contrast's tail ("glass belongs in the green box, not the blue-lidded bin"): no predicate of its own, it denies
# its thing what the clause before says; the sentence-level check reads the contrast whole (:func:`.negation.
# negation_mismatch`), so "not the blue-lidded bin" alone is no negation of "Blue-lidded bins are for paper".
# Only a noun phrase's or a place's tail: "but not exploring them ..." has its own predicate, and is read here.
_CONTRAST_TAIL = re.compile(r"\s*(?:but\s+|and\s+)?not\s+(?:the|a|an|this|that|these|those|its|their|your|our|his|her"
                            r"|my|in|on|at|into|from|by)\b", re.IGNORECASE)


def _sentences_of(chunks: Sequence[str]) -> list[tuple[str, set[str]]]:
    """The sentences of the claim's evidence chunks with their stems, a JSON record's left out (the record checks
    read it)."""
    return [(s, term_set(s)) for chunk in chunks if not RECORD_TEXT.search(chunk) for s in evidence_sentences(chunk)]


def negated_clause(clauses: Sequence[str], chunks: Sequence[str], aligned_overlap: float) -> str | None:
    """The evidence sentence that states without a negation what a negated clause of the claim negates (None if
    none).

    The sentence-level check (:func:`negation_mismatch`) needs the whole claim to copy its evidence; a summary that
    rewords the sentence around one clause ("He suggests four products that he believes would not be perfect for
    Samantha's office and offers a 15% discount" against "products that I believe would be perfect for your office")
    never does. Here each clause with a grammatical negator (:func:`flip_targets`) is aligned on its own: at least
    ``aligned_overlap`` of its other content words, and :data:`CLAUSE_TERMS_MIN` of them, in one sentence of the
    claim's evidence chunks (``chunks``) that has the negated word and no negation at all, while no sentence of those
    chunks negates that word among half of the clause's words (then the passage says the negation itself: "Hannah
    maintains she didn't take anyone's spot" where one sentence tells the backlash and another her denial). A clause
    with an exception (:data:`_EXCEPTED`) is not read, nor a JSON record (the record checks read it). It is the same
    finding as the sentence-level one, measured with it (docs/how-it-works.md, "Which findings block").
    """
    negated = [(targets, {st for _, _, st in content_terms(clause)} - targets) for clause in clauses
               if not _EXCEPTED.search(clause) and not _CONTRAST_TAIL.match(clause)
               and (targets := flip_targets(clause))]
    negated = [(targets, terms) for targets, terms in negated if len(terms) >= CLAUSE_TERMS_MIN]
    if not negated:
        return None
    sentences = _sentences_of(chunks)
    for targets, terms in negated:
        share, sentence, sentence_terms = max(((shared_share(terms, st), s, st) for s, st in sentences),
                                              key=lambda item: item[0], default=(0.0, "", set()))
        if share < aligned_overlap or share * len(terms) < CLAUSE_TERMS_MIN:
            continue
        if not any(shared_share({t}, sentence_terms) == 1.0 for t in targets):
            continue
        if (has_negation(sentence, cues=FLIP_CUES) or denied_otherwise(sentence)
                or any(privative_forms(t) & sentence_terms for t in targets)
                or targets & negated_terms(sentence, cues=LEXICAL_NEGATORS)):
            continue  # it negates too, or negates the word in other words ("without time limits")
        if any(said_free(t, terms, sentence) for t in targets):
            continue  # "children's DVDs don't cost anything" of "except for children's DVDs, which are free"
        if any(flip_targets(s) & targets and shared_share(terms, st) >= 0.5 for s, st in sentences):
            continue  # the passage states the negation somewhere: support, not a flip
        return sentence
    return None


# The share of a passage clause's content words that a plain clause of the claim must hold to state what it negates
# (:func:`negation_dropped`), and at least NEGATED_CLAUSE_TERMS_MIN of them, the negated word among them. Hand-set
# (2026-12-01): "Worker bee numbers were not significantly affected" against "and significantly fewer worker bees than
# unexposed colonies" holds 3 of its 5.
NEGATED_CLAUSE_SHARE = 0.6
NEGATED_CLAUSE_TERMS_MIN = 3
# A claim that asserts nothing plainly: a condition, a question, a modal or an attempt ("first try to align the door
# latch" against "the latch doesn't align": advice, not a statement that it aligns); or one that negates with a verb
# ("has denied knowledge of the video" against "said he was not aware of any video"). The RAGTruth claims the first
# versions flagged were these, and claims that negate in other words ("a lack of", "the absence of").
_NOT_ASSERTED = re.compile(r"\b(?:whether|unclear|may|might|could|should|would|can|try|tries|tried|trying|"
                           r"seems?|appears?|den(?:y|ies|ied|ying|ial)|refus\w*|reject\w*|fail\w*|"
                           r"dismiss\w*|ruled?\s+out)\b", re.IGNORECASE)
# A condition asserts nothing, but only in its own clause: "You'll get a full refund if you cancel ... early, and
# later cancellations are refunded at half price" states its second clause plainly.
_CONDITIONAL = re.compile(r"\b(?:if|unless|until)\b", re.IGNORECASE)


def negation_dropped(clauses: Sequence[str], chunks: Sequence[str]) -> str | None:
    """The evidence sentence one of whose negated clauses a clause of a claim without any negation states (None if
    none): the mirror of :func:`negated_clause`. "Inspectors found evidence of pests" against "No evidence of pests
    was found, and staff hand-washing facilities were judged adequate": the claim fuses it with another sentence's
    fact, so it copies neither whole, and the sentence-level check never reads it. The passage clause is the negated
    word's (:func:`flip_targets`) up to a clause break (:data:`CLAUSE_BREAK`); the claim clause must hold the
    negated word and :data:`NEGATED_CLAUSE_SHARE` of the clause's content words (at least
    :data:`NEGATED_CLAUSE_TERMS_MIN`), and no sentence of the chunks may state the negated word plainly among half of
    them (then the passage says it somewhere: support). A claim that negates anything itself (any cue, "lack",
    "absence") or asserts nothing plainly (:data:`_NOT_ASSERTED`: "whether", "may", "try to") is not read, nor a
    clause of it with a condition (:data:`_CONDITIONAL`: "if", "unless"), nor a passage sentence with an exception
    (:data:`_EXCEPTED`) or a JSON record.
    """
    claim = " ".join(clauses)
    if has_negation(claim) or denied_otherwise(claim) or _NOT_ASSERTED.search(claim):
        return None  # it negates something itself, in any words, or asserts nothing plainly
    plain = [{base_form(st) for _, _, st in content_terms(clause)} | _obligation_of(clause)
             for clause in _with_subjects(clauses) if not _CONDITIONAL.search(clause)]
    plain = [terms for terms in plain if len(terms) >= NEGATED_CLAUSE_TERMS_MIN]
    if not plain:
        return None
    sentences = _sentences_of(chunks)
    for sentence, _ in sentences:
        targets = flip_targets(sentence)
        if not targets or _EXCEPTED.search(sentence):
            continue
        for part in _clauses_with_subjects(sentence):
            # a word the clause also states un-negated is a group's name, not its denial: "€30 for members and €40
            # for non-members" denies no member anything
            said = Counter(base_form(stem(part[a:b])) for a, b in word_spans(part))
            part_targets = {t for t in (base_form(t) for t in flip_targets(part)) if said[t] < 2}
            negated = {base_form(st) for _, _, st in content_terms(part)} - set(FLIP_CUES)
            if not part_targets or len(negated) < NEGATED_CLAUSE_TERMS_MIN:
                continue
            for terms in plain:
                shared = negated & terms
                if (part_targets & terms and len(shared) >= NEGATED_CLAUSE_TERMS_MIN
                        and len(shared) >= NEGATED_CLAUSE_SHARE * len(negated)
                        and not _said_plainly(part_targets, negated, sentences)):
                    return sentence
    return None


def _clauses_with_subjects(sentence: str) -> list[str]:
    """The clauses of ``sentence`` (:data:`CLAUSE_BREAK`), a clause too short to state a proposition by itself read
    with the clause before it, whose subject it shares: "Permits run from 1 April to 31 March and are not prorated"
    negates "prorated" of permits from 1 April to 31 March."""
    clauses, start = [], 0
    for m in CLAUSE_BREAK.finditer(sentence):
        clauses.append(sentence[start:m.end()])  # each clause keeps the word that ends it ("... 31 March and")
        start = m.end()
    return _with_subjects([*clauses, sentence[start:]])


# A clause that ends so is joined to the next as its subject's ("Permits run from ... and | are not prorated"); a
# relative pronoun or "but" starts another subject's ("a leader who | won't disrespect their intelligence").
_SUBJECT_SHARED = re.compile(r"\b(?:and|or)\W*$", re.IGNORECASE)


def _with_subjects(clauses: Sequence[str]) -> list[str]:
    """``clauses`` (each with the word that ends it), each with fewer than :data:`NEGATED_CLAUSE_TERMS_MIN` content
    words read with the one before it where that one ends in "and" or "or" (:data:`_SUBJECT_SHARED`)."""
    out: list[str] = []
    for clause in clauses:
        short = len(content_terms(clause)) < NEGATED_CLAUSE_TERMS_MIN
        joined = short and out and _SUBJECT_SHARED.search(out[-1][-12:])
        out.append(out[-1] + " " + clause if joined else clause)
    return out


# "must repay" says what "are required to repay" says: a passage's "are not required to repay any leave pay" is the
# negation it drops (its negated word is "required", which the claim writes as a modal, a stopword).
_OBLIGATION = re.compile(r"\b(?:must|ha(?:ve|s|d)\s{1,3}to|obliged\s{1,3}to|obligated\s{1,3}to)\b", re.IGNORECASE)
_OBLIGATION_WORDS = ("require", "need", "oblige", "obligate")


def _obligation_of(clause: str) -> set[str]:
    """The base forms of the words of obligation a clause says with a modal ("must", "has to"), none where it has
    none."""
    if not _OBLIGATION.search(clause):
        return set()
    return {base_form(stem(w)) for w in _OBLIGATION_WORDS}


def _said_plainly(targets: set[str], negated: set[str], sentences: Sequence[tuple[str, set[str]]]) -> bool:
    """Whether a sentence states a negated word without a negation among half of its clause's words."""
    return any(not has_negation(s, cues=FLIP_CUES) and targets & {base_form(t) for t in terms}
               and shared_share(negated, terms) >= 0.5 for s, terms in sentences)
