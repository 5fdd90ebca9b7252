"""Phrasal verbs and idioms, and the one-word words they mean: "stepped down" is "resigned", "took over" is
"acquired", "set up" is "founded", "lifted off" is "launched"; "lost their lives" is "died", "at no cost" is "free".

WordNet's relations (:mod:`halguard.text.wordnet`) are keyed by single words, so a verb with its particle is read as
two words, neither of which the passage uses. :data:`PHRASAL_VERBS` is a hand-written table of common English
phrasal verbs in their everyday sense and the single verbs that say the same (not taken from the development data);
it is read both ways:

- the claim's phrasal verb ("the minister stepped down") is found where the passages use one of its verbs
  ("resigned"): :func:`phrasal_said`;
- the claim's verb ("the minister resigned") is found where a passage uses the phrasal verb ("stepped down"):
  :func:`verb_said_as_phrasal`.

A phrasal verb is its verb (any form) followed by its particle, directly or, for an adverb particle, after a short
object ("put the plan forward"). Words of a sibling sense are not in the
table ("take off" as remove, "turn out" as prove): a table entry must be what a grounded answer would write for the
passage's verb. :data:`IDIOMS` holds longer expressions the same way, each a regular expression whose groups are the
words it says otherwise, read both ways as the phrasal verbs are. Only expressions that carry no "who did what to
whom" are there: "took Tessera to court" for "sued" would hide a swap of who sued whom from the role check, which
compares frames of one predicate. Each scan is one pass of a regular expression over a claim or a source.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from functools import lru_cache
from itertools import chain

from halguard.text.lexical import base_form, regular_forms, stem

__all__ = ["IDIOMS", "PHRASAL_VERBS", "phrasal_said", "phrasal_verb_spans", "phrasals_in", "verb_said_as_phrasal"]

PHRASAL_VERBS: dict[str, tuple[str, ...]] = {
    "step down": ("resign", "quit"),
    "take over": ("acquire", "assume", "succeed", "replace"),
    "set up": ("establish", "found", "create", "start"),
    "carry out": ("conduct", "perform", "execute"),
    "put off": ("postpone", "delay"),
    "call off": ("cancel",),
    "give up": ("abandon", "quit", "surrender"),
    "turn down": ("reject", "decline", "refuse"),
    "shut down": ("close",),
    "close down": ("close",),
    "break out": ("erupt",),
    "go up": ("rise", "increase", "climb"),
    "go down": ("fall", "decrease", "drop", "decline"),
    "cut back": ("reduce", "cut"),
    "scale back": ("reduce",),
    "step up": ("increase", "intensify"),
    "sign up": ("register", "enrol", "enroll", "join"),
    "look into": ("investigate", "examine"),
    "find out": ("discover", "learn"),
    "point out": ("note", "observe"),
    "pass away": ("die",),
    "hand over": ("transfer",),
    "make up": ("constitute", "comprise", "form"),
    "take part": ("participate",),
    "lay off": ("dismiss", "fire"),
    "pay for": ("fund", "finance", "buy", "cover"),
    "team up": ("partner", "collaborate", "cooperate"),
    "set out": ("describe", "outline"),
    "back up": ("support",),
    "sell off": ("sell",),
    "buy out": ("buy", "acquire"),
    "pull out": ("withdraw",),
    "drop out": ("withdraw", "quit"),
    "roll out": ("launch", "introduce", "release"),
    "put forward": ("propose", "suggest"),
    "take off": ("launch", "depart"),
    "lift off": ("launch",),
    "blast off": ("launch",),
    "touch down": ("land",),
    "take place": ("happen", "occur", "hold"),
    "hold up": ("delay",),
    "phase out": ("end", "eliminate", "abolish"),
    "bring in": ("introduce",),
    "come back": ("return",),
    "come out": ("publish", "release"),
    "go back": ("return",),
    "send back": ("return",),
    "give back": ("return",),
    "hand back": ("return",),
    "walk out": ("strike",),
    "leave out": ("omit", "exclude", "drop"),
    "fill in": ("complete",),
    "put out": ("extinguish",),
    "throw out": ("dismiss", "reject", "discard"),
    "come down": ("fall", "collapse", "drop"),
    "break down": ("fail", "collapse"),
    "turn up": ("arrive", "appear"),
    "carry on": ("continue",),
    "call for": ("demand", "urge"),
    "look after": ("care",),
    "bring about": ("cause",),
    "deal with": ("handle", "address", "tackle"),
    "keep up": ("maintain",),
    "go ahead": ("proceed",),
    "set off": ("depart", "leave"),
    "pick up": ("collect",),
    "hand out": ("distribute",),
    "give out": ("distribute",),
    "send in": ("submit",),
    "hand in": ("submit",),
    "bring back": ("restore", "reintroduce"),
    "pay back": ("repay", "refund", "reimburse"),
    "set aside": ("reserve", "allocate", "earmark"),
    "draw up": ("draft", "prepare"),
    "switch off": ("disable", "deactivate"),
    "turn off": ("disable", "deactivate"),
    "switch on": ("enable", "activate"),
    "take down": ("remove",),
    "sort out": ("resolve", "fix"),
    "lock in": ("fix", "secure", "guarantee"),
}

# Idioms and the words they mean (stems of their forms are compared), hand-written from everyday English usage (not
# from the development data): (name, pattern whose groups are the idiom's words, meanings). A slot between the words
# is at most a few words (bounded repetition, no nesting). Read both ways, so a meaning is only a word the idiom says
# in any sentence ("stands 319 m high" is "tall", not "rises"; "is home to" is "live in", not "contains").
IDIOMS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("lose one's life", r"\b(los(?:e|es|t|ing))\s+(?:his|her|their|its|one's|our|your)\s+(li(?:fe|ves))\b",
     ("die", "death", "dead", "kill", "fatal", "fatality", "perish")),
    ("at no cost", r"\bat\s+(no)\s+(?:extra\s+|additional\s+)?(cost|charge)\b", ("free",)),
    ("free of charge", r"\b(free)\s+of\s+(charge)\b", ("free",)),
    ("be home to", r"\b(?:is|are|was|were|be|being|been)\s+(home)\s+to\b",
     ("live", "inhabit", "house", "host", "resident")),
    ("stand high", r"\b(st(?:and|ands|ood|anding))(?:\s+[\w.,]+){1,3}?\s+(high|tall)\b",
     ("tall", "tallest", "height", "high", "highest")),
    ("challenge in a higher court", r"\b(challeng(?:e|es|ed|ing))(?:\s+\S+){1,4}?\s+(?:in|at|before)\s+a\s+(higher)"
     r"\s+(court)\b", ("appeal",)),
    ("come into force", r"\b(c(?:ome|omes|ame|oming))\s+into\s+(force|effect)\b",
     ("effect", "effective", "start", "apply")),
    ("the sitting officeholder", r"\b(sitting)\s+(?=(?:mayor|president|governor|senator|prime|chancellor|member|mp|"
     r"judge|government|champion|premier|minister)\b)", ("incumbent", "reigning")),
    ("in honour of", r"\bin\s+(hono(?:u)?r)\s+of\b", ("after", "honor", "honour", "tribute", "commemorate")),
    ("staff", r"\b(staff)\b", ("employ", "employee", "worker", "workforce", "personnel")),
    ("belong to", r"\b(belong(?:s|ed|ing)?)\s+to\b", ("member", "membership")),
    ("be left without", r"\b(left)\s+(without)\b", ("lose", "lack")),
    ("in charge of", r"\bin\s+(charge)\s+of\b", ("lead", "head", "manage", "run", "responsible", "direct")),
    ("take charge of", r"\b(t(?:ake|akes|ook|aken|aking))\s+(charge)\s+of\b", ("lead", "head", "manage", "run",
                                                                                "direct")),
    ("keep watch on", r"\b(k(?:eep|eeps|ept|eeping))\s+(watch)\s+(?:on|over)\b", ("monitor", "watch", "observe",
                                                                                  "track")),
    ("make sure", r"\b(ma(?:ke|kes|de|king))\s+(sure)\b", ("ensure",)),
    ("get rid of", r"\b(g(?:et|ets|ot|etting))\s+(rid)\s+of\b", ("remove", "eliminate", "discard")),
    ("put in place", r"\b(put(?:s|ting)?)\s+in\s+(place)\b", ("implement", "introduce", "establish")),
    ("come up with", r"\b(c(?:ome|omes|ame|oming))\s+(up)\s+with\b", ("devise", "propose", "develop", "invent")),
    ("take the place of", r"\b(t(?:ake|akes|ook|aken|aking))\s+(?:the\s+)?(place)\s+of\b",
     ("replace", "succeed", "substitute")),
    ("be found not guilty", r"\b(f(?:ind|inds|ound|inding))\s+(not)\s+(guilty)\b", ("acquit", "clear")),
    ("be found guilty", r"\b(f(?:ind|inds|ound|inding))\s+(guilty)\b", ("convict",)),
    ("take first place", r"\b(t(?:ake|akes|ook|aken|aking))\s+(first)\s+(place)\b", ("win", "won", "first")),
    ("receive a sentence", r"\b(receiv(?:e|es|ed|ing))\s+an?\s+(?:[\w-]+\s+){0,2}?sentence\b", ("sentence",)),
    ("give the green light", r"\b(g(?:ive|ives|ave|iven|iving))\s+(?:\w+\s+){0,2}?(?:the\s+)?(green)\s+(light)\b",
     ("approve", "approval", "authorize", "authorise")),
    ("sign off on", r"\b(sign(?:s|ed|ing)?)\s+(off)\s+on\b", ("approve", "approval")),
    ("come out on top", r"\b(c(?:ome|omes|ame|oming))\s+(out)\s+on\s+(top)\b", ("win", "won", "beat", "victory")),
    # a duration after "for" says which "run": "a session runs for 75 minutes" lasts (not "runs for mayor")
    ("run for a time", r"\b(r(?:un|uns|an|unning))\s+for\s+(?:about\s+|around\s+|roughly\s+|up\s+to\s+)?[\w.,-]+\s+"
     r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b", ("last",)),
    # a place that opens its doors opens (again: "reopens"); an amount covered is paid ("covered £3 million of it")
    ("open one's doors", r"\b(open(?:s|ed|ing)?)\s+(?:its|their|his|her|our|the)\s+(doors)\b",
     ("open", "reopen", "opening")),
    ("cover an amount",
     r"\b(cover(?:s|ed|ing)?)\s+(?=(?:about\s+|around\s+|nearly\s+|almost\s+|roughly\s+)?[$£€¥]\s?\d)",
     ("pay", "fund", "finance", "contribute")),
    # British English: "ring" a person or a number is to telephone them (not a ring worn or a bell's), and a "jab" is
    # an injection
    ("ring someone", r"\b(r(?:ing|ings|ang|inging))\s+(?=(?:us|them|him|her|me|ahead|back|the|our|their|your|reception"
     r"|[+(]?\d))", ("phone", "telephone", "call")),
    ("a jab", r"\b(jabs?)\b(?!\s+(?:at|into|in)\b)", ("vaccination", "vaccine", "injection", "vaccinate", "booster",
                                                 "immunisation", "immunization", "immunise", "immunize")),
    # "a single" before a count says one of it: "in a single day" (not "a single mother": counted nouns only)
    ("a single", r"\b(?:a|one)\s+(single)\s+(?=(?:days?|weeks?|months?|years?|hours?|nights?|doses?|games?|matches"
     r"|match|seasons?|trips?|journeys?|visits?|sessions?)\b)", ("one",)),
)

# The most phrasal verbs and idioms a claim or a source is read for (a crafted text of a thousand "step down"s is not).
_MAX_FOUND = 64


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[tuple[str, str], tuple[str, tuple[str, ...]]], dict[str, list[str]]]:
    """(a form's stem, particle) -> (the phrasal verb, its single verbs' stems); single verb stem -> its phrasal
    verbs."""
    forward: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
    backward: dict[str, list[str]] = {}
    for phrase, verbs in PHRASAL_VERBS.items():
        verb, particle = phrase.split()
        meaning = _meaning(verbs)
        for form in regular_forms(verb):
            forward[(base_form(stem(form)), particle)] = (phrase, meaning)
        for st in meaning:
            backward.setdefault(st, []).append(phrase)
    for name, _, words in IDIOMS:
        for st in _meaning(words):
            backward.setdefault(st, []).append(name)
    return forward, backward


@lru_cache(maxsize=1)
def _meanings() -> dict[str, tuple[str, ...]]:
    """Each phrasal verb's and idiom's name -> the stems of the single words it means."""
    return {**{phrase: _meaning(verbs) for phrase, verbs in PHRASAL_VERBS.items()},
            **{name: _meaning(words) for name, _, words in IDIOMS}}


def _meaning(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(stem(f) for w in words for f in regular_forms(w))


_IDIOM_PATTERNS = tuple((name, re.compile(pattern, re.IGNORECASE), _meaning(words)) for name, pattern, words in IDIOMS)


def _idioms(text: str) -> Iterable[tuple[re.Match[str], str, tuple[str, ...]]]:
    """``(match, idiom's name, its meanings' stems)`` of each idiom of :data:`IDIOMS` in ``text``."""
    found = 0
    for name, pattern, meaning in _IDIOM_PATTERNS:
        for m in pattern.finditer(text):
            yield m, name, meaning
            found += 1
            if found >= _MAX_FOUND:
                return


_PAIR = re.compile(r"\b([A-Za-z]+)\s+(up|down|over|out|off|for|into|in|back|forward|part|place|away|aside|with|after|"
                   r"about|on|ahead)\b", re.IGNORECASE)


# A separable phrasal verb with a short object between its verb and its adverb particle: "who put the plan forward",
# "called it off", "set £2 million aside" (a determiner, a pronoun or an amount, then at most three words; its words
# are no group: they stay words of the claim to find). Not the prepositions' ("paid the bill for" is no "pay for").
_SPLIT_PAIR = re.compile(r"\b([A-Za-z]+)\s+(?:the|a|an|this|that|these|those|its|his|her|their|our|your|it|them|him"
                         r"|[$£€]?\d[\d,.]*%?)\s+(?:[A-Za-z-]+\s+){0,3}?(up|down|over|out|off|back|forward|away|aside)\b",
                         re.IGNORECASE)


def _phrasals(text: str) -> Iterable[tuple[re.Match[str], str, tuple[str, ...]]]:
    """``(match, phrasal verb, its single verbs' stems)`` of each phrasal verb of the table in ``text`` (the match's
    groups: the verb, the particle), the particle after the verb or after a short object (:data:`_SPLIT_PAIR`)."""
    forward, _ = _tables()
    found = 0
    for m in chain(_PAIR.finditer(text), _SPLIT_PAIR.finditer(text)):
        entry = forward.get((base_form(stem(m.group(1).lower())), m.group(2).lower()))
        if entry is not None:
            yield m, *entry
            found += 1
            if found >= _MAX_FOUND:
                return


def phrasal_said(text: str, terms: Collection[str], phrasals: Collection[str] = ()) -> list[tuple[int, int]]:
    """Spans of the words of ``text``'s phrasal verbs (the verb and the particle) and idioms (their groups' words)
    that one of their single words in ``terms`` (a scope's stems) says, or, for a phrasal verb, its own noun written
    closed ("taking over" of "Sentinel Bank's takeover", "shut down" of "the shutdown"), or another phrasal verb or
    idiom of the passages (``phrasals``: :func:`phrasals_in` of each) that means one of its words ("given out" where
    they say "handed out": both "distribute")."""
    spans: list[tuple[int, int]] = []
    theirs = {st for phrase in phrasals for st in _meanings().get(phrase, ())}
    found = [(m, meaning, stem(name.replace(" ", ""))) for m, name, meaning in _phrasals(text)]
    for m, meaning, closed in [*found, *((m, meaning, None) for m, _, meaning in _idioms(text))]:
        if any(v in terms or v in theirs for v in meaning) or closed in terms:
            spans += [m.span(g) for g in range(1, (m.re.groups or 0) + 1) if m.span(g)[0] >= 0]
    return spans


def phrasals_in(text: str) -> frozenset[str]:
    """The phrasal verbs and idioms of the tables that ``text`` uses ("step down", "lose one's life"), at most
    :data:`_MAX_FOUND` of each read."""
    return frozenset(phrase for _, phrase, _ in [*_phrasals(text), *_idioms(text)])


def phrasal_verb_spans(text: str) -> set[tuple[int, int]]:
    """Spans of the verbs of ``text``'s phrasal verbs of the table ("turned" of "turned the plan down": reject): a
    light verb there says the phrasal's event, not a light word's nothing."""
    return {m.span(1) for m, _, _ in _phrasals(text)}


def verb_said_as_phrasal(term_stem: str, phrasals: Collection[str]) -> bool:
    """Whether a phrasal verb or idiom the passages use (``phrasals``: :func:`phrasals_in` of each) means the word of
    stem ``term_stem`` ("step down" for "resign", "lose one's life" for "die")."""
    _, backward = _tables()
    wanted = set(backward.get(term_stem, ())) | set(backward.get(base_form(term_stem), ()))
    return bool(wanted) and not wanted.isdisjoint(phrasals)
