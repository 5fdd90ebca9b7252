"""An exception turned around: "holds placed at Eastgate, including interlibrary loans, will be rerouted to the Central
branch" against "Holds placed at Eastgate will be rerouted to the Central branch on Pell Street, except for
interlibrary loans"; "no points on any route, including flights to Iceland" against "no points, except on routes to
Iceland"; and the other way, "all toppings except cheese" against "all toppings, including cheese".

Every word of such a claim stands in the passage sentence it restates, so the word checks pass it, and no name or
number moved: what changed is which side of the statement a thing stands on. Read without a parse, as a role conflict
(the passages' excepted thing given as included): the claim includes a phrase ("including", "even", "as well as",
"along with") that shares at least half of its content words with a phrase a passage sentence excepts ("except for",
"excluding", "unless", "other than", "apart from", "with the exception of", "but not", "does not apply to"; "even if
the reason is redundancy" against "unless the reason is redundancy"), the claim's other words stand in that sentence
for at least :data:`.closest.RESTATED_OVERLAP` (the claim restates that statement, not another about the same thing;
or its part's words do, where it fuses statements: :func:`.closest.fused_parts`), and the claim excepts nothing
itself. The reverse (a passage's inclusion excepted by the claim, or a group it says all of: "£62 for all patients"
against "£62, except for NHS patients") is read the same way. A claim's "even if", "even when" or "even without"
turns a passage's condition too ("if", "when", "provided", "as long as"): "even if you've already used your card"
against "if the card has not been used", "even if they come without an adult" against "when accompanied by an adult".

Bounded: at most :data:`MAX_PHRASES` phrases of the claim, each compared with the sentences of the claim's sources
(:func:`.closest.source_sentences`: their first characters).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from halguard.grounding.signals.closest import fused_parts, part_holding, restates, source_sentences
from halguard.text.lexical import STOPWORDS, content_terms, stem, term_set

__all__ = ["MAX_PHRASES", "excepted_case", "exceptions_turned"]

# Phrases read per claim (a crafted claim of a thousand "including"s is read for its first few).
MAX_PHRASES = 3
# Words of a phrase read after its opening word ("except for interlibrary loans, which ...": "interlibrary loans").
_PHRASE_WORDS = 6

_EXCEPTING = re.compile(
    r"\b(?:except(?:\s{1,3}(?:for|on|in|at|to|from|when|where))?|excluding|unless|other\s{1,3}than|apart\s{1,3}from|"
    r"with\s{1,3}the\s{1,3}exception\s{1,3}of|but\s{1,3}not|save\s{1,3}for|aside\s{1,3}from|"
    r"(?:does|do|did|will)(?:\s{1,3}not|n['’]t)\s{1,3}apply\s{1,3}to)\b", re.IGNORECASE)
_INCLUDING = re.compile(
    r"\b(?:including|even|as\s{1,3}well\s{1,3}as|along\s{1,3}with|together\s{1,3}with|plus)\b"
    r"(?:\s{1,3}(?:for|on|in|at|to|from))?", re.IGNORECASE)
# "Even if" says the statement holds whatever the condition: against a passage's condition on the same words it turns
# the condition ("even if you've already used your card" / "if the card has not been used", "even if they come
# without an adult" / "when accompanied by an adult"). Not the "if" of the passage's own "even if".
_EVEN_IF = re.compile(r"even\s{1,3}(?:if|when|without)\b", re.IGNORECASE)
_EXCEPTING_OR_CONDITION = re.compile(
    rf"{_EXCEPTING.pattern}|(?<!even )\b(?:if|when|provided|as\s{{1,3}}long\s{{1,3}}as|so\s{{1,3}}long\s{{1,3}}as)\b",
    re.IGNORECASE)
# What a claim excepts, a passage may say of all: "£62 for all patients" is no "£62, except for NHS patients".
_INCLUDING_ALL = re.compile(rf"{_INCLUDING.pattern}|\b(?:for|to|on|at)\s{{1,3}}(?:all|every)\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W_][\w'’-]*|[^\w\s]")
# Words that end a phrase: a clause begins ("interlibrary loans, which must be collected ...").
_PHRASE_ENDS = frozenset("which who whom whose that where when while and or but".split())
# The fewest content words a fused claim's part must keep beside the phrase to be read alone: "The museum is open
# Tuesday to Sunday ..., but it is closed on all Mondays, including bank holiday Mondays" restates its passage sentence
# in its second part only (fewer words say too little to align).
_PART_OTHERS_MIN = 2

Turned = tuple[int, int, str]


def _phrase(text: str, after: int) -> tuple[int, set[str]]:
    """The phrase after an opening word ending at ``after``: its end offset and its content-word stems."""
    stems: set[str] = set()
    end, taken = after, 0
    for m in _WORD.finditer(text, after):
        word = m.group().lower()
        if not word[0].isalnum() or word in _PHRASE_ENDS or taken == _PHRASE_WORDS:
            break
        taken += 1
        end = m.end()
        if word not in STOPWORDS and not word[0].isdigit():
            stems.add(stem(word))
    return end, stems


def _opposed(claim_stems: set[str], said_stems: set[str]) -> bool:
    return bool(claim_stems) and bool(said_stems) and 2 * len(claim_stems & said_stems) >= len(claim_stems)


def exceptions_turned(text: str, sources: Sequence[str]) -> list[Turned]:
    """The phrases of ``text`` (a claim's checked text) that include what the sentence it restates excepts, or except
    what it includes (see the module)."""
    excepting = list(islice(_EXCEPTING.finditer(text), MAX_PHRASES + 1))
    including = list(islice(_INCLUDING.finditer(text), MAX_PHRASES))
    if excepting and including:
        return []  # the claim excepts and includes: its own sides are its own statement
    phrases, opposite = (including, _EXCEPTING) if including else (excepting[:MAX_PHRASES], _INCLUDING_ALL)
    if not phrases:
        return []  # every claim passes here: its words are read only where it includes or excepts
    claim_terms = {st for _, _, st in content_terms(text)}
    parts = fused_parts(text)
    found: list[Turned] = []
    for m in phrases:
        end, stems = _phrase(text, m.end())
        if _EVEN_IF.match(text, m.start()):
            opposite = _EXCEPTING_OR_CONDITION
        said = _said_on_the_other_side(sources, stems, claim_terms - stems, opposite)
        part_others = {st for _, _, st in content_terms(part_holding(text, parts, m.start()))} - stems
        if not said and part_others != claim_terms - stems and len(part_others) >= _PART_OTHERS_MIN:
            said = _said_on_the_other_side(sources, stems, part_others, opposite)
        if said:
            found.append((m.start(), end, f"exception turned: {text[m.start():end]} (the passage: {said})"))
    return found


def _said_on_the_other_side(sources: Sequence[str], stems: set[str], others: set[str], opposite: re.Pattern[str]
                            ) -> str:
    """The phrase of a passage sentence that puts ``stems`` on the other side (``opposite``: its opening words), in a
    sentence that holds at least :data:`.closest.RESTATED_OVERLAP` of the claim's ``others``; "" where none does."""
    for source in sources:
        for sentence, terms in source_sentences(source):
            if stems.isdisjoint(terms) or not restates(others, set(terms)):
                continue
            for o in islice(opposite.finditer(sentence), MAX_PHRASES):
                end, theirs = _phrase(sentence, o.end())
                if _opposed(stems, theirs):
                    return sentence[o.start():end]
    return ""


_UNLESS = re.compile(r"\bunless\b", re.IGNORECASE)
# An "unless" case runs to its clause's end ("unless a parent or guardian is on poolside"), read within _CASE_CHARS.
_CASE_END = re.compile(r"[,;:.!?()]")
_CASE_CHARS = 120
# The fewest content words of an "unless" phrase that say which case it is ("unless another member has reserved the
# item": member, reserved, item); fewer say too little to match a claim's condition by.
_CASE_WORDS_MIN = 2


def excepted_case(target: str, claim_terms: set[str], proposition: str) -> bool:
    """Whether ``proposition`` states its word ``target`` (a stem) unless a case that the claim (``claim_terms``, its
    stems) states, with no "unless" of its own: "once another member has placed a reservation on an item, it can't be
    renewed" against "Loans can be renewed up to three times ..., unless another member has reserved the item" says
    the excepted case, no renewal denied. At least half the phrase's content words are the claim's; "can't be renewed
    unless another member has reserved it" turns the exception around, and the negation checks read it. Read the other
    way too, where the passage negates ``target`` unless the case and the claim grants it on that condition ("can only
    use the deep end if a parent or guardian is on poolside" against "cannot use the deep end unless ...")."""
    if "unless" in claim_terms:
        return False
    for m in islice(_UNLESS.finditer(proposition), MAX_PHRASES):
        if target not in term_set(proposition[:m.start()]):
            continue
        clause = _CASE_END.split(proposition[m.end():m.end() + _CASE_CHARS], maxsplit=1)[0]
        case = {st for _, _, st in content_terms(clause)}
        if len(case) >= _CASE_WORDS_MIN and 2 * len(case & claim_terms) >= len(case):
            return True
    return False
