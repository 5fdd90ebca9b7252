"""Mentions, not strings: whether a name of a claim is one the passages mention, however they write it.

Every finding that asks "is this name in the context?" asks it here (:func:`mentioned`), and the role check asks
:func:`same_entity` whether two of its arguments name one thing. A name the passages' words do not contain by their
stems can still be theirs:

- **places by code or name** (``pycountry``: ISO 3166 countries by name, common and official name, alpha-2 and
  alpha-3 codes, and the first-level subdivisions of :data:`SUBDIVISION_COUNTRIES` by name and postal code):
  "Goleta, California" against a record's ``"state": "CA"``, "the United States" against "the US";
- **demonyms and place adjectives** (WordNet's pertainyms and derivations, :mod:`halguard.text.wordnet`, where the
  two words also begin alike): "two Texan bases" against "two Texas bases", "the Colombian-born actress";
- **titles** and their abbreviations (:data:`TITLES`): "Rep. George Santos" is George Santos; a title alone names
  no one;
- **acronyms and initialisms** built from the passages' own long forms, and the reverse: "the EU" against "the
  European Union", "USCIS" against "US Citizenship and Immigration Services";
- **spelling variants**: hyphens, spaces and case ("Wi-Fi", "WiFi", "wifi");
- **unit symbols** (:data:`UNIT_SYMBOLS`): "°F" against "degrees Fahrenheit".

Possessives and plurals are the stemmer's (:func:`halguard.text.lexical.stem`), a surname alone is found by its
stem in the full name. Everything here is linear in the text and bounded: no regular expression with nested
repetition, word runs capped at :data:`MAX_RUN_WORDS`.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

from halguard.text.lexical import STOPWORDS, stem, word_spans
from halguard.text.wordnet import licensers
from halguard.util.cache_budgets import MENTION_FEATURES_BYTES
from halguard.util.memo import memoize_text

__all__ = ["MAX_RUN_WORDS", "SUBDIVISION_COUNTRIES", "TITLES", "UNIT_SYMBOLS", "demonym_of", "initials", "mentioned",
           "same_entity", "strip_titles", "title_said"]

# Countries whose first-level subdivisions are written by their codes in addresses and records ("Goleta, CA",
# "Toronto, ON", "Sydney NSW"): the United States, Canada and Australia. Other countries' ISO subdivision codes are
# numbers or codes no text uses ("FR-75"), which would only add chance matches.
SUBDIVISION_COUNTRIES = ("US", "CA", "AU")

# Short forms of countries that ISO 3166 does not list (pycountry has "United States", "USA", "US"; not "U.S.",
# "America", "UK", "Britain"). Hand-typed from common English usage; keys are canonical ISO alpha-2 codes.
_COUNTRY_SHORT_FORMS = {
    "US": ("U.S.", "U.S.A.", "America", "United States of America"),
    "GB": ("UK", "U.K.", "Britain", "Great Britain", "United Kingdom"),
    "RU": ("Russia",),
    "KR": ("South Korea", "Korea"),
    "KP": ("North Korea",),
    "IR": ("Iran",),
    "SY": ("Syria",),
    "VN": ("Vietnam",),
    "TW": ("Taiwan",),
    "VE": ("Venezuela",),
    "BO": ("Bolivia",),
    "TZ": ("Tanzania",),
    "LA": ("Laos",),
    "MD": ("Moldova",),
    "CZ": ("Czech Republic",),
    "NL": ("Holland",),
    "AE": ("UAE", "U.A.E.", "Emirates"),
}

# Titles and their abbreviations (one entry per title: the forms that say it). A title is not the name of whom it
# precedes: "Rep. George Santos" is found when "George Santos" is. Hand-typed (no maintained list exists in a
# package halguard installs); English honorifics and offices as news text abbreviates them.
TITLES = (
    ("rep", "representative", "congressman", "congresswoman"),
    ("sen", "senator"),
    ("gov", "governor"),
    ("pres", "president"),
    ("dr", "doctor"),
    ("prof", "professor"),
    ("gen", "general"),
    ("lt", "lieutenant"),
    ("col", "colonel"),
    ("capt", "captain"),
    ("sgt", "sergeant"),
    ("cmdr", "commander"),
    ("adm", "admiral"),
    ("supt", "superintendent"),
    ("insp", "inspector"),
    ("det", "detective"),
    ("atty", "attorney"),
    ("hon", "honourable", "honorable"),
    ("rev", "reverend"),
    ("sec", "secretary"),
    ("amb", "ambassador"),
    ("mr", "mister"),
    ("mrs",),
    ("ms",),
    ("mx",),
    ("sir",),
    ("dame",),
    ("lord",),
    ("lady",),
    ("st", "saint"),
)

# Unit symbols and the words that say them (lower-cased). Hand-typed from the SI brochure and US customary units:
# what a number's unit is written as when a passage spells it and an answer abbreviates it, or the reverse.
UNIT_SYMBOLS = {
    "f": ("fahrenheit", "°f"),
    "°f": ("fahrenheit", "f"),
    "c": ("celsius", "centigrade", "°c"),
    "°c": ("celsius", "centigrade", "c"),
    "k": ("kelvin",),
    "w": ("watt", "watts"),
    "kw": ("kilowatt", "kilowatts"),
    "mw": ("megawatt", "megawatts"),
    "gw": ("gigawatt", "gigawatts"),
    "kwh": ("kilowatt-hour", "kilowatt-hours", "kilowatt hour", "kilowatt hours"),
    "v": ("volt", "volts"),
    "a": ("amp", "amps", "ampere", "amperes"),
    "hz": ("hertz",),
    "ghz": ("gigahertz",),
    "mhz": ("megahertz",),
    "gb": ("gigabyte", "gigabytes"),
    "mb": ("megabyte", "megabytes"),
    "tb": ("terabyte", "terabytes"),
    "kb": ("kilobyte", "kilobytes"),
    "mph": ("miles per hour",),
    "km": ("kilometre", "kilometres", "kilometer", "kilometers"),
    "l": ("litre", "litres", "liter", "liters"),
}

# A run of capitalised words (with connectors inside) is read for its initials up to this many words: an acronym
# of more words is rare, and the sub-runs of a run are O(n^2).
MAX_RUN_WORDS = 8
# Words inside a name that its initialism skips ("US Citizenship and Immigration Services" is USCIS).
_CONNECTORS = frozenset({"and", "of", "for", "the", "&", "on", "in", "de", "la", "du", "des", "der", "von", "van"})
# A demonym and its place begin alike ("Texan" / "Texas", "French" / "France"): WordNet also relates a word to its
# more general and more specific words ("American" / "Texan"), which name other places.
_DEMONYM_PREFIX = 2
# A name squashed (no spaces, hyphens, case) is compared with a passage's words joined in twos only up to this
# length: "WiFi" against "Wi-Fi".
_MAX_SQUASHED = 24

_TITLE_OF = {form: forms[0] for forms in TITLES for form in forms}
_TITLE_FORMS = {forms[0]: forms for forms in TITLES}
_ACRONYM = re.compile(r"[A-Z](?:\.?[A-Z&])+\.?")


# A JSON record quoted as text keeps its escapes: "...as always.\\n\\nPatty in the front" is the words "always"
# and "Patty", not "nnPatty".
_ESCAPES = re.compile(r"\\[nrt]")


def _fold(text: str) -> str:
    return _ESCAPES.sub(" ", unicodedata.normalize("NFKC", text).replace("’", "'"))


def _words(text: str) -> list[str]:
    return [text[s:e] for s, e in word_spans(text)]


def strip_titles(name: str) -> str:
    """``name`` without the titles it opens with ("Rep. George Santos" -> "George Santos"); "" for a title alone."""
    words = _words(name)
    i = 0
    while i < len(words) and words[i].lower() in _TITLE_OF:
        i += 1
    if i == 0:
        return name
    if i == len(words):
        return ""
    spans = word_spans(name)
    return name[spans[i][0]:]


def title_said(word: str, terms: frozenset[str]) -> bool:
    """Whether ``word`` is a title (:data:`TITLES`) that the passages say in one of its forms ("Rep." for
    "Representative" or "congressman", by their stems in ``terms``)."""
    title = _TITLE_OF.get(word.lower().rstrip("."))
    if title is None:
        return False
    return any(stem(form) in terms for form in _TITLE_FORMS[title])


def initials(name: str) -> str:
    """The initialism of a name: each capitalised word's first letter, an all-capitals word whole ("US
    Citizenship and Immigration Services" -> "USCIS"); connectors skipped. Upper-case."""
    out = []
    for w in _words(name):
        share = _initial_share(w)
        if share == "":
            return ""  # a lower-case content word: not a proper name's run
        if share is not None:
            out.append(share)
    return "".join(out)


def _initial_share(word: str) -> str | None:
    """What ``word`` gives an initialism: an all-capitals word whole, a capitalised word its first letter, a
    connector nothing (None), a lower-case content word "" (no initialism)."""
    if word.lower() in _CONNECTORS:
        return None
    if len(word) > 1 and word.isupper():
        return word
    return word[0] if word[:1].isupper() else ""


def _acronym_text(name: str) -> str | None:
    """The acronym ``name`` is ("EU", "U.S.", "USCIS"), upper-cased without dots, or None."""
    stripped = name.strip()
    if not _ACRONYM.fullmatch(stripped):
        return None
    return stripped.replace(".", "")


# --- places -----------------------------------------------------------------------------------------------------

_places_lock = threading.Lock()
_places: tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]] | None = None


def _place_tables() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """(lower-cased name -> place keys, code as written in capitals -> place keys), built once from pycountry and
    the short forms above (pycountry missing: the short forms only)."""
    global _places
    if _places is not None:
        return _places
    with _places_lock:
        if _places is not None:
            return _places
        names: dict[str, set[str]] = {}
        codes: dict[str, set[str]] = {}

        def add(key: str, alias: str) -> None:
            bare = alias.strip().replace(".", "")
            if not bare:
                return
            if bare.isupper() and len(bare) <= 4:
                codes.setdefault(bare, set()).add(key)
            else:
                names.setdefault(bare.lower(), set()).add(key)

        try:
            import pycountry
        except ImportError:  # pragma: no cover - a dependency; without it places match by their words only
            pycountry = None
        if pycountry is not None:
            for c in pycountry.countries:
                key = f"country:{c.alpha_2}"
                for attr in ("name", "common_name", "official_name", "alpha_2", "alpha_3"):
                    value = getattr(c, attr, None)
                    if value:
                        add(key, value)
            for country in SUBDIVISION_COUNTRIES:
                for sub in pycountry.subdivisions.get(country_code=country) or ():
                    key = f"subdivision:{sub.code}"
                    add(key, sub.name)
                    add(key, sub.code.split("-", 1)[1])
        for alpha2, forms in _COUNTRY_SHORT_FORMS.items():
            for form in forms:
                add(f"country:{alpha2}", form)
        _places = ({a: frozenset(k) for a, k in names.items()}, {a: frozenset(k) for a, k in codes.items()})
    return _places


def _place_keys(name: str) -> frozenset[str]:
    """The places ``name`` can be ("California" -> the US state; "CA" -> California, Canada), or none. A code
    counts only written in capitals ("CA", "U.S."; not "ca")."""
    names, codes = _place_tables()
    bare = name.strip()
    for article in ("the ", "The "):
        bare = bare.removeprefix(article)
    bare = bare.replace(".", "")
    return names.get(bare.lower(), frozenset()) | codes.get(bare, frozenset())


# --- a passage's mentions, per source ---------------------------------------------------------------------------


@memoize_text(MENTION_FEATURES_BYTES)
def _source_features(text: str) -> tuple[frozenset[str], frozenset[str], frozenset[str], str]:
    """What a source's names can be matched by: the initialisms of its capitalised runs, its all-capitals words,
    the place keys it mentions, and its words squashed in ones and twos (" wifi ", " wi fi " -> " wifi ")."""
    text = _fold(text)
    spans = word_spans(text)
    words = [text[s:e] for s, e in spans]
    inits: set[str] = set()
    caps: set[str] = set()
    run: list[str] = []

    def close_run() -> None:
        while run and run[-1].lower() in _CONNECTORS:
            run.pop()
        # Each word's share of an initialism (a connector's is None: skipped), read once, then joined for every
        # sub-run that begins and ends on a name word: what initials() gives for that sub-run.
        shares = [_initial_share(w) for w in run]
        for i, first in enumerate(shares):
            if first is None:
                continue
            ini = first
            for share in shares[i + 1:]:
                if share is None:
                    continue
                ini += share
                if len(ini) >= 2:
                    inits.add(ini)
        run.clear()

    for w in words:
        if len(w) >= 2 and w.isupper() and w.isalpha():
            caps.add(w)
        if w[:1].isupper() or (run and w.lower() in _CONNECTORS):
            run.append(w)
            if len(run) >= MAX_RUN_WORDS:
                close_run()
        else:
            close_run()
    close_run()
    for m in _ACRONYM.finditer(text):  # "U.S." is one word to a reader, three to the word splitter
        caps.add(m.group(0).replace(".", ""))
    places = _mentioned_places(text, spans, words)
    lowered = [w.lower() for w in words]
    squashed = " " + " ".join(lowered) + " " + " ".join(a + b for a, b in zip(lowered, lowered[1:])) + " "
    return frozenset(inits), frozenset(caps), places, squashed


def _mentioned_places(text: str, spans: list[tuple[int, int]], words: list[str]) -> frozenset[str]:
    """The place keys of the aliases ``text`` holds: names as word runs of up to four, case-folded; codes as
    written in capitals ("CA", "U.S."), standing alone, not inside a longer name ("JP Morgan" names no country)."""
    names, codes = _place_tables()
    found: set[str] = set()
    lowered = [w.lower() for w in words]

    def joined(i: int, j: int) -> bool:  # words i and j (= i + 1) of one capitalised run: only spaces between
        return 0 <= i and j < len(spans) and words[i][:1].isupper() and words[j][:1].isupper() and \
            text[spans[i][1]:spans[j][0]].strip() == ""

    for i, w in enumerate(words):
        if w in codes and not joined(i - 1, i) and not joined(i, i + 1):
            found |= codes[w]
        for n in range(1, 5):
            if i + n > len(words):
                break
            found |= names.get(" ".join(lowered[i:i + n]), frozenset())
    for m in _ACRONYM.finditer(text):
        if "." in m.group(0):
            found |= codes.get(m.group(0).replace(".", ""), frozenset())
    return frozenset(found)


# --- the questions ----------------------------------------------------------------------------------------------


def mentioned(name: str, sources: Iterable[str], terms: frozenset[str] | None = None) -> bool:
    """Whether the passages ``sources`` mention the name ``name`` (a claim's capitalised run), in any of the ways
    the module lists. ``terms``: the passages' stems, where the caller has them (a title-less name all of whose
    words are among them is found)."""
    name = _fold(name).strip()
    bare = strip_titles(name)
    if not bare:
        return True  # a title alone ("Rep.") names no one
    texts = list(sources)
    if terms is not None and bare != name:
        words = [w for w in _words(bare) if w.lower() not in STOPWORDS]
        if words and all(stem(w) in terms for w in words):
            return True
    features = [_source_features(t) for t in texts]
    acronym = _acronym_text(bare)
    if acronym and any(acronym in inits or acronym in caps for inits, caps, _, _ in features):
        return True
    ini = initials(bare)
    if len(ini) >= 2 and len(_words(bare)) >= 2 and any(ini in caps for _, caps, _, _ in features):
        return True
    places = _place_keys(bare)
    if places and any(places & found for _, _, found, _ in features):
        return True
    squashed = re.sub(r"[^\w]+", "", bare.lower().replace("_", ""))
    if 2 <= len(squashed) <= _MAX_SQUASHED and any(f" {squashed} " in sq for _, _, _, sq in features):
        return True
    unit = UNIT_SYMBOLS.get(bare.lower())
    if unit and any(f" {u} " in sq for _, _, _, sq in features for u in unit):
        return True
    if terms is not None:
        return _demonym_found(bare, terms)
    return False


def _demonym_found(name: str, terms: frozenset[str]) -> bool:
    """Every word of ``name`` is the passages' (by stem) or a demonym / adjective of one of their places ("Texan"
    for "Texas", "Colombian" for "Colombia"), and at least one is such a word."""
    words = [w for w in _words(name) if w.lower() not in STOPWORDS and len(w) > 2]
    return _all_said_or_demonyms([stem(w) for w in words], terms)


def _all_said_or_demonyms(stems: Sequence[str], said: frozenset[str]) -> bool:
    """Each of ``stems`` is in ``said`` or a demonym of one there, and at least one is a demonym."""
    related = False
    for st in stems:
        if st in said:
            continue
        if not _place_word(st, said):
            return False
        related = True
    return related


@lru_cache(maxsize=4096)
def _related_places(term_stem: str) -> tuple[str, ...]:
    low = term_stem.lower()
    return tuple(o for o in licensers(low) if _shared_prefix(o, low) >= _DEMONYM_PREFIX)


def _place_word(term_stem: str, terms: frozenset[str]) -> bool:
    return any(o in terms for o in _related_places(term_stem))


def demonym_of(words: Iterable[str], names: Iterable[str]) -> bool:
    """Whether each of ``words`` (lower-cased name words) is one of ``names`` or a demonym / adjective of one of
    them ("texan" of "texas"), and at least one is a demonym."""
    return _all_said_or_demonyms([stem(w) for w in words], frozenset(stem(n) for n in names))


def _shared_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def same_entity(a: str, b: str) -> bool:
    """Whether two names (arguments' name words, as written) name one thing by the module's matches: the same
    place by code or name ("the US" / "the United States"), one the other's acronym ("EU" / "European Union"), or
    the same words squashed ("Wi-Fi" / "WiFi")."""
    a, b = strip_titles(_fold(a)).strip(), strip_titles(_fold(b)).strip()
    if not a or not b:
        return False
    if _place_keys(a) & _place_keys(b):
        return True
    for x, y in ((a, b), (b, a)):
        acronym = _acronym_text(x)
        if acronym and len(_words(y)) >= 2 and initials(y) == acronym:
            return True
    squash = [re.sub(r"[^\w]+", "", s.lower()) for s in (a, b)]
    return bool(squash[0]) and squash[0] == squash[1]
