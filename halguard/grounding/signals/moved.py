"""A name of the passages moved into a sentence that names someone else: "Ferreira had narrowly won the first round."
against "Salas had won the first round narrowly.", when Ferreira is named elsewhere in the passage.

A name the passages lack in a copied sentence is the missing names' finding (``name_swapped``). A name they have,
put where its evidence sentence names another, is a swap the word checks cannot see: every word of the claim is
the passage's. The parse-based role check (:mod:`halguard.grounding.roles`) reads such swaps where it finds the
same event's frame in both; this reads the plainer case without a parse, as the same finding (``role_conflicts``):

- the claim copies its closest evidence sentence but for the name: at least two other content words, at least
  ``close_copy_overlap`` of them in that sentence (as ``name_swapped``); the title the claim writes before the name,
  where a passage writes it before the same name, is the name's ("chief financial officer Daniel Pryce said ..."
  where "Chief executive Miriam Oakes said" it);
- the claim's name is not in that sentence (by its words, or as the same entity another way: "the US" / "the United
  States"), and stands somewhere in the passages (a name they lack is the missing names' finding);
- the sentence names another entity, which the claim does not name, in the same slot: both words next to it are
  the words next to the claim's name ("*for* Rivera *last* season" / "*for* Valmont *last* season"; the start of
  the sentence counts as a word), or one of them is and is a content word ("Wallace *discovered*" / "Lund
  University *discovered*") or a preposition ("*from* London"; "*the* ICRC" / "*the* U.N." is no slot), and the
  passages never write the two as one name ("Tameka Raymond"). A coreferent said otherwise ("Acme's revenue
  rose 5%, the CEO said." against "The company's revenue rose 5%, CEO Jane Doe said.") has no such slot: Jane Doe
  stands where Acme does not. A weekday or a month is compared only with another of its kind ("said on
  Tuesday" where the sentence has "on Wednesday" and Tuesday is another day of the passage), a longer date never
  (the date checks read it);
- or the claim writes "X's W" where the sentence writes "Y's W" of another name and never "X's W" ("Kestrel's
  founder" / "Brightcrumb's founder"), or writes "W X" and no passage "X's W" ("Emil Ferenczi's teacher" / "the
  renowned teacher Emil Ferenczi"), the claim a copy of the sentence.

A sentence-initial word is a name where a passage writes it capitalised inside a sentence ("Salas had won" after
"the incumbent Jorge Salas"). Bounded: at most :data:`MAX_NAMES` names a side, each compared with the sentence's
names once, and a word looked up at most ``_MAX_OCCURRENCES`` times a passage.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from halguard.grounding.signals.closest import ClosestSentence, shared_share
from halguard.grounding.signals.scope import Scope
from halguard.text.dates import WEEKDAYS, month_number
from halguard.text.lexical import STOPWORDS, content_terms, entity_mentions, stem, term_set, word_spans
from halguard.text.mentions import same_entity, strip_titles

__all__ = ["moved_names", "slot_neighbours"]

Span = tuple[int, int]
_START = "<start>"
# The most names of a claim, and of its evidence sentence, compared (a crafted run of capitals is not read whole).
MAX_NAMES = 16
_POSSESSIVE = ("'s", "’s", "'", "’")


def slot_neighbours(text: str, start: int, end: int, spans: list[Span]) -> tuple[str, str]:
    """The words right before and after ``text[start:end]`` (lower-case; the start of the text is ``_START``)."""
    before, after = _START, ""
    for s, e in spans:
        if e <= start:
            before = text[s:e].lower()
        elif s >= end:
            after = text[s:e].lower()
            break
    return before, after


def _names(text: str, sources: list[str]) -> list[Span]:
    """The names of ``text`` (:func:`halguard.text.lexical.entity_mentions`), and its first word where a source
    writes that word capitalised inside a sentence: a sentence-initial "Salas" is the name "Jorge Salas" of the
    passage, as a sentence-initial "The" is no name."""
    spans = entity_mentions(text)
    words = word_spans(text)
    if words and (not spans or spans[0][0] > words[0][0]):
        s, e = words[0]
        word = text[s:e]
        if word[:1].isupper() and word.lower() not in STOPWORDS and any(_named_inside(word, src) for src in sources):
            spans.insert(0, (s, e))
    return spans[:MAX_NAMES]


def _named_inside(word: str, source: str) -> bool:
    """Whether ``source`` writes ``word`` (a possessive's name: "Brightcrumb" of "Brightcrumb's") inside a sentence
    (after a word, not after a sentence's end)."""
    word = next((word[:-len(p)] for p in _POSSESSIVE if word.endswith(p) and len(word) > len(p)), word)
    at, seen = source.find(word), 0
    while at >= 0 and seen < _MAX_OCCURRENCES:
        j = at - 1
        while j >= 0 and source[j] == " ":
            j -= 1
        end = at + len(word)
        if j >= 0 and source[j] not in '.!?:"\n' and not source[end:end + 1].isalnum():
            return True
        at, seen = source.find(word, at + 1), seen + 1
    return False


# Occurrences of a word looked at in one source (a crafted source repeating it is not read whole).
_MAX_OCCURRENCES = 32


def _same_slot(ours: tuple[str, str], theirs: tuple[str, str]) -> bool:
    """Whether two names stand in the same slot: both neighbours the same ("*for* Rivera *last*" / "*for* Valmont
    *last*", the sentence's start counting as one), or one that is a content word ("Wallace *discovered*" / "Lund
    University *discovered*"), a preposition ("awarded *to* Antony Hewish" / "awarded *to* Jocelyn Bell") or a verb of
    saying ("Ovington Home *said*" / "Trevane Lines *said*"); an article or a conjunction alone ("*the* ICRC" / "*the*
    U.N.") says nothing."""
    if ours == theirs and ours[1]:
        return True
    return any(a == b and a != _START and (a not in STOPWORDS or a in _SLOT_PREPOSITIONS or a in _SPEAKING)
               for a, b in zip(ours, theirs) if a)


# Verbs of saying right after a name: its speaker ("Ovington Home *said* 11 of its vessels ..." where a Trevane Lines
# spokesperson *said* it). A name is no speaker's slot before them only in the coreferent case the docstring reads,
# where the claim's own name is none. Hand-listed general English.
_SPEAKING = frozenset("said says told added stated announced reported claimed warned".split())
# Prepositions that mark an argument's role ("*from* London", "*for* Valmont"): next to a name, they place it.
_SLOT_PREPOSITIONS = frozenset(
    "in on at for from to by with of against over under into near behind after before during between among via "
    "per".split())


# Words of a noun a name modifies ("the Manila *distribution center*"), and the prepositions that put a name after
# the same noun ("the distribution center *in* Ghent").
_MODIFIED_WORDS = 3
_OBJECT_PREPOSITIONS = frozenset("in at of from".split())


def _modified_words(text: str, end: int, words: list[Span]) -> list[str]:
    """The content words right after the name ending at ``end``, up to a function word or a break (lower-case): the
    noun the name modifies ("Manila *distribution center* by the end of September")."""
    out: list[str] = []
    at = end
    for s, e in words:
        if s < end:
            continue
        word = text[s:e].lower()
        if text[at:s].strip() or word in STOPWORDS or len(out) == _MODIFIED_WORDS:
            break
        out.append(word)
        at = e
    return out


def _phrase_object_of(modified: list[str], sentence: str, start: int, words: list[Span]) -> bool:
    """Whether the sentence's name at ``start`` is the object of a preposition after the noun the claim's name
    modifies: "the distribution center in Ghent" where the claim writes "the Manila distribution center"."""
    before = [sentence[s:e].lower() for s, e in words if e <= start][-(len(modified) + 1):]
    return bool(modified) and len(before) == len(modified) + 1 and before[-1] in _OBJECT_PREPOSITIONS and (
        before[:-1] == modified)


def _one_name(claim_name: str, other: str, sources: list[str]) -> bool:
    """Whether a passage writes the two names as one ("Tameka Raymond": "Raymond" and "Tameka" name one person)."""
    return any(f"{other} {claim_name}" in src or f"{claim_name} {other}" in src for src in sources)


def _short_form(name: str, sentence_names: list[str], sources: list[str]) -> bool:
    """Whether a name of the sentence is the short form of the claim's ``name``, which a passage writes whole
    ("Northbridge" and "St. Aldric's" after "Northbridge General Hospital and St. Aldric Medical Centre"): one thing,
    named short after its first mention."""
    words = name.split()
    return any(name in src for src in sources) and any(
        0 < len(short) < len(words) and words[:len(short)] == short
        for short in (re.sub(r"['’]s?$", "", other).split() for other in sentence_names))


def _dated(name: str) -> str | None:
    """What kind of date a name is: "weekday" for one weekday ("Wednesday"), "month" for one month ("March"), "date"
    for a name with either among other words ("March 2020"), None for no date. A weekday or a month is compared only
    with another of its kind (a day moved to another event of the passage: "said on Tuesday" where the sentence says
    "on Wednesday"); a longer date is the date checks' (``calendar.changed_dates``)."""
    words = name.split()
    if len(words) == 1 and words[0].lower().rstrip("s") in _WEEKDAYS:
        return "weekday"
    if len(words) == 1 and month_number(words[0]) is not None:
        return "month"
    return "date" if any(w.lower() in _WEEKDAYS or month_number(w) is not None for w in words) else None


_WEEKDAYS = frozenset(WEEKDAYS)


def _in_sentence(name: str, sentence_terms: Collection[str], sentence_names: list[str]) -> bool:
    """Whether ``name`` stands in a text by at least half its words' stems, or as one of its ``sentence_names``
    another way (:func:`halguard.text.mentions.same_entity`: "the US" / "the United States")."""
    words = [st for _, _, st in content_terms(name)]
    present = sum(1 for st in words if st in sentence_terms)
    return (bool(words) and present * 2 >= len(words)) or any(same_entity(name, other) for other in sentence_names)


def _possessions(text: str, spans: list[Span], words: list[Span]) -> list[tuple[int, int, str, str, str]]:
    """The names of ``spans`` written as possessors, with what they possess: ``(start, end, name, stem, word)`` for
    "Kestrel's founder" (the name without its "'s", the possessed word's stem and the word)."""
    out = []
    for s, e in spans:
        name = text[s:e]
        ending = next((p for p in _POSSESSIVE if name.endswith(p)), None)
        if ending is None and text[e:e + 1] in ("'", "’") and not text[e + 1:e + 2].isalnum() and name[-1:] in "sS":
            ending, e = "", e + 1  # "Kestrel Foods' chief" (not "Ca' Morosini": an elision, no plural's possessive)
        if ending is None:
            continue
        after = next(((a, b) for a, b in words if a >= e), None)
        if after is not None and not text[e:after[0]].strip():
            word = text[after[0]:after[1]]
            out.append((s, e, name[:len(name) - len(ending)] if ending else name, stem(word), word))
    return out


def _is_the(word: str, name: str, sentence: str, sources: list[str]) -> bool:
    """Whether ``sentence`` calls ``name`` the ``word`` ("the renowned teacher Emil Ferenczi") and no source writes
    "name's word" (someone else may be the name's teacher too)."""
    called = re.compile(rf"\b{re.escape(word)}\s+{re.escape(name)}\b", re.IGNORECASE)
    owned = re.compile(rf"\b{re.escape(name)}['’]s?\s+{re.escape(word)}\b", re.IGNORECASE)
    return bool(called.search(sentence)) and not any(owned.search(src) for src in sources)


def _of_name(word: str, name: str, sources: list[str]) -> bool:
    """Whether a source writes the ``word`` "of" ``name`` ("chief executive of Northbridge" for "Northbridge's chief
    executive"): the claim's possessive says what the passage says."""
    of = re.compile(rf"\b{re.escape(word)}(?:\s+\w+){{0,2}}\s+of\s+(?:the\s+)?{re.escape(name)}\b", re.IGNORECASE)
    return any(of.search(src) for src in sources)


def _possessor_swaps(text: str, claim_names: list[Span], claim_words: list[Span], sentence: str,
                     sentence_names: list[Span], sentence_words: list[Span], context_terms: Collection[str],
                     sources: list[str]) -> list[tuple[int, int, str]]:
    """The claim's "X's W" where its sentence writes "Y's W" of another name Y and never "X's W", or writes "W X",
    X the W itself ("Emil Ferenczi's teacher" where the sentence has "the renowned teacher Emil Ferenczi")."""
    theirs = _possessions(sentence, sentence_names, sentence_words)
    out = []
    for s, e, name, word_stem, word in _possessions(text, claim_names, claim_words):
        same_word = [other for _, _, other, w, _ in theirs if w == word_stem]
        if not _in_sentence(name, context_terms, []):
            continue
        if same_word and not any(_in_sentence(name, term_set(other), [other]) for other in same_word) and not (
                _of_name(word, name, sources)):
            out.append((s, e, f"{name}'s {word} where the passage has {same_word[0]}'s {word}"))
        elif not same_word and _is_the(word, name, sentence, sources):
            out.append((s, e, f"{name}'s {word} where the passage has {word} {name}"))
    return out


# Words of a title read before a name ("chief financial officer Daniel Pryce").
_TITLE_WORDS = 4


def _title_terms(text: str, start: int, end: int, words: list[Span], sources: list[str]) -> set[str]:
    """The stems of the title ``text`` writes right before the name at ``start:end`` where a passage writes the same
    title before the same name ("chief financial officer Daniel Pryce"). A name moved into another's sentence takes
    its title along ("chief financial officer Daniel Pryce said order intake grew 17%" where "Chief executive Miriam
    Oakes said" it): those words are the name's, not the copy's."""
    before: list[Span] = []
    for s, e in reversed([span for span in words if span[1] <= start][-_TITLE_WORDS:]):
        gap = text[e:before[-1][0] if before else start]
        if gap.strip() or text[s:e].lower() in STOPWORDS:
            break  # a comma or a function word ends the title: "Pryce" in "the order, Pryce said" has none
        before.append((s, e))
    for k in range(len(before), 0, -1):
        titled = re.compile(re.escape(text[before[k - 1][0]:end]), re.IGNORECASE)
        if any(titled.search(src) for src in sources):
            return {stem(text[a:b]) for a, b in before[:k]}
    return set()


# The most semicolon parts of a sentence read as its propositions.
_MAX_PROPOSITIONS = 8


def _copied_proposition(closest: ClosestSentence, copy_overlap: float) -> ClosestSentence:
    """The proposition of ``closest`` (its sentence's parts between semicolons) that the claim copies: the one that
    shares most of the claim's words, where it alone holds ``copy_overlap`` of them; else ``closest`` itself. A name
    of the sentence's other proposition is another statement's: "closed to lane swimmers on Saturdays" copies "the
    pool is closed to lane swimmers on Sundays" of "... from 8:00am on Saturdays; the pool is closed ... on Sundays"."""
    if ";" not in closest.text or len(closest.claim_terms) < 3:
        return closest
    parts = [(part, term_set(part)) for part in closest.text.split(";")[:_MAX_PROPOSITIONS]]
    part, terms = max(parts, key=lambda p: len(closest.claim_terms & p[1]))
    if shared_share(closest.claim_terms, terms) < copy_overlap:
        return closest
    return ClosestSentence(closest.claim_terms, part, terms)


def moved_names(text: str, closest: ClosestSentence, scope: Scope, copy_overlap: float
                ) -> list[tuple[int, int, str]]:
    """The claim's names (offsets in ``text``) that the passages have but its ``closest`` sentence (of its best
    chunk, or of the passages for a part of a fused claim) puts another name in place of, with the reason in words
    ("Ferreira where the passage has Salas", "Kestrel's founder where the passage has Brightcrumb's founder")."""
    sources = [src.text for src in scope.sources]
    claim_names = _names(text, sources)
    if not claim_names or not closest.text:
        return []
    closest = _copied_proposition(closest, copy_overlap)
    claim_terms, sentence, sentence_terms = closest.claim_terms, closest.text, closest.terms
    sentence_spans = _names(sentence, sources)
    claim_words, sentence_words = word_spans(text), word_spans(sentence)
    out = []
    if len(claim_terms) >= 3 and shared_share(claim_terms, sentence_terms) >= copy_overlap:
        out = _possessor_swaps(text, claim_names, claim_words, sentence, sentence_spans, sentence_words,
                               scope.context_terms, sources)
    sentence_names = [sentence[s:e] for s, e in sentence_spans]
    claim_strings = [text[s:e] for s, e in claim_names]
    # Another entity of the sentence: one the claim does not name
    others = [(s, e, name, kind) for (s, e), name in zip(sentence_spans, sentence_names)
              if (kind := _dated(name)) != "date"
              and not any(_in_sentence(c, term_set(name), [name]) for c in claim_strings)]
    named_terms = {st for name in claim_strings for _, _, st in content_terms(name)}
    for (s, e), name in zip(claim_names, claim_strings):
        dated = _dated(name)
        if (not others or any(s < b and a < e for a, b, _ in out) or not strip_titles(name) or dated == "date"
                or not _in_sentence(name, scope.context_terms, [])  # the passages' words, not the question's
                or _in_sentence(name, sentence_terms, sentence_names) or _short_form(name, sentence_names, sources)):
            continue
        rest = claim_terms - {st for _, _, st in content_terms(name)} - _title_terms(text, s, e, claim_words, sources)
        # the copy is of the sentence's other words, not of another name: "Colonie, New York" (a short answer) copies
        # nothing of "shot on location in Albany, New York"
        if len(rest - named_terms) < 2 or shared_share(rest, sentence_terms) < copy_overlap:
            continue
        ours = slot_neighbours(text, s, e, claim_words)
        modified = _modified_words(text, e, claim_words)
        for os_, oe, other, kind in others:
            theirs = slot_neighbours(sentence, os_, oe, sentence_words)
            if kind == dated and (_same_slot(ours, theirs) or _phrase_object_of(modified, sentence, os_, sentence_words)
                                  ) and not _one_name(name, other, sources):
                out.append((s, e, f"{name} where the passage has {other}"))
                break
    return out
