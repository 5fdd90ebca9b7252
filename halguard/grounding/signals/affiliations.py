"""A person's body moved: "Researcher Tomasz Wielgus of Fernlight Software reported the bug to the security firm
Redline Labs" where the passage has "reported ... by researcher Tomasz Wielgus of the security firm Redline Labs", and
Fernlight Software is the vendor whose bug it was.

Every name of such a claim is the passage's, and the frames may agree (Wielgus reported the bug): what moved is whose
the person is. A person (two to four capitalised words) followed by "of" and a body (capitalised words, after "the"
and up to three lower-case words: "of the security firm Redline Labs") is compared with the bodies the passages give
that person the same way. Where they give the person bodies, none of them the claim's (two bodies are one where the
words of one are all in the other: "Redline" / "Redline Labs"), and name the claim's body too (a body they lack is the
missing names' finding), the body moved. A person they never write with "of" says nothing ("Wielgus, a researcher at
Redline Labs").

Bounded: regular expressions without nested repetition, at most :data:`MAX_AFFILIATIONS` read per claim, each
source's first :data:`MAX_SCANNED_CHARS` characters.
"""

from __future__ import annotations

import re
from itertools import islice

from halguard.grounding.signals.bounds import PASSAGE_HEAD_CHARS
from halguard.grounding.signals.scope import Scope
from halguard.grounding.signals.titles import one_body
from halguard.text.lexical import STOPWORDS

__all__ = ["MAX_AFFILIATIONS", "MAX_SCANNED_CHARS", "affiliations_moved"]

MAX_AFFILIATIONS = 8
MAX_SCANNED_CHARS = PASSAGE_HEAD_CHARS

_WORD = r"[A-Z][a-z][\w'’-]{0,30}"
_BODY_WORD = r"[A-Z][\w&'’.-]{0,30}"
_AFFILIATION = re.compile(
    rf"(?P<person>{_WORD}(?:[ \t]+{_WORD}){{1,3}})[ \t]+of[ \t]+(?:the[ \t]+)?(?:[a-z][\w-]{{0,30}}[ \t]+){{0,3}}"
    rf"(?P<body>{_BODY_WORD}(?:[ \t]+{_BODY_WORD}){{0,3}})")


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"\w+", text)}


def _read(text: str, limit: int | None = MAX_AFFILIATIONS) -> list[tuple[int, int, str, str]]:
    """``(start, end, person, body)`` of each person said "of" a body (the person's offsets), the first ``limit``."""
    out = []
    for m in islice(_AFFILIATION.finditer(text), limit):
        words = m.group("person").split()
        if words[0].lower() in STOPWORDS:  # "The Duke of York", "In Paris of all places": no person's first name
            words = words[1:]
        if len(words) < 2:
            continue
        start = m.end("person") - len(" ".join(words))
        out.append((start, m.end("person"), " ".join(words), m.group("body").rstrip(".")))
    return out


def affiliations_moved(text: str, scope: Scope) -> list[tuple[int, int, str]]:
    """The persons of the claim ``text`` (offsets in it) said "of" a body that the passages give them only others of,
    with the reason in words (see the module)."""
    ours = _read(text)
    if not ours:
        return []
    theirs = [a for src in scope.sources for a in _read(src.text[:MAX_SCANNED_CHARS], None)]
    passage_words = {w for src in scope.sources for w in _words(src.text[:MAX_SCANNED_CHARS])}
    found = []
    for start, end, person, body in ours:
        surname = person.split()[-1].lower()
        given = [b for _, _, p, b in theirs if p.split()[-1].lower() == surname]
        if not given or not _words(body) <= passage_words or any(one_body(body.lower(), b.lower()) for b in given):
            continue
        found.append((start, end, f"{person} of {body} where the passage has {person} of {given[0]}"))
    return found

