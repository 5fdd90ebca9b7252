"""Words, names and numbers of a claim found nowhere in its scope (the context and the question)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Sequence

from halguard.grounding.roles.matching import said_conversely
from halguard.grounding.signals.all_hours import every_hour_spans, says_every_hour
from halguard.grounding.signals.antonyms import opposite_in, same_side_in
from halguard.grounding.signals.bounds import PASSAGE_HEAD_CHARS
from halguard.grounding.signals.calendar_names import named_by_the_calendar
from halguard.grounding.signals.closest import source_sentences
from halguard.grounding.signals.direction import has_direction, shown
from halguard.grounding.signals.people import people_said_here
from halguard.grounding.signals.periods import changed_periods
from halguard.grounding.signals.scope import Scope, word_string
from halguard.grounding.signals.times_of_day import times_read
from halguard.text.compounds import closed_compounds
from halguard.text.currency import in_cents
from halguard.text.dates import WEEKDAYS, in_numeric_date, month_number, month_of
from halguard.text.derived import derived, reckoning_spans
from halguard.text.lexical import (
    base_form,
    content_terms,
    entity_mentions,
    is_enumerator,
    is_number_word,
    negated_terms,
    number_mentions,
    number_values,
    stem,
    term_set,
)
from halguard.text.measure_phrases import duration_parts
from halguard.text.mentions import mentioned, strip_titles, title_said
from halguard.text.phrasal import phrasal_said, verb_said_as_phrasal
from halguard.text.places import is_demonym
from halguard.text.products import ProductSpans
from halguard.text.quantities import (
    MAX_CLAIM_QUANTITIES,
    Quantity,
    bound_spans,
    measured_by_unit,
    placed_durations,
    quantities,
    said_as,
    saying,
)
from halguard.text.rates import frequency_said
from halguard.text.relative_dates import DaysByOffset
from halguard.text.reporting import reporting_word_spans
from halguard.text.wordnet import form_in, licensed

__all__ = ["changed_units", "changed_values", "found_names", "missing_names", "missing_numbers",
           "novel_terms", "scattered_names"]

Span = tuple[int, int]


def novel_terms(terms: list[tuple[int, int, str]], scope: Scope, text: str, nearby: Collection[str],
                names: Collection[Span] = (), *, chunks: Sequence[str] = ()) -> list[Span]:
    """Content words (by stem) of the claim ``text`` that the scope never uses, not even in other words.

    A word is said in other words when a word of its evidence (``nearby``: stems of the claim's closest evidence)
    licenses it (:mod:`halguard.text.wordnet`: "staff" by "personnel", "died" by "death"). Only the evidence, not
    the whole scope: a word far away is too often another sense ("accounted for" would license "record"). A number
    word ("eight", "thousand") is no word to look up: it is a number, which :func:`missing_numbers` compares by
    value ("eight" / "8"). The converse of an evidence word is the same event from the other side ("bought" /
    "sold": the role check reads who is who). A title the passages say in another form ("Rep." / "Representative")
    is theirs. Words of the ``names`` the passages mention (:func:`found_names`: "California" for a record's
    "CA") are the names' finding, not words to look up. A word's other form counts from any of the claim's evidence
    ``chunks`` ("founder" where one says "was founded by"; forms only, :func:`halguard.text.wordnet.form_in`).
    """
    # An irregular past form of the evidence is its verb too: "taught" licenses "lessons" as "teach" does ("fell")
    nearby = set(nearby) | {base_form(t) for t in nearby}
    # "12 per cent": its "cent" is the number's; "half past seven in the morning", "closes at 6pm" a time's they give
    in_a_number = _Covering([(m.start, m.end) for m in number_mentions(text)] + times_read(text, scope).worded(text))
    in_a_name = _Covering(list(names))
    in_chunks = _FormsIn(chunks)
    novel = [(s, e) for s, e, st in terms
             if not _found(text[s:e], st, scope.terms) and not is_number_word(text[s:e]) and not licensed(st, nearby)
             and not people_said_here(text, s, st, nearby, scope.counts)
             and not said_conversely(st, nearby) and not in_a_number(s, e) and not in_a_name(s, e)
             and not title_said(text[s:e], scope.terms) and not in_chunks(st)]
    if novel:
        # "Passage 2 explains ...", "the article concludes that ...": the answer talking about its sources
        reporting = set(reporting_word_spans(text))
        novel = [span for span in novel if span not in reporting]
    if novel:
        # A unit of a quantity the passages give in other units ("2.5 kilometres" for "2,528 metres"; "a decade" for
        # "ten years"), or that the claim computes from a passage sentence ("for three and a half years" of "from
        # January 2021 to June 2024"), is the quantity's, found: not a word to look up.
        units = {q.unit_span for q in quantities(text, limit=MAX_CLAIM_QUANTITIES) + placed_durations(text)
                 if q.unit_span in novel and (said_as(q, scope.quantities)
                                              or derived(text, q, (src.text for src in scope.sources)))}
        novel = [span for span in novel if span not in units]
    if novel:
        # "roughly", "fewer than" before a number and "percentage points", "times" after it qualify the number,
        # which is checked as one; "area" and "weight" name what the evidence's square kilometres and kilograms
        # measure; "fortnightly" says a passage's "every two weeks"
        reckoned = reckoning_spans(text, percentages=bool(scope.quantities.of_dimension("percent")))
        in_a_bound = _Covering(bound_spans(text) + reckoned)
        novel = [(s, e) for s, e in novel if not in_a_bound(s, e) and not measured_by_unit(
            stem(text[s:e].lower()), nearby) and not frequency_said(text[s:e], [src.text for src in scope.sources])]
    if novel:
        # "rising" where the evidence says "higher", "lowered" where it says "reduced": the same side of a pair of
        # opposites (and no word of the other side there); "does not open" where it says "is closed": a negated
        # opposite says the same
        negated = negated_terms(text)
        novel = [(s, e) for s, e in novel if not (
            same_side_in(text[s:e], nearby) if stem(text[s:e]) not in negated else opposite_in(text[s:e], nearby))]
    if novel:
        # "stepped down" where the evidence says "resigned", "resigned" where a passage says "stepped down"
        phrasal = set(phrasal_said(text, nearby, scope.phrasals))
        novel = [(s, e) for s, e in novel
                 if (s, e) not in phrasal and not verb_said_as_phrasal(stem(text[s:e].lower()), scope.phrasals)]
    if novel and has_direction(text):
        # "rose to 310 million from 270 million" where a passage starts from 270 million, "a 9% increase" where it
        # says "up 9%": the numbers say the direction
        said = set(shown(text, scope.starts, scope.changes, scope.context_numbers))
        novel = [span for span in novel if span not in said]
    return novel


class _FormsIn:
    """Whether another form of a word stands in some texts (the claim's evidence chunks: :func:`halguard.text.wordnet.
    form_in`), or two of their words closed up (:func:`halguard.text.compounds.closed_compounds`); they are read on the
    first word that asks, since most claims have none left to ask about."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._texts = tuple(dict.fromkeys(texts))  # the best chunk is also the first of the claim's chunks
        self._read: tuple[set[str], set[str]] | None = None  # their stems, and their words closed up

    def __call__(self, term_stem: str) -> bool:
        if not self._texts:
            return False
        if self._read is None:  # "liftoff" of "lifted off"
            self._read = (set().union(*map(term_set, self._texts)), set().union(*map(closed_compounds, self._texts)))
        return form_in(term_stem, self._read[0]) or term_stem in self._read[1]


class _Covering:
    """Whether one of some spans covers a span, in O(log n) (a claim of 10,000 numbers is not scanned per word)."""

    def __init__(self, spans: list[Span]) -> None:
        ordered = sorted(spans)
        self._starts = [s for s, _ in ordered]
        self._reach: list[int] = []
        furthest = -1
        for _, e in ordered:
            furthest = max(furthest, e)
            self._reach.append(furthest)

    def __call__(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self._starts, start) - 1
        return i >= 0 and self._reach[i] >= end


def found_names(text: str, scope: Scope) -> list[Span]:
    """The names (capitalised runs) of ``text`` that the scope mentions: every word of them by its stem, or the name
    in another form (:func:`halguard.text.mentions.mentioned`). A name half of whose words are found is not
    missing (:func:`missing_names`), but its other words are still words to look up ("the European Union"
    against "the European Commission")."""
    found = []
    for s, e in entity_mentions(text):
        name = strip_titles(text[s:e])
        words = content_terms(name)
        if not name or (words and all(_found(name[a:b], st, scope.terms) for a, b, st in words)) or _named_otherwise(
                name, text, e, scope):
            found.append((s, e))
    return found


def _found(word: str, word_stem: str, terms: frozenset[str]) -> bool:
    """Whether the scope uses the word: by its stem, or a month's short name by the month's name ("Dec.")."""
    if word_stem in terms:
        return True
    month = month_of(word)
    return month is not None and stem(month) in terms


def missing_names(text: str, scope: Scope) -> list[Span]:
    """Names (capitalised runs) of which fewer than half the words, or none, appear in the scope, and that the
    passages do not mention in another form either (:func:`halguard.text.mentions.mentioned`: a code, an
    acronym, a demonym, a spelling variant; a title is not part of the name)."""
    found = []
    for s, e in entity_mentions(text):
        name = strip_titles(text[s:e])
        if not name:
            continue  # a title alone ("Rep.") names no one
        words = content_terms(name)
        if not words:
            # A name of short words only ("Wi-Fi", "Li Na", "V DC") has no content term to look up: it is found
            # when its words stand together, in order, in some source.
            if not scope.stands_in_a_source(name) and not _mentioned(name, scope):
                found.append((s, e))
            continue
        said = [_found(name[s2:e2], st, scope.terms) for s2, e2, st in words]
        present = sum(said)
        if (present * 2 < len(words) or present == 0) and not _named_otherwise(name, text, e, scope):
            found.append((s, e))
        elif not all(said) and _place_adjective_apart(name, words, said, scope):
            if not _named_otherwise(name, text, e, scope):
                found.append((s, e))
    return found


def _place_adjective_apart(name: str, words: list[tuple[int, int, str]], said: list[bool], scope: Scope) -> bool:
    """Whether a run half found is missing once its place adjectives are read apart from the name beside them: the
    adjective found and no word of the name itself ("the Moscow Russian embassy" where the passage has the Russian
    embassy in London), or an adjective whose place the passages never mention ("the London Mexican embassy")."""
    adjective = [is_demonym(name[a:b]) for a, b, _ in words]
    own = [ok for ok, adj in zip(said, adjective) if not adj]
    return (bool(own) and not any(own)) or any(
        adj and not ok and not _mentioned(name[a:b], scope) for ok, adj, (a, b, _) in zip(said, adjective, words))


# A name's own gloss in the claim: an acronym in brackets right after it ("Islamic State (ISIS)").
_GLOSS = re.compile(r"[ \t]?\(([A-Z][A-Za-z&.-]{1,11})\)")


def _named_otherwise(name: str, text: str, end: int, scope: Scope) -> bool:
    """Whether the passages name ``name`` (ending at ``end`` in the claim ``text``) in another form, or the claim
    glosses it with a name of theirs: what both the found-name and the missing-name checks accept."""
    return _mentioned(name, scope) or _glossed(text, end, scope) or named_by_the_calendar(name, text, scope)


def _glossed(text: str, end: int, scope: Scope) -> bool:
    """Whether the claim glosses the name ending at ``end`` with an acronym the passages name ("Islamic State
    (ISIS) militants" against "ISIS militants"): the claim says which of theirs it means (the acronym is a name of
    the claim too, checked as such)."""
    m = _GLOSS.match(text, end)
    return m is not None and _mentioned(m.group(1), scope)


# A name's words stand together in a passage when they come in its order with at most this many other words between
# two of them ("Jacob 'Jake' Kasdan" says "Jake Kasdan"; "Barack Hussein Obama" says "Barack Obama").
TOGETHER_GAP = 2
# Names of more words than this are not read for scattering (no name is that long; bounds the splits tried), nor
# more names than _MAX_SCATTER_NAMES in one text: each costs up to 28 searches of every passage. The short answers
# it is read for have 12 words at most (claims.QUESTION_AWARE_MAX_WORDS); the caps bound it wherever it is called.
_MAX_NAME_WORDS = 8
_MAX_SCATTER_NAMES = 16
_NAME_WORDS = re.compile(r"[^\W_]+")


def scattered_names(text: str, scope: Scope) -> list[Span]:
    """Names of ``text`` of two content words or more whose every word the passages use, but never together: no
    passage has them in order within :data:`TOGETHER_GAP` words of each other, nor splits them into parts of two
    words or more that each stand so ("Texas Attorney General" and "Ken Paxton"), nor names them another way.
    "The Manchester United club" against "Hyde United ... in Hyde, Greater Manchester": each word is the passage's,
    the name is not.

    Read for the short answers to a question only (measure.py): on HaluEval's answers it fired on 65 hallucinated
    answers and no faithful one, on RAGTruth's long answers on 26 faithful claims and 6 hallucinated (list items
    opening with a verb, "Open Mozilla Firefox"; people named with their office), 2026-11-28.
    """
    found = []
    strings = [word_string(src.text) for src in scope.sources]
    for s, e in entity_mentions(text)[:_MAX_SCATTER_NAMES]:
        name = strip_titles(text[s:e])
        terms = content_terms(name)
        if not 2 <= len(terms) <= _MAX_NAME_WORDS:
            continue
        if not all(_found(name[a:b], st, scope.terms) for a, b, st in terms):
            # A word the passages lack: half the words or fewer found is missing_names' finding; more than half found
            # is one here, as the short answer's name is its point ("Manchester United" where the passages name
            # "Manchester City": a name of theirs with a word changed is another name).
            if not _mentioned(name, scope):
                found.append((s, e))
            continue
        words = [(name[a:b].lower(), st) for a, b, st in terms]
        if not (_in_parts(words, strings) or _mentioned(name, scope)):
            found.append((s, e))
    return found


def _stand(words: list[tuple[str, str]], strings: list[str]) -> bool:
    """Whether some passage (its word string) has the ``(word, stem)`` pairs in order, each as written or by its
    stem's prefix, at most :data:`TOGETHER_GAP` words apart."""
    gap = rf"(?: [^ ]+){{0,{TOGETHER_GAP}}} "
    pattern = re.compile(" " + gap.join(rf"(?:{re.escape(w)}|{re.escape(st)}[^ ]*)" for w, st in words) + " ")
    return any(pattern.search(s) for s in strings)


def _in_parts(words: list[tuple[str, str]], strings: list[str]) -> bool:
    """Whether ``words`` stand together in some passage, or split into consecutive parts of two words or more that
    each do (:func:`_stand`)."""
    n = len(words)
    reachable = [True] + [False] * n  # reachable[i]: words[:i] splits into such parts
    for i in range(n):
        if reachable[i]:
            for j in range(i + 2, n + 1):
                reachable[j] = reachable[j] or _stand(words[i:j], strings)
    return reachable[n]


def _mentioned(name: str, scope: Scope) -> bool:
    month = month_number(name)
    if month is not None and month in scope.numbers:
        return True  # "November 22, 2019" against a record's "2019-11-22": the date's numbers are checked as numbers
    return mentioned(name, [src.text for src in scope.sources], scope.terms)


# A rating's scale: "3.5 out of 5 stars" states 3.5; the 5 is the scale every listing uses, not a fact of this one.
_RATING_SCALES = frozenset({5.0, 10.0, 100.0})
_OUT_OF = re.compile(r"\bout\s{1,3}of\s{1,3}$", re.IGNORECASE)
_DAYS_A_WEEK = re.compile(r"\s{1,3}days?\s{1,3}(?:a|per|each|every)\s{1,3}week\b", re.IGNORECASE)
_OF_YOU = re.compile(r"\s{1,3}of\s{1,3}(?:you|us)\b", re.IGNORECASE)
_WEEKDAYS = re.compile(rf"\b({'|'.join(WEEKDAYS)})\b", re.IGNORECASE)


# The numbers of every hour said with numbers ("24/7", "24 hours a day"): no other number of a claim is read there.
_EVERY_HOUR_NUMBERS = frozenset({24.0, 7.0})


def _not_a_quantity(text: str, start: int, end: int, value: float, scope: Scope) -> bool:
    """Whether the number at ``text[start:end]`` is no quantity of the claim's to find in the passages: a rating's
    scale ("out of 5"), every hour said with numbers where the passages say it too ("24/7" for "around the clock"), a
    code's digits joined to a name ("COVID-19", "F-16"), the count of "the two of you", or a count of days a week
    that the passages' own weekdays give ("open seven days a week" against a record's hours for Monday to Sunday)."""
    if value in _RATING_SCALES and _OUT_OF.search(text[max(0, start - 12):start]):
        return True
    if value in _EVERY_HOUR_NUMBERS and any(a <= start < b for a, b in every_hour_spans(text)) and says_every_hour(
            [s.text for s in scope.sources]):
        return True  # "24/7" where the passages say "around the clock"
    if start >= 2 and text[start - 1] == "-" and text[start - 2].isalpha() and text[start - 2].isupper():
        return True
    if _OF_YOU.match(text, end) and text[max(0, start - 4):start].lower() == "the ":
        return True  # "singles for the two of you": the people the answer talks to, the asker's to count
    if _DAYS_A_WEEK.match(text, end) and 1 <= value <= 7:
        named = {m.group(1).lower() for src in scope.sources for m in _WEEKDAYS.finditer(src.text[:_WEEKDAY_SCAN])}
        return len(named) == value
    return False


# The head of a source read for its weekday names: a business record's hours come first, and a long passage is not
# scanned for a seven-day count.
_WEEKDAY_SCAN = PASSAGE_HEAD_CHARS


def missing_numbers(text: str, scope: Scope, computed: set[float]) -> list[Span]:
    """Numbers of the claim that the scope does not state and that are not the result of a correct calculation
    in the claim (``computed``). List markers and passage references ("3. ...", "passage 2") are not numbers."""
    times = times_read(text, scope)  # times of day: said in another writing ("21:00" / "9 p.m.") or changed
    found = list(times.changed)
    # the claim's quantities, and its dates with the passages' offsets, read on the first number not found
    by_start, by_offset = None, DaysByOffset(text, (src.text for src in scope.sources))
    by_product = ProductSpans(text, (source_sentences(src.text) for src in scope.sources), scope.numbers)
    for m in number_mentions(text):
        if times.covers(m.start, m.end) or is_enumerator(text, m.start, m.end) or _not_a_quantity(
                text, m.start, m.end, m.value, scope):
            continue
        values = {round(m.value, 6), round(abs(m.value), 6)} | ({cents} if (cents := in_cents(text, m)) else set())
        if m.alt is not None:
            values.add(round(m.alt, 6))
            if m.is_percent:  # a fraction's percentage, also whole: "a third" is the context's "33%"
                values.add(float(round(m.alt)))
        stated = values & scope.numbers
        if stated and not (_months_only(stated, scope) and not in_numeric_date(text, m.start, m.end)):
            continue
        if values & computed:
            continue
        # Not written as such: a quantity the passages give in another unit, within the claim's bound or about it
        # (halguard.text.quantities; "a half" of "an hour and a half" is read in one starting before it), or one the
        # claim's words compute from two numbers of a passage sentence ("seven points ahead" of 46% and 39%: derived).
        if by_start is None:
            by_start = {q.start: q for q in quantities(text, limit=MAX_CLAIM_QUANTITIES)}
        said = by_start.get(m.start) or next((q for q in by_start.values() if q.start < m.start < q.end), None)
        if said is None or not (said_as(said, scope.quantities)
                                or derived(text, said, (src.text for src in scope.sources))):
            # a day the passages give as an offset from another date ("two days earlier" than 11 April: 9 April), or a
            # count the claim states times a price each a passage gives, and that count ("four ... £14" of "£3.50 each")
            if not by_offset(m.start, m.end) and not by_product(m.start, m.end):
                found.append((m.start, m.end))
    return found


def _months_only(values: set[float], scope: Scope) -> bool:
    """Whether the scope gives ``values`` only as the months of dates (not the question, where it has one)."""
    return values <= scope.month_numbers and not (scope.question and values & number_values(scope.question))


# The dimensions whose units a claim can swap for one another ("mg" for "mcg"): a percentage or a count has none.
_UNIT_DIMENSIONS = frozenset({"length", "mass", "time", "volume", "area"})


def changed_units(text: str, scope: Scope) -> list[Span]:
    """Quantities of the claim whose number the passages write with another unit of the same dimension, and never
    with the claim's unit: "500 mcg" where they write "500 mg", "1,000 miles" where they write "1,000 kilometres".
    The number stands in the passages, so :func:`missing_numbers` finds nothing; the quantity does not, unless the
    passages give it another way ("0.5 g" is "500 mg": :func:`halguard.text.quantities.said_as`). The same holds for
    a rate's period ("three times a week" where the passages say "three times a day" and never "a week") and a
    bound's direction ("under 60" where they say "over 60" and never "under 60")."""
    found = changed_periods(text, scope)
    if not scope.quantities:
        return found
    for q in quantities(text, limit=MAX_CLAIM_QUANTITIES):
        if q.bound in ("gt", "lt") and _bound_flipped(q, scope):
            # the span holds the bound: "under 60", the words that are wrong
            found.append((next((s for s, e in bound_spans(text) if e == q.start), q.start), q.end))
            continue
        if q.unit_span is None or q.dimension not in _UNIT_DIMENSIONS:
            continue
        same_number = [t for t in scope.quantities.with_number(q) if t.unit_span is not None]
        if not same_number or any(abs(t.base - q.base) <= 1e-9 * max(1.0, abs(q.base)) for t in same_number):
            continue  # the passages never write the number with a unit, or write it with the claim's
        if not said_as(q, scope.quantities):
            found.append((q.start, q.end))
    return found


def changed_values(text: str, scope: Scope) -> list[Span]:
    """Quantities of the claim (with a unit of a dimension) whose thing the passages give only other values, the
    claim's number standing elsewhere in them: "repaid within forty years" against "repaid within ten years" and 40
    million dollars, unless they say it another way (:func:`halguard.text.quantities.said_as`: "within a decade")."""
    if not scope.quantities:
        return []
    # A hyphenated quantity ("a 10-minute walk") describes the noun after it, which its context words do not tell
    # apart. A part of a duration in two units ("6 hours" of "6 hours 30 minutes") is no quantity, ours or theirs.
    parts = duration_parts(found := quantities(text, limit=MAX_CLAIM_QUANTITIES))
    return [(q.start, q.end) for q in found
            if q.unit_span is not None and q.dimension in _UNIT_DIMENSIONS and "-" not in text[q.start:q.end]
            and q not in parts and _valued_otherwise(q, scope)
            and all(t in scope.duration_parts for t in saying(q, scope.quantities))]


def _valued_otherwise(claim: Quantity, scope: Scope) -> bool:
    """Whether the passages give the claim quantity's thing (at least two of its context words, all where it has
    fewer) in its dimension only with other values, the claim's number standing elsewhere in them, never as a quantity
    of its dimension ("10 minutes" of one recipe beside "10 to 14 minutes" of another is theirs)."""
    if round(claim.value, 6) not in scope.numbers or not claim.context or not all(
            t in scope.duration_parts for t in scope.quantities.with_number(claim)):
        return False
    need = min(2, len(claim.context))
    theirs = [t for t in scope.quantities.of_dimension(claim.dimension)
              if len(t.context & claim.context) >= need and t not in scope.duration_parts]
    return bool(theirs) and all(abs(t.base - claim.base) > 1e-9 * max(1.0, abs(claim.base)) for t in theirs)


def _bound_flipped(claim: Quantity, scope: Scope) -> bool:
    """Whether the passages bound the claim's number only the other way: "people under 60" where they write "people
    over 60" (and never "under 60", nor 60 unbounded)."""
    same_number = scope.quantities.with_number(claim)
    return bool(same_number) and all(t.bound in ("gt", "lt") and t.bound != claim.bound for t in same_number)
