"""Every signal of one claim against its best evidence chunk and its scope."""

from __future__ import annotations

import re
from collections.abc import Sequence

from halguard.grounding.scoring import ScoringWeights
from halguard.grounding.signals import ClaimMeasurements
from halguard.grounding.signals.arithmetic import ArithmeticFinding, check_arithmetic
from halguard.grounding.signals.calendar import changed_dates
from halguard.grounding.signals.choice import choice_conflicts
from halguard.grounding.signals.closest import (
    ClosestSentence,
    closest_sentence,
    fused_parts,
    sentence_of_numbers,
    shared_share,
    source_sentences,
)
from halguard.grounding.signals.codes import changed_codes
from halguard.grounding.signals.direction import reversals
from halguard.grounding.signals.flips import claim_flips, clauses
from halguard.grounding.signals.foreign import measure_foreign
from halguard.grounding.signals.hours import hours_conflicts
from halguard.grounding.signals.negated_clauses import negated_clause, negation_dropped
from halguard.grounding.signals.negation import denied_premises, negation_mismatch
from halguard.grounding.signals.ordinals import changed_ordinals
from halguard.grounding.signals.percentages import percentages_otherwise
from halguard.grounding.signals.records import (
    absent_feature_mentions,
    denied_feature_mentions,
    unknown_feature_mentions,
)
from halguard.grounding.signals.scope import Scope
from halguard.grounding.signals.times_of_day import times_read
from halguard.grounding.signals.verbatim import in_order, is_verbatim
from halguard.grounding.signals.words import (
    changed_units,
    changed_values,
    found_names,
    missing_names,
    missing_numbers,
    novel_terms,
    scattered_names,
)
from halguard.text.asked_within import AskedWithin
from halguard.text.claims import Claim
from halguard.text.counts import answered_counts, counted_as_said, moved_counts
from halguard.text.currency import currency_amounts, currency_symbols
from halguard.text.derived import own_reckoning
from halguard.text.lexical import (
    affirmation_end,
    affirms,
    content_terms,
    entity_mentions,
    number_mentions,
    number_values,
    stem,
    term_set,
    word_spans,
)
from halguard.text.light_words import is_light_word, light_phrase_spans
from halguard.text.listed import listed_counts
from halguard.text.phrasal import phrasal_verb_spans
from halguard.text.quantities import claim_quantities_said, quantities, saying
from halguard.text.stated_reckoning import stated_reckoning
from halguard.text.votes import unanimity_changed

__all__ = ["checked_text", "measure_claim"]

Span = tuple[int, int]


def checked_text(claim: Claim) -> str:
    """The claim's text as the signals read it: citation markers and a hedge opener blanked (offsets kept), so
    "[S2]" is not the number 2 and "I'm not sure, but" is not a negation."""
    base = claim.start
    hidden = [*claim.citation_spans, *([claim.hedge_span] if claim.hedge_span else [])]
    return _mask(claim.text, [(s - base, e - base) for s, e in hidden])


def measure_claim(claim: Claim, similarity: float, evidence: str, scope: Scope,
                  weights: ScoringWeights, *, related: Sequence[str] = ()) -> ClaimMeasurements:
    """Measure ``claim`` (its :func:`checked_text`) against its best evidence chunk's text (``evidence``, at
    ``similarity``) and its scope; ``related``, its evidence chunks' texts, may hold a claim word's other form
    ("founder" for "was founded by"). Spans are returned as offsets in the answer."""
    base = claim.start
    text = checked_text(claim)

    def shifted(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [(base + s, base + e) for s, e in spans]

    if claim.foreign_script:
        m = measure_foreign(text, scope.without_question())
        m.missing_entities, m.missing_numbers = shifted(m.missing_entities), shifted(m.missing_numbers)
        return m
    findings = check_arithmetic(text)
    arithmetic = [(base + f.start, base + f.end, f.explanation) for f in findings if not f.ok] + [
        (base + s, base + e, why) for s, e, why in reversals(text, scope.starts, scope.changes)]
    computed = _reckoned(text, findings)
    # "Correct, it supports 65 W.": "Correct" is no word to find in the passages; nor is a label ("Response 1:").
    opener = max(affirmation_end(text), _label_end(text))
    terms = [t for t in content_terms(text) if t[0] >= opener]
    claim_terms = {st for _, _, st in terms}
    closest = closest_sentence(claim_terms, evidence)
    closest_terms = term_set(closest)
    verbatim = is_verbatim(text, bool(terms or number_mentions(text)), scope)
    overlap = shared_share(claim_terms, closest_terms)
    # A claim whose words all stand in its evidence in order is never flagged for its words (they are the evidence's:
    # "Wi-Fi", "12 V DC"), unless a time of it is changed ("7:15 p.m." of "7:15 a.m. ... 6:40 p.m.": "p", "m" later)
    own_words = (verbatim or in_order(text, closest)) and not times_read(text, scope).changed
    chunks = (evidence, *related)
    novel, light = _light_novel(text, [] if own_words else novel_terms(
        terms, scope, text, _nearby(text, evidence, closest, closest_terms), found_names(text, scope), chunks=chunks))
    novel += [span for span in _currencies_lacked(text, scope) if span not in novel]
    facts, short = scope.without_question(), claim.question_aware
    names, numbers, denied, placed = ([], [], [], []) if own_words else _missing_facts(text, scope, facts, computed,
                                                                                      short)
    if short and scope.question:  # "Two." to "How many HDMI ports does it have?" where they have one: its own words
        answered = _answered_otherwise(text, scope, facts, numbers)
        numbers, placed = numbers + answered, placed + answered
    affirmed_names, affirmed_numbers = _affirmed(text, claim.asked, facts) if claim.asked else ([], [])
    name_swapped = _name_swapped(text, names, claim_terms, closest_terms, weights.close_copy_overlap)
    whole = (0, len(claim.text))
    names, numbers = names + [whole] * bool(affirmed_names), numbers + [whole] * bool(affirmed_numbers)
    flips = claim_flips(text, chunks, closest, closest_terms, weights, similarity)
    return ClaimMeasurements(
        similarity=similarity,
        novel_ratio=len(novel) / len(terms) if terms else 0.0,
        novel_terms=shifted(novel),
        light_novel_terms=shifted(light),
        missing_entities=shifted(names),
        missing_numbers=shifted(numbers),
        numbers_placed_otherwise=shifted(placed),
        evidence_has_numbers=bool(number_mentions(evidence)),
        **_negation(_mask(text, denied), similarity >= weights.negation_gate or overlap >= weights.close_copy_overlap,
                    closest, claim_terms, closest_terms, chunks, scope, weights),
        antonym_flips=shifted(flips),
        verbatim=verbatim,
        evidence_overlap=overlap,
        window_overlap=shared_share(claim_terms, term_set(evidence)) if evidence else 0.0,
        arithmetic_errors=arithmetic,
        content_words=len(terms),
        **{field: shifted(spans) for field, spans in _record_spans(text, scope).items()},
        hours_conflicts=[(base + s, base + e, why) for s, e, why in hours_conflicts(text, scope.hours)],
        choice_conflicts=_choice_conflicts(claim, text, scope),
        name_swapped=name_swapped,
        affirmed_names=affirmed_names,
        affirmed_numbers=affirmed_numbers,
        affirmed_span=(base, base + len(claim.text)) if affirmed_names or affirmed_numbers else None,
    )


def _negation(text: str, close: bool, closest: str, claim_terms: set[str], closest_terms: set[str],
              chunks: Sequence[str], scope: Scope, weights: ScoringWeights) -> dict[str, bool | str]:
    """Whether the claim negates what its evidence states, and the evidence sentence it flips: the whole claim
    against its closest sentence where it is ``close`` to its evidence (a copy with a "not"), else the claim without
    the names its chunks give (:func:`_without_topic_names`) against their closest sentence, else each part of a
    fused claim that copies its closest sentence of the passages (``part_negation_overlap`` of its words: a copy with
    a "not" added or dropped), else each negated clause against the evidence chunks' sentences
    (:func:`halguard.grounding.signals.negated_clauses.negated_clause`)."""
    aligned = weights.aligned_overlap
    flipped: str | None = None
    if close and negation_mismatch(text, closest, claim_terms, closest_terms, aligned):
        flipped = closest
    if flipped is None and (untopical := _without_topic_names(text, chunks)) is not None:
        # "Pets are allowed at the Harbour View Hotel." against the hotel's page: "Pets are not allowed."; read in the
        # claim's own evidence chunks, not every source
        flipped = _flipped_copy(untopical, chunks, weights.close_copy_overlap, aligned)
    sources = [src.text for src in scope.sources]
    for _, part in fused_parts(text) if flipped is None else ():
        if (flipped := _flipped_copy(part, sources, weights.part_negation_overlap, aligned)) is not None:
            break
    if flipped is None:
        parts = [clause for _, clause in clauses(text)]
        flipped = negated_clause(parts, chunks, aligned) or negation_dropped(parts, chunks)
    return {"negation_mismatch": flipped is not None, "negated_evidence": flipped or ""}


def _flipped_copy(text: str, texts: Sequence[str], copied_share: float, aligned: float) -> str | None:
    """The closest sentence of ``texts`` to ``text`` where ``text`` copies at least ``copied_share`` of its words and
    states it with the other polarity (:func:`negation_mismatch`); None if it does not."""
    copied = ClosestSentence.among(text, texts)
    if shared_share(copied.claim_terms, copied.terms) >= copied_share and negation_mismatch(
            text, copied.text, copied.claim_terms, copied.terms, aligned):
        return copied.text
    return None


def _without_topic_names(text: str, chunks: Sequence[str]) -> str | None:
    """The claim with its names blanked that its evidence chunks also name (the passage's topic, which a sentence of
    it need not repeat: "Pets are allowed at the Harbour View Hotel." of a hotel's page that says "Pets are not
    allowed."), if it has such a name and at least two content words are left; else None."""
    named = [(a, b) for a, b in entity_mentions(text) if any(text[a:b] in chunk for chunk in chunks)]
    for a, b in named:
        text = text[:a] + " " * (b - a) + text[b:]
    return text if named and len(content_terms(text)) >= 2 else None


def _reckoned(text: str, findings: list[ArithmeticFinding]) -> set[float]:
    """The claim's own reckoning, not numbers to find in the passages: a correct calculation's numbers, a count of
    the claim's own list ("his two predecessors, John Paul II and Benedict XVI"), and a difference or sum of two of its
    numbers that a cue asks for ("142 started and 96 finished, so 46 did not"), and what its words reckon from its
    numbers otherwise (:mod:`halguard.text.stated_reckoning`: "£4.70, half the £9.40 fare", "a climb of 856 m")."""
    return ({round(v, 6) for f in findings if f.ok for v in number_values(text[f.start : f.end])} | listed_counts(text)
            | own_reckoning(text) | stated_reckoning(text))


def _answered_otherwise(text: str, scope: Scope, facts: Scope, numbers: list[tuple[int, int]]
                        ) -> list[tuple[int, int]]:
    """The numbers of a short answer to a "how many" question that the passages count otherwise (counts.
    answered_counts), but for a bound the passages' count meets, which is their count said another way ("more than
    two thousand" ibex against "Around 2,700 ibex": quantities.said_as reads the bound)."""
    bounded = {q.start for q in claim_quantities_said(text, facts.quantities) if q.bound} if facts.quantities else set()
    return [sp for sp in answered_counts(text, scope.question, facts.counts)
            if sp not in numbers and sp[0] not in bounded]


def _light_novel(text: str, novel: list[tuple[int, int]]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The novel words without the verbs of light phrases ("took" of "took place": one word), and those of them
    that weigh as light words (not a light verb of a phrasal verb: "turned ... down" says "rejected")."""
    if not novel:
        return novel, []
    phrase_verbs, phrase_nouns = light_phrase_spans(text)
    novel = [span for span in novel if span not in phrase_verbs]
    heads = phrasal_verb_spans(text) if any(is_light_word(text[s:e]) for s, e in novel) else set()
    return novel, [(s, e) for s, e in novel if (is_light_word(text[s:e]) and (s, e) not in heads)
                   or (s, e) in phrase_nouns]


def _currencies_lacked(text: str, scope: Scope) -> list[tuple[int, int]]:
    """The claim's currencies the passages do not give: a symbol whose currency they never name, by word or symbol
    ("€89" where they give "£89"), and an amount they give only in other currencies ("€90 million" where they write
    "£90 million" and euros of another amount). In a copy too: a symbol is no word of the copy."""
    known = scope.context_terms
    lacked = [(s, e) for s, e, words in currency_symbols(text) if not any(stem(w) in known for w in words)]
    for s, e, value, currency in currency_amounts(text):
        theirs = {c for v, c in scope.amounts if v == value}
        if theirs and currency not in theirs and (s, e) not in lacked:
            lacked.append((s, e))
    return lacked


def _nearby(text: str, evidence: str, closest: str, closest_terms: set[str]) -> set[str]:
    """The evidence words that may say a claim's words otherwise: its closest sentence's, and those of the sentence
    that states the claim's numbers the closest one does not ("had a staff of 5,200" for "The group had 5,200
    workers ..." beside a sentence about the group's sales in the claim's year). Not a second sentence by the
    claim's other words: a claim that fuses two sentences is as often a fabrication that borrows a word from another
    fact (on halueval_qa_dev it cleared three hallucinated claims for the three faithful RAGTruth claims it cleared,
    none of which were flagged; sixteenth session). Nor the numbers' sentence of the claim's other evidence chunks
    (twenty-fifth session: two faithful SummEdits summaries and four hand-written paraphrases cleared, for two
    hand-written fabrications and one hallucinated RAGTruth claim passed and one held-out paraphrase flagged more)."""
    values = {round(m.value, 6) for m in number_mentions(text)}
    if not values:
        return closest_terms
    # a bound the evidence meets stands for the value that meets it ("more than two thousand" ibex: "Around 2,700")
    bounded = [q for q in quantities(text) if q.bound]
    if bounded:
        theirs = quantities(evidence)
        values |= {round(q.value, 6) for ours in bounded for q in saying(ours, theirs)}
    numbered = sentence_of_numbers(values - {round(m.value, 6) for m in number_mentions(closest)}, evidence)
    return closest_terms | term_set(numbered) if numbered is not None else closest_terms


def _record_spans(text: str, scope: Scope) -> dict[str, list[tuple[int, int]]]:
    """What the claim says of the features of the JSON records in ``scope``, as ClaimMeasurements' fields:
    ``record_conflicts``, features it asserts that a record marks absent and those it denies that a record marks there
    (denied in the cue's own phrase: "does not provide takeout" against ``"RestaurantsTakeOut": true``);
    ``record_unknowns``, features it asserts or denies that a record leaves unknown ("no valet, garage or street
    parking" against ``"garage": null``: the record says neither); ``record_denials``, the denied ones of both."""
    conflicts = {(s, e) for s, e, _ in absent_feature_mentions(text, scope.absent)}
    unknowns = {(s, e) for s, e, _ in unknown_feature_mentions(text, scope.unknown)}
    denied_there = {(s, e) for s, e, _ in denied_feature_mentions(text, scope.present, across_commas=False)}
    denied_unknown = {(s, e) for s, e, _ in denied_feature_mentions(text, scope.unknown)}
    return {"record_conflicts": sorted(conflicts | denied_there), "record_unknowns": sorted(unknowns | denied_unknown),
            "record_denials": sorted(denied_there | denied_unknown)}


def _name_swapped(text: str, names: list[tuple[int, int]], claim_terms: set[str], closest_terms: set[str],
                  copy_overlap: float) -> bool:
    """A name the passages lack in an otherwise copied sentence: at least two other content words, and at least
    ``copy_overlap`` of them in the closest evidence sentence."""
    if not names:
        return False
    named = {st for s, e in names for _, _, st in content_terms(text[s:e])}
    rest = claim_terms - named
    return len(rest) >= 2 and shared_share(rest, closest_terms) >= copy_overlap


def _choice_conflicts(claim: Claim, text: str, scope: Scope) -> list[tuple[int, int, str]]:
    """The option of a choice the claim picks against the passages' values (:mod:`.choice`), in answer offsets."""
    found = choice_conflicts(text, scope.question, [src.text for src in scope.sources],
                             answers_alone=claim.question_aware)
    return [(claim.start + s, claim.start + e, why) for s, e, why in found]


def _missing_facts(text: str, scope: Scope, facts: Scope, computed: set[float], short_answer: bool = False
                   ) -> tuple[list[Span], list[Span], list[Span], list[Span]]:
    """The claim's names and numbers the passages lack, the spans where it denies a premise, and those of its
    numbers that stand in the passages but not as the claim places them (a date written otherwise, a count given to
    something else, a number with another unit: also among the numbers).

    Names and numbers only count as found in the passages: one found only in the question is an echoed premise
    ("Does it support 100 W charging?" -> "It supports 100 W charging." against "65 W") ... unless the claim denies
    it ("No, it was built in Paris, not Berlin."): then it is no claim, and its "not" no negation of the evidence.
    ``facts`` is ``scope`` without the question (:meth:`Scope.without_question`). A ``short_answer``'s names (the
    claim of a short answer to a question) must also stand together in the passages (:func:`.words.scattered_names`).
    """
    names, numbers = missing_names(text, facts), missing_numbers(text, facts, computed)
    question_only: set[tuple[int, int]] = set()
    if names or numbers:
        question_only = (set(names) - set(missing_names(text, scope))
                         | set(numbers) - set(missing_numbers(text, scope, computed)))
    denied = denied_premises(text, sorted(question_only))
    # A date the passages write otherwise, each of its numbers found somewhere: the date is the changed number.
    placed = [(s, e) for s, e in changed_dates(text, facts) + changed_ordinals(text, facts)
              if not any(s <= a and b <= e for a, b in numbers)]
    # A count the passages give to something else ("one USB-C port and two HDMI ports" against "two USB-C ports and
    # one HDMI port"): each number is theirs, the pairing is not.
    placed += [sp for sp in moved_counts(text, facts.counts) if sp not in numbers and sp not in placed]
    # A number the passages write with another unit ("500 mcg" against "500 mg"): the quantity is the changed number.
    # A percentage whose number the passages write for something else ("11%" where their 11 counts points).
    placed += [sp for sp in (changed_units(text, facts) + changed_values(text, facts)
                             + percentages_otherwise(text, facts))
               if not any(sp[0] <= a and b <= sp[1] for a, b in numbers + placed)]
    # A code's number the passages write otherwise ("SARS-CoV-4" against "SARS-CoV-2"): the code is the number.
    placed += [sp for sp in changed_codes(text, facts) if not any(sp[0] <= a and b <= sp[1] for a, b in placed)]
    # "unanimously approved" where a passage counts votes against ("voted 7 to 2"): the count is the changed number
    placed += unanimity_changed(text, (src.text for src in facts.sources))
    if numbers and facts.counts:  # "1 HDMI port" where the passages write "one HDMI port": theirs
        said = set(counted_as_said(text, facts.counts))
        numbers = [sp for sp in numbers if sp not in said]
    if numbers and scope.question:  # the user's own number that a passage's rule takes in: "20 minutes late" of the
        # question's "If I bring the car back 20 minutes late" against "up to 29 minutes late" (no premise echoed)
        asked = AskedWithin(text, scope.question, (source_sentences(src.text) for src in facts.sources))
        numbers = [sp for sp in numbers if not asked(*sp)]
    numbers += placed
    if short_answer:  # a short answer's name is its point: it must be the passages' name, not their words scattered
        names += [sp for sp in scattered_names(text, facts) if sp not in names]
    if denied:
        names = [sp for sp in names if not _inside(sp, denied)]
        numbers = [sp for sp in numbers if not _inside(sp, denied)]
    return names, numbers, denied, [sp for sp in placed if sp in numbers]


def _affirmed(text: str, asked: str, facts: Scope) -> tuple[list[str], list[str]]:
    """The names and numbers of the question's sentence ``asked`` that a yes-answer claims and the passages lack.

    "Yes." to "Was it built in Berlin?" claims Berlin. Terms the answer names itself are left to the rules that
    judge what it states ("Yes, but in Paris, not Berlin").
    """
    if not affirms(text):
        return [], []
    stated = {text[s:e].lower() for s, e in word_spans(text)}
    names = [asked[s:e] for s, e in missing_names(asked, facts)
             if not {w.lower() for w in asked[s:e].split()} <= stated]
    numbers = [asked[s:e] for s, e in missing_numbers(asked, facts, set()) if asked[s:e].lower() not in stated]
    return names, numbers


# A label opening a claim: up to three words and a colon ("Facts:", "Response 1:", "Note:"), as response modes and
# list-writing models put before a sentence.
_LABEL = re.compile(r"[ \t]*(?:[^\W_]+[ \t]){0,2}[^\W_]+:[ \t\n]")


def _label_end(text: str) -> int:
    m = _LABEL.match(text)
    return m.end() if m else 0


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(s <= span[0] and span[1] <= e for s, e in spans)


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    """Blank out ``spans`` of ``text`` with spaces, keeping every offset."""
    chars = list(text)
    for s, e in spans:
        for i in range(max(s, 0), min(e, len(chars))):
            chars[i] = " "
    return "".join(chars)
