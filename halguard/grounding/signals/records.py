"""Structured contexts: compare a claim with a JSON record field by field.

Sentence embeddings read ``"OutdoorSeating": false`` as text about outdoor seating, so "the restaurant
offers outdoor seating" looks well supported by it. When a source is a JSON object (a product record, a
business listing, a database row), this module reads its yes/no fields and reports claims that assert a
feature the record marks as absent (``false`` or ``"no"``; ``"None"`` means unknown in listings and is
not read as absent).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import NamedTuple

from halguard.grounding.signals.hours import HoursTable, hours_table
from halguard.text.lexical import NEGATION_CUES, has_negation, word_spans
from halguard.util import safejson
from halguard.util.cache_budgets import RECORD_FIELDS_BYTES
from halguard.util.memo import memoize_text

__all__ = ["absent_feature_mentions", "absent_features", "denied_feature_mentions", "opening_hours", "present_features",
           "stated_feature_words", "unknown_feature_mentions", "unknown_features"]

# Key prefixes that name the record type, not the feature ("RestaurantsTakeOut" is about take-out).
_KEY_PREFIXES = ("restaurants", "business")
# "None" is left out on purpose: listings use it for "unknown", not for "absent".
_ABSENT_VALUES = {"false", "no"}
# Values that say the feature is there ("WiFi": "free"); a level such as "paid" or "average" is not read as either,
# so "no free Wi-Fi" against "WiFi": "paid" is no conflict.
_PRESENT_VALUES = {"true", "yes", "free"}
# Values that say nothing about the feature ("None" in listings is "unknown"): a key with one states no feature.
_UNKNOWN_VALUES = {"none", "null", "", "unknown", "n/a"}
# A string value of at most this many words is a field's value ("free", "full_bar"), not the record's prose.
_VALUE_WORDS = 3
_MAX_RECORD_CHARS = 2_000_000


def _key_phrase(key: str) -> str:
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|[_\-]+", " ", key).lower().split()
    phrase = " ".join(words)
    for prefix in _KEY_PREFIXES:
        if phrase.startswith(prefix + " ") and len(phrase) > len(prefix) + 3:
            phrase = phrase[len(prefix) + 1 :]
    return phrase


def _bare(value: str) -> str:
    """A string value without its quotes, as written: ``"u'Free'"`` (a Python 2 repr some exports keep) and
    ``"'Free'"`` read as ``Free``."""
    v = value.strip()
    if v[:2].lower() in ("u'", 'u"'):
        v = v[1:]
    return v.strip("'\"")


def _unquote(value: str) -> str:
    """A string value without its quotes, lower-cased: ``"u'no'"`` reads as ``no``."""
    return _bare(value).lower()


def _fields(record: object) -> Iterator[tuple[str | None, object]]:
    """Every value of a parsed record with the key it stands under (a list's items under the list's key; a group,
    the dict itself, under its key before its fields), iteratively: a deep record cannot exhaust the stack."""
    stack: list[tuple[object, str | None]] = [(record, None)]
    while stack:
        value, key = stack.pop()
        if isinstance(value, list):
            stack.extend((v, key) for v in value)
            continue
        yield key, value
        if isinstance(value, dict):
            stack.extend((v, str(k)) for k, v in value.items())


def _features_marked(record: object, flag: bool, values: set[str]) -> set[str]:
    """The feature phrases of a parsed record whose value is ``flag`` or one of the string ``values`` (absent:
    ``False``, "no"; there: ``True``, "yes", "free")."""
    return {phrase for key, value in _fields(record) if key is not None and (
        value is flag or (isinstance(value, str) and _unquote(value) in values))
        for phrase in (_key_phrase(key),) if len(phrase) >= 3}


_NEGATION = NEGATION_CUES | {"lack", "absence", "unavailable"}
# Commas do not end the clause: "no valet, garage, or lot parking" negates the whole list.
_CLAUSE_BREAK = re.compile(r"[;:.!?()]|\b(?:but|however|while|although|whereas)\b", re.IGNORECASE)


def _clause(text: str, start: int, end: int, breaks: list[tuple[int, int]], ends: list[int]) -> str:
    """The clause around ``text[start:end]``: between the clause breaks (``breaks``, in order; ``ends``, their end
    offsets) on either side."""
    # Breaks do not overlap, so their ends are in order too: the last one ending at or before ``start``.
    i = bisect.bisect_right(ends, start)
    left = breaks[i - 1][1] if i else 0
    j = bisect.bisect_left(breaks, (end, -1))
    right = next((b_start for b_start, _ in breaks[j : j + 1]), len(text))
    return text[left:right]


_LEADING_SPACE = re.compile(r"\s*")


def _record_text(text: str) -> str | None:
    """``text`` stripped where it opens like JSON and is not over :data:`_MAX_RECORD_CHARS`; else None (prose:
    nothing to read, and nothing to remember)."""
    first = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]  # matches every text
    if text[first : first + 1] not in ("{", "["):
        return None
    stripped = text.strip()
    return stripped if len(stripped) <= _MAX_RECORD_CHARS else None


class _Reading(NamedTuple):
    """What a record says of its features: absent, stated (as words), unknown."""

    absent: frozenset[str]
    stated_words: str
    unknown: frozenset[str]
    hours: HoursTable | None  # its week, where it lists one (:mod:`.hours`)
    present: frozenset[str]


_NOT_A_RECORD = _Reading(frozenset(), "", frozenset(), None, frozenset())


def _reading(text: str) -> _Reading:
    stripped = _record_text(text)
    return _NOT_A_RECORD if stripped is None else _read_record(stripped)


# Only texts that open like JSON are remembered: a cache of every prose passage's empty answer held the passages.
@memoize_text(RECORD_FIELDS_BYTES)  # bounded by bytes: a record can be megabytes
def _read_record(stripped: str) -> _Reading:
    """The record parsed once and read five ways."""
    try:
        record = safejson.loads(stripped)
    except ValueError:  # not JSON, or nested deeper than any record (JSONTooDeep): not a record
        return _NOT_A_RECORD
    absent = _features_marked(record, False, _ABSENT_VALUES)
    return _Reading(frozenset(absent - _asserted_in_free_text(record, absent)), _stated_words(record),
                    _unknown_features(record), hours_table(v for _, v in _fields(record) if isinstance(v, dict)),
                    frozenset(_features_marked(record, True, _PRESENT_VALUES) - absent))


def opening_hours(text: str) -> HoursTable | None:
    """The week a JSON record lists (``"hours": {"Monday": "17:30-23:0", ...}``; :func:`.hours.hours_table`); None
    if the text is no record or lists none."""
    return _reading(text).hours


def present_features(text: str) -> frozenset[str]:
    """Feature phrases a JSON record marks as there (``true``, ``"yes"``, ``"free"``); empty if not JSON. A feature
    the record also marks as absent elsewhere is left out."""
    return _reading(text).present


def absent_features(text: str) -> frozenset[str]:
    """Feature phrases a JSON record marks as absent ("outdoor seating", "upscale"); empty if not JSON."""
    return _reading(text).absent


# A string value of at least this many words is the record's own prose (a review, a description), not a field value.
_FREE_TEXT_WORDS = 6


def _asserted_in_free_text(record: object, features: set[str]) -> set[str]:
    """The ``features`` that the record's own prose asserts (a review: "a casual spot with free validated
    parking"): a record that says both is no evidence of absence, so a claim of the feature contradicts nothing.
    A mention in a negated clause ("no wifi here") asserts nothing and keeps the feature absent."""
    if not features:
        return set()
    prose: list[str] = []
    stack: list[object] = [record]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and value.count(" ") + 1 >= _FREE_TEXT_WORDS:
            prose.append(value)
    return {f for text in prose for _, _, f in absent_feature_mentions(text, frozenset(features))}


_TOKEN = re.compile(r"[\w-]+")
_MAX_PHRASE_WORDS = 8  # longer key phrases are not looked for (no listing has such feature names)


def _claim_phrases(claim: str) -> dict[str, list[tuple[int, int]]]:
    """Every run of up to _MAX_PHRASE_WORDS words of ``claim`` (single spaces between them), lower-cased, with
    its spans. A word is a maximal run of ``[\\w-]``, so boundaries match ``(?<![\\w-])...(?![\\w-])``."""
    words = [(m.start(), m.end()) for m in _TOKEN.finditer(claim)]
    found: dict[str, list[tuple[int, int]]] = {}
    for i, (start, end) in enumerate(words):
        for j in range(i, min(i + _MAX_PHRASE_WORDS, len(words))):
            if j > i and claim[words[j - 1][1] : words[j][0]] != " ":
                break
            found.setdefault(claim[start : words[j][1]].lower(), []).append((start, words[j][1]))
    return found


_NEIGHBOUR_BEFORE = re.compile(r"([\w'’&-]+)[ \t]+$")
_NEIGHBOUR_AFTER = re.compile(r"[ \t]+([\w'’&-]+)")


def _in_a_name(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is capitalised and joined to a capitalised word beside it: part of a longer name
    ("State Street", "Garage Doors"), not the feature ("free Wi-Fi", "OUTDOOR SEATING")."""
    if not text[start:start + 1].isupper():
        return False
    before = _NEIGHBOUR_BEFORE.search(text[max(0, start - 40):start])
    after = _NEIGHBOUR_AFTER.match(text, end)
    return any(m is not None and m.group(1)[:1].isupper() and m.group(1).lower() not in _SENTENCE_OPENERS
               for m in (before, after))


# Capitalised words beside a feature that do not make it a name ("The Wi-Fi is free").
_SENTENCE_OPENERS = frozenset({"the", "a", "an", "its", "their", "free", "and", "or", "with", "offers", "has"})


def absent_feature_mentions(claim: str, features: frozenset[str], *, cues: frozenset[str] = _NEGATION
                            ) -> list[tuple[int, int, str]]:
    """Spans of ``claim`` that assert one of ``features``, unless its clause is negated.

    A phrase matches on word boundaries, case-insensitively, and also written as one word ("takeout" for "take
    out") or with a hyphen. A mention in a clause with a negation cue ("outdoor seating is not available",
    "without valet parking") agrees with the record and is not reported. Linear in the claim's length times
    _MAX_PHRASE_WORDS, plus one lookup per feature (a record with thousands of fields stays fast).
    """
    if not features:
        return []
    phrases = _claim_phrases(claim)
    breaks = [(m.start(), m.end()) for m in _CLAUSE_BREAK.finditer(claim)]
    ends = [b_end for _, b_end in breaks]
    found = [(start, end, phrase) for start, end, phrase in _mentions(claim, features, phrases)
             if not has_negation(_clause(claim, start, end, breaks, ends), cues=cues)]
    return _longest(found)


def _mentions(claim: str, features: frozenset[str], phrases: dict[str, list[tuple[int, int]]]
              ) -> Iterator[tuple[int, int, str]]:
    """Each mention of one of ``features`` in ``claim`` (``phrases``: :func:`_claim_phrases` of it), also written as
    one word or with a hyphen, that is not a word of a longer name ("State Street", "Garage Doors")."""
    for phrase in sorted(features):
        for variant in {phrase, phrase.replace(" ", ""), phrase.replace(" ", "-")}:
            for start, end in phrases.get(variant, ()):
                if not _in_a_name(claim, start, end):
                    yield start, end, phrase


def _longest(found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """``found`` without the mentions inside another: the longest match at a position wins."""
    kept: list[tuple[int, int, str]] = []
    for f in sorted(found, key=lambda f: (f[0], -f[1])):
        if not kept or f[0] >= kept[-1][1]:
            kept.append(f)
    return kept


def stated_feature_words(text: str) -> str:
    """The features a JSON record states, as words: each key whose value says the feature is there (``true``,
    ``"yes"``, a short value such as ``"free"``) or is not (``false``, ``"no"``), and a group with any such key,
    said as its words and squashed ("RestaurantsTakeOut": true -> "take out takeout"; "WiFi": "free" -> "wi fi
    wifi"). "" if the text is no record. A record's keys are how it says what a business offers: a claim that says
    it in words ("takeout and delivery are available", "it does not take reservations") uses the record's words,
    and whether it says the record's polarity is the record conflicts' question (:func:`absent_feature_mentions`).
    A feature left unknown (``"None"``) is not stated (:func:`unknown_features`)."""
    return _reading(text).stated_words


def _stated_words(record: object) -> str:
    phrases = {_key_phrase(key) for key, value in _fields(record) if key is not None and (
        any(_states(v) for v in value.values()) if isinstance(value, dict) else _states(value))}
    return " ".join(f"{p} {p.replace(' ', '')}" for p in sorted(phrases) if len(p) >= 3)


def _states(value: object) -> bool:
    """Whether a field's value says the feature is there or not: a boolean, or a short string that is not unknown
    ("free", "yes", "no", "full_bar")."""
    if isinstance(value, bool):
        return True
    if not isinstance(value, str):
        return False
    written = _bare(value)
    v = written.lower()
    if v in ("true", "yes") or v in _ABSENT_VALUES:
        return True
    # a level, not a name, an address or a time: "free", "full_bar" ("Santa Barbara", "17:0-21:0" are not)
    return (v not in _UNKNOWN_VALUES and v.count(" ") < _VALUE_WORDS and written == v
            and not any(ch.isdigit() for ch in v))


# A claim that says a feature is unknown or unclear agrees with a record that leaves it unknown.
_UNKNOWN_CUES = _NEGATION | {"unknown", "unclear", "unspecified", "unlisted", "uncertain"}


def unknown_features(text: str) -> frozenset[str]:
    """Feature phrases a JSON record leaves unknown (``null`` or ``"None"``: listings say so for a feature nobody
    reported), except those the record's own values say ("Music": "None" in a record whose categories are "Music
    Venues"); empty if not JSON."""
    return _reading(text).unknown


def _unknown_features(record: object) -> frozenset[str]:
    unknown: set[str] = set()
    said: set[str] = set()
    for key, value in _fields(record):
        if key is not None and (value is None or (isinstance(value, str) and _unquote(value) in ("none", "null"))):
            phrase = _key_phrase(key)
            if len(phrase) >= 3:
                unknown.add(phrase)
        elif isinstance(value, str):
            said.update(w.lower() for w in _TOKEN.findall(value))
    return frozenset(f for f in unknown if not all(w in said for w in f.split()))


def unknown_feature_mentions(claim: str, features: frozenset[str]) -> list[tuple[int, int, str]]:
    """Spans of ``claim`` that assert one of ``features`` (a record leaves it unknown), unless its clause negates it
    or calls it unknown (:func:`absent_feature_mentions`'s matching)."""
    return absent_feature_mentions(claim, features, cues=_UNKNOWN_CUES)


# A negation reaches a feature named at most this many words after it ("does not offer WiFi, music or valet parking"):
# a list of features, not a new statement.
_DENIAL_REACH = 6
# Words that end a negation's reach before a later feature: a new subject or a subordinate clause ("no WiFi, but
# *they* offer outdoor seating", "not trendy *as* it has a casual ambience").
_DENIAL_STOPS = frozenset({"it", "they", "there", "he", "she", "we", "you", "its", "their", "as", "because", "since",
                           "although", "though", "yet", "instead", "rather", "while", "whereas", "which", "who",
                           "that", "so", "and", "but"})
# A negator before these scopes over a quantity or a focus ("not only", "not just", "no less"), not the feature.
_FOCUS_AFTER_CUE = frozenset({"only", "just", "merely", "all", "every", "always", "necessarily", "least", "less",
                              "more"})
# A claim about what the record says ("reservations are not mentioned", "no information on parking") denies no
# feature: where the record leaves it unknown, that is what it says.
_ABOUT_THE_DATA = frozenset({"information", "info", "mention", "mentioned", "mentions", "specified", "specify",
                             "specifies", "unspecified", "listed", "unlisted", "indicate", "indicated", "indicates",
                             "data", "known", "unknown", "unclear", "say", "says", "said", "state", "states", "stated",
                             "detail", "details", "record", "listing"})


def denied_feature_mentions(claim: str, features: frozenset[str], *, across_commas: bool = True
                            ) -> list[tuple[int, int, str]]:
    """Spans of ``claim`` that deny one of ``features``: a negation cue at most :data:`_DENIAL_REACH` words before
    the feature, in its clause, with only the negated phrase between ("does not offer WiFi or music", "no valet,
    garage or street parking", "without reservations"). A new subject or clause between them ends the cue's reach
    (:data:`_DENIAL_STOPS`: "no WiFi, and they offer outdoor seating"); with ``across_commas`` False a comma does too
    (the list reading is for features the record leaves unknown; one it states is denied only in the cue's own
    phrase). A claim about what the data says (:data:`_ABOUT_THE_DATA`) denies nothing. Linear in the claim's length
    times :data:`_MAX_PHRASE_WORDS` and the reach."""
    if not features:
        return []
    words = word_spans(claim)
    lowered = [claim[s:e].lower() for s, e in words]
    if any(w in _ABOUT_THE_DATA for w in lowered):
        return []
    phrases = _claim_phrases(claim)
    breaks = [m.start() for m in _CLAUSE_BREAK.finditer(claim)]
    starts = [s for s, _ in words]
    return _longest([(start, end, phrase) for start, end, phrase in _mentions(claim, features, phrases)
                     if _negated_before(claim, words, lowered, bisect.bisect_left(starts, start), breaks,
                                        across_commas)])


def _negated_before(claim: str, words: list[tuple[int, int]], lowered: list[str], first: int,
                    breaks: list[int], across_commas: bool) -> bool:
    """Whether a negation cue stands within :data:`_DENIAL_REACH` words before word ``first`` of ``claim``, with no
    clause break (``breaks``: their start offsets, in order), stop word (or, unless ``across_commas``, comma)
    between. Each step looks the breaks up by bisection: a claim of thousands of breaks and features stays linear."""
    end = words[first][0] if first < len(words) else len(claim)
    for i in range(first - 1, max(-1, first - 1 - _DENIAL_REACH), -1):
        gap = words[i][1]
        if bisect.bisect_left(breaks, gap) < bisect.bisect_left(breaks, end) or (
                not across_commas and "," in claim[gap:end]):
            return False
        if has_negation(lowered[i], cues=_NEGATION):
            after = lowered[i + 1 : i + 3]
            # "not only takeout but also delivery", "not to mention free WiFi": a focus, not a denial
            return not (after[:1] and after[0] in _FOCUS_AFTER_CUE) and after != ["to", "mention"]
        if lowered[i] in _DENIAL_STOPS:
            return False
    return False
