"""A scope widened: "Fees for all students, home and international, will rise by 6%" against "The university will
raise tuition fees for international students by 6%"; "Curt Schilling holds the highest strikeout-to-walk ratio
amongst all baseball clubs" against "He is a member of the 3,000-strikeout club and has the highest strikeout-to-walk
ratio of any of its members".

Every word of such a claim can stand in the passages, so the word checks pass it, and nothing is moved for the copy
checks to see: what changed is how much of a group the statement covers. This reads it without a parse, as a role
conflict (the passages' restricted group given as the whole): the claim says "all", "every" or "any" (in a plain
statement: not "not ... any", "if any") before a noun phrase (its modifiers and its head noun: "all Corvane
passengers"), and

- the passage sentence with the head that shares most of the claim's other words holds at least
  :data:`.closest.RESTATED_OVERLAP` of them (the claim restates that sentence's statement, not another one about the
  same kind of thing: "allows clear representation of all the data points" beside "when you have only a few data
  points") and restricts each mention of the head: a restricting quantifier before it ("most adults", "the first five
  concerts"), a modifier the claim's phrase lacks ("international students", "business class passengers"), or a
  phrase after it with a word the claim lacks ("applicants to the aerospace program", "members of the youth
  section");
- no passage says it of the whole group ("all the pieces", "each student"), and no sentence that names the head
  bare holds as many of the claim's other words ("Adults with hypertension should ..." is said of every adult; a bare
  mention in a sentence the claim does not restate is another statement: "Students can pay in instalments").

"Not all", "almost all" and "nearly every" are no universals, nor is a capitalised "All" within a sentence (a name:
"All Nations University"). Bounded: at most :data:`MAX_PHRASES` phrases per claim, each compared with the sentences
of the claim's sources (:func:`.closest.source_sentences`: their first characters) that have its head.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from halguard.grounding.signals.closest import (
    RESTATED_OVERLAP,
    fused_parts,
    part_holding,
    shared_share,
    source_sentences,
)
from halguard.grounding.signals.paraphrase import UNIT_AND_TIME_WORDS, mid_sentence
from halguard.text.lexical import STOPWORDS, base_form, content_terms, stem
from halguard.text.segment import clause_start
from halguard.text.wordnet import names_people

__all__ = ["MAX_PHRASES", "widened_scopes"]

# Universal phrases read per claim (a crafted claim of a thousand "all"s is read for its first few).
MAX_PHRASES = 3
# Words of a noun phrase read after "all" / "every", and before a passage's mention of the head.
_PHRASE_WORDS = 4
# The fewest content words a fused claim's part keeps beside its universal phrase to be read alone.
_PART_OTHERS_MIN = 3

# "Both" of two things is all of them ("half price on both permits" against "for their first permit only"); not "both A
# and B", which names the two (signals.joined reads it). It widens only a mention that singles one of the two out
# (_ONE_OF_TWO: "their first permit"): "A and B are both American bands" against "A is an American new wave band"
# says nothing of a group.
_UNIVERSAL = re.compile(r"\b(?:all|every|any|both(?![^,.;:]{0,60}\band\b))\b", re.IGNORECASE)
# "Any" is all of a group only in a plain statement: not after a negator, a condition or a question's word in its
# clause ("not open to any members", "if any plot is left", "whether any tenant"), nor in a question.
_ANY_UNSAID = re.compile(r"\b(?:not|no|never|without|if|whether|hardly|nor|cannot|unless|before)\b|n['’]t\b",
                         re.IGNORECASE)
_CLAUSE_EDGE = re.compile(r"[,;:.!?()]")
_ONE_OF_TWO = re.compile(r"\b(?:first|second|one|single|either|only)\b", re.IGNORECASE)
_TOKEN = re.compile(r"[^\W\d_][\w'’-]*|\d+(?:[.,]\d+)*|[^\w\s]")
# Between "all" and its noun: "all of the students", "every one of its".
_DETERMINERS = frozenset("of the its their his her our these those".split())
# Before "all" / "every", these make it no universal.
_WEAKENERS = frozenset("not almost nearly virtually practically".split())
# Before a passage's mention of the head: the group is the whole...
_PASSAGE_UNIVERSALS = frozenset("all every each any both entire whole".split())
_PASSAGE_UNIVERSAL_STEMS = frozenset(stem(w) for w in _PASSAGE_UNIVERSALS)
# ... or a part of it.
_RESTRICTING = frozenset("some several most many few certain only select selected".split())
# After a passage's mention of the head, the words that start a phrase restricting it ("applicants to the aerospace
# program", "adults aged 80 and over", "students who receive aid"); an "-ing" word does too ("passengers flying").
_POST_LINKS = frozenset("to in at from of with without under over aged between who whose that on for".split())

Widened = tuple[int, int, str]  # offsets of the claim's universal phrase in its text, and the reason


def _claim_phrase(text: str, after: int) -> tuple[int, list[str]] | None:
    """The noun phrase after a universal at ``after``: its end offset and its words (the head last)."""
    taken: list[str] = []
    end = after
    for m in _TOKEN.finditer(text, after):
        word = m.group().lower()
        if not taken and word in _DETERMINERS:
            continue
        if word in STOPWORDS or not word[0].isalpha() or len(taken) == _PHRASE_WORDS:
            break
        st = stem(word)
        if taken and (word.endswith(("ed", "ing")) or base_form(st) != st):
            break  # "all of its kettle models sold in Canada": the participle starts what is said of them
        taken.append(word)
        end = m.end()
    return (end, taken) if taken else None


def _a_letter_name(word: str) -> bool:
    """Whether ``word`` is a capital letter naming a kind ("revision *B*", "Terminal *A*"): a modifier, though "a" is
    a stopword."""
    return len(word) == 1 and word.isupper() and word != "I"


def _restricted_before(tokens: list[str], i: int, modifiers: set[str]) -> list[str] | bool:
    """The words before the mention ``tokens[i]`` that restrict it (a restricting quantifier, or a modifier the claim's
    phrase lacks: "most adults", "business class passengers"); True where a universal says it whole ("all the
    pieces"), False where it is bare or modified only as the claim's phrase is (or numbered: "the 300 students" are
    all of them)."""
    before: list[str] = []
    restricted = False
    for word in reversed(tokens[max(0, i - _PHRASE_WORDS):i]):
        low = word.lower()
        if low in _PASSAGE_UNIVERSALS:
            if restricted:
                break  # "all the business class passengers" is all of a part
            return True
        if not low[0].isalnum():
            break
        if low in _DETERMINERS:
            continue  # "all the pieces", "most of the students"
        if low in _RESTRICTING:
            before.append(word)
            restricted = True
            break
        if low in STOPWORDS and not _a_letter_name(word):
            break
        before.append(word)
        restricted = restricted or (not low[0].isdigit() and stem(low) not in modifiers)
    return list(reversed(before)) if restricted else False


def _restricted_after(tokens: list[str], i: int, claim_words: set[str]) -> list[str] | None:
    """The words after the mention ``tokens[i]`` that restrict it: a phrase it heads ("applicants to the aerospace
    program", "adults aged 80 and over", "passengers flying economy") with a word the claim lacks; None where there
    is none or the claim says all of its words ("adults with hypertension" in a claim about them)."""
    after = tokens[i + 1:i + 2 + _PHRASE_WORDS]
    if not after or not (after[0].lower() in _POST_LINKS or (after[0].lower().endswith("ing") and len(after[0]) > 4)):
        return None
    taken: list[str] = []
    new = False
    for word in after:
        low = word.lower()
        if not word[0].isalnum() or (new and low in STOPWORDS):
            break  # the phrase ends with the noun the new word is part of ("members of the youth section")
        taken.append(word)
        new = new or ((low not in STOPWORDS or _a_letter_name(word)) and low not in _POST_LINKS
                      and stem(low) not in claim_words)
    return taken if new else None


def _restriction(sentence: str, head: str, modifiers: set[str], claim_words: set[str]) -> str | bool:
    """How ``sentence`` restricts its mentions of ``head`` (a stem): the first restricted mention's words; True where
    a mention is universal ("all the pieces"), False where one is bare or restricted only as the claim is."""
    tokens = [m.group() for m in _TOKEN.finditer(sentence)]
    said = ""
    for i, token in enumerate(tokens):
        if stem(token) != head:
            continue
        before = _restricted_before(tokens, i, modifiers)
        if before is True:
            return True
        after = None if before else _restricted_after(tokens, i, claim_words)
        if not before and after is None:
            return False
        said = said or " ".join([*(before or ()), token, *(after or ())])
    return said


def _group_as_said(sources: Sequence[str], head: str, modifiers: set[str], claim_words: set[str], others: set[str]
                   ) -> tuple[str, float, float] | None:
    """How the passages say the group ``head``: the restricted mention of the sentence that shares most of the
    claim's ``others`` (its words, or "") and that share, and the most any sentence naming it bare shares; None where
    a passage says it of all of the group."""
    best, best_share, bare_share = "", -1.0, -1.0
    for source in sources:
        for sentence, terms in source_sentences(source):
            if head not in terms:
                continue
            share = shared_share(others, set(terms))
            if share < RESTATED_OVERLAP and terms.isdisjoint(_PASSAGE_UNIVERSAL_STEMS):
                continue  # neither the sentence restated nor one naming the whole group: its words need no reading
            said = _restriction(sentence, head, modifiers, claim_words)
            if said is True:
                return None
            if said is False:
                bare_share = max(bare_share, share)
            elif said and share > best_share:  # "": the head's stem is no word of the sentence's own
                best, best_share = said, share
    return best, best_share, bare_share


def _restricted_where_restated(read: tuple[str, float, float]) -> bool:
    """Whether the group as the passages say it (:func:`_group_as_said`) widens: the sentence the claim restates
    restricts it, and no sentence naming it bare is restated as much (a bare mention elsewhere is another statement:
    "Students can pay in instalments")."""
    said, restated, bare = read
    return bool(said) and restated >= RESTATED_OVERLAP > bare


def widened_scopes(text: str, sources: Sequence[str]) -> list[Widened]:
    """The universal phrases of ``text`` (a claim's checked text) whose group the passages (``sources``: the texts
    the claim is checked against) name only restricted, in a sentence the claim restates (see the module)."""
    found: list[Widened] = []
    universals = list(islice(_UNIVERSAL.finditer(text), MAX_PHRASES))
    if not universals:
        return found  # every claim passes here: its words are read only where it says "all" or "every"
    claim_terms = {st for _, _, st in content_terms(text)}
    claim_words = {stem(t.group().lower()) for t in _TOKEN.finditer(text)}
    parts = fused_parts(text)
    for m in universals:
        before = text[max(0, m.start() - 12):m.start()].lower().split()
        if (before and before[-1] in _WEAKENERS) or (m.group()[0].isupper() and mid_sentence(text, m.start())):
            continue  # "almost all"; "All Nations University" is a name
        if m.group().lower() == "any" and _any_unsaid(text, m.start()):
            continue
        phrase = _claim_phrase(text, m.end())
        if phrase is None:
            continue
        end, words = phrase
        head = stem(words[-1])
        if len(head) < 3 or head in UNIT_AND_TIME_WORDS:
            continue  # "all day", "every week": a time, not a group
        if m.group().lower() == "any" and _any_in_passages(words[-1], sources):
            continue  # the passages' own "any": "remove any remaining residue" of "any remaining ... remover residue"
        modifiers = {stem(w) for w in words[:-1]}
        others = claim_terms - modifiers - {head, stem(m.group())}
        # the statement "all" is in: its part of a claim that fuses two ("..., and fixes the guest network flaw"),
        # where the part keeps enough words of its own to be read alone
        part = part_holding(text, parts, m.start())
        part_others = {st for _, _, st in content_terms(part)} - modifiers - {head, stem(m.group())}
        read = _group_as_said(sources, head, modifiers, claim_words,
                              part_others if len(part_others) >= _PART_OTHERS_MIN else others)
        if read is None:
            continue  # a passage says it of all of the group
        if m.group().lower() == "both" and not _ONE_OF_TWO.search(read[0]):
            continue  # "A and B are both musicians" against "A is a Scottish musician": no group widened
        if _restricted_where_restated(read):
            found.append((m.start(), end, f"scope widened: {text[m.start():end]} (the passage: {read[0]})"))
    return found + _everyone_widened(text, sources, parts, claim_words)


def _any_unsaid(text: str, at: int) -> bool:
    """Whether the "any" at ``at`` says no universal (:data:`_ANY_UNSAID`)."""
    clause = text[clause_start(text, at, _CLAUSE_EDGE, 200):at]
    return bool(_ANY_UNSAID.search(clause)) or text.rstrip().endswith("?")


def _any_in_passages(head: str, sources: Sequence[str]) -> bool:
    """Whether a passage says "any" a few words before ``head`` (the claim's head noun, as written; singular or
    plural)."""
    root = (head[:-1] if head.lower().endswith("s") else head).lower()
    said = re.compile(rf"\bany\s+(?:[^\W\d_][\w'’-]*\s+){{0,{_PHRASE_WORDS}}}{re.escape(root)}\w{{0,2}}\b",
                      re.IGNORECASE)
    # the pattern runs only over a passage that holds the word at all (a substring test costs far less)
    return any(root in source.lower() and said.search(source) for source in sources)


# "Everyone" is all people: "entry is free for everyone" against "admission is free for residents of the Vestfold
# region". Its group is the people the restated sentence names (halguard.text.wordnet.names_people).
_EVERYONE = re.compile(r"\b(?:everyone|everybody|anyone|anybody)\b", re.IGNORECASE)


# Before a noun that names the people a statement is about ("free for residents", "open to members"), not a modifier
# ("general admission") nor a verb ("curated by").
_BEFORE_PEOPLE = frozenset("for to of by the all among with from".split())


def _people_named(sentence: str) -> set[str]:
    """The stems of the nouns of ``sentence`` that name people after a preposition or determiner
    (:data:`_BEFORE_PEOPLE`) and end their phrase: "residents" of "free for residents of the Vestfold region", not
    "general" of "on top of general admission"."""
    tokens = [m.group() for m in _TOKEN.finditer(sentence)] + [""]
    return {stem(word) for before, word, after in zip(tokens, tokens[1:], tokens[2:])
            if before.lower() in _BEFORE_PEOPLE and word.isalpha() and word.islower()
            and not word.endswith(("ed", "ing")) and names_people({stem(word)})
            and not (after.isalpha() and after.islower() and after not in STOPWORDS)}  # "general admission"


def _everyone_widened(text: str, sources: Sequence[str], parts: list[tuple[int, str]], claim_words: set[str]
                      ) -> list[Widened]:
    """The "everyone" of ``text`` where the sentence its statement restates names its people only restricted (as
    :func:`widened_scopes` reads a group), and no passage says it of every person."""
    found: list[Widened] = []
    for m in islice(_EVERYONE.finditer(text), MAX_PHRASES):
        part = part_holding(text, parts, m.start())
        others = {st for _, _, st in content_terms(part)} - {stem(m.group().lower())}
        restated = [(shared_share(others, set(terms)), sentence, terms) for source in sources
                    for sentence, terms in source_sentences(source)]
        restated = [item for item in restated if item[0] >= RESTATED_OVERLAP]
        if not restated or any(_EVERYONE.search(sentence) for _, sentence, _ in restated):
            continue
        heads = sorted({head for _, sentence, _ in restated for head in _people_named(sentence)} - others)
        for head in heads[:MAX_PHRASES]:
            read = _group_as_said(sources, head, set(), claim_words, others)
            if read is not None and _restricted_where_restated(read):
                found.append((m.start(), m.end(), f"scope widened: {m.group()} (the passage: {read[0]})"))
                break
    return found
