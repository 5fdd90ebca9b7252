"""Contrast edits of real sentences: ones that change what a sentence says, and ones that keep it.

Each edit takes a sentence (and the document it comes from, for the names and numbers a fabrication can borrow)
and returns the edited text with the character spans it changed, or None when it does not apply. The spans
become the token labels of the model's span head: for an edit that makes the claim unsupported, the changed
words are the unsupported ones.

Unsupported (FactCC / SummEdits style): a number or name borrowed from elsewhere in the document, two names
swapped (roles), a negation added or removed, an antonym, another unit, another date, an invented clause, an
invented causal link, a hedge made certain. Supported: number words for digits and back, other date formats,
synonyms, a leading phrase moved to the end, a parenthesis or side clause dropped.

All word tables are general English, written by hand for this script, not taken from any evaluation set.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from halguard.text.lexical import entity_mentions, number_mentions, word_spans

__all__ = ["Doc", "Edit", "SUPPORTED_EDITS", "UNSUPPORTED_EDITS"]


@dataclass
class Doc:
    """What a fabrication may borrow from the document a sentence comes from."""

    entities: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)


@dataclass
class Edit:
    text: str
    spans: list[tuple[int, int]]  # changed characters of ``text`` (empty for a supported edit)
    kind: str


def doc_info(text: str) -> Doc:
    ents = list(dict.fromkeys(text[s:e] for s, e in entity_mentions(text)))
    nums = list(dict.fromkeys(text[m.start:m.end] for m in number_mentions(text)))
    return Doc(entities=ents, numbers=nums)


def _words_in(text: str, table) -> list[tuple[int, int]]:
    """Spans of the words of ``text`` that ``table`` has (as written)."""
    return [(s, e) for s, e in word_spans(text) if text[s:e] in table]


def _replace(text: str, start: int, end: int, new: str, kind: str) -> Edit:
    return Edit(text[:start] + new + text[end:], [(start, start + len(new))], kind)


# --- unsupported -------------------------------------------------------------------------------------------------

def borrow_number(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    """A number of the sentence replaced by another number of the document, or a nearby value."""
    mentions = [m for m in number_mentions(sent) if sent[m.start:m.end].strip()]
    if not mentions:
        return None
    m = rng.choice(mentions)
    old = sent[m.start:m.end]
    others = [n for n in doc.numbers if n != old and n not in sent]
    if others and rng.random() < 0.6:
        new = rng.choice(others)
    else:
        digits = re.search(r"\d+(?:\.\d+)?", old)
        if not digits:
            return None
        value = float(digits.group())
        changed = rng.choice([value + rng.randint(1, 9), value * rng.choice([2, 3, 10]), max(value - rng.randint(1, 5), 0)])
        if changed == value:
            return None
        text_value = str(int(changed)) if float(changed).is_integer() else f"{changed:.1f}"
        new = old[:digits.start()] + text_value + old[digits.end():]
    return _replace(sent, m.start, m.end, new, "number")


def borrow_entity(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    """A name of the sentence replaced by another name of the document."""
    spans = entity_mentions(sent)
    if not spans:
        return None
    s, e = rng.choice(spans)
    old = sent[s:e]
    others = [n for n in doc.entities if n != old and n not in sent and old not in n and n not in old]
    if not others:
        return None
    return _replace(sent, s, e, rng.choice(others), "entity")


def swap_roles(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    """Two different names of the sentence swapped: the same words, other roles."""
    spans = entity_mentions(sent)
    pairs = [(a, b) for i, a in enumerate(spans) for b in spans[i + 1:] if sent[a[0]:a[1]] != sent[b[0]:b[1]]]
    if not pairs:
        nums = number_mentions(sent)
        pairs = [((a.start, a.end), (b.start, b.end)) for i, a in enumerate(nums) for b in nums[i + 1:]
                 if sent[a.start:a.end] != sent[b.start:b.end]]
        if not pairs:
            return None
    (s1, e1), (s2, e2) = rng.choice(pairs)
    a, b = sent[s1:e1], sent[s2:e2]
    text = sent[:s1] + b + sent[e1:s2] + a + sent[e2:]
    shift = len(b) - len(a)
    return Edit(text, [(s1, s1 + len(b)), (s2 + shift, s2 + shift + len(a))], "role_swap")


_AUX = re.compile(r"\b(is|are|was|were|has|have|had|will|can|could|would|should|may|must|did|does|do)\b(?! not\b)")
_NEGATED = re.compile(r"\b(is|are|was|were|has|have|had|will|can|could|would|should|did|does|do)(?: not|n't)\b")
_PAST_VERB = re.compile(r"\b([a-z]{3,}ed)\b")


def negate(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    """A negation added after the first auxiliary (or "did not" before a past verb), or an existing one removed."""
    m = _NEGATED.search(sent)
    if m:
        return _replace(sent, m.start(), m.end(), m.group(1), "negation_removed")
    m = _AUX.search(sent)
    if m:
        new = m.group(1) + " not"
        if rng.random() < 0.3 and m.group(1) in ("is", "are", "was", "were", "has", "have", "does", "do", "did"):
            new = m.group(1) + "n't"
        return _replace(sent, m.start(), m.end(), new, "negation")
    m = _PAST_VERB.search(sent)
    if m and m.start() > 0:
        base = m.group(1)[:-1] if m.group(1).endswith("ded") or m.group(1).endswith("ted") else m.group(1)[:-2]
        return _replace(sent, m.start(), m.end(), "did not " + base, "negation")
    return None


_ANTONYMS = [
    ("increased", "decreased"), ("rose", "fell"), ("risen", "fallen"), ("gained", "lost"), ("won", "lost"),
    ("higher", "lower"), ("more", "fewer"), ("larger", "smaller"), ("largest", "smallest"), ("first", "last"),
    ("earlier", "later"), ("before", "after"), ("above", "below"), ("increase", "decrease"), ("rise", "fall"),
    ("accepted", "rejected"), ("approved", "rejected"), ("allowed", "banned"), ("agreed", "refused"),
    ("bought", "sold"), ("opened", "closed"), ("started", "ended"), ("began", "ended"), ("best", "worst"),
    ("strong", "weak"), ("stronger", "weaker"), ("positive", "negative"), ("success", "failure"),
    ("profit", "loss"), ("male", "female"), ("north", "south"), ("east", "west"), ("inside", "outside"),
    ("younger", "older"), ("youngest", "oldest"), ("maximum", "minimum"), ("majority", "minority"),
    ("guilty", "innocent"), ("convicted", "acquitted"), ("arrived", "left"), ("entered", "left"),
    ("import", "export"), ("imports", "exports"), ("support", "oppose"), ("supported", "opposed"),
    ("easy", "difficult"), ("cheaper", "more expensive"), ("always", "never"), ("all", "none"),
    ("highest", "lowest"), ("high", "low"), ("full", "empty"), ("alive", "dead"), ("legal", "illegal"),
]
_ANTONYM_OF = {a: b for a, b in _ANTONYMS} | {b: a for a, b in _ANTONYMS}


def antonym(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    hits = _words_in(sent, _ANTONYM_OF)
    if not hits:
        return None
    s, e = rng.choice(hits)
    return _replace(sent, s, e, _ANTONYM_OF[sent[s:e]], "antonym")


_UNITS = [
    ("kilometres", "miles"), ("kilometers", "miles"), ("km", "miles"), ("metres", "feet"), ("meters", "feet"),
    ("kilograms", "pounds"), ("kg", "lb"), ("mg", "g"), ("grams", "kilograms"), ("percent", "percentage points"),
    ("minutes", "hours"), ("hours", "days"), ("days", "weeks"), ("weeks", "months"), ("months", "years"),
    ("daily", "weekly"), ("weekly", "monthly"), ("monthly", "yearly"), ("annually", "monthly"),
    ("million", "billion"), ("thousand", "million"), ("dollars", "euros"), ("pounds", "dollars"),
    ("Celsius", "Fahrenheit"), ("litres", "gallons"), ("acres", "hectares"), ("inches", "centimetres"),
]
_UNIT_OF = {a: b for a, b in _UNITS} | {b: a for a, b in _UNITS}


def change_unit(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    hits = _words_in(sent, _UNIT_OF)
    if not hits:
        if "$" in sent:
            i = sent.index("$")
            return _replace(sent, i, i + 1, "£", "unit")
        return None
    s, e = rng.choice(hits)
    return _replace(sent, s, e, _UNIT_OF[sent[s:e]], "unit")


_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")


def change_date(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    words = [(s, e) for s, e in word_spans(sent) if sent[s:e] in _MONTHS or sent[s:e] in _DAYS]
    years = [(m.start(), m.end()) for m in _YEAR.finditer(sent)]
    if not words and not years:
        return None
    if words and (not years or rng.random() < 0.5):
        s, e = rng.choice(words)
        pool = _MONTHS if sent[s:e] in _MONTHS else _DAYS
        return _replace(sent, s, e, rng.choice([w for w in pool if w != sent[s:e]]), "date")
    s, e = rng.choice(years)
    year = int(sent[s:e]) + rng.choice([-3, -2, -1, 1, 2, 3, 10])
    return _replace(sent, s, e, str(year), "date")


_HEDGES = [
    ("may", "will"), ("might", "will"), ("could", "will"), ("some", "all"), ("several", "all"),
    ("plans to", "has already"), ("is expected to", "has"), ("are expected to", "have"),
    ("allegedly", "definitely"), ("reportedly", "officially"), ("possible", "certain"),
    ("likely", "certain"), ("suspected", "confirmed"), ("proposed", "approved"), ("considering", "approved"),
    ("often", "always"), ("many", "all"), ("most", "all"), ("partly", "entirely"), ("nearly", "more than"),
]


def overstate(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    """A hedge or a part made certain or whole ("may" -> "will", "some" -> "all")."""
    for old, new in rng.sample(_HEDGES, len(_HEDGES)):
        m = re.search(rf"\b{re.escape(old)}\b", sent)
        if m:
            return _replace(sent, m.start(), m.end(), new, "scope")
    return None


_JOINERS_CAUSAL = [" because ", ", which led to the fact that ", " as a result of the fact that ", ", so "]


def _bare(sentence: str) -> str:
    return sentence.strip().rstrip(".!?;:")


def _lower_first(sentence: str) -> str:
    words = sentence.split(" ", 1)
    first = words[0]
    if len(first) > 1 and first[1:].islower() and first not in ("I",) and not entity_mentions(sentence)[:1] == [(0, len(first))]:
        first = first.lower()
    return first + (" " + words[1] if len(words) > 1 else "")


def causal_link(sent: str, other: str, rng: random.Random) -> Edit | None:
    """Two statements of the document joined by a causal link the document does not state."""
    if not other or other == sent:
        return None
    joiner = rng.choice(_JOINERS_CAUSAL)
    head = _bare(sent)
    text = head + joiner + _lower_first(_bare(other)) + "."
    return Edit(text, [(len(head), len(head) + len(joiner))], "causal_link")


def invented_clause(sent: str, foreign: str, rng: random.Random) -> Edit | None:
    """A clause from another document added to the sentence: a plausible detail no evidence states."""
    if not foreign:
        return None
    joiner = rng.choice([", and ", ", while ", "; ", ", after "])
    head = _bare(sent)
    tail = _lower_first(_bare(foreign))
    text = head + joiner + tail + "."
    return Edit(text, [(len(head) + len(joiner), len(text) - 1)], "invented_clause")


# --- supported ---------------------------------------------------------------------------------------------------

_NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                 "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
_WORD_NUMBER = {w: i for i, w in enumerate(_NUMBER_WORDS)}
_SMALL = re.compile(r"\b(\d{1,2})\b(?![.,:]\d)")
_SCALED = re.compile(r"\b(\d{1,3}),(\d{3}),000\b")


def number_words(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    """Digits as words or words as digits ("7" <-> "seven"), or "7,000,000" as "7 million"."""
    m = _SCALED.search(sent)
    if m:
        new = f"{int(m.group(1))}.{m.group(2).rstrip('0')} million".replace(". million", " million")
        return Edit(sent[:m.start()] + new + sent[m.end():], [], "number_format")
    for s, e in word_spans(sent):
        w = sent[s:e]
        if w.lower() in _WORD_NUMBER and w.lower() not in ("one", "zero") and rng.random() < 0.7:
            return Edit(sent[:s] + str(_WORD_NUMBER[w.lower()]) + sent[e:], [], "number_format")
    for m in _SMALL.finditer(sent):
        value = int(m.group(1))
        before = sent[max(0, m.start() - 1):m.start()]
        if 2 <= value <= 20 and before not in ("$", "£", "€", "#") and not _YEAR.match(m.group(1)):
            return Edit(sent[:m.start()] + _NUMBER_WORDS[value] + sent[m.end():], [], "number_format")
    m = re.search(r"\b(\d+(?:\.\d+)?) ?(?:per ?cent|%)", sent)
    if m:
        new = m.group(1) + (" percent" if "%" in m.group(0) else "%")
        return Edit(sent[:m.start()] + new + sent[m.end():], [], "number_format")
    return None


_DATE_MDY = re.compile(r"\b(" + "|".join(_MONTHS) + r") (\d{1,2}),? (\d{4})\b")
_DATE_DMY = re.compile(r"\b(\d{1,2}) (" + "|".join(_MONTHS) + r"),? (\d{4})\b")


def date_format(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    m = _DATE_MDY.search(sent)
    if m:
        month, day, year = m.groups()
        new = rng.choice([f"{day} {month} {year}", f"{month[:3]}. {day}, {year}", f"{year}-{_MONTHS.index(month) + 1:02d}-{int(day):02d}"])
        return Edit(sent[:m.start()] + new + sent[m.end():], [], "date_format")
    m = _DATE_DMY.search(sent)
    if m:
        day, month, year = m.groups()
        return Edit(sent[:m.start()] + f"{month} {day}, {year}" + sent[m.end():], [], "date_format")
    return None


_SYNONYMS = [
    ("acquired", "bought"), ("purchased", "bought"), ("employees", "staff"), ("workers", "staff"),
    ("died", "passed away"), ("killed", "left dead"), ("said", "stated"), ("announced", "said"),
    ("approximately", "about"), ("roughly", "about"), ("around", "about"), ("children", "kids"),
    ("doctor", "physician"), ("doctors", "physicians"), ("car", "vehicle"), ("cars", "vehicles"),
    ("began", "started"), ("commenced", "started"), ("finished", "completed"), ("help", "assist"),
    ("helped", "assisted"), ("large", "big"), ("huge", "enormous"), ("small", "little"), ("buy", "purchase"),
    ("show", "indicate"), ("showed", "indicated"), ("shows", "indicates"), ("reported", "said"),
    ("police", "officers"), ("arrested", "detained"), ("injured", "hurt"), ("attorney", "lawyer"),
    ("officials", "authorities"), ("company", "firm"), ("firm", "company"), ("houses", "homes"),
    ("home", "house"), ("nearly", "almost"), ("quickly", "rapidly"), ("told", "informed"),
    ("received", "got"), ("obtained", "got"), ("requested", "asked for"), ("wanted", "wished"),
    ("famous", "well-known"), ("movie", "film"), ("film", "movie"), ("airplane", "aircraft"),
    ("plane", "aircraft"), ("hospital", "medical centre"), ("professor", "academic"), ("mother", "mum"),
    ("because", "since"), ("however", "but"), ("also", "as well"), ("attempted", "tried"), ("tried", "attempted"),
    ("decided", "chose"), ("selected", "chose"), ("talked", "spoke"), ("speak", "talk"), ("big", "large"),
    ("scored", "netted"), ("defeated", "beat"), ("beat", "defeated"), ("match", "game"), ("game", "match"),
    ("stated", "said"), ("revealed", "disclosed"), ("investigation", "inquiry"), ("probe", "investigation"),
]
_SYNONYM_OF = dict(_SYNONYMS)


def synonym(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    hits = _words_in(sent, _SYNONYM_OF)
    if not hits:
        return None
    text = sent
    for s, e in sorted(rng.sample(hits, min(len(hits), 2)), reverse=True):
        text = text[:s] + _SYNONYM_OF[text[s:e]] + text[e:]
    return Edit(text, [], "synonym")


_LEADING = re.compile(r"^((?:In|On|At|By|During|After|Before|Since|Last|This|Earlier|Later) [^,]{2,60}), (\w)")


def move_leading_phrase(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    """ "In 2015, the firm ..." -> "The firm ... in 2015." """
    m = _LEADING.match(sent)
    if not m:
        return None
    phrase = m.group(1)
    rest = sent[m.end() - 1:]
    rest = rest[0].upper() + rest[1:]
    body = _bare(rest)
    return Edit(f"{body} {phrase[0].lower() + phrase[1:]}.", [], "reorder")


_PAREN = re.compile(r" \([^()]{2,80}\)")
_APPOSITIVE = re.compile(r", (?:who|which|where|whose) [^,]{3,90},")


def compress(sent: str, doc: Doc, rng: random.Random) -> Edit | None:
    """A parenthesis, a relative clause or a trailing side clause dropped."""
    for pattern in (_PAREN, _APPOSITIVE):
        m = pattern.search(sent)
        if m:
            return Edit(sent[:m.start()] + sent[m.end() - 1 if pattern is _APPOSITIVE else m.end():], [], "compress")
    parts = sent.split(", ")
    if len(parts) >= 3 and len(parts[0].split()) >= 5 and "not" not in sent:
        return Edit(parts[0].rstrip(".") + ".", [], "compress")
    return None


Unsupported = Callable[[str, Doc, random.Random], Edit | None]
UNSUPPORTED_EDITS: dict[str, Unsupported] = {
    "number": borrow_number,
    "entity": borrow_entity,
    "role_swap": swap_roles,
    "negation": negate,
    "antonym": antonym,
    "unit": change_unit,
    "date": change_date,
    "scope": overstate,
}
SUPPORTED_EDITS: dict[str, Unsupported] = {
    "number_format": number_words,
    "date_format": date_format,
    "synonym": synonym,
    "reorder": move_leading_phrase,
    "compress": compress,
}
