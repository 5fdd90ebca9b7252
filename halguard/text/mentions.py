"""Mentions, not strings: whether a name of a claim is one the passages mention, however they write it.

Every finding that asks "is this name in the context?" asks it here (:func:`mentioned`), and the role check asks
:func:`same_entity` whether two of its arguments name one thing. A name the passages' words do not contain by their
stems can still be theirs:

- **places by code or name** (:mod:`halguard.text.places`, from ``pycountry``): "Goleta, California" against a
  record's ``"state": "CA"``, "the United States" against "the US";
- **demonyms and place adjectives** (:mod:`halguard.text.places`, from WordNet): "two Texan bases" against "two
  Texas bases", "the Colombian-born actress", "a USA flag" against "an American flag", "Pennsylvanians";
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
import unicodedata
from collections.abc import Iterable

from halguard.text.lexical import PLURAL_INITIALISM, STOPWORDS, stem, word_spans
from halguard.text.places import (
    ACRONYM,
    SUBDIVISION_COUNTRIES,
    all_said_or_demonyms,
    demonym_of,
    demonym_place_keys,
    mentioned_places,
    place_keys,
)
from halguard.text.titles import TITLES
from halguard.util.cache_budgets import MENTION_FEATURES_BYTES
from halguard.util.memo import memoize_text

__all__ = ["MAX_RUN_WORDS", "OFFICE_INITIALISMS", "REPORTING_ABBREVIATIONS", "SUBDIVISION_COUNTRIES", "TITLES",
           "UNIT_SYMBOLS", "demonym_of", "initials", "mentioned", "same_entity", "strip_titles", "title_said"]

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

# Initialisms of offices and the words that spell them (lower-cased): "CEO Ilse Brandt" against "chief executive
# Ilse Brandt", "CFO" against "finance chief". Hand-typed (general business and government English, not taken from
# the development data): capitalised runs give their own initialisms, but news text writes offices in lower case,
# and drops the "officer" the initialism has.
OFFICE_INITIALISMS = {
    "ceo": ("chief executive", "chief executive officer"),
    "cfo": ("chief financial officer", "finance chief", "finance director"),
    "coo": ("chief operating officer",),
    "cto": ("chief technology officer", "chief technical officer"),
    "cio": ("chief information officer",),
    "cmo": ("chief marketing officer",),
    "md": ("managing director",),
    "vp": ("vice president",),
    "gm": ("general manager",),
    "mp": ("member of parliament",),
    "pm": ("prime minister",),
}

# Reporting abbreviations and the words that spell them (lower-cased, dots dropped): "Q2 revenue" against "revenue
# in the second quarter", "up 19% YoY" against "up 19% year-over-year". Hand-typed (general business and financial
# English, not taken from the development data; SummEdits' earnings summaries showed the gap): a quarter or half
# by its number, either way round ("Q4", "4Q"), and the comparisons earnings reports abbreviate.
REPORTING_ABBREVIATIONS = {
    **{form: (f"{ordinal} quarter",) for n, ordinal in enumerate(("first", "second", "third", "fourth"), 1)
       for form in (f"q{n}", f"{n}q")},
    **{form: (f"{ordinal} half",) for n, ordinal in enumerate(("first", "second"), 1) for form in (f"h{n}", f"{n}h")},
    "yoy": ("year over year", "year on year", "a year earlier", "a year ago", "the previous year", "the prior year",
            "last year"),
    "qoq": ("quarter over quarter", "quarter on quarter", "the previous quarter", "the prior quarter",
            "sequentially", "sequential"),
    "ytd": ("year to date",),
    "fy": ("fiscal year", "financial year", "full year"),
    "eps": ("earnings per share",),
}

# A run of capitalised words (with connectors inside) is read for its initials up to this many words: an acronym
# of more words is rare, and the sub-runs of a run are O(n^2).
MAX_RUN_WORDS = 8
# Words inside a name that its initialism skips ("US Citizenship and Immigration Services" is USCIS).
_CONNECTORS = frozenset({"and", "of", "for", "the", "&", "on", "in", "de", "la", "du", "des", "der", "von", "van"})
# A name squashed (no spaces, hyphens, case) is compared with a passage's words joined in twos only up to this
# length: "WiFi" against "Wi-Fi".
_MAX_SQUASHED = 24

_TITLE_OF = {form: forms[0] for forms in TITLES for form in forms}
_TITLE_FORMS = {forms[0]: forms for forms in TITLES}


# A JSON record quoted as text keeps its escapes: "...as always.\\n\\nPatty in the front" is the words "always"
# and "Patty", not "nnPatty".
_ESCAPES = re.compile(r"\\[nrt]")
_POSSESSIVE_END = re.compile(r"'s?$")


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
    if not ACRONYM.fullmatch(stripped):
        return None
    return stripped.replace(".", "")


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

    def read_from(shares: list[str | None], i: int) -> None:
        # The initialisms of the sub-runs that begin on word i and end on a name word: what initials() gives for
        # each (a connector's share is None: skipped).
        if shares[i] is None:
            return
        ini = shares[i]
        for share in shares[i + 1:]:
            if share is not None:
                ini += share
                if len(ini) >= 2:
                    inits.add(ini)

    def close_run() -> None:
        while run and run[-1].lower() in _CONNECTORS:
            run.pop()
        shares = [_initial_share(w) for w in run]  # each word's share of an initialism, read once
        for i in range(len(shares)):
            read_from(shares, i)
        run.clear()

    def slide_run() -> None:
        # A run at the cap: the initialisms that begin on its first word are read, then that word is dropped, so
        # a name that straddles the cap ("... Office and the Drug Enforcement Administration") keeps its own.
        read_from([_initial_share(w) for w in run], 0)
        del run[0]
        while run and run[0].lower() in _CONNECTORS:
            del run[0]

    for i, w in enumerate(words):
        if len(w) >= 2 and w.isupper() and w.isalpha():
            caps.add(w)
        if run and _breaks_run(text[spans[i - 1][1]:spans[i][0]], words[i - 1]):
            close_run()  # "... the Drug Enforcement Administration. This ..." is no name of four words
        if w[:1].isupper() or (run and w.lower() in _CONNECTORS):
            run.append(w)
            if len(run) >= MAX_RUN_WORDS:
                slide_run()
        else:
            close_run()
    close_run()
    for m in ACRONYM.finditer(text):  # "U.S." is one word to a reader, three to the word splitter
        caps.add(m.group(0).replace(".", ""))
    # A lower-case term's initialism ("EV" of "electric vehicles", "AI" of "artificial intelligence"): runs of two or
    # three content words of at least three letters, nothing between them but a space
    initialled = [_initialled(w) for w in words]
    spaced = [text[a[1]:b[0]] == " " for a, b in zip(spans, spans[1:])]  # nothing but a space after each word
    for i in range(len(words)):
        for n in (2, 3):
            if i + n > len(words) or not all(initialled[i:i + n]) or not all(spaced[i:i + n - 1]):
                break
            inits.add("".join(w[0] for w in words[i:i + n]).upper())
    places = mentioned_places(text, spans, words)
    lowered = [w.lower() for w in words]
    squashed = " " + " ".join(lowered) + " " + " ".join(a + b for a, b in zip(lowered, lowered[1:])) + " "
    return frozenset(inits), frozenset(caps), places, squashed


def _initialled(word: str) -> bool:
    """Whether a word gives its initial to a lower-case term's initialism: a content word of three letters or more,
    lower-case or capitalised (the term opening a sentence: "Electric vehicles ...")."""
    return len(word) >= 3 and word.isalpha() and (word.islower() or word.istitle()) and word.lower() not in STOPWORDS


def _breaks_run(gap: str, before: str) -> bool:
    """Whether the characters ``gap`` between two words end a name's run: a comma, a colon, a bracket, a quote, or a
    full stop after a word longer than a letter ("Administration. This"; "U.S. Attorney" stays one run)."""
    if any(ch in gap for ch in ',;:()[]"'):
        return True
    return "." in gap and len(before) > 1


# --- the questions ----------------------------------------------------------------------------------------------


def mentioned(name: str, sources: Iterable[str], terms: frozenset[str] | None = None) -> bool:
    """Whether the passages ``sources`` mention the name ``name`` (a claim's capitalised run), in any of the ways
    the module lists. ``terms``: the passages' stems, where the caller has them (a title-less name all of whose
    words are among them is found)."""
    name = _POSSESSIVE_END.sub("", _fold(name).strip())  # "Nigeria's government" mentions Nigeria
    bare = strip_titles(name)
    if not bare:
        return True  # a title alone ("Rep.") names no one
    texts = list(sources)
    if terms is not None and bare != name:
        words = [w for w in _words(bare) if w.lower() not in STOPWORDS]
        if words and all(stem(w) in terms for w in words):
            return True
    features = [_source_features(t) for t in texts]
    acronym = _acronym_text(bare[:-1] if PLURAL_INITIALISM.fullmatch(bare) else bare)  # "EVs": plural of "EV"
    if acronym and any(acronym in inits or acronym in caps for inits, caps, _, _ in features):
        return True
    ini = initials(bare)
    if len(ini) >= 2 and len(_words(bare)) >= 2 and any(ini in caps for _, caps, _, _ in features):
        return True
    places = place_keys(bare)
    if not places and " " not in bare:
        places = demonym_place_keys(bare)  # "American" against "the United States"
    if places and any(places & found for _, _, found, _ in features):
        return True
    squashed = re.sub(r"[^\w]+", "", bare.lower().replace("_", ""))
    if 2 <= len(squashed) <= _MAX_SQUASHED and any(f" {squashed} " in sq for _, _, _, sq in features):
        return True
    # A unit symbol as written ("°F"; "C." is an initial, not Celsius); an office's initialism with or without dots
    for spelt in (UNIT_SYMBOLS.get(bare.lower()), _spelt_abbreviation(bare)):
        if spelt and _spelt_in(spelt, features):
            return True
    if terms is not None:
        return _demonym_found(bare, terms) or _said_with_abbreviations(bare, terms, features)
    return False


def _spelt_abbreviation(word: str) -> tuple[str, ...] | None:
    """The spellings of an office's initialism or a reporting abbreviation, with or without dots ("CEO", "Q2"), and
    of a fiscal year run into its year ("FY2025", "FY25": "financial year 2025", "fiscal 2025", "2025 fiscal year")."""
    key = word.lower().replace(".", "")
    fiscal = _FISCAL_YEAR.fullmatch(key)
    if fiscal is not None:
        year = fiscal.group(1) if len(fiscal.group(1)) == 4 else "20" + fiscal.group(1)
        return (*(f"{kind} {year}" for kind in ("fiscal year", "financial year", "fiscal")),
                *(f"{year} {kind}" for kind in ("fiscal year", "financial year")))
    return OFFICE_INITIALISMS.get(key) or REPORTING_ABBREVIATIONS.get(key)


_FISCAL_YEAR = re.compile(r"fy['’]?(\d{4}|\d{2})")


def _spelt_in(spelt: tuple[str, ...], features: list[tuple[frozenset[str], frozenset[str], frozenset[str], str]]
              ) -> bool:
    return any(f" {u} " in sq for _, _, _, sq in features for u in spelt)


def _said_with_abbreviations(name: str, terms: frozenset[str], features: list) -> bool:
    """Every word of ``name`` is the passages' (by stem) or an abbreviation they spell out, and one is such an
    abbreviation: "Company's Q2" (a sentence-initial word run into the abbreviation) against "the company's second
    quarter"."""
    words = _words(name)
    spelt = [_spelt_abbreviation(w) for w in words]
    return (any(spelt) and all(stem(w) in terms or (s is not None and _spelt_in(s, features))
                               for w, s in zip(words, spelt)))


def _demonym_found(name: str, terms: frozenset[str]) -> bool:
    """Every word of ``name`` is the passages' (by stem) or a demonym / adjective of one of their places ("Texan"
    for "Texas", "Colombian" for "Colombia"), and at least one is such a word."""
    words = [w for w in _words(name) if w.lower() not in STOPWORDS and len(w) > 2]
    return all_said_or_demonyms([stem(w) for w in words], terms)


def same_entity(a: str, b: str) -> bool:
    """Whether two names (arguments' name words, as written) name one thing by the module's matches: the same
    place by code or name ("the US" / "the United States"), one the other's acronym ("EU" / "European Union"), or
    the same words squashed ("Wi-Fi" / "WiFi")."""
    a, b = strip_titles(_fold(a)).strip(), strip_titles(_fold(b)).strip()
    if not a or not b:
        return False
    if place_keys(a) & place_keys(b):
        return True
    for x, y in ((a, b), (b, a)):
        acronym = _acronym_text(x)
        if acronym and len(_words(y)) >= 2 and initials(y) == acronym:
            return True
    squash = [re.sub(r"[^\w]+", "", s.lower()) for s in (a, b)]
    return bool(squash[0]) and squash[0] == squash[1]
