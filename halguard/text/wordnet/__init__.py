"""Words that say a claim's word in other words, from WordNet 3.0: "staff" is said by "personnel", "died" by "death".

``related.tsv.gz`` is built by ``training/wordnet_lexicon.py`` from Princeton WordNet 3.0 (its license, which
allows redistribution with its notice, is ``LICENSE-WordNet`` beside it): one line per stem, the stems that
license it (synonyms in the words' common senses, more specific words, a word's own forms and derivations; never
an antonym or a word of a sibling sense). Stems are :func:`halguard.text.lexical.stem`'s. Loaded once per process,
on first use (about 1 MiB on disk, ~20 MB in memory).
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Collection
from functools import lru_cache
from pathlib import Path

__all__ = ["form_in", "known", "licensed", "licensers", "load", "PEOPLE_WORDS", "names_people", "related_verbs"]

_TABLE_PATH = Path(__file__).resolve().parent / "related.tsv.gz"
# Verbs one step apart in any sense, never antonyms (training/wordnet_verbs.py): for the role frames, whose
# arguments say which sense is meant.
_VERBS_PATH = Path(__file__).resolve().parent / "verbs.tsv.gz"
# The stems of the words for kinds and groups of people (training/wordnet_people.py): "resident", "participant".
_PEOPLE_PATH = Path(__file__).resolve().parent / "people.tsv.gz"
_lock = threading.Lock()
_table: dict[str, str] | None = None
_verbs: dict[str, frozenset[str]] | None = None
_people: frozenset[str] | None = None


def load() -> dict[str, str]:
    """The table, read on the first call (about 0.15 s) and kept for the process."""
    global _table
    with _lock:
        if _table is None:
            table = {}
            with gzip.open(_TABLE_PATH, "rt", encoding="utf-8") as fh:
                for line in fh:
                    key, _, stems = line.rstrip("\n").partition("\t")
                    table[key] = stems
            _table = table
    return _table


def licensers(term_stem: str) -> list[str]:
    """The stems whose presence in a context says what the word of stem ``term_stem`` says (empty if none)."""
    table = _table if _table is not None else load()
    stems = table.get(term_stem)
    return stems.split(" ") if stems else []


def known(term_stem: str) -> bool:
    """Whether WordNet has a word of stem ``term_stem`` (a common word, not a name such as "Northwind")."""
    table = _table if _table is not None else load()
    return term_stem in table


def licensed(term_stem: str, terms: Collection[str]) -> bool:
    """Whether some stem in ``terms`` (a context's words) says what ``term_stem`` says, in other words: a licenser
    of it, or another form of a licenser ("bought" by "acquisition": "acquire" licenses "bought", and
    "acquisition" is a form of "acquire"; issue 45's nominalizations)."""
    found = licensers(term_stem)
    if any(s in terms for s in found) or any(f in terms for s in found for f in _forms(s)):
        return True
    # The word is a form of a context word ("founder" of "founded": WordNet keeps the derivation on the verb's line
    # only), or one of its own forms is said by one ("refrigerated": its "refrigerator" is the context's "fridge").
    return _a_form_of_one(term_stem, terms) or any(s in terms for f in _forms(term_stem) for s in licensers(f))


def form_in(term_stem: str, terms: Collection[str]) -> bool:
    """Whether ``terms`` (a context's stems) hold another form of the word of stem ``term_stem``: one of its forms
    ("founder" for "founded"), or a word it is a form of. Forms only, never synonyms: a form says the same thing
    wherever the context says it, while a synonym far from the claim's evidence is too often another sense."""
    return any(f in terms for f in _forms(term_stem)) or _a_form_of_one(term_stem, terms)


def _a_form_of_one(term_stem: str, terms: Collection[str]) -> bool:
    """Whether the word of stem ``term_stem`` is a form of one of ``terms`` (WordNet keeps a derivation on one line
    only: "founder" stands on "found"'s)."""
    head = term_stem[:FORM_PREFIX]
    return any(term_stem in _forms(t) for t in terms if t[:FORM_PREFIX] == head and t != term_stem)


# Another form of a word: a stem that the word's table line holds and that begins with the word's first letters
# (at most FORM_PREFIX of them): "acquir" -> "acquisition", "acquirement"; "fund" -> "funding". WordNet's lines mix
# forms with synonyms; the shared beginning keeps the forms (one more step of synonyms drifts: "buy" -> "get").
FORM_PREFIX = 5


@lru_cache(maxsize=4096)
def _forms(term_stem: str) -> tuple[str, ...]:
    head = term_stem[:min(FORM_PREFIX, len(term_stem))]
    return tuple(s for s in licensers(term_stem) if s != term_stem and s.startswith(head))


def related_verbs(verb_stem: str) -> frozenset[str]:
    """The stems of the verbs WordNet puts one step from the verb of stem ``verb_stem`` in some sense (the same
    synset, one directly above the other, one verb group), none of them its antonym; read on first use."""
    global _verbs
    if _verbs is None:
        with _lock:
            if _verbs is None:
                with gzip.open(_VERBS_PATH, "rt", encoding="utf-8") as fh:
                    _verbs = {key: frozenset(stems.split(" ")) for key, _, stems in
                              (line.rstrip("\n").partition("\t") for line in fh)}
    return _verbs.get(verb_stem, frozenset())


# The general words for people (stems), said by any kind of person of the evidence ("480 people" of "480 residents").
PEOPLE_WORDS = frozenset({"peopl", "person", "individual", "someon", "folk"})


def names_people(terms: Collection[str]) -> bool:
    """Whether some stem in ``terms`` names a kind or group of people ("residents", "participants", "staff":
    training/wordnet_people.py); the table is read on first use."""
    global _people
    if _people is None:
        with _lock:
            if _people is None:
                with gzip.open(_PEOPLE_PATH, "rt", encoding="utf-8") as fh:
                    _people = frozenset(fh.read().rstrip("\n").partition("\t")[2].split(" "))
    return not _people.isdisjoint(terms)
