"""A negation on one side only: the claim negates what its closest evidence sentence states, or the reverse."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from typing import NamedTuple

from halguard.grounding.signals.bounds_turned import bounds_turned
from halguard.grounding.signals.calendar_names import outside_day_ranges
from halguard.grounding.signals.closest import RESTATED_OVERLAP, shared_share
from halguard.grounding.signals.excepted import excepted_case
from halguard.grounding.signals.negated_words import FLIP_CUES, LEXICAL_NEGATORS, NEGATOR, flip_targets, negations
from halguard.grounding.signals.permission import modality_turned
from halguard.grounding.signals.said_free import said_free
from halguard.text.dates import WEEKDAYS
from halguard.text.lexical import (
    STOPWORDS,
    base_form,
    content_terms,
    is_negation_cue,
    negated_terms,
    number_values,
    stem,
    term_set,
    word_spans,
)
from halguard.text.quantities import YEAR_RANGE

__all__ = ["CLAUSE_BREAK", "FLIP_CUES", "LEXICAL_NEGATORS", "RECORD_TEXT", "denied_otherwise", "denied_premises",
           "flip_targets", "negation_mismatch", "privative_forms"]

# A question-only name or number at most this many words after a negation cue is what the answer denies ("not
# Berlin", "not in Berlin", "never built in Berlin"). Hand-set, not fitted: the reach of a denial in a short clause.
DENIAL_REACH_WORDS = 3
# What ends a clause between the cue and the term: "not in Paris; it is in Berlin" denies Paris only.
_CLAUSE_BREAKS = frozenset(".;:!?,()[]\n")


RECORD_TEXT = re.compile(r'"\s*:\s*(?:"|true\b|false\b|\d|\{|\[)')
# "free of charge" says "free", as a lexical negator says its word: never a flip of a charge the passage gives for
# something else, and its "charge" is no charge stated plainly ("there's no charge" says the passage's "cancelled free
# of charge").
_FREE_OF = re.compile(r"\bfree\s{1,3}of\s{1,3}([^\W\d_]{3,})", re.IGNORECASE)
# A thing said to be in a state of absence ("Sundays are off", "the pool is closed") is said not to be, as "no Sunday
# lessons" says: no word stated plainly. Never a flip: "off" and "closed" name states too freely ("the lights are off").
_ABSENT_STATE = re.compile(r"\b([^\W\d_]{3,})\s{1,3}(?:is|are|was|were|stays?|remains?)\s{1,3}(?:off|closed|shut"
                           r"|unavailable|cancell?ed|suspended)\b", re.IGNORECASE)


# A thing said to cost extra ("the away strip is extra at £28", "parking is charged separately") is said not to be
# covered, as the passage's "covers ... but not the away kit" says: the words of its noun phrase (up to three) are
# denied. Read on the claim's side only, as its own denial.
_EXTRA = re.compile(r"\b((?:[^\W\d_]{3,}\s{1,3}){1,3})(?:is|are|costs?|comes?|charged|paid\s{1,3}for)\s{1,3}"
                    r"(?:as\s{1,3})?(?:extra|separately|additionally)\b", re.IGNORECASE)


def _lexically_negated(text: str) -> set[str]:
    """The stems ``text`` negates with a lexical negator (:data:`LEXICAL_NEGATORS`), "free of", or a state of absence
    (:data:`_ABSENT_STATE`)."""
    return negated_terms(text, cues=LEXICAL_NEGATORS) | {
        stem(m.group(1)) for pattern in (_FREE_OF, _ABSENT_STATE) for m in pattern.finditer(text)}


def _said_extra(text: str) -> set[str]:
    """The stems of the things ``text`` says cost extra (:data:`_EXTRA`)."""
    return {stem(w) for m in _EXTRA.finditer(text) for w in m.group(1).split() if w.lower() not in STOPWORDS}


# Where one evidence "sentence" holds several propositions: a semicolon, or a sentence end inside what the splitter
# kept whole (a quotation). A negation is read against the proposition it stands in.
_PROPOSITION_BREAK = re.compile(r";|(?<=[.!?])[\"”’']?\s+(?=[\"“‘']?[A-Z])")
# A denial in other words: the word after "rather than", "instead of", "as opposed to", or a verb of not doing ("had
# failed to report", "refused to resign") is denied, as after "not". Read as the evidence's denial, and in the claim
# only as saying the evidence's own denial, never as a claim's negation: a claim's "used X instead of Y" may tell a
# change the passage tells in time ("used Y, then X"), and "Santos has refused to resign" against "calls for Santos
# to resign grew" was a wrong flag of the issue's.
_DENIED_OTHERWISE = re.compile(
    r"\b(?:rather\s+than|instead\s+of|as\s+opposed\s+to|(?:fail|refus|declin|neglect|omitt?)(?:s|ed|es|ing|e)?"
    r"\s+to)\s+(?:(?:the|a|an)\s+)?([^\W\d_]{3,})", re.IGNORECASE)


def negation_mismatch(claim: str, closest: str, claim_terms: set[str], closest_terms: set[str],
                      aligned_overlap: float) -> bool:
    """Whether the claim and its closest evidence sentence state the same proposition with opposite polarity.

    Exactly one side negates (:func:`halguard.text.lexical.has_negation`) and the word it negates stands on the other
    side un-negated (the claim's "did not *lead*" against "*led*"; the evidence's "not *shipped*" against the
    claim's "shipped"), or both negate and the claim negates a word the evidence states in a clause without a
    negator ("had not received assurances" against "had received assurances that no posts would be cut"), and at
    least ``aligned_overlap`` of the claim's content words (``claim_terms``, stems) are in the evidence sentence
    (``closest_terms``): the same predicate and arguments. A negated claim whose evidence
    states nothing of the kind ("the lawsuit does not name the parties" against a sentence about the lawsuit's
    damages) is a question of support, the other signals', never a contradiction: on RAGTruth the unaligned check
    was right on 3 of 79 claims (docs/how-it-works.md, "Which findings block").
    """
    if RECORD_TEXT.search(closest):
        return False  # a JSON record's "no" and false are its fields' values: the record check reads them
    if ((bounds_turned(claim, closest) and shared_share(claim_terms, closest_terms) >= aligned_overlap)
            or modality_turned(claim, closest, claim_terms, closest_terms, aligned_overlap)):
        return True
    # the claim's side, read once for every proposition of the evidence sentence
    targets, conditioned = negations(claim)
    side = _ClaimSide(targets, denied_otherwise(claim) | _lexically_negated(claim) | _said_extra(claim),
                      {base_form(t) for t in term_set(claim)} - {base_form(t) for t in conditioned},
                      _objects(claim, targets), _clauses_of(claim, targets), _contrasts(claim, targets),
                      bool(_GRANTED_IF.search(claim)) and not _EVEN_IF.search(claim)
                      and not NEGATOR.search(claim, _ANSWER_NO.match(claim).end()), claim)
    propositions = [p for p in _PROPOSITION_BREAK.split(closest) if p.strip()]
    # a proposition of other numbers is about another thing: "Only 2.4 GHz Wi-Fi is supported" against "5 GHz
    # networks are not supported" (years aside: a year dates a proposition, it does not say which thing)
    values = _measures(claim)
    propositions = [p for p in propositions if not (values and (theirs := _measures(p)) and not values & theirs)]
    if not propositions:
        return False
    if len(propositions) > 1:
        # "I will take a 23% pay cut ... in America. And I won't take a raise until ..." (one quoted sentence to
        # the sentence splitter): the "won't" is another proposition's, which the claim must align with itself
        # (and a negation the claim says of what another proposition negates is that one's: "packs can't be
        # collected on the morning of the race" against "must collect their race packs ... on Friday or Saturday;
        # packs will not be available on race morning")
        # (one that states the claim's negated word plainly is no such proposition: "does not accept card" against
        # "accepts card and bank transfer but not cash")
        negating = [(term_set(p), negated) for p in propositions if (negated := negations(p)[0])]
        # (as does one that negates the claim's negated word of its object: "can't be booked online" against "can be
        # booked by phone only, ...; they cannot be booked online")
        if any((t in negated and side.objects.get(t) in terms) or (shared_share(clause, terms) >= RESTATED_OVERLAP
               and (t not in terms or t in negated))
               for t in side.targets if (clause := side.clauses.get(t)) for terms, negated in negating):
            return False
        return any(_flipped(side, p, claim_terms, term_set(p), aligned_overlap) for p in propositions)
    return _flipped(side, closest, claim_terms, closest_terms, aligned_overlap)


# A claim's condition, and the "even if" that states no condition.
_GRANTED_IF = re.compile(r"\b(?:if|when|as\s+long\s+as|provided|once)\b", re.IGNORECASE)
_EVEN_IF = re.compile(r"\beven\s+(?:if|when)\b", re.IGNORECASE)
# An answer's opening "No," answers the question; it negates nothing of the claim's condition.
_ANSWER_NO = re.compile(r"\s*(?:no\s*[,;:]\s*)?", re.IGNORECASE)


class _ClaimSide(NamedTuple):
    """The claim as :func:`negation_mismatch` reads it, once for every proposition: the words it negates, those it
    denies in other words, its stems' base forms (but those it negates in a condition, which it neither asserts nor
    denies), the word after each negated one (its object), and its text."""

    targets: set[str]
    denied: set[str]
    bases: set[str]
    objects: dict[str, str]
    clauses: dict[str, set[str]]
    contrasts: dict[str, set[str]]
    conditional: bool = False  # it states a condition ("only if", "if", "as long as"), no "even if", no negator
    text: str = ""


def _clauses_of(text: str, targets: set[str]) -> dict[str, set[str]]:
    """The other content words (stems) of the statement (:data:`_STATEMENT_BREAK`) that holds each negated word of
    ``text``: "Basic fares have no *checked* luggage, Flex includes ..." negates in "Basic fares ... luggage"."""
    out: dict[str, set[str]] = {}
    plain: dict[str, set[str]] = {}
    for proposition in _PROPOSITION_BREAK.split(text):
        # a statement of the negated word alone says its thing elsewhere in its proposition: "If you cancel 48 hours
        # or more before a lesson, there's no charge" denies a charge of a cancellation
        whole = {st for _, _, st in content_terms(proposition)}
        for clause in _STATEMENT_BREAK.split(proposition):
            terms = {st for _, _, st in content_terms(clause)}
            # the clause that negates the word, not one that states it ("collect your pack at the Expo ... because
            # packs can't be collected on the morning of the race"); a clause without a negator only where none has one
            negates = not FLIP_CUES.isdisjoint(_cue_words(clause))
            for t in targets & terms:
                (out if negates else plain).setdefault(t, (terms - {t}) or (whole - {t}))
    return {**plain, **out}


# The characters before a negated word read for its negator ("had not received", "does not support"): a few words.
_CUE_REACH = 30


def _objects(text: str, targets: set[str]) -> dict[str, str]:
    """The stem of the content word after each negated word of ``text`` ("does not support *wireless* charging"),
    where a negator stands in the few words before it (not "It *supports* wired charging" of the same text)."""
    terms = content_terms(text)
    out: dict[str, str] = {}
    for (start, _, st), (_, _, following) in zip(terms, terms[1:]):
        before = _cue_words(text[max(0, start - _CUE_REACH):start])
        if st in targets and st not in out and not FLIP_CUES.isdisjoint(before):
            out[st] = following
    return out


def _flipped(claim: _ClaimSide, proposition: str, claim_terms: set[str], terms: set[str], aligned_overlap: float
             ) -> bool:
    """:func:`negation_mismatch` against one proposition (``terms``: its stems), the claim read already."""
    asserted, conditioned = negations(proposition)
    evidence_targets = asserted | denied_otherwise(proposition)  # "leased it rather than buying it"
    if not claim.targets and not evidence_targets:
        return False
    if shared_share(claim_terms, terms) < aligned_overlap:
        return False
    if claim.targets and evidence_targets:
        # both negate, maybe two statements: "said they had not received assurances" against "said they had received
        # assurances that no posts would be cut" negates what the evidence states in a clause without a negator, with
        # the negated word's object ("does not support wireless charging" against "supports wired charging but has
        # no wireless charging" says the evidence's negation)
        # (a price the claim denies that the evidence denies in other words is its denial: "your first pass won't
        # cost you anything" against "there is no charge for a first pass, but a replacement ... costs £10")
        # (and the reverse, object and all, where both deny one word: "can use the printers, though they can't
        # borrow any items" against "cannot borrow items or use the printers"; not "to fix a door that won't lock,
        # align the latch with the hole" against "a latch won't catch because it doesn't align with the hole")
        theirs = _objects(proposition, evidence_targets - claim.targets) if claim.targets & evidence_targets else {}
        return any(t not in evidence_targets and _stated_plainly(t, claim.objects.get(t), proposition)
                   and not said_free(t, claim.clauses.get(t), proposition)
                   for t in claim.targets) or any(_stated_plainly(t, o, claim.text) for t, o in theirs.items())
    if claim.targets:
        # "colonies that weren't exposed" says the evidence's "unexposed colonies": its negation, one word (not a word
        # the evidence negates in a condition: "lost if not used" says nothing of "used" either way)
        # (nor a word the evidence negates with a lexical negator: "no time limit" for "without time limits")
        # and the negated word's own clause must be the proposition's: "Basic fares have no checked luggage, Flex
        # includes a single 23 kg bag ..." copies the Flex sentence, not what it says of Basic fares
        lexically = _lexically_negated(proposition)
        return any(shared_share({t}, terms) == 1.0 and not privative_forms(t) & terms and t not in conditioned
                   and t not in lexically and _clause_aligned(claim.clauses.get(t), terms)
                   and not said_free(t, claim.clauses.get(t), proposition)
                   and not excepted_case(t, claim_terms, proposition)
                   and _contrast_placed(claim.contrasts.get(t), t, proposition)
                   and not _day_outside(claim.objects.get(t), proposition)
                   for t in claim.targets)
    # "private individuals rather than public figures" says the passage's "and not public figures"
    denied = {base_form(t) for t in evidence_targets - claim.denied}
    if claim.conditional:
        # the passage's "unless" case granted on that condition: "can only use the deep end if a parent or guardian is
        # on poolside" says "cannot use the deep end unless a parent or guardian is on poolside"
        denied = {t for t in denied if not excepted_case(t, claim_terms, proposition)}
    if denied:
        # a word the evidence also states un-negated is no denial of it: "failed to reach orbit at first but reached
        # it in 2010"
        said = Counter(base_form(stem(proposition[a:b])) for a, b in word_spans(proposition))
        denied = {t for t in denied if said[t] < 2}
    return bool(denied & claim.bases)


# A contrast's negation: "glass belongs in the green box, not the blue-lidded bin" denies the bin what the clause
# before it says of the box. At most six words after "not", to the clause's end; the clause before read from its last
# clause break (at most 200 characters: bounded on any text).
_CONTRAST = re.compile(r"([^,;:.!?]{1,200}),\s{0,3}(?:but\s{1,3})?not\s{1,3}((?:[^\W\d_][\w'’-]*\s{0,3}){1,6}?)"
                       r"(?=[.;:!?]|$)", re.IGNORECASE)


# Where a statement of the passage ends, for a contrast: a comma or semicolon, or a word that opens another clause;
# not a bracket ("Hausa (...) is the Chadic language ... with the largest number of speakers" is one statement).
_CONTRAST_STATEMENT_BREAK = re.compile(r"[,;]|\b(?:which|who|whose|while|whereas|but|although|though|because)\b",
                                       re.IGNORECASE)


def _contrasts(text: str, targets: set[str]) -> dict[str, set[str]]:
    """For each negated word of ``text`` that a contrast denies (:data:`_CONTRAST`), the content words (stems) of the
    clause before it but the denied ones: what the claim says of the other thing."""
    out: dict[str, set[str]] = {}
    for m in _CONTRAST.finditer(text):
        denied = {st for _, _, st in content_terms(m.group(2))}
        said = {st for _, _, st in content_terms(m.group(1))} - denied
        for t in targets & denied:
            out.setdefault(t, said)
    return out


def _contrast_placed(said: set[str] | None, target: str, proposition: str) -> bool:
    """Whether a contrast's denied word stands in a statement of the proposition that also holds a word of what the
    claim says of the other thing (``said``; None: no contrast): "glass goes in the blue-lidded bin, not the green box"
    against "... while glass bottles and jars go in the separate green box" denies the passage's statement; "glass
    belongs in the green box, not the blue-lidded bin" against "Blue-lidded bins are for paper ..." denies the bin
    nothing the passage says of glass."""
    if said is None:
        return True
    for statement in _CONTRAST_STATEMENT_BREAK.split(proposition):
        terms = {st for _, _, st in content_terms(statement)}
        if target in terms and terms & said:
            return True
    return False


_DAY_STEMS = {stem(day): i for i, day in enumerate(WEEKDAYS)}


def _day_outside(its_object: str | None, proposition: str) -> bool:
    """Whether the claim denies its word of a weekday (its object) that lies outside the proposition's range of days:
    "doesn't open on Mondays" says what "open 10am-5pm Tuesday to Sunday" says."""
    return its_object in _DAY_STEMS and outside_day_ranges(_DAY_STEMS[its_object], [proposition])


def _clause_aligned(clause_terms: set[str] | None, terms: set[str]) -> bool:
    """Whether a negated word's statement (its other content words; None or empty: too short to say) restates the
    proposition of ``terms``: at least :data:`.closest.RESTATED_OVERLAP` of its words in it (a half: "Talinum and
    Lathraea are not plants" restates "Talinum is a genus of ... plants" for one of its two names)."""
    return not clause_terms or shared_share(clause_terms, terms) >= RESTATED_OVERLAP


# The words that open another statement: a relative, or a conjunction that is no mere "and" / "or".
_STATEMENT_OPENERS = "that|which|who|whom|whose|while|whereas|but|although|though|because|if|when|after|before"
# Where a claim's statement ends, for the statement a negated word stands in: punctuation, or a word that opens another
# statement ("and" and "or" join things as often: "Talinum and Lathraea are not plants").
_STATEMENT_BREAK = re.compile(rf"[,;:()]|\b(?:{_STATEMENT_OPENERS})\b", re.IGNORECASE)
# Where a clause of an evidence sentence ends, for a negation on both sides: "had received assurances | that no
# clinical posts would be cut" (a comma, a relative or a conjunction that opens another statement, "and", "or").
CLAUSE_BREAK = re.compile(rf"[,;:()]|\b(?:{_STATEMENT_OPENERS}|and|or)\b", re.IGNORECASE)


def _stated_plainly(term: str, its_object: str | None, proposition: str) -> bool:
    """Whether ``proposition`` has the word ``term`` (a stem) with ``its_object`` (a stem, if the claim has one) in one
    clause, and no clause of it that has the word has a negator (:data:`FLIP_CUES`, also written with "n't")."""
    clauses = (set(_cue_words(c)) for c in CLAUSE_BREAK.split(proposition))
    with_term = [(words, stems) for words in clauses if term in (stems := {stem(w) for w in words})]
    return (any(its_object is None or its_object in stems for _, stems in with_term)
            and all(words.isdisjoint(FLIP_CUES) for words, _ in with_term))


def _cue_words(text: str) -> list[str]:
    """The words of ``text``, lower-cased, an apostrophe dropped ("didn't" -> "didnt", as :data:`FLIP_CUES` has it)."""
    return [w.replace("'", "").replace("’", "") for w in re.findall(r"[\w'’]+", text.lower())]


def _measures(text: str) -> set[float]:
    """The numbers of ``text`` that are no year (:data:`halguard.text.quantities.YEAR_RANGE`)."""
    first, last = YEAR_RANGE
    return {v for v in number_values(text) if not (v == int(v) and first <= v <= last)}


def privative_forms(term_stem: str) -> set[str]:
    """The stems of a word's negative-prefixed forms ("unexposed", "nonbinding", "indirect"): a text that
    has one says the word's negation in one word."""
    return {prefix + term_stem for prefix in _PRIVATIVE_PREFIXES}


_PRIVATIVE_PREFIXES = ("un", "non", "in", "im", "il", "ir")  # not "dis": "discover" is no "not cover"


def denied_otherwise(text: str) -> set[str]:
    """The stems of the words ``text`` denies in other words (:data:`_DENIED_OTHERWISE`)."""
    return {stem(m.group(1)) for m in _DENIED_OTHERWISE.finditer(text)}


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
