"""Word-level signals: content words, named entities, numbers and negation.

Everything here is plain Python and regular expressions so it runs in microseconds per sentence and
never needs a model. The verifier compares these features of a claim with the whole context (and
with the claim's best evidence) to find invented names, changed numbers and negation flips.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

from halguard.text.irregular_verbs import IRREGULAR_PAST_FORMS
from halguard.text.number_words import is_number_word, ratio_numbers, word_numbers
from halguard.text.titles import NAME_ABBREVIATIONS
from halguard.util.cache_budgets import STEM_MEMO_MAX_WORD_CHARS, STEM_MEMO_WORDS

__all__ = [
    "NumberMention",
    "affirmation_end",
    "affirms",
    "base_form",
    "content_terms",
    "entity_mentions",
    "has_negation",
    "is_enumerator",
    "is_negation_cue",
    "is_number_word",
    "negated_terms",
    "negation_flip",
    "number_mentions",
    "stem",
    "term_set",
    "word_spans",
]

# A compact English stop list: function words carry no checkable fact.
STOPWORDS = frozenset(
    """
    a about above across after afterwards again against all almost alone along already also although always am
    among amongst an and another any anyhow anyone anything anyway anywhere are around as at be became because
    become becomes becoming been before beforehand behind being below beside besides between beyond both but by
    can could did do does doing done down due during each either else elsewhere enough etc even ever every
    everyone everything everywhere few for former formerly from further had has have having he hence her here
    hereafter hereby herein hereupon hers herself him himself his how however i if in indeed into is it its itself
    just last latter latterly least less let lets made make makes many may me meanwhile might mine more moreover
    most mostly much must my myself namely neither nevertheless next nobody none noone nor not nothing now nowhere
    of off often on once one only onto or other others otherwise our ours ourselves out over own per perhaps
    please put rather re same seem seemed seeming seems several she should since so some somehow someone something
    sometime sometimes somewhere still such than that the their theirs them themselves then thence there
    thereafter thereby therefore therein thereupon these they this those though through throughout thru thus to
    together too toward towards under until up upon us very via was we well were what whatever when whence
    whenever where whereafter whereas whereby wherein whereupon wherever whether which while whither who whoever
    whole whom whose why will with within without would yet you your yours yourself yourselves also s t d ll m
    o re ve y said says say according provided context passage based information mentioned yes
    """.split()
)

# Capitalised tokens that are not names: times of day, units, weekdays and months are checked as words.
# (and the first person's contractions: "Not on Off-Peak, I'm afraid" names no one)
_NOT_NAMES = frozenset("am pm a.m p.m i ok tv".split()) | {f"i{a}{c}" for a in "'’" for c in ("m", "d", "ve", "ll")}

NEGATION_CUES = frozenset(
    "not no never none nobody nothing neither nor without cannot cant dont doesnt didnt isnt arent wasnt werent "
    "wont wouldnt shouldnt couldnt hasnt havent hadnt lacks lacked lacking absent unable".split()
)

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
PLURAL_INITIALISM = re.compile(r"[^\W\d_a-z]{2,}s")  # "TVs", "EVs", "CEOs": capitals and a lower-case "s"
_NUMBER = re.compile(
    r"(?<![\w.])[-−]?\$?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(%|percent\b|per cent\b)?"
    r"(?:\s*(thousand|million|billion|trillion|bn|m|k)\b)?",
    re.IGNORECASE,
)
_MONEY = frozenset("£€¥")  # before a number, as "$" in it: "£3.1bn", "€58m" are money
_TIME_SUFFIX = re.compile(r"(?::\d{2})?\s*([ap])\.?m\.?(?!\w)", re.IGNORECASE)
_SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9, "trillion": 1e12}
def word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the words in ``text``."""
    return [m.span() for m in _WORD.finditer(text)]


def regular_forms(word: str) -> set[str]:
    """The word and its regular inflections ("drop": drops, dropped, dropping; "apply": applies, applied), for the
    stemmer to meet; irregular past forms reach their base through :func:`base_form`."""
    forms = {word, word + "s", word + "es", word + "ed", word + "ing", word + "d"}
    if word.endswith("e"):
        forms.add(word[:-1] + "ing")
    if len(word) >= 2 and word.endswith("y") and word[-2] not in "aeiou":
        forms |= {word[:-1] + "ies", word[:-1] + "ied"}  # apply -> applies; not say -> saies
    if len(word) >= 3 and word[-1] not in "aeiouwxy" and word[-2] in "aeiou" and (
            word[-3] not in "aeiou" or word[-4:-2] == "qu"):  # (a "u" after "q" is no vowel: acquit, equip)
        forms |= {word + word[-1] + "ed", word + word[-1] + "ing"}  # drop -> dropped, plan -> planning
    return forms


def stem(word: str) -> str:
    """A small, fast suffix stripper: enough to match 'acquired'/'acquires', 'cities'/'city'.

    Words of ordinary length are memoised; a "word" longer than 40 characters (a hash, minified data) is stemmed
    without being remembered, so the memo's 200,000 entries stay small.
    """
    return _stem_memo(word) if len(word) <= STEM_MEMO_MAX_WORD_CHARS else _stem(word)


# functools, not util.memo.BytesLRU: words here are at most 40 characters, so a count bounds the memo's bytes
# (util.cache_budgets), and stemming is the hottest call of a check (a C-level cache with no lock and no size
# estimate).
@lru_cache(maxsize=STEM_MEMO_WORDS)
def _stem_memo(word: str) -> str:
    return _stem(word)


def _stem(word: str) -> str:
    if len(word) <= 6 and PLURAL_INITIALISM.fullmatch(word):  # (halguard.text.mentions reads any length)
        return word[:-1].lower()
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = w.replace("'", "")
    if len(w) <= 3 or w.isdigit():
        return w
    for suffix, repl in (
        ("ational", "ate"),
        ("ization", "ize"),
        ("fulness", "ful"),
        ("iveness", "ive"),
        ("ements", ""),
        ("ement", ""),
        ("ments", ""),
        ("ment", ""),
        ("ingly", ""),
        ("edly", ""),
        ("ities", "ity"),
        ("ies", "y"),
        ("ied", "y"),
        ("ing", ""),
        ("ers", "er"),
        ("ed", ""),
        ("es", ""),
        ("ly", ""),
        ("s", ""),
    ):
        if suffix == "s" and w.endswith(("ss", "us", "is")):  # class, focus, analysis: not plurals
            break
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: len(w) - len(suffix)] + repl
            break
    return w.rstrip("e") if len(w) > 4 else w


def term_set(text: str) -> set[str]:
    """Stems of every word in ``text`` (stop words included), for presence tests."""
    return {stem(text[s:e]) for s, e in word_spans(text)}


# The auxiliaries a contraction joins to a pronoun ("you'll", "they've", "we're", "he'd", "I'm", "it's").
_CONTRACTED = frozenset({"ll", "ve", "re", "d", "m", "s"})


def content_terms(text: str) -> list[tuple[int, int, str]]:
    """Content words of ``text``: (start, end, stem), without stop words, numbers or one-letter words."""
    out = []
    for s, e in word_spans(text):
        w = text[s:e]
        folded = w.lower().replace("’", "'")
        lw = folded.replace("'", "")
        if lw in STOPWORDS or lw in NEGATION_CUES or len(lw) < 3 or any(ch.isdigit() for ch in lw):
            continue
        head, _, tail = folded.partition("'")
        if tail in _CONTRACTED and head in STOPWORDS:
            continue  # "you'll", "they've", "he'd", "it's": a pronoun and an auxiliary
        out.append((s, e, stem(w)))
    return out


def entity_mentions(text: str) -> list[tuple[int, int]]:
    """Spans of runs of capitalised words (likely names).

    A capitalised word at the start of a sentence counts only as part of a longer run ("Harper's Bazaar"),
    or when it is an acronym ("NASA"), so "The" or "However" never make an entity. Initials and dotted acronyms
    stay in their name ("U.S.", "U.K.", "J. K. Rowling"), though their letters may be stopwords ("S", "A") and a
    dot would otherwise end the run.
    """
    runs: list[list[int]] = []  # [start, end, words, initial-only, initials-only]
    spans = word_spans(text)
    for i, (s, e) in enumerate(spans):
        w = text[s:e]
        if _letters_and_letters(text, s, e):
            continue  # "Q&A", "R&D", "M&A": an abbreviation of common words, not a name ("AT&T" is one)
        if w in UNIT_SYMBOLS and _after_a_number(text, s):
            continue  # "16 GB", "3.2 GHz", "500 MW": a unit, not a name ("GB of RAM" is not one name)
        if w in ("No", "Nos") and _NUMBER_SIGN_AFTER.match(text, e):
            continue  # "the No. 8 shirt": the number sign
        after_initials = bool(runs) and runs[-1][4] and _after_initial(text, runs[-1][0], runs[-1][1], s, e)
        # "I.B.M.": a letter that opens a dotted acronym is no stopword
        dotted = len(w) == 1 and text[e : e + 1] == "." and text[e + 1 : e + 2].isupper()
        ampersand = (s > 0 and text[s - 1] == "&") or (e < len(text) and text[e] == "&")  # "AT&T": not "at"
        if not w[0].isupper() or (not ampersand and not after_initials and not dotted
                                  and (w.lower() in STOPWORDS or w.lower() in _NOT_NAMES)):
            continue
        j = s - 1
        while j >= 0 and text[j].isspace():  # the character before the word (not a copy of the text so far)
            j -= 1
        # a sentence's first word, unless an acronym or a code ("NASA", "Q3": no lower-case letter after the first;
        # "EVs", "CEOs": an acronym's plural)
        acronym = len(w) > 1 and (not any(c.islower() for c in w[1:]) or bool(PLURAL_INITIALISM.fullmatch(w)))
        # "Dr. Park", "St. Louis": the full stop is the title's, and the name goes on its run
        titled = i > 0 and _after_title(text, spans[i - 1], s)
        initial = (i == 0 or j < 0 or text[j] in '.!?:\n"(-*') and not acronym and not titled
        if after_initials or (runs and (text[runs[-1][1] : s].strip() in ("", "-", "&", "of", "de", "van", "von")
                                        or (titled and runs[-1][1] == spans[i - 1][1]))):
            runs[-1][1] = e
            runs[-1][2] += 1
            runs[-1][4] = runs[-1][4] and len(w) == 1
        else:
            runs.append([s, e, 1, initial, len(w) == 1])
    return [(s, e) for s, e, n, initial, _ in runs if n > 1 or not initial]


# Capitalised unit symbols, read as units (not names) right after a number: digital storage, frequency, power and
# energy, electricity, and a few others written in capitals. Hand-typed from the SI brochure and common product
# specifications; lower-case symbols ("kg", "km") are never read as names anyway.
UNIT_SYMBOLS = frozenset(
    "KB MB GB TB PB KiB MiB GiB TiB Kb Mb Gb Tb Kbps Mbps Gbps Hz kHz MHz GHz THz kW MW GW TW Wh kWh MWh GWh TWh kV "
    "mV mA mAh Ah MP dB DPI PPI RPM BTU kPa MPa GPa kN kJ MJ".split())  # no one-letter symbol: "In 2020 J. K. Rowling"


_NUMBER_SIGN_AFTER = re.compile(r"\.\s?\d")


def _after_a_number(text: str, start: int) -> bool:
    """Whether a digit stands right before ``start``, across spaces or one hyphen ("16 GB", "16-GB", "16GB")."""
    j = start - 1
    while j >= 0 and text[j] == " " and start - j <= 3:
        j -= 1
    if j >= 0 and text[j] == "-":
        j -= 1
    return j >= 0 and text[j].isdigit()


def _after_title(text: str, previous: tuple[int, int], start: int) -> bool:
    """Whether the word at ``start`` follows a title's abbreviation and its full stop ("Dr. Park")."""
    s, e = previous
    return text[e : e + 1] == "." and not text[e + 1 : start].strip() and text[s:e].lower() in NAME_ABBREVIATIONS


def _after_initial(text: str, run_start: int, run_end: int, start: int, end: int) -> bool:
    """Whether the word ``text[start:end]`` goes on the run of initials ``text[run_start:run_end]``: a dot between,
    and spaces only between a person's initials ("U.S", "J. K. Rowling"; not "Plan B. Microsoft", whose run is not
    initials alone, nor "the U.S. Microsoft said" or "vitamin C. Researchers", a sentence after a letter)."""
    run, between = text[run_start:run_end], text[run_end:start]
    if not 0 < len(between) <= 3 or between[0] != "." or between[1:].strip():
        return False
    if len(between) == 1:
        return True
    spaced_initials = not any(run[k] == "." and run[k + 1].isalpha() for k in range(len(run) - 1))
    return spaced_initials and (end - start == 1 or run_end - run_start > 1)


def _letters_and_letters(text: str, start: int, end: int) -> bool:
    """Whether the word ``text[start:end]`` is one letter of single letters joined by "&" ("Q&A", "R&D")."""
    if end - start != 1:
        return False
    left = start >= 2 and text[start - 1] == "&" and text[start - 2].isalpha() and (
        start < 3 or not text[start - 3].isalnum())
    right = end + 1 < len(text) and text[end] == "&" and text[end + 1].isalpha() and (
        end + 2 >= len(text) or not text[end + 2].isalnum())
    return left or right


@dataclass(frozen=True)
class NumberMention:
    """A number found in text, normalised to a float."""

    start: int
    end: int
    value: float
    is_percent: bool
    alt: float | None = None  # the same quantity written another way (5 pm -> 17)


def number_mentions(text: str) -> list[NumberMention]:
    """Numbers in ``text`` (digits, thousands separators, %, scale words, small number words)."""
    out = []
    for m in _NUMBER.finditer(text):
        digits = m.group(1).replace(",", "")
        value = float(digits + (m.group(2) or ""))
        scale = m.group(4)
        if scale:
            # "5 m" after a number is usually metres, but "$5m" is money: only scale money or words.
            money = "$" in m.group(0) or text[m.start() - 1:m.start()] in _MONEY
            if scale.lower() in ("m", "k", "bn") and not money:
                scale = None
        if scale:
            value *= _SCALE[scale.lower()]
        if m.group(0).lstrip().startswith(("-", "−")):
            value = -value
        end = m.end() if (m.group(3) or scale) else (m.end(2) if m.group(2) else m.end(1))
        alt = None
        t = _TIME_SUFFIX.match(text, end)
        if t and value < 12:
            alt = value + 12 if t.group(1).lower().startswith("p") else value
        out.append(NumberMention(m.start(), end, value, bool(m.group(3)), alt))
    for n in word_numbers(text):
        # "nine per cent" spans its sign's words, as "9 per cent" does: they are the number's, not words to look up
        percent = _PERCENT_AFTER.match(text, n.end)
        out.append(NumberMention(n.start, percent.end() if percent else n.end, n.value,
                                 percent is not None or n.percent is not None, n.percent))
    if ratios := ratio_numbers(text):  # "one in five" is one number, a share (20%), not a 1 and a 5
        starts = [r.start for r in ratios]
        out = [m for m in out if not (i := bisect.bisect_right(starts, m.start)) or ratios[i - 1].end < m.end]
        out += [NumberMention(r.start, r.end, r.value, True, r.percent) for r in ratios]
    return out


_PERCENT_AFTER = re.compile(r"\s*(?:%|percent\b|per cent\b)", re.IGNORECASE)


_REFERENCE_BEFORE = re.compile(
    r"\b(?:passages?|documents?|sources?|contexts?|options?|steps?|items?|points?|tips?|methods?|paragraphs?"
    r"|references?|snippets?|results?|excerpts?)\s*(?:#|no\.?\s*)?$",
    re.IGNORECASE,
)
_MARKER_AFTER = re.compile(r"\s*[.):]\s")
_ENUMERATOR_REACH = 80


def is_enumerator(text: str, start: int, end: int) -> bool:
    """Whether the number at ``text[start:end]`` numbers something rather than states a quantity: a list
    marker opening its line ("3. Place the door stop", "(2) ...") or a reference ("passage 3", "Step 6",
    "option 1"). Such numbers are not facts to find in the context."""
    # Only the last _ENUMERATOR_REACH characters of the line are read: a passage of one long line of numbers would
    # make every number re-read the line (quadratic). A marker opens its line, so one that far in is none.
    reach = max(0, start - _ENUMERATOR_REACH)
    newline = text.rfind("\n", reach, start)
    before = text[newline + 1 if newline >= 0 else reach:start]
    if _REFERENCE_BEFORE.search(before):
        return True
    opens_line = newline >= 0 or reach == 0
    return opens_line and not before.strip(" \t*-•(#") and bool(_MARKER_AFTER.match(text[end : end + 3] + " "))


def number_values(text: str) -> set[float]:
    """All number values in ``text``, also with scale words applied and removed (5 million -> 5, 5e6)."""
    values = set()
    for m in number_mentions(text):
        values.add(round(m.value, 6))
        values.add(round(abs(m.value), 6))
        # A fraction's percentage, both as written and whole ("a third": 33.3 and 33).
        if m.alt is not None and m.is_percent:
            values.add(round(m.alt, 6))
            values.add(float(round(m.alt)))
    for m in _NUMBER.finditer(text):
        values.add(round(float(m.group(1).replace(",", "") + (m.group(2) or "")), 6))
    return values


def has_negation(text: str, *, cues: frozenset[str] = NEGATION_CUES) -> bool:
    """Whether the text contains a negation cue ("not", "n't", "never", "no", "without", ... or ``cues``)."""
    return any(_is_cue(text[s:e], cues) for s, e in word_spans(text))


_CLAUSE_BREAK = re.compile(r"[,.;:!?()\"]")


# Past forms of irregular verbs, as stems ("led" -> "lead"): the suffix stripper cannot relate them, so a copied
# sentence with "did not lead" for "led" looked like a paraphrase.
_BASE_FORMS = {_stem(form): _stem(base) for form, base in IRREGULAR_PAST_FORMS.items()}


def base_form(term: str) -> str:
    """A stem with an irregular past form read as its verb's base ("led" -> "lead"); other stems unchanged."""
    return _BASE_FORMS.get(term, term)


# An answer that says yes to its question: "Yes.", "Yes, it was.", "Correct", "That's right", "Indeed it does".
_AFFIRMATION = re.compile(
    r"\W*(?:yes|yeah|yep|yup|correct|right|true|indeed|absolutely|certainly|definitely|of course|sure|"
    r"that(?:'|’)?s (?:right|correct|true)|that is (?:right|correct|true))\b",
    re.IGNORECASE,
)


def affirms(text: str) -> bool:
    """Whether ``text`` opens by saying yes ("Yes, it was.", "Correct."); the rest of the sentence is judged on its
    own ("Yes, but in Paris, not Berlin")."""
    return _AFFIRMATION.match(text) is not None


def affirmation_end(text: str) -> int:
    """Where a yes-opener ("Correct, ", "That's right: ") ends in ``text``, or 0: it states no word to look up."""
    m = _AFFIRMATION.match(text)
    return m.end() if m else 0


def is_negation_cue(word: str) -> bool:
    """Whether one word is a negation cue ("not", "never", "doesn't", ...; see ``NEGATION_CUES``)."""
    return _is_cue(word, NEGATION_CUES)


def _is_cue(word: str, cues: frozenset[str]) -> bool:
    w = word.lower().replace("’", "'")
    return w.endswith("n't") or w.replace("'", "") in cues


def negated_terms(text: str, *, window: int = 4, take: int = 1, cues: frozenset[str] = NEGATION_CUES,
                  scoped: frozenset[str] = frozenset()) -> set[str]:
    """Stems of the words a negation applies to: the first ``take`` content word(s) within ``window`` words
    after each cue (of ``cues``), in the same clause ("does not even *meet* the requirements", "no *parking*").
    A cue whose next word is in ``scoped`` negates nothing here ("not *all*", "not *only*")."""
    spans = word_spans(text)
    out: set[str] = set()
    for i, (s, e) in enumerate(spans):
        if not _is_cue(text[s:e], cues):
            continue
        if i + 1 < len(spans) and text[spans[i + 1][0] : spans[i + 1][1]].lower() in scoped:
            continue
        got, prev = 0, e
        for s2, e2 in spans[i + 1 : i + 1 + window]:
            if _CLAUSE_BREAK.search(text, prev, s2) or _is_cue(text[s2:e2], cues):
                break
            prev = e2
            word = text[s2:e2].lower()
            if word in STOPWORDS or len(word) < 3:
                continue
            out.add(stem(text[s2:e2]))
            got += 1
            if got >= take:
                break
    return out


def negation_flip(claim: str, evidence: str) -> bool:
    """Whether the claim and its evidence sentence disagree on negation, exactly one of them negating.

    A claim that negates something ("does not *focus* on retail") states what the evidence does not; a
    bare "no" negates no word and decides nothing. A negation only in the evidence counts when the claim
    states the very word it negates: paraphrases move negation around ("it is *unclear*" for "it is
    *not* clear", "*No* wonder she seemed unconcerned").
    """
    negated_claim, negated_evidence = has_negation(claim), has_negation(evidence)
    if negated_claim == negated_evidence:
        return False
    if negated_claim:
        return bool(negated_terms(claim))
    return bool(negated_terms(evidence) & term_set(claim))
