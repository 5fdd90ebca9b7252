"""A short answer that gives the question back: "Johnny Cash" to "Fade to Black is an album by what American country
singer who is the younger brother of Johnny Cash?"; "Maurizio Lobina and Jeffrey Jey." to "Which Italian DJ is a
member of the same musical group as Jeffrey Jey and Maurizio Lobina?".

A question that asks who or which one names others in other roles; an answer whose every name is one of those, and
whose every word is the question's, fills the asked place with somebody the question already placed elsewhere. The
passages say who the question is about, so the name is found, its words are found, and the similarity is high: every
other check passes it. It is read as a role conflict (the question's entity given the asked role).

Only where it cannot be an answer: the question's asking sentence asks "who", "whom", "whose", "which" or "what"
(anywhere: "an album by what singer") for a thing, not a property ("what year", "what nationality", "what
kind": :data:`_PROPERTIES`), offers no choice ("X or Y", "of X and Y" are choice questions, :mod:`.choice`), and asks
nothing of two ("in common", "both"), and the answer does not pick one of names it lists ("which of Youngblood Hawke
and Violent Femmes"); the answer (a short answer, read with its question) names something, every
name it writes is one the question writes (folded, or the same entity by :func:`~halguard.text.mentions.same_entity`),
it writes no number the question lacks and no negation (a denial is the negation and premise checks'), and every
content word of it is the question's or a word of saying who did
what (:data:`_LINKING_WORDS`). "George Weston Limited" to "What is the name of the company founded by George Weston
... whose subsidiary Weston Bakeries Limited ...?" names a company the question does not, so it is an answer.
Bounded: one pass over the answer and the question's asking sentence.
"""

from __future__ import annotations

import re

from halguard.text.claims import asked_sentence_of
from halguard.text.lexical import content_terms, entity_mentions, has_negation, number_values, stem
from halguard.text.mentions import same_entity

__all__ = ["question_echoes"]

_ASKS_FOR_ONE = re.compile(r"\b(?:who|whom|whose|which|what)\b(?P<rest>.*)", re.IGNORECASE | re.DOTALL)
# After the wh-word, a property: the answer to these is a word, not one of the question's entities.
_PROPERTIES = re.compile(
    r"^\s*(?:is\s+the\s+|was\s+the\s+|are\s+the\s+)?(?:kind|type|sort|nationality|occupation|profession|job|"
    r"position|genre|year|decade|century|date|day|month|language|religion|colou?r|height|length|size|number|"
    r"percentage|role|sport|instrument|field|title|rank|age|time|difference|differences|purpose|reason)\b",
    re.IGNORECASE)
_LIST_GAP = re.compile(r"^\s*(?:,\s*(?:and\s+)?|and\s+|&\s*)$", re.IGNORECASE)
_TWO_OR_A_CHOICE = re.compile(r"\b(?:or|either|neither|both|in\s+common|between)\b", re.IGNORECASE)
# Words an answer may add to the question's without naming anything ("X founded it", "X was the one").
_LINKING_WORDS = frozenset(stem(w) for w in "one person man woman band group himself herself itself".split())


def _folded(name: str) -> str:
    return re.sub(r"['’]s\b", "", name).strip(" .,;:!?\"'“”()").lower()


def _coordinated(asked: str, mentions: list[tuple[int, int]]) -> list[set[str]]:
    """The question's names written as one list ("Jeffrey Jey and Maurizio Lobina", "A, B and C"), folded."""
    groups: list[set[str]] = []
    run: list[str] = []
    for (s1, e1), (s2, e2) in zip(mentions, mentions[1:]):
        if _LIST_GAP.match(asked[e1:s2]):
            run = run or [_folded(asked[s1:e1])]
            run.append(_folded(asked[s2:e2]))
        elif run:
            groups.append(set(run))
            run = []
    if run:
        groups.append(set(run))
    return groups


def question_echoes(answer: str, question: str | None) -> list[tuple[int, int, str]]:
    """``[(0, len(answer), reason)]`` when the short ``answer`` gives only the question's own names to a question
    that asks for one, else ``[]`` (see the module)."""
    if not question or not answer.strip() or has_negation(answer):
        return []  # a denial ("X never hosted a show") is read by the negation and premise checks
    asked = asked_sentence_of(question)
    wh = _ASKS_FOR_ONE.search(asked)
    if not wh or _PROPERTIES.match(wh.group("rest")) or _TWO_OR_A_CHOICE.search(asked):
        return []
    names = [n for n in (_folded(answer[s:e]) for s, e in entity_mentions(answer)) if n]
    if not names or number_values(answer) - number_values(asked):
        return []
    mentions = entity_mentions(asked)
    asked_names = [_folded(asked[s:e]) for s, e in mentions]
    if not all(any(n == q or same_entity(n, q) for q in asked_names) for n in names):
        return []
    if any(set(names) < group for group in _coordinated(asked, mentions)):
        return []  # one of "Youngblood Hawke and Violent Femmes" picked: a choice the question offers
    asked_terms = {st for _, _, st in content_terms(asked)}
    if not all(st in asked_terms or st in _LINKING_WORDS for _, _, st in content_terms(answer)):
        return []
    said = ", ".join(dict.fromkeys(re.sub(r"['’]s$", "", answer[s:e]) for s, e in entity_mentions(answer)))
    return [(0, len(answer), f"the answer gives the question's own {said}, not the one it asks for")]
