"""The two options of a choice question, read by the question's layout where its names are not read as names.

:func:`halguard.grounding.signals.choice.choice_options` reads two names joined by "or" as a question's options; titles
with small words ("The Plow That Broke the Plains"), initials ("A. I. Bezzerides"), "--" and a name glued to the
question's words ("Which band was formed first Blur or The Zutons ?") are not read so by the name reader. Here the
question's one "or" is read between two runs of name words: to a separator or the question's words on the left, to the
question mark or its words on the right. Of HaluEval's 161 dev questions with "or", 17 more are read so; where both
readers read a question, the name reader's options are kept (it reads "Cleveland, Ohio, Luis Muñoz Marín International
Airport or ..." right). Linear-time patterns over at most the choice module's ``MAX_QUESTION_CHARS`` characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["options_by_layout"]

# What an option's name is made of where the name reader does not take it whole ("The Plow That Broke the Plains",
# "A. I. Bezzerides", "Lt. Robin Crusoe, U.S.N.", "Time's Up!"): words that open with a capital or a digit, and the
# small words titles and names hold between them. The words that open a question are no name ("Which Blur ...").
_NAME_WORD = re.compile(r"[\"'“(]?[A-Z0-9][^\s]*")
_NAME_GLUE = frozenset("of the a an and in on at to for de del der la le van von v. vs. y".split())
_QUESTION_WORDS = frozenset("Which What Who Whom Whose Where When Why How Is Was Are Were Did Does Do Has Have Had "
                            "Can Could Would Will".split())
_SEPARATOR = re.compile(r",|:|--|—|–")


def _name_like(words: list[str]) -> bool:
    """Whether ``words`` are one name: name words and glue between them, opening and closing with a name word."""
    return (bool(words) and all(_NAME_WORD.fullmatch(w) or w.lower() in _NAME_GLUE for w in words)
            and bool(_NAME_WORD.fullmatch(words[0])) and bool(_NAME_WORD.fullmatch(words[-1]))
            and words[0] not in _QUESTION_WORDS)


def options_by_layout(q: str, cue: Callable[[str, int, int], str]) -> tuple[str, str, str] | None:
    """"Which was released first, The Plow That Broke the Plains or The Man Who Skied Down Everest?", "Which brand
    was marketed earlier--Crusha or Grapette?", "Which band was formed first Blur or The Zutons ?": the question's
    one "or" between two names that run to a separator or the question's words on the left, and to the question
    mark or its words on the right. A name that holds a comma runs on only where the rest is all name ("Tumen,
    Jilin or Chaoyang District, Shantou?"). Returns the two options and ``cue(q, start of the first, end of the
    second)``, or None."""
    ors = list(re.finditer(r"\s+or\s+", q))
    if len(ors) != 1:
        return None
    joint = ors[0]
    right = _right_option(q, joint.end())
    left = _left_option(q, joint.start())
    if right is None or left is None:
        return None
    (s1, e1), (s2, e2) = left, right
    return q[s1:e1], q[s2:e2], cue(q, s1, e2)


def _right_option(q: str, start: int) -> tuple[int, int] | None:
    """The span of the name that starts at ``start``: to the question mark where all of it is name, else up to the
    first word or punctuation that is not."""
    end = q.rfind("?")
    whole = q[start:end] if end > start else ""
    if _name_like(whole.replace(",", " ").split()):
        return start, start + len(whole.rstrip())
    words = list(re.finditer(r"[^\s,;?]+", q[start:]))
    taken = []
    for w in words:
        if not (_NAME_WORD.fullmatch(w.group()) or w.group().lower() in _NAME_GLUE):
            break
        taken.append(w)
        if q[start + w.end():start + w.end() + 1] in (",", ";", "?"):
            break
    while taken and not _NAME_WORD.fullmatch(taken[-1].group()):
        taken.pop()
    if not taken or taken[0].group() in _QUESTION_WORDS:
        return None
    return start + taken[0].start(), start + taken[-1].end()


def _left_option(q: str, end: int) -> tuple[int, int] | None:
    """The span of the name that ends at ``end``: after the earliest separator whose rest is all name, else the
    name words right before ``end``."""
    for m in _SEPARATOR.finditer(q, 0, end):
        rest = q[m.end():end]
        if _name_like(rest.rstrip(",").replace(",", " ").split()):
            first = m.end() + len(rest) - len(rest.lstrip())
            return first, end - (1 if q[end - 1:end] == "," else 0)
    words = list(re.finditer(r"\S+", q[:end]))
    taken = []
    for w in reversed(words):
        if not (_NAME_WORD.fullmatch(w.group()) or w.group().lower() in _NAME_GLUE) or w.group() in _QUESTION_WORDS:
            break
        taken.append(w)
    while taken and not _NAME_WORD.fullmatch(taken[-1].group()):
        taken.pop()
    if not taken:
        return None
    return taken[-1].start(), taken[0].end()
