"""Whether a claim's argument and an evidence argument are the same thing, differ, or cannot be told apart.

Two arguments are *the same* when they share a name, else a number, else their head word or a content word; they
*differ* when both have names and share none (two people of one family are two people), both have numbers and share
none, or both carry different ordinals ("the second half" / "the first half"); anything else (a pronoun, "the
company" against "Northwind") says nothing. Times are compared by their years. Used by :mod:`.matching` to align
frames and by :mod:`.verbs` to tell whether two frames are one event.
"""

from __future__ import annotations

from halguard.grounding.roles.frames import Argument
from halguard.text.dates import month_number
from halguard.text.mentions import demonym_of, same_entity, strip_titles
from halguard.text.quantities import quantities

__all__ = ["GENERIC_NAME_WORDS", "compare", "months"]

# Ordinal words, which number what they modify without being numbers (:func:`halguard.text.lexical.number_mentions`
# reads none of them): two different ones make two arguments of one head differ.
_ORDINALS = frozenset("first second third fourth fifth sixth seventh eighth ninth tenth".split())


def _years(arg: Argument) -> frozenset[float]:
    return frozenset(n for n in arg.numbers if 1000 <= n < 3000 and n == int(n))


def months(arg: Argument) -> frozenset[int]:
    """The months a time argument names ("in March", "by May 2020")."""
    return frozenset(m for w in arg.text.replace(",", " ").split() if (m := month_number(w)) is not None)


def compare(a: Argument, b: Argument, role: str = "") -> str:
    """``"same"``, ``"differ"`` or ``"unknown"`` for a claim's argument ``a`` and an evidence argument ``b`` (see
    the module's docstring; names are compared one way: a claim naming the passage's entity within a longer name
    is no difference). Times are compared by their months where both name one ("in March" is not "in May"), then by
    their years ("in 1890" is "on 4 March 1890"; "Dec. 10, 1815" is "10 December 1815"), else by their numbers."""
    if a.pronoun or b.pronoun:
        return "unknown"
    ours, theirs = a.words & _ORDINALS, b.words & _ORDINALS
    if ours and theirs and not ours & theirs:  # "in the second half" is not "in the first half" ("half" is 0.5 in
        return "differ"  # both), "in the third quarter of 2020" not "in the first quarter of 2020"
    if role == "time":
        ma, mb = months(a), months(b)
        if ma and mb and not ma & mb:  # "approved in March and completed in May": another month is another time
            return "differ"
        ya, yb = _years(a), _years(b)
        if ya and yb:
            return "same" if ya & yb else "differ"
        if a.numbers and b.numbers:
            return "same" if a.numbers <= b.numbers or b.numbers <= a.numbers else (
                "differ" if not a.numbers & b.numbers else "unknown")
    if a.identity and b.identity:
        ours, theirs = _codes(a.identity), _codes(b.identity)
        if ours and theirs and not ours & theirs:  # "Model K9 kettles" / "Model K7 kettles": the code says which
            return "differ"
        if _same_names(a, b):
            return "same"
        # Not the same name. Only two names differ: a name and a description can be one thing ("the grandmother
        # of two" for "Sissa Abu Dahou"). Nor is a guessed pronoun a difference, nor a claim naming the passage's
        # entity inside a longer name ("The International Committee of the Red Cross" for "The Red Cross"). The
        # reverse is a moved name: "by Charles Babbage" for "by Luigi Menabrea on Charles Babbage's engine".
        differ = a.head_is_name and b.head_is_name and not (a.reported or b.reported or b.identity <= a.names
                                                             or _misspelt(a, b))
        return "differ" if differ else "unknown"
    if a.identity or b.identity:
        # A name against a description: "Sissa Abu Dahou, a 65-year-old grandmother" can be "the grandmother of
        # two" (their numbers measure other things).
        return "same" if (a.head and a.head == b.head) or (a.words & b.words) else "unknown"
    if a.numbers and b.numbers:
        if a.numbers & b.numbers or _one_quantity(a.text, b.text):
            return "same"
        # A number differs from a number of the same thing ("5 days" / "7 days"), not from another measure of it
        # ("64 months" / "over five years").
        # A bare number is one whose noun the sentence leaves out ("Ravel sold 410,000 cars, while Quint sold
        # 380,000"): a number of the same thing.
        ours, theirs = a.described_by, b.described_by
        return "differ" if (ours & theirs) or not (ours and theirs) else "unknown"
    if (a.head and a.head == b.head) or (a.words & b.words):
        return "same"
    return "unknown"


def _one_quantity(ours: str, theirs: str) -> bool:
    """Whether two arguments measure one quantity in two units ("within four weeks" / "within 28 days"): each a
    measure of one dimension and one bound ("within"), one base value (their rounding allowed)."""
    a, b = quantities(ours, limit=2), quantities(theirs, limit=2)
    if len(a) != 1 or len(b) != 1 or a[0].dimension is None or (a[0].dimension, a[0].bound) != (b[0].dimension,
                                                                                                b[0].bound):
        return False
    return a[0].dimension != "percent" and abs(a[0].base - b[0].base) <= max(a[0].rounding, b[0].rounding, 1e-9)


def _codes(identity: frozenset[str]) -> frozenset[str]:
    """The name words that are codes, letters and digits in one word ("k7", "a321neo", "x200"): two products of one
    maker ("Model K7" / "Model K9") share every other name word."""
    return frozenset(w for w in identity if any(c.isdigit() for c in w) and any(c.isalpha() for c in w))


def _misspelt(a: Argument, b: Argument) -> bool:
    """Whether two one-word names are one spelling slip apart ("Volume" / "Volum"): passages have typos, and a
    swap puts another name, not a misspelt one."""
    if len(a.identity) != 1 or len(b.identity) != 1:
        return False
    (x,), (y,) = a.identity, b.identity
    if min(len(x), len(y)) < 4 or abs(len(x) - len(y)) > 1:
        return False
    if len(x) == len(y):
        return sum(c != d for c, d in zip(x, y)) <= 1
    short, long_ = (x, y) if len(x) < len(y) else (y, x)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


# Words that head many different names: sharing one of them alone says nothing of who ("Mount Elgon" is not "Mount
# Kenya", "Lake Chad" not "Lake Victoria", "Hurricane Dora" not "Hurricane Eli"). Hand-written (geographic,
# institutional and storm name heads), not fitted.
GENERIC_NAME_WORDS = frozenset(
    "mount mountain mountains lake river sea ocean bay gulf cape island islands isle peninsula valley desert forest "
    "saint st fort port lake university college school academy institute county city state province district "
    "hurricane typhoon cyclone storm tropical "
    "national park airport hospital church cathedral bridge street avenue road square north south east west "
    "northern southern eastern western new san santa los las el la le de del of the".split())


def _same_names(a: Argument, b: Argument) -> bool:
    """Whether two arguments' names say the same who: a shared name word (not only a word that heads many names:
    :data:`GENERIC_NAME_WORDS`), or one mention of another form (:mod:`halguard.text.mentions`: "the US" / "the United
    States", "EU" / "European Union", "Texan" / "Texas")."""
    shared = a.identity & b.identity
    if shared - GENERIC_NAME_WORDS:
        return not _one_family(a.core_text, b.core_text)
    if shared and (_surname_of(a.core_text, b.core_text) or _surname_of(b.core_text, a.core_text)):
        return True  # "Dr. Park" for "Dr. Lena Park": a surname that is also a name's head word ("park")
    if a.core_text and b.core_text and same_entity(a.core_text, b.core_text):
        return True
    return demonym_of(a.identity, b.identity) or demonym_of(b.identity, a.identity)


def _surname_of(short: str, full: str) -> bool:
    """Whether ``short`` (titles stripped) is the last word of a two- or three-word name ``full`` that a generic name
    word does not open ("Park" of "Lena Park", not of "Lake Park")."""
    ours, theirs = short.split(), full.split()
    return (len(ours) == 1 and 2 <= len(theirs) <= 3 and ours[0].lower() == theirs[-1].lower()
            and theirs[0].lower() not in GENERIC_NAME_WORDS)


def _one_family(a: str, b: str) -> bool:
    """Whether two names are two people of one family: a given name and a surname each, the surname shared, the
    given names not ("Lina Haddad" / "Samir Haddad", "Hillary Clinton" / "Bill Clinton"). Titles aside ("Rep.
    George Santos"); a name with more words ("George W. Bush" / "George Bush") or one word ("Santos") is not read."""
    ours, theirs = strip_titles(a).split(), strip_titles(b).split()
    return (len(ours) == 2 and len(theirs) == 2 and ours[1].lower() == theirs[1].lower()
            and ours[0].lower() != theirs[0].lower() and not ours[0].endswith(".") and not theirs[0].endswith("."))
