"""The option a choice question's answer picks, against what the passages say of each option.

"Who was born first, Lorraine Hansberry or Sandra Gulland?" answered "Sandra Gulland was born first." uses only
the passages' words and names and no number, so nothing in it is new; what is wrong is the pick. When a
question offers two named options ("A or B") and asks which comes first or last in time, or which has more or less
of something, each option's value is read from the passages (the year after the question's event word, "was
completed in 1889", else the first year; or the number beside the question's noun; in the passages, or the runs of
sentences, that speak of that option alone) and the option the claim puts first is
checked against them: the finding names both values ("the passages give Lorraine Hansberry 1930, against 1944 for
Sandra Gulland"). A question that asks which option has a property ("Which composer was Hungarian, Béla Bartók or
Johann Christoph Pepusch?") is read by words: a short answer picking the option whose passages lack a word of the
property that the other option's passages hold ("the passages say Hungarian of Béla Bartók, not of Johann Christoph
Pepusch").

Read conservatively (a finding must be right; a question it cannot read is no finding):

- the two options are names of the question joined by "or" (by its layout where the names are not read as names:
  :mod:`.choice_layout`), a claim picks the option it names first, and a claim
  that names neither, says "both", "neither" or "same", or negates, picks nothing;
- each option needs a value of its own: a passage that names it and not the other, else a sentence that does and the
  sentences after it that name neither (their years count after the question's event word only), with a year (for
  "first", "earlier", "older", "younger", "later" ...) or a number within a few words of the question's noun (for
  "more species", "fewer beds" ...); equal values, or a value missing on either side, decide nothing;
- the direction is the claim's own comparative where it states one ("A is younger than B"), else the question's.

Bounded: the question's first :data:`MAX_QUESTION_CHARS` characters and the first :data:`MAX_PASSAGE_CHARS`
characters of the first :data:`MAX_PASSAGES` passages are read, with linear-time patterns, and only for a question
that offers a choice with a comparative.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from halguard.grounding.signals.antonyms import lexicon_side
from halguard.grounding.signals.bounds import PASSAGE_HEAD_CHARS
from halguard.grounding.signals.choice_layout import options_by_layout
from halguard.text.lexical import (
    STOPWORDS,
    content_terms,
    entity_mentions,
    has_negation,
    number_mentions,
    stem,
)

__all__ = ["MAX_PASSAGES", "MAX_PASSAGE_CHARS", "MAX_QUESTION_CHARS", "choice_conflicts", "choice_options"]

MAX_QUESTION_CHARS = 300
MAX_PASSAGE_CHARS = PASSAGE_HEAD_CHARS
MAX_PASSAGES = 20
# Lower-case words allowed between an option and the "or" that joins it ("the Inula genus or the Fouquieria genus").
_GAP_WORDS = 2
# Where the question's comparative must stand: among its words before the options when they are at most _LEAD_WORDS
# ("Who was born first, A or B?", "As of the 2010 census, does A or B have ..."), or among the _CUE_WORDS after them
# ("Was A or B born first?"). A comparative elsewhere belongs to another clause ("What band released three EPs: ...
# recorded with an earlier lineup ..., A or B?"). Hand-set from the shapes of HaluEval's comparison questions.
_LEAD_WORDS = 10
_CUE_WORDS = 6
# Words between a number and the question's noun for the number to count it ("about 300 species", "1,200 beds").
_NOUN_WINDOW = 4

_EARLY = re.compile(r"\b(?:first|earlier|earliest|older|oldest|before|sooner)\b", re.IGNORECASE)
_LATE = re.compile(r"\b(?:after|younger|youngest|later|latest|newer|newest|more recent(?:ly)?|most recent(?:ly)?)\b",
                   re.IGNORECASE)
_MORE = re.compile(r"\b(?:more|most|larger|largest|bigger|biggest|greater|greatest|higher|highest)\s+(\w+)",
                   re.IGNORECASE)
_LESS = re.compile(r"\b(?:fewer|fewest|less|least|smaller|smallest|lower|lowest)\s+(\w+)", re.IGNORECASE)
_AFTER = re.compile(r"\b(?:after|than)\b", re.IGNORECASE)
# The words of an event a time comparison asks about, and of an age; a year is read after one of them (within
# _EVENT_WINDOW words) where the passages have it. Hand-listed (general English).
# The events of a thing's coming out are one event for a time comparison: "Which brand was marketed earlier?" reads
# "first appeared in the 1950s" as "was first produced and marketed in 1939" does.
_ORIGIN_STEMS = frozenset(stem(w) for w in (
    "founded established formed created launched started began begun introduced premiered debuted incorporated "
    "marketed produced appeared released published opened").split())
_EVENT_STEMS = _ORIGIN_STEMS | frozenset(stem(w) for w in (
    "born birth built completed constructed discovered invented signed elected died").split())
_AGE_STEMS = frozenset(stem(w) for w in ("older oldest younger youngest age").split())
_EVENT_WINDOW = 8
# A claim compares its two names itself when the comparative stands right before the second: "before B", "older
# than B", "more species than B" (a "before the war" elsewhere in the sentence compares nothing).
_COMPARES_NEXT = re.compile(r"\b(?:before|after|than)\s+(?:the\s+)?$", re.IGNORECASE)
_MAX_CLAIM_NAMES = 16
_OPENING_NAME = re.compile(r"([A-Z][\w'-]{1,40})\b")
_NOT_COUNTED = frozenset({"than", "number", "of", "the", "a", "an", "often", "widely", "frequently"})
# Question words that ask rather than describe ("Which film is ...", "What kind of ..."): never a property.
_GENERIC_STEMS = frozenset(stem(w) for w in (
    "which what who whom whose where when why how kind type sort one person thing also known called named").split())
_COMPARATIVES = frozenset("more most less least fewer fewest better best worse worst".split())
_AUXILIARIES = frozenset("is was are were has have had does did do can could will would".split())
_NO_PICK = re.compile(r"\b(?:both|neither|either|same|equal|equally|tie|tied)\b", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(?<!\d[,.])(1[0-9]{3}|20[0-9]{2})(?!\d|[,.]\d)")
# A sentence: up to a stop, but for an initial's ("the U.S. Ninth Army", "John F. Kennedy": one capital letter before
# it). One character per step of the loop, so linear on any text.
_SENTENCE = re.compile(r"(?:[^.!?\n]|(?<=\b[A-Z])\.)+(?:[.!?]+|\n|$)")
_WORD = re.compile(r"[^\W_]+")


def choice_options(question: str | None) -> tuple[str, str, str] | None:
    """The two named options of a question that offers a choice ("..., A or B?") and the question's words where its
    comparative must stand (:data:`_LEAD_WORDS`, :data:`_CUE_WORDS`), or None. Names are read as names first; where
    two are not joined by "or", by the question's own layout (:func:`.choice_layout.options_by_layout`)."""
    if not question:
        return None
    q = question[:MAX_QUESTION_CHARS]
    return _options_by_names(q) or options_by_layout(q, _cue)


def _options_by_names(q: str) -> tuple[str, str, str] | None:
    names = entity_mentions(q)
    for i in range(len(names) - 1):
        (s1, e1), (s2, e2) = names[i], names[i + 1]
        gap = q[e1:s2]
        words = _WORD.findall(gap)
        if "or" not in [w.lower() for w in words] or len(words) > 2 * _GAP_WORDS + 1:
            continue
        if any(w[:1].isupper() for w in words) or re.search(r"[.;?!]", gap):
            continue
        return q[s1:e1], q[s2:e2], _cue(q, s1, e2)
    return None


def _cue(q: str, first: int, last: int) -> str:
    """Where a question's comparative must stand: its words before the options (at most :data:`_LEAD_WORDS`) and
    the :data:`_CUE_WORDS` after them."""
    lead = q[:first].split()
    before = " ".join(lead) if len(lead) <= _LEAD_WORDS else ""
    return f"{before} {' '.join(q[last:].split()[:_CUE_WORDS])}"


def _option_terms(text: str) -> set[str]:
    """The content stems of an option's name, or of a text that may name it."""
    return {st for _, _, st in content_terms(text)}


def _names(text_terms: set[str], option_terms: set[str]) -> bool:
    """Whether a text (its stems) names the option: more than half its words."""
    if not option_terms:
        return False
    shared = len(option_terms & text_terms)
    return shared * 2 > len(option_terms)


def _units(passages: Sequence[str], options: tuple[set[str], set[str]]) -> tuple[list[str], list[str]]:
    """The texts that speak of each option alone: its passages that do not name the other option, else its runs of
    sentences in a passage that names both (:func:`_runs`). Each passage (and, where needed, each sentence) is read
    once for both options."""
    texts = [p[:MAX_PASSAGE_CHARS] for p in passages[:MAX_PASSAGES]]
    passage_units = _alone([(p, _option_terms(p)) for p in texts], options)
    if all(passage_units):
        return passage_units
    run_units = _runs(texts, options)
    return (passage_units[0] or run_units[0], passage_units[1] or run_units[1])


class _Run(str):
    """A run of sentences (:func:`_runs`) that knows where its first sentence, the one naming the option, ends."""

    own_end: int

    def __new__(cls, sentences: list[str]) -> _Run:
        run = super().__new__(cls, " ".join(sentences))
        run.own_end = len(sentences[0])
        return run


def _runs(texts: list[str], options: tuple[set[str], set[str]]) -> tuple[list[str], list[str]]:
    """Each option's runs of sentences: one that names it and not the other, with the sentences after it in its
    passage that name neither ("Our Girl is a British television drama, which starred Lacey Turner ... A one-off
    special was broadcast on 24 March 2013 ..."). A sentence naming both ends a run and starts none; a run never
    crosses into another passage. The sentences after the first speak of the option only by the question's words:
    a year of theirs counts after a word of the question's event (:func:`_year_of`), never as the first year."""
    out: tuple[list[str], list[str]] = ([], [])
    for text in texts:
        owner, run = None, []
        for m in _SENTENCE.finditer(text):
            sentence = m.group()
            terms = _option_terms(sentence)
            first, second = _names(terms, options[0]), _names(terms, options[1])
            if first or second:
                if owner is not None:
                    out[owner].append(_Run(run))
                owner, run = (None, []) if first and second else (0 if first else 1, [sentence])
            elif owner is not None:
                run.append(sentence)
        if owner is not None:
            out[owner].append(_Run(run))
    return out


def _alone(texts: list[tuple[str, set[str]]], options: tuple[set[str], set[str]]) -> tuple[list[str], list[str]]:
    """Of ``(text, its stems)``, those that name each option and not the other."""
    return ([t for t, terms in texts if _names(terms, options[0]) and not _names(terms, options[1])],
            [t for t, terms in texts if _names(terms, options[1]) and not _names(terms, options[0])])


def _year_of(units: list[str], events: frozenset[str]) -> int | None:
    """The option's year: the first within :data:`_EVENT_WINDOW` words after a word of the question's event ("was
    completed in 1889", "(born 3 November 1944)") where the units have one, else the first year of the units
    ("Lorraine Hansberry (May 19, 1930 – ...)"): "completed in 1889" wins over "visited by 7 million in 2019"."""
    first = None
    for u in units:
        for w in _WORD.finditer(u) if events else ():
            if stem(w.group()) in events:
                tail = " ".join(u[w.end():].split()[:_EVENT_WINDOW])
                m = _YEAR.search(tail)
                if m:
                    return int(m.group(1))
        m = _YEAR.search(u, 0, getattr(u, "own_end", len(u)))  # a run's first year is its first sentence's
        if m and first is None:
            first = int(m.group(1))
    return first


def _events(text: str) -> frozenset[str]:
    """The stems of the event words of a time comparison ("founded", "born"; "older" and "younger" are births)."""
    stems = {stem(w) for w in _WORD.findall(text.lower())}
    found = stems & _EVENT_STEMS
    if not found and stems & _AGE_STEMS:
        found = {stem("born"), stem("birth")}
    if found & _ORIGIN_STEMS:
        found |= _ORIGIN_STEMS
    return frozenset(found)


def _count_of(units: list[str], nouns: tuple[str, ...]) -> float | None:
    """The number counting the first of ``nouns`` (by stem) that the units count: within :data:`_NOUN_WINDOW` words
    before it ("about 300 species"), else right after it ("a population of 7,674,439")."""
    for noun in nouns:
        target = stem(noun)
        for u in units:
            spans = [(m.start(), m.end(), stem(m.group())) for m in _WORD.finditer(u)]
            numbers = [n for n in number_mentions(u) if not _YEAR.fullmatch(u[n.start:n.end])]
            for k, (s, e, st) in enumerate(spans):
                if st != target:
                    continue
                window_start = spans[max(0, k - _NOUN_WINDOW)][0]
                before = [n for n in numbers if window_start <= n.start and n.end <= s]
                if before:
                    return before[-1].value
                window_end = spans[min(len(spans) - 1, k + 2)][1]
                after = [n for n in numbers if e <= n.start and n.end <= window_end]
                if after:
                    return after[0].value
    return None


def _direction(text: str) -> tuple[str, str, tuple[str, ...]] | None:
    """``(kind, want, nouns)`` of a comparative in ``text``: kind ``"time"`` or ``"count"``, want ``"low"`` or
    ``"high"``, and for a count the words that may name what is counted ("more comedy troupes": "comedy",
    "troupes"). "first" and "older" ask for the lowest year, "younger" and "more recent" the highest."""
    early, late = _EARLY.search(text), _LATE.search(text)
    if early or late:
        return ("time", "low" if early and (not late or early.start() < late.start()) else "high", ())
    more, less = _MORE.search(text), _LESS.search(text)
    if more or less:
        m = more if more and (not less or more.start() < less.start()) else less
        nouns = tuple(w for w in _WORD.findall(text[m.start(1):])[:3] if w.lower() not in _NOT_COUNTED)
        return ("count", "high" if m is more else "low", nouns[:2])
    return None


@dataclass(frozen=True)
class _Comparison:
    """What a claim compares: the two options, which it puts ahead, and by what."""

    options: tuple[str, str]
    kind: str  # "time" or "count"
    want: str  # "low" or "high": the option ahead has the lowest or highest value
    nouns: tuple[str, ...]  # what a count counts
    events: frozenset[str]  # the stems of the event a year is read after
    start: int  # the picked option's span in the claim
    end: int
    picked: int


def choice_conflicts(claim: str, question: str | None, passages: Sequence[str], *,
                     answers_alone: bool = False) -> list[tuple[int, int, str]]:
    """The option the claim picks, as ``(start, end, why)`` in the claim, where the passages give the other
    option the first / most / fewest ... of what is asked (see the module docstring); else ``[]``. The options are
    the question's ("Who was born first, A or B?"), else two names the claim itself puts in time order ("Yale was
    founded before Harvard", "Yale is older than Harvard": the comparative right before the second name).

    Args:
        claim: The claim's text.
        question: The question the answer answers.
        passages: The passages' texts.
        answers_alone: The claim is the whole answer (a short answer read with its question): naming an option
            picks it. Otherwise a claim picks only with a comparative of its own ("A was born first"): a sentence
            of a longer answer that gives one option's year is no pick.
    """
    if _NO_PICK.search(claim) or has_negation(claim):
        return []
    found = choice_options(question)
    if found is not None and answers_alone and _direction(found[2]) is None:
        return _property_conflict(claim, question or "", found[:2], passages)
    compared = _question_pick(claim, found, answers_alone) if found is not None else _claim_pick(claim)
    if compared is None:
        return []
    option_terms = (_option_terms(compared.options[0]), _option_terms(compared.options[1]))
    units = _units(passages, option_terms)
    if compared.kind == "time":
        values = (_year_of(units[0], compared.events), _year_of(units[1], compared.events))
    else:
        values = (_count_of(units[0], compared.nouns), _count_of(units[1], compared.nouns))
    if values[0] is None or values[1] is None or values[0] == values[1]:
        return []
    pick = compared.picked
    best = min((0, 1), key=lambda i: values[i]) if compared.want == "low" else max((0, 1), key=lambda i: values[i])
    if best == pick:
        return []
    options = compared.options
    why = f"the passages give {options[best]} {_show(values[best])}, against {_show(values[pick])} for {options[pick]}"
    return [(compared.start, compared.end, why)]


def _property_conflict(claim: str, question: str, options: tuple[str, str], passages: Sequence[str]
                       ) -> list[tuple[int, int, str]]:
    """A short answer to a question that asks which option has a property ("Which composer was Hungarian, A or
    B?"), picking the option whose passages never say it where the other's do: a word of the property
    (:func:`_property_stems`) that the passages about the other option alone hold and those about the picked one
    lack (at least half the property's words), while the picked one's hold none the other's lack. Nothing is
    decided where the question is not of that form, the claim names both options or neither, or no passage speaks of
    the picked option alone."""
    option_terms = (_option_terms(options[0]), _option_terms(options[1]))
    asked = _property_stems(question, options, option_terms)
    picked = _pick(claim, option_terms, False) if asked else None
    if picked is None:
        return []
    units = _units(passages, option_terms)
    said = [asked & set().union(*(_option_terms(u) for u in side)) for side in units]
    start, end, pick = picked
    other = 1 - pick
    theirs, ours = said[other] - said[pick], said[pick] - said[other]
    if not units[pick] or ours or len(theirs) * 2 < len(asked):  # most of the property, on the other side only
        return []
    q = question[:MAX_QUESTION_CHARS]
    words = ", ".join(dict.fromkeys(q[s:e] for s, e, st in content_terms(q) if st in theirs))
    return [(start, end, f"the passages say {words} of {options[other]}, not of {options[pick]}")]


def _property_stems(question: str, options: tuple[str, str], option_terms: tuple[set[str], set[str]]
                    ) -> set[str] | None:
    """The stems of the property a "Which / Who / What ..., A or B?" question asks about: its words after the
    lead's first auxiliary ("Which composer was Hungarian": Hungarian; the lead's words before it are the category
    both options share), or after its first word past the wh-word ("Which river flows through Vienna": flows through
    Vienna), and after the options ("Which species, A or B, is native to South America?"), without the
    options' words and :data:`_GENERIC_STEMS`. None for any other question: options not set off by a comma ("Was
    Heaton born in Canada or England?" asks a value, not a subject), or a comparative (a time or count comparison,
    read by value, or one this module cannot read: "Which breed of dog is larger, ...")."""
    q = question[:MAX_QUESTION_CHARS]
    first = q.find(options[0])
    last = q.find(options[1], first + len(options[0])) if first >= 0 else -1
    if last < 0 or not re.sub(r"(?:\s+(?:the|a|an))?\s*$", "", q[:first], flags=re.IGNORECASE).endswith(","):
        return None
    lead, after = _WORD.findall(q[:first]), _WORD.findall(q[last + len(options[1]):])[:_CUE_WORDS + 4]
    if not lead or lead[0].lower() not in ("which", "who", "what"):
        return None
    # the category is the lead's words before its first auxiliary, or its first word after the wh-word where it has
    # none ("Which river flows through Vienna": river)
    aux = next((i for i, w in enumerate(lead) if w.lower() in _AUXILIARIES), None)
    category = 2 if lead[0].lower() == "which" else 1  # "Who appeared in ...": no category noun
    words = (lead[aux + 1:] if aux is not None else lead[category:]) + after
    if any(_comparative(w) for w in words):
        return None
    stems = {st for _, _, st in content_terms(" ".join(words))}
    return (stems - option_terms[0] - option_terms[1] - _GENERIC_STEMS) or None


def _comparative(word: str) -> bool:
    """A comparative or superlative ("larger", "heaviest", "more", "best"): a comparison, not a property."""
    low = word.lower()
    return low in _COMPARATIVES or (low.endswith(("er", "est")) and lexicon_side(word) is not None) or low.endswith(
        ("ier", "iest"))


def _question_pick(claim: str, found: tuple[str, str, str], answers_alone: bool) -> _Comparison | None:
    options, around = found[:2], found[2]
    asked = _direction(around)
    if asked is None:
        return None
    kind, want, nouns = asked
    said = _direction(claim)  # the claim's own comparative gives the direction ("A is younger than B"), not the noun
    if said is not None and said[0] == kind:
        want = said[1]
    elif not answers_alone:
        return None
    picked = _pick(claim, (_option_terms(options[0]), _option_terms(options[1])), said is not None)
    if picked is None:
        return None
    return _Comparison((options[0], options[1]), kind, want, nouns, _events(around), *picked)


def _claim_pick(claim: str) -> _Comparison | None:
    """Two names of the claim with a time comparative right before the second ("A was founded before B", "A is
    older than B"), if any. Counts are compared only as a question asks them (where they were measured)."""
    text = claim[:MAX_QUESTION_CHARS]
    names = entity_mentions(text)[:_MAX_CLAIM_NAMES]
    opening = _OPENING_NAME.match(text)  # a one-word name opening the sentence is no mention there ("Yale is older")
    if opening and opening.group(1).lower() not in STOPWORDS and not (names and names[0][0] < opening.end()):
        names = [opening.span(1), *names]
    for (s1, e1), (s2, e2) in zip(names, names[1:]):
        between = claim[e1:s2]
        if not _COMPARES_NEXT.search(between):
            continue
        direction = _direction(between)
        if direction is None or direction[0] != "time":
            continue  # counts only as the question asks them (measured there): a claim's "more goals" is not read
        kind, want, nouns = direction
        return _Comparison((claim[s1:e1], claim[s2:e2]), kind, want, nouns, _events(claim[:s2]), s1, e1, 0)
    return None


def _pick(claim: str, option_terms: tuple[set[str], set[str]], compares: bool) -> tuple[int, int, int] | None:
    """``(start, end, option)`` of the option the claim picks: the one it names, or, naming both, the one it names
    first when its comparative stands between the two ("B was founded after A"; not "While B opened in 1920, A came
    earlier")."""
    claim_terms = content_terms(claim)
    named = []
    for i, terms in enumerate(option_terms):
        hits = [(s, e) for s, e, st in claim_terms if st in terms]
        if terms and len({st for _, _, st in claim_terms if st in terms}) * 2 > len(terms):
            named.append((hits[0][0], hits[-1][1], i))
    if not named:
        return None
    named.sort()
    if len(named) == 2:
        between = claim[named[0][1]:named[1][0]]
        if not compares or _direction(between) is None and not _AFTER.search(between):
            return None
    return named[0]


def _show(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
