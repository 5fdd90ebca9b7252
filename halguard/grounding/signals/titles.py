"""A post given to the wrong person: "The mayor, Tessa Grant, criticised the plan." where the passage's mayor is Owen
Hale and Tessa Grant chairs a committee.

A post one person holds at a time (a mayor, a chief executive, a head coach: :data:`ONE_HOLDER_POSTS`) said of a
name in the claim is compared with the names the passages give that post. Where the passages give it only to others
and the claim's name stands in the passages too, the post was moved to the wrong person (a name the passages lack is
the missing names' finding). It is reported with the role conflicts: "the mayor: Tessa Grant where the passage has
Owen Hale".

A post is said of a name in four ways, the same on both sides: a title before it ("Mayor Owen Hale", "CEO Jane
Doe"), an apposition ("the mayor, Owen Hale", "Owen Hale, the mayor"), a copula ("Owen Hale is the mayor", "its chief
executive is Leo Brandt") and a possessive's ("Orbis Health's chief executive, Leo Brandt"). A qualified post is
another post: a deputy, vice, former, acting or interim one is not read ("the former mayor, Owen Hale"), two posts
"of" different places or bodies, or qualified by different words, are not compared ("the mayor of Vellby" / "the
mayor of Oslo", "Venezuelan President Hugo Chavez" / "President Barack Obama"), and a post the passages give to
several people is compared only where the claim qualifies it as one of them does. Names are
compared as the mention matcher compares them (a surname alone is the full name; titles aside).

Bounded: regular expressions without nested repetition over at most :data:`MAX_SCANNED_CHARS` characters of each
passage, names of at most four words.
"""

from __future__ import annotations

import re

from halguard.grounding.signals.bounds import PASSAGE_HEAD_CHARS
from halguard.grounding.signals.scope import Scope
from halguard.text.mentions import OFFICE_INITIALISMS, same_entity, strip_titles
from halguard.util.cache_budgets import PASSAGE_POSTS_BYTES
from halguard.util.memo import deep_entry_size, memoize_text

__all__ = ["MAX_SCANNED_CHARS", "ONE_HOLDER_POSTS", "one_body", "posts_moved"]

# Posts one person holds at a time in one place or body, and the forms that say each (the first is its name in a
# reason). Hand-listed general English (the offices news text names its people by), with the chief officers'
# initialisms of halguard.text.mentions.OFFICE_INITIALISMS.
ONE_HOLDER_POSTS: tuple[tuple[str, ...], ...] = (
    ("mayor", "lord mayor"),
    ("governor",),
    ("president",),
    ("prime minister", "premier"),
    ("chancellor",),
    ("chief executive", "chief executive officer", "ceo"),
    ("chief financial officer", "finance chief", "finance director", "cfo"),
    ("chief operating officer", "coo"),
    ("chief technology officer", "cto"),
    ("chair", "chairman", "chairwoman", "chairperson"),
    ("head coach", "manager"),
    ("captain",),
    ("speaker",),
    ("principal", "headteacher", "head teacher"),
)
_POST_OF = {form: forms[0] for forms in ONE_HOLDER_POSTS for form in forms}
for _initialism, _long_forms in OFFICE_INITIALISMS.items():
    if _initialism in _POST_OF:
        for _form in _long_forms:
            _POST_OF.setdefault(_form, _POST_OF[_initialism])
# Words that make a post another one: "the deputy mayor" is not the mayor.
_QUALIFIERS = frozenset({"deputy", "vice", "former", "ex", "acting", "interim", "assistant", "outgoing", "incoming",
                         "late", "then", "previous", "past", "future", "new", "associate", "honorary"})
# The characters of one passage scanned for posts (a post named past this says nothing here: not read is no finding).
MAX_SCANNED_CHARS = PASSAGE_HEAD_CHARS

_FORMS = "(?i:" + "|".join(sorted((re.escape(f).replace("\\ ", "[ \t]+") for f in _POST_OF), key=len,
                                  reverse=True)) + ")"
_NAME_WORD = r"[A-Z](?:\.|[\w'’-]{0,40})"  # a capitalised word or an initial ("J."): a full stop ends a name
_NAME = rf"{_NAME_WORD}(?:[ \t]+{_NAME_WORD}){{0,3}}"
# A possessive owner's words: a full stop only closes an abbreviation ("St. Aldric's"), never a sentence ("on
# Monday. Norvia's").
_OWNER_WORD = r"[A-Z](?:[\w-]{0,40}|\w{0,2}\.)"
_OWNER = (rf"(?:(?i:the|its|his|her|their)|(?P<owner>{_OWNER_WORD}(?:[ \t]+{_OWNER_WORD}){{0,3}})"
          r"(?:'s|’s|'|’))")
_OF = r"(?:[ \t]+of[ \t]+(?P<of>(?:(?i:the)[ \t]+)?[A-Z][\w.-]{0,40}(?:[ \t]+[A-Z][\w.-]{0,40}){0,3}))?"
_PATTERNS = (
    # "Mayor Owen Hale", "CEO Jane Doe", "Venezuelan President Hugo Chavez" (the capitalised word before qualifies it)
    re.compile(rf"(?:(?P<by>[A-Z][\w-]{{0,40}})[ \t]+)?(?<![\w'’-])(?P<post>{_FORMS})[ \t]+(?P<name>{_NAME})"),
    # "the mayor, Owen Hale", "Orbis Health's chief executive, Leo Brandt", "its chief executive is Leo Brandt"
    re.compile(rf"\b{_OWNER}[ \t]+(?P<post>{_FORMS}){_OF}(?:,[ \t]*|[ \t]+is[ \t]+|[ \t]+was[ \t]+)(?P<name>{_NAME})"),
    # "Owen Hale, the mayor", "Leo Brandt is the chief executive of Orbis Health", "Helen Okafor, currently chief
    # executive of Northbridge"
    re.compile(rf"(?P<name>{_NAME})(?:,[ \t]*(?:(?i:currently|now)[ \t]+)?|[ \t]+is[ \t]+|[ \t]+was[ \t]+)"
               rf"(?:{_OWNER}[ \t]+)?(?P<post>{_FORMS})\b(?![ \t]+[A-Z]){_OF}"),
)
_NAME_START = re.compile(r"[A-Z]")
_ARTICLES = frozenset({"the", "its", "his", "her", "their", "a", "an"})


def _qualified(text: str, start: int) -> bool:
    """Whether the word before a post's form at ``start`` makes it another post ("deputy", "former")."""
    before = re.findall(r"[A-Za-z]+", text[max(0, start - 20):start])
    return bool(before) and before[-1].lower() in _QUALIFIERS


_ANY_POST = re.compile(rf"(?<![\w'’-]){_FORMS}(?![\w'’-])")
# The characters around a post's form its patterns are read in (a name, an owner and an "of" phrase fit: four words
# of at most 41 characters each), and the posts read per text, at most.
_REACH = 200
MAX_POSTS_READ = 200


def _windows(text: str) -> list[tuple[int, int]]:
    """The stretches of ``text`` around its posts' forms, merged: the only places a post is said of a name."""
    out: list[tuple[int, int]] = []
    for k, m in enumerate(_ANY_POST.finditer(text)):
        if k >= MAX_POSTS_READ:
            break
        lo, hi = max(0, m.start() - _REACH), min(len(text), m.end() + _REACH)
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def _held(text: str) -> list[tuple[int, int, str, str, str]]:
    """``(start, end, post, name, qualifier)`` for each post said of a name in ``text`` (the name's offsets), read
    only around the posts' forms: bounded on any text."""
    out = []
    seen = set()
    matches = (m for lo, hi in _windows(text) for pattern in _PATTERNS for m in pattern.finditer(text, lo, hi))
    for m in matches:
        if (m.start("name"), m.start("post")) in seen:
            continue
        seen.add((m.start("name"), m.start("post")))
        name = strip_titles(m.group("name")).strip(" .,")
        if not name or not _NAME_START.match(name) or name.lower() in _ARTICLES or name.lower() in _POST_OF:
            continue
        post = _POST_OF[re.sub(r"\s+", " ", m.group("post").lower())]
        if _qualified(text, m.start("post")):
            continue
        of = m.groupdict().get("of") or m.groupdict().get("by") or m.groupdict().get("owner") or ""
        qualifier = re.sub(r"^the\s+", "", "" if of.lower() in _ARTICLES else of, flags=re.IGNORECASE).lower()
        out.append((m.start("name"), m.start("name") + len(name), post, name, qualifier))
    return out


def one_body(a: str, b: str) -> bool:
    """Whether two names of a place or body (lower-cased) name one: the same words, or the words of one all in the
    other ("st. aldric" and "st. aldric medical centre"). Also :mod:`.affiliations`' test of a person's body."""
    x, y = set(re.findall(r"\w+", a)), set(re.findall(r"\w+", b))
    return x <= y or y <= x


def _one(a: str, b: str) -> bool:
    """Whether two names are one person: the same words, one inside the other (a surname), or one mention."""
    x, y = a.lower().split(), b.lower().split()
    return bool(set(x) & set(y)) or same_entity(a, b)


def posts_moved(text: str, scope: Scope) -> list[tuple[int, int, str]]:
    """The claim's names (offsets in ``text``) given a one-holder post that the passages give only to others, while
    naming the claim's person too, with the reason in words (see the module's docstring)."""
    ours = _held(text)
    if not ours:
        return []
    theirs = [h for src in scope.sources for h in _held_in_passage(src.text[:MAX_SCANNED_CHARS])]
    found = []
    for start, end, post, name, qualifier in ours:
        given = [(n, q) for _, _, p, n, q in theirs if p == post]
        # a qualifier the other side leaves out may be the same post ("the chief executive of Orbis Health" against
        # "its chief executive"); two different ones are two posts
        compatible = [(n, q) for n, q in given if not q or not qualifier or one_body(q, qualifier)]
        if any(_one(name, n) for n, _ in compatible):
            continue  # the passages give the claim's person this post
        # the holders as the claim qualifies the post; else every holder, who must then be one person (not
        # "President Obama" and "Cuban President Castro")
        holders = [n for n, q in given if q and qualifier and one_body(q, qualifier)] or [n for n, _ in given]
        if not holders or any(not _one(holders[0], n) for n in holders[1:]) or _one(name, holders[0]):
            continue  # several holders, or the claim's person with the post of another body (the copy checks')
        if not set(name.lower().split()) & _names_in(scope):
            continue  # a name the passages lack: the missing names' finding
        found.append((start, end, f"the {post}: {name} where the passage has {holders[0]}"))
    return found


def _names_in(scope: Scope) -> set[str]:
    """The capitalised words of the passages (bounded as the scan), lower-cased, for "the claim's person is named
    there"."""
    return {w for src in scope.sources for w in _capitalised(src.text[:MAX_SCANNED_CHARS])}


# Passages are read once for all the claims of an answer (and its next answers), keyed by their scanned part only,
# within a budget of bytes (halguard.util.cache_budgets).
@memoize_text(PASSAGE_POSTS_BYTES, sizer=deep_entry_size)
def _held_in_passage(scanned: str) -> tuple[tuple[int, int, str, str, str], ...]:
    return tuple(_held(scanned))


@memoize_text(PASSAGE_POSTS_BYTES, sizer=deep_entry_size)
def _capitalised(scanned: str) -> frozenset[str]:
    return frozenset(w.lower() for w in re.findall(r"[A-Z][\w'’-]{0,40}", scanned))
