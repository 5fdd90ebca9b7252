"""The arguments of a dependency parse: the words of a noun phrase and what identifies it (:class:`.Argument`), for
the role frames (:mod:`.frames`).

A phrase's words are its head and its dependents, without the clauses and conjuncts hanging from them; its names say
who it is (its head's compounds, appositions and possessor: "Kira Voss's sister, Anja" is Anja); a name the parser
coordinates as two ("Procter & Gamble", a quoted title "'Salt and Ember'") is one. Every walk is iterative and
bounded by the sentence's tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from halguard.grounding.roles.frame_types import Argument
from halguard.grounding.roles.repairs import CHAIN_LIMIT, subject_read_as_conjunct
from halguard.text.dates import MONTHS, WEEKDAYS, date_month_numbers
from halguard.text.lexical import UNIT_SYMBOLS, is_enumerator, number_mentions, number_values, stem
from halguard.text.mentions import TITLES
from halguard.text.quantities import UNITS
from halguard.text.wordnet import known

__all__ = ["PERSONAL", "RELATIVE", "TIME_WORDS", "TITLE_SPANS", "argument", "argument_tokens",
           "conjuncts", "core_tokens", "is_name", "is_named"]

# Dependents that begin a clause or frame of their own: their words are not the argument's.
_CLAUSAL = frozenset({"relcl", "acl", "ccomp", "advcl", "xcomp", "conj", "cc", "punct", "parataxis", "mark",
                      "preconj", "dep"})
RELATIVE = frozenset({"who", "whom", "which", "that", "whose"})
PERSONAL = frozenset({"it", "he", "she", "they", "him", "her", "them", "its", "his", "their", "this", "these",
                      "those", "i", "we", "you", "itself", "himself", "herself", "themselves"})
TIME_WORDS = frozenset(MONTHS + WEEKDAYS)  # a time's words: months and weekdays (halguard.text.dates)
_MONTH_ABBREVIATIONS = frozenset({"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
                                  "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun"})
_SCALES = frozenset({"m", "bn", "k"})
_CONTENT_POS = frozenset({"NOUN", "PROPN", "NUM", "ADJ", "VERB"})


def is_named(tok: Any) -> bool:
    """Whether ``tok`` is a name or a noun an apposition names ("the collector Ida Hahn", "her husband, Rui")."""
    return is_name(tok) or any(c.dep_ == "appos" and is_name(c) for c in tok.children)


def is_name(tok: Any) -> bool:
    """Whether ``tok`` is a proper name (not a month, a number's scale or an adjective)."""
    low = tok.lower_.rstrip(".")
    # a date's month is its number (date_month_numbers); the "m" of "18.4m passengers" is the number's scale
    if low in TIME_WORDS or low in _MONTH_ABBREVIATIONS or (low in _SCALES and tok.i and tok.doc[tok.i - 1].like_num):
        return False
    if tok.text in UNIT_SYMBOLS and tok.i and tok.doc[tok.i - 1].like_num:  # the "GHz" of "2.4 GHz" is a unit
        return False
    if tok.pos_ == "PROPN":
        return True
    # "Northwind's purchase": the tagger sometimes reads a capitalised word as a common noun. Mid-sentence the
    # capital says it is a name; at the start of a sentence, a word WordNet does not know ("Northwind", not
    # "Dizziness").
    # An adjective is no name: "the Colombian-born actress" describes who, it does not say who (issue 44).
    if tok.pos_ != "NOUN" or not tok.text[:1].isupper() or tok.text.isupper():
        return False
    return tok.i > tok.sent.start or (tok.pos_ == "NOUN" and not known(stem(low)))


def argument_tokens(head: Any, exclude: Sequence[Any] = ()) -> list[Any]:
    """The head and its dependents, without the clauses and conjuncts hanging from them (but a name's "& Co"), nor
    the subtrees of ``exclude`` (iterative)."""
    out, stack = [], [head]
    skip = {t.i for t in exclude}
    while stack:
        tok = stack.pop()
        out.append(tok)
        joined = _joined_name(tok)
        stack.extend(c for c in tok.children if (c.dep_ not in _CLAUSAL or _joins(c, joined)) and c.i not in skip)
    return sorted(out, key=lambda t: t.i)


# Where the parser's document keeps the character spans of the titles the text quotes (:mod:`.parse`).
TITLE_SPANS = "halguard_title_spans"


def _joined_name(tok: Any) -> Any | None:
    """The name ``tok`` (a name) is joined to as one name the parser coordinates as two: by "&" ("Crispin & Co",
    "Procter & Gamble"), or inside one quoted title ("'Salt and Ember'")."""
    if not is_name(tok):
        return None
    conj = next((c for c in tok.children if c.dep_ == "conj" and is_name(c)), None)
    if conj is None:
        return None
    if any(c.dep_ == "cc" and c.text == "&" for c in tok.children):
        return conj
    titles = tok.doc.user_data.get(TITLE_SPANS, ())
    return conj if any(start <= tok.idx and conj.idx < end for start, end in titles) else None


def _joins(child: Any, joined: Any | None) -> bool:
    """Whether ``child`` is the conjunction or the name of a name joined as one (:func:`_joined_name`)."""
    return joined is not None and (child.i == joined.i or (child.dep_ == "cc" and child.i < joined.i))


_TITLE_WORDS = frozenset(form for forms in TITLES for form in forms)


def argument(head: Any, resolved: Any = None, *, span_from: Any = None, exclude: Sequence[Any] = ()) -> Argument:
    """The argument headed by ``head`` (a relative or reported pronoun read as ``resolved``, the noun it stands
    for). ``span_from``: the token whose dependents make the argument's words, where that is not the head (a
    preposition: "48 seconds behind Faith Wanjiru" is one argument, headed by "Wanjiru")."""
    source = resolved if resolved is not None else head
    toks = argument_tokens(span_from if span_from is not None and source is head else source, exclude)
    doc = source.doc
    start, end = toks[0].idx, toks[-1].idx + len(toks[-1].text)
    text = " ".join(doc.text[start:end].split())  # (a title's quotation marks are spaces in the parsed text)
    names = frozenset(t.text.lower() for t in toks if is_name(t))
    numbers = set(number_values(_without_enumerators(doc.text, start, end))) if any(
        t.like_num or t.pos_ == "NUM" for t in toks) else set()
    numbers |= date_month_numbers(text)
    if any(_one_unit(t) for t in toks):
        numbers.add(1.0)
    words = frozenset(stem(t.lemma_.lower()) for t in toks if t.pos_ in _CONTENT_POS and t.is_alpha)
    pronoun = source.pos_ == "PRON" and source.lower_ in PERSONAL | RELATIVE and not names
    core_toks = sorted((t for t in core_tokens(source) if is_name(t)), key=lambda t: t.i)
    untitled = [t for t in core_toks if t.lower_.rstrip(".") not in _TITLE_WORDS]
    if untitled:  # "Senator Maria Lopez" is Maria Lopez: a shared title says nothing of who ("Senator Alan Price")
        core_toks = untitled
    core = frozenset(t.text.lower() for t in core_toks)
    reported = resolved is not None and resolved is not head and head.lower_ not in RELATIVE
    return Argument(start, end, text, source.lemma_.lower(), names, frozenset(numbers), words, pronoun, core,
                    " ".join(t.text for t in core_toks), reported, is_named(source))


def _one_unit(tok: Any) -> bool:
    """Whether ``tok`` is the "a" of one unit of time a preposition takes ("within an hour", "for a week"): the
    quantity 1, as "within 1 hour" writes it. Not a rate's ("$5 a day", "twice a week": no preposition's object)."""
    head = tok.head
    return (tok.lower_ in ("a", "an") and tok.dep_ == "det" and head.dep_ == "pobj"
            and UNITS.get(head.lower_, ("",))[0] == "time")


def _without_enumerators(text: str, start: int, end: int) -> str:
    """``text[start:end]`` with its list markers and references blanked ("3. Smiling", "passage 2"): they number
    things, they are no quantity of the argument."""
    part = list(text[start:end])
    for m in number_mentions(text[start:end]):
        if is_enumerator(text, start + m.start, start + m.end):
            part[m.start:m.end] = " " * (m.end - m.start)
    return "".join(part)


_CORE_DEPS = frozenset({"compound", "appos", "poss", "flat", "nmod"})


def core_tokens(head: Any) -> list[Any]:
    """The head and the words that name it: compounds, appositions, a possessor, and theirs (iterative). A head named
    by an apposition is that name, not its possessor's: "Kira Voss's sister, Anja" is Anja."""
    named = any(c.dep_ == "appos" and is_name(c) for c in head.children)
    out, stack = [], [head]
    while stack:
        tok = stack.pop()
        out.append(tok)
        joined = _joined_name(tok)
        stack.extend(c for c in tok.children if (c.dep_ in _CORE_DEPS and not (named and tok is head and c.dep_ ==
                     "poss")) or (joined is not None and c.i == joined.i))
    return out


def _next_verbs_subject(noun: Any) -> bool:
    """Whether a conjunct noun is the subject of the verb right after it ("chair and her predecessor, Peter Lang,
    joined ...")."""
    after = noun.right_edge.i + 1
    if after < len(noun.doc) and noun.doc[after].text == ",":
        after += 1  # "his rival, Eva Lund, joined": the closing comma may hang on the first verb
    return after < len(noun.doc) and getattr(subject_read_as_conjunct(noun.doc[after]), "i", -1) == noun.i


def conjuncts(head: Any) -> list[Any]:
    """``head`` and the arguments coordinated with it ("Phobos and Deimos")."""
    out = [head]
    tok = head
    for _ in range(CHAIN_LIMIT):
        nxt = next((c for c in tok.children if c.dep_ == "conj" and c.pos_ != "VERB" and c.pos_ != "AUX"), None)
        if nxt is None or _next_verbs_subject(nxt):
            break
        joined = _joined_name(tok)
        if joined is None or nxt.i != joined.i:  # "Crispin & Co" is one argument
            out.append(nxt)
        tok = nxt
    return out
