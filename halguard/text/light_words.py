"""Light words: common words that carry the sentence's grammar more than its facts ("stands 330 metres high", "paid
for", "reaching 4.2 billion", "Spain versus England", "daily").

A grounded answer in its own words uses them where its passage uses others ("is 330 metres tall", "funded",
"to 4.2 billion", "beat", "a day"), so one of them that its context never uses is weak evidence of an invented fact:
the verifier weighs such a word with ``ScoringWeights.novel_light_term`` instead of ``novel_term``
(:mod:`halguard.grounding.scoring`). The fact of a fabrication sits in its names, numbers, units, dates and content
words, which keep their weight.

The list is hand-written general English, not taken from the development data: support and linking verbs (their
meaning comes from their object: "make a profit", "take over", "hold a meeting", "come out"; and the verbs that say
an event noun happened, whose fact is the noun's: "the acquisition took place in 2018", "happened", "occurred",
not "was completed"), prepositions that
are not stopwords, and frequency adverbs that say "a day" / "a year" in one word. Left out on purpose: verbs whose
own meaning is the fact a fabrication changes ("leave", "stay", "keep", "pay", "win", "lose", "stop", "start",
"move"), and every unit and time word ("weekly" is not "daily"; ``tests/test_light_words.py`` checks that no
form of a light word is one).
"""

from __future__ import annotations

import re
from functools import lru_cache

from halguard.text.lexical import regular_forms, stem

__all__ = ["LIGHT_WORDS", "is_light_word", "light_phrase_spans"]

# Base forms; regular inflections are reached through stemming, irregular ones are listed.
LIGHT_WORDS = frozenset("""
    get got gotten make made take took taken give gave given come came go went gone see saw seen say said
    stand stood reach show shown shew hold held put set seem appear become became remain include provide offer use
    call serve feature contain represent mark total amount bring brought turn
    happen occur
    versus amid despite alongside respectively
    daily annually
""".split())


@lru_cache(maxsize=1)
def _light_stems() -> frozenset[str]:
    return frozenset(stem(f) for w in LIGHT_WORDS for f in regular_forms(w))


def is_light_word(word: str) -> bool:
    """Whether ``word`` (any inflection) is a light word."""
    return stem(word.lower()) in _light_stems()


# A light phrase: "took place" says one light word in two (its verb is dropped, its noun weighs as a light word).
_LIGHT_PHRASES = re.compile(r"\b(t(?:ake|akes|ook|aken|aking))\s+(place)\b", re.IGNORECASE)
# Function phrases: a content word that is only grammar inside its phrase ("No deaths have been reported so far",
# "by far the largest", "free as long as they're with an adult", "there's no longer any fee", "if you'd like to go
# aboard", "you'll need to arrive by", the "must" of "must arrive by"): no word to look up. The distance sense of "far" stays one ("twice as far as"), the length of "long" (read as
# a word unless a pronoun opens a clause after it: "as long as a bus"), the comparison of "longer" ("longer than").
_FUNCTION_PHRASES = (re.compile(r"\b(?:so|thus|by)\s+(far)\b", re.IGNORECASE),
                     re.compile(r"\b(?:as|so)\s+(long)\s+as\s+(?:you|they|he|she|it|we|I|there)\b", re.IGNORECASE),
                     re.compile(r"\b(?:no|any)\s+(longer)\b(?!\s+than\b)", re.IGNORECASE),
                     re.compile(r"(?:\bwould|\bshould|['’]d)\s+(like)\s+to\b", re.IGNORECASE),
                     re.compile(r"\b(needs?|needed)\s+to\s+[a-z]", re.IGNORECASE),
                     # "£45 compared with £55", "£45 instead of £52", "which adds up to eight hours": the comparison's
                     # and the total's grammar; their numbers are read as numbers
                     re.compile(r"\b(compared)\s+(?:with|to)\b", re.IGNORECASE),
                     re.compile(r"\b(instead)\s+of\b", re.IGNORECASE),
                     re.compile(r"\b(adds?|added|adding)\s+up\s+to\b", re.IGNORECASE))
# Connectives of a cause written with a content word ("owing to", "thanks to"): "because of", their stopwords'
# equivalent, is no word to look up either; the cause after them is.
_CONNECTIVES = re.compile(r"\b(owing|thanks)\s+to\b", re.IGNORECASE)


def light_phrase_spans(text: str) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """The light phrases of ``text`` ("took place"): the spans of their words that are part of the phrase's one
    word or only its grammar (the verb of "took place", the "far" of "so far", the "owing" of "owing to"), and of
    their nouns, which weigh as a light word."""
    found = list(_LIGHT_PHRASES.finditer(text))
    grammar = {m.span(1) for pattern in (*_FUNCTION_PHRASES, _CONNECTIVES) for m in pattern.finditer(text)}
    return {m.span(1) for m in found} | grammar, {m.span(2) for m in found}
