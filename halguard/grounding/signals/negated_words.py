"""The words a text negates, for the polarity checks (:mod:`.negation`, :mod:`.negated_clauses`): the word after
a grammatical negator, read past the grammar of bounds, conditions, quantifiers and prices ("for no more than 6 hours",
"lost if not used", "neither of the two events was related", "cost nothing"), an elliptical negation's subject ("cash
is not"), an "X-free" compound's word, and a word a negation runs on to over "or".

Bounded: fixed patterns with bounded repeats, linear on any text.
"""

from __future__ import annotations

import re

from halguard.text.lexical import NEGATION_CUES, STOPWORDS, negated_terms, stem
from halguard.text.number_words import is_number_word

__all__ = ["FLIP_CUES", "LEXICAL_NEGATORS", "NEGATOR", "flip_targets", "negations"]


# The cues a polarity flip is read from: the grammatical negators. Lexical ones ("lacked", "without", "unable",
# "absent") paraphrase too freely ("lacked innovation" for "nothing new", "life without parole" for "no possibility
# of parole") to call a contradiction; they stay negation for the other uses of halguard.text.lexical.
FLIP_CUES = frozenset("not no never none nobody nothing neither nor cannot cant dont doesnt didnt isnt arent wasnt "
                      "werent wont wouldnt shouldnt couldnt hasnt havent hadnt non".split())
# The lexical negators: never read as a flip, but a word one of them negates is not stated plainly either: "with no time
# limit" says what "without time limits" says, and "without a permit" what "no permit" says.
LEXICAL_NEGATORS = NEGATION_CUES - FLIP_CUES
# Words after a negator that make it scope over a quantity or a focus, not a proposition.
_SCOPE_WORDS = frozenset("all every only just necessarily always merely quite too entirely exactly least".split())
_PRIVATIVE = re.compile(r"\b([^\W\d_]{3,})-(?:free|less)\b")


# A negator that opens a bound on a number or a date states the bound, not a denial: "for no more than 6 hours" is
# "for up to six hours" (halguard.text.quantities reads it as a bound), blanked before the negated words are read; so
# are a negated "over", "more than", "before", "until" (three words may come between) before a number: "shouldn't go
# over six tablets", "but not before 6pm" (no denial of "6pm"; :mod:`.bounds_turned` reads one turned around).
_COMPARATIVES = "more|less|fewer|later|earlier|sooner|greater|longer|shorter|higher|lower|older|younger"
_NEGATED_BOUND = re.compile(rf"\b(?:no|not)\s+(?:{_COMPARATIVES})\s+than\b", re.IGNORECASE)
# "at no cost" / "at no extra charge" says "free" (halguard.text.phrasal reads it so), no denial of a cost the passage
# gives for something else ("replacement bins ... cost £25 each").
_AT_NO_COST = re.compile(r"\bat\s+no\s+(?:extra\s+|additional\s+)?(?:cost|charge)\b", re.IGNORECASE)
_NEGATED_COMPARISON = re.compile(
    r"(?:\b(?:not|never)|n['’]t)\s+(?:[^\W\d_]+\s+){0,3}(?:any\s+)?"
    rf"(?:over|above|beyond|under|below|exceeds?|exceeding|surpass(?:es)?|(?:{_COMPARATIVES})\s+than"
    r"|before|after|until|till)\s+(?:(?:about|around|roughly)\s+)?[$£€]?(\d|[^\W\d_]+)", re.IGNORECASE)


# A negated condition asserts no negation: "they are lost if not used by 31 March" says what "must be used by 31 March
# or they are lost" says ("if not X, Y" is "X or Y"), and "if it doesn't lock, open the door" states no fact.
# A condition runs from "if" to the end of its clause; its negators are blanked (:func:`negations` reads what they
# negate).
_CONDITION = re.compile(r"\bif\b[^,;:.!?\n]{0,200}", re.IGNORECASE)
NEGATOR = re.compile(r"\b(?:not|never|no)\b|\b[^\W\d_]+n['’]t\b", re.IGNORECASE)


def _blank_conditions(text: str) -> str:
    """``text`` with the negators of its conditions (:data:`_CONDITION`) blanked."""
    return _CONDITION.sub(lambda m: NEGATOR.sub(lambda n: " " * len(n.group(0)), m.group(0)), text)


def _blank_bounds(text: str) -> str:
    """``text`` with its negated bounds (:data:`_NEGATED_BOUND`, :data:`_NEGATED_COMPARISON` before a number)
    blanked, so that their negator negates no word."""
    text = _NEGATED_BOUND.sub(lambda m: " " * len(m.group(0)), text)
    text = _AT_NO_COST.sub(lambda m: " " * len(m.group(0)), text)
    for m in _NEGATED_COMPARISON.finditer(text):
        if m.group(1).isdigit() or is_number_word(m.group(1)):
            text = text[:m.start()] + " " * (m.start(1) - m.start()) + text[m.start(1):]
    return text


# "Neither of the two events was related to the drug" denies "related", not "two": a negated quantifier's predicate
# is read as negated ("the two events was not related"); without an auxiliary its verb is not found, and the first
# word after it is read as before.
_QUANTIFIED_NEGATION = re.compile(r"\b(?:neither|none)\s{1,3}of\s{1,3}([^.;:!?]{1,80}?)\s{1,3}"
                                  r"(was|were|is|are|has|have|had|did|does|do|will|would|could|can|should|may|might)\b",
                                  re.IGNORECASE)


# "blazers cost nothing at the swap" denies "cost" (not the word after "nothing"), as "don't cost anything" does.
_PRICED_NOTHING = re.compile(r"\b(costs?|charged?|charges|pays?|paid|paying)\s{1,3}(?:(?:you|us|them|me)\s{1,3})?"
                             r"nothing\b", re.IGNORECASE)
# "can no longer use it" denies "use": "longer" is the phrase's grammar (halguard.text.light_words), not its word.
_NO_LONGER = re.compile(r"\bno\s{1,3}longer\b(?!\s{1,3}than\b)", re.IGNORECASE)


# A negation whose predicate the clause before it gives ("Card and bank transfer are accepted; *cash is not*",
# "sole traders are eligible; charities and franchise outlets *are not*"): nothing follows the negator, so the word it
# denies is the subject before it. Fixed alternatives after one word: no backtracking on any text.
_ELLIPTICAL_NEGATION = re.compile(
    r"\b([^\W\d_][\w'’-]*)\s{1,3}(?:(?:is|are|was|were|does|do|did|can|could|will|would|has|have|had|should|must|may)"
    r"\s{1,3}not|(?:is|are|was|were|does|do|did|ca|wo|has|have|had)n['’]t|cannot)(?=\s{0,3}(?:[.;:!?,)]|$))",
    re.IGNORECASE)


# A negation that runs on over "or" to a word of the negated word's kind: "no dogs or *cats*", "cannot borrow or
# *renew*" (right after it), "cannot borrow items or *use* the printers" (a verb with its object's determiner after
# it). Not "don't drink tea or coffee in the hour before", whose "coffee" is the verb's object, no denied word. At most
# six words between, no clause break: linear on any text.
_COORDINATED_NEGATION = re.compile(
    r"(?:\b(?:not|never|no|cannot)|n['’]t)\s{1,3}(?:[^\W\d_][\w'’-]*\s{1,3}or\s{1,3}(?:to\s{1,3})?([^\W\d_]{3,})"
    r"|(?:[\w'’-]+\s{1,3}){1,6}?or\s{1,3}(?:to\s{1,3})?([^\W\d_]{3,})(?=\s{1,3}(?:the|a|an|any|your|their|our|his|her"
    r"|its|this|these|those)\b))", re.IGNORECASE)


def negations(text: str) -> tuple[set[str], set[str]]:
    """The stems of the words ``text`` negates (:func:`flip_targets`), and of those it negates inside a condition
    only ("lost if not *used*": neither asserted nor denied)."""
    bounded = _blank_bounds(_PRICED_NOTHING.sub(r"not \1", _NO_LONGER.sub("not", _QUANTIFIED_NEGATION.sub(
        r"\1 \2 not", text))))
    unconditioned = _blank_conditions(bounded)
    asserted = negated_terms(unconditioned, cues=FLIP_CUES, scoped=_SCOPE_WORDS)
    asserted.update(stem(m.group(1)) for m in _PRIVATIVE.finditer(unconditioned))
    asserted.update(stem(word) for m in _ELLIPTICAL_NEGATION.finditer(unconditioned)
                    if (word := m.group(1)).lower() not in STOPWORDS)
    asserted.update(stem(word) for m in _COORDINATED_NEGATION.finditer(unconditioned)
                    if (word := m.group(1) or m.group(2)).lower() not in STOPWORDS)
    if unconditioned == bounded:  # no negator in a condition
        return asserted, set()
    return asserted, negated_terms(bounded, cues=FLIP_CUES, scoped=_SCOPE_WORDS) - asserted


def flip_targets(text: str) -> set[str]:
    """The stems of the words ``text`` negates with a grammatical negator (:data:`FLIP_CUES`), as
    :func:`halguard.text.lexical.negated_terms` reads them ("did not *lead*", "no *parking*"), and the word of an
    "X-free" / "X-less" compound ("contamination-free" negates contamination). A negator that scopes over a
    quantifier or a focus word negates no proposition ("*not all* ovens", "*not only* the First Amendment but also
    ..."), a negator opening a bound or a condition negates nothing ("for *no more than* 6 hours", "lost *if not*
    used"), and a "non-" word says its own negation ("a non-confirmatory letter")."""
    return negations(text)[0]
