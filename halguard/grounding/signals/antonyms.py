"""Antonym flips: the claim says "rose" where the evidence sentence it paraphrases says "fell".

A hand-written lexicon of opposite word groups (directions, amounts, outcomes, evaluations, states),
matched on stems, with common irregular forms listed. A flip needs the claim to use one side of a group,
the evidence sentence the other side, and neither text to use both sides ("revenue rose while costs
fell" has both, so it is never a flip for either word); a movement against no movement at all ("raised" where the
evidence says "unchanged" and no movement) is one too. The lexicon is general English, written by hand,
not taken from the development data. Converse pairs are not in it ("before" / "after", "above" / "below",
"import" / "export", "husband" / "wife"): "A is above B" is "B is below A", so the words alone say nothing.
"Buy" / "sell" is a flip only where neither text names the other party ("the bank was selling bonds" against
"buying bonds"): "A bought X from B" is "B sold X to A", which the role check reads with its roles
(:data:`halguard.grounding.roles.converse.CONVERSE_PREDICATES`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Sequence
from functools import lru_cache

from halguard.text.lexical import STOPWORDS, regular_forms, stem, word_spans
from halguard.text.quantities import bound_spans

__all__ = ["antonym_flips", "lexicon_side", "opposite_in", "same_side_in"]

# "Buy" / "sell": a flip only where the texts do not name both sides of the exchange (_names_a_party).
_EXCHANGE = ("buy bought purchase", "sell sold")
# "Win" / "lose": one side's win is the other's loss, so a flip only where the texts' winner and loser are not two
# parties of one contest (_two_parties).
_CONTEST = ("win won winning victory success successful succeed", "lose lost losing defeat failure fail unsuccessful")
# (one side, the other side). Irregular forms are listed; regular ones are reached through stemming.
_GROUPS: tuple[tuple[str, str], ...] = (
    ("increase rise rose risen grow grew grown gain climb surge soar jump expand higher raise boost",
     "decrease fall fell fallen decline drop shrink shrank shrunk slump plunge contract lower reduce cut"),
    ("more greater larger bigger largest biggest maximum", "less fewer smaller smallest minimum"),
    ("most", "least"),  # "the most common side effect" / "the least common" ("at least", "at most" are bounds: _sides)
    ("high highest tall taller tallest", "low lowest"),
    ("strong stronger strongest strengthen", "weak weaker weakest weaken"),
    ("easy easier easiest simple simpler", "hard harder hardest difficult complex complicated"),
    ("accept agree approve allow permit", "refuse reject deny forbid forbade forbidden prohibit ban banned"),
    _CONTEST,
    ("profit profitable income earnings", "loss unprofitable"),  # "net income" and "earnings" are a profit
    ("positive", "negative"),
    ("good better best improve improvement", "bad worse worst worsen deteriorate deterioration"),
    ("early earlier earliest", "late later latest"),
    ("first", "last final"),
    ("begin began begun start", "finish"),
    ("open", "closed"),
    ("weekday weekdays", "weekend weekends"),  # "limited to weekends" / "only on weekdays"
    _EXCHANGE,
    ("include including", "exclude excluding"),
    ("add", "remove"),
    ("love enjoy", "dislike hate"),
    ("happy pleased satisfied", "unhappy sad displeased dissatisfied"),
    ("cheap cheaper cheapest inexpensive", "expensive costly pricier"),
    ("long longer longest", "short shorter shortest"),
    # not "light": a lamp, a colour ("light bulbs", "light blue") as often as a weight
    ("heavy heavier heaviest", "lighter lightest lightweight"),
    ("fast faster fastest quick quicker accelerate", "slow slower slowest decelerate"),
    ("wide wider widest widen broad broader broaden", "narrow narrower narrowest"),  # "the margin narrowed"
    ("hot hotter warm warmer", "cold colder"),
    ("new newer newest", "old older oldest"),
    ("young younger youngest", "elderly"),
    ("possible", "impossible"),
    ("able", "unable"),
    ("legal lawful", "illegal unlawful"),
    ("public", "private"),
    ("internal", "external"),
    ("majority", "minority"),
    ("inside", "outside"),
    ("north northern", "south southern"),
    ("east eastern", "west western"),
    ("men male", "women female"),
    ("son", "daughter"),
    ("brother", "sister"),
    # a relative of the other sex is another person ("husband" / "wife" is left out: one marriage told from its two
    # sides, roles.converse)
    ("father", "mother"),
    ("grandfather", "grandmother"),
    ("grandson", "granddaughter"),
    ("uncle", "aunt"),
    ("nephew", "niece"),
    ("true correct accurate", "false incorrect inaccurate wrong"),
    ("safe", "dangerous unsafe"),
    ("rich wealthy", "poor"),
    ("full", "empty"),
    ("same similar identical", "different"),
    ("always", "never"),
    ("conditional", "unconditional"),
    ("formal", "informal"),
    ("optional", "mandatory required compulsory"),
    ("available", "unavailable"),
    ("support", "oppose"),
    ("remember", "forget forgot forgotten"),
    ("arrive", "depart"),
    ("attack", "defend"),
    ("friend", "enemy"),
)


# No movement at all: "raised its forecast" against "kept its forecast unchanged" is a flip, as "raised" against "cut"
# is, where the evidence has no movement word and the claim no word of these (_steady_flips). Not a third side of the
# movements' group: "guidance remains unchanged despite cost increases" would then hold two sides, and say nothing of
# either. Only words that say nothing else ("kept", "held", "flat" mostly do: "kept the kitchen clean", "a flat fee").
_STEADY = frozenset(stem(w) for w in "unchanged steady stable unaltered".split())
_MOVEMENTS = 0  # the movements' group in _GROUPS


def _keys(word: str) -> set[str]:
    """The lexicon's keys of a listed word: the stems of its forms, or the word itself (marked ``=``) where its stem
    is another word: "costly" stems to "cost" and "early" to "ear", so every "cost" would read as "expensive" (a
    claim's "£10 cheaper" flipped against "check-ups cost £55")."""
    if word.endswith("ly") and stem(word) == word[:-2]:
        return {"=" + word}
    return {stem(f) for f in regular_forms(word)}


def _entry(word: str) -> tuple[int, int] | None:
    """The (group, side) of a word of a text, read as :func:`_keys` keys the lexicon."""
    lex = _lexicon()
    return lex.get("=" + word.lower()) or lex.get(stem(word))


@lru_cache(maxsize=1)
def _lexicon() -> dict[str, tuple[int, int]]:
    """stem -> (group, side) (:func:`_keys`). A stem listed in two places ("last" in two groups) decides nothing."""
    out: dict[str, tuple[int, int]] = {}
    ambiguous: set[str] = set()
    for g, pair in enumerate(_GROUPS):
        for side, words in enumerate(pair):
            for st in {key for w in words.split() for key in _keys(w)}:
                if st in out and out[st] != (g, side):
                    ambiguous.add(st)
                out[st] = (g, side)
    for st in ambiguous:
        del out[st]
    return out


def _sides(text: str, skip: Collection[str] = ()) -> dict[int, dict[int, list[tuple[int, int]]]]:
    """group -> side -> spans of the words of ``text`` on that side (words of stems in ``skip`` left out)."""
    found: dict[int, dict[int, list[tuple[int, int]]]] = {}
    bounds: list[tuple[int, int]] | None = None  # read on the first word of the lexicon
    for s, e in word_spans(text):
        if text[s].isupper():  # "New York", "Best Buy": names are not evaluations
            continue
        word_stem = stem(text[s:e])
        hit = _entry(text[s:e])
        if hit is None or word_stem in skip or _bound_word(text, s, word_stem):
            continue
        bounds = bound_spans(text) if bounds is None else bounds
        if not _in_a_bound(s, bounds):
            found.setdefault(hit[0], {}).setdefault(hit[1], []).append((s, e))
    return found


_AT_BEFORE = re.compile(r"\bat\s+$", re.IGNORECASE)
# "last year", "last season": the one before, not the final one (no opposite of "the first quarter")
_PERIOD_AFTER = re.compile(r"\s+(?:year|years|week|weeks|month|months|quarter|season|night|time|summer|winter|spring"
                           r"|autumn|fall|weekend|term|decade|century)\b", re.IGNORECASE)


# "$50 or less", "65 or older", "48 hours or more": a bound after its number and unit ("no more than three" is one
# before it: bound_spans)
_NUMBER_OR_BEFORE = re.compile(r"\d[\d,.]*\s{0,2}%?(?:\s{1,3}[^\W\d_]{1,12})?\s{1,3}or\s{1,3}$")


def _in_a_bound(start: int, bounds: Sequence[tuple[int, int]]) -> bool:
    """Whether the word at ``start`` is in one of the ``bounds`` (spans in order, apart) : "no *more* than three" says
    "at most 3", no amount compared."""
    i = bisect.bisect_right(bounds, (start, float("inf"))) - 1
    return i >= 0 and bounds[i][0] <= start < bounds[i][1]


def _bound_word(text: str, start: int, word_stem: str) -> bool:
    """Whether the word at ``start`` is the "least" or "most" of a bound ("at least 40", "at most two"), the word of
    a bound after its number ("$50 or less"), or the "last" of the period before ("last year"): no superlative, amount
    compared or end of anything."""
    if word_stem == "last":
        return _PERIOD_AFTER.match(text, start + 4) is not None
    if _NUMBER_OR_BEFORE.search(text, max(0, start - 20), start):
        return True
    return word_stem in ("least", "most") and _AT_BEFORE.search(text, max(0, start - 4), start) is not None


def lexicon_side(word: str) -> tuple[int, int] | None:
    """The (group, side) of ``word`` in the lexicon of opposites, by its stem; None for a word not in it."""
    return _entry(word)


def opposite_in(word: str, stems: Collection[str]) -> bool:
    """Whether ``stems`` hold a word of the other side of ``word``'s pair ("closed" for "open"), or ``word`` with a
    negative prefix (:func:`_negative_base`: "undeclared" for "declared", "unaware" for "aware")."""
    word_stem = stem(word)
    if any(_negative_base(st) == word_stem for st in stems):
        return True
    side = lexicon_side(word)
    if side is None:
        return False
    lex = _lexicon()
    return any(lex.get(st, (None, None))[0] == side[0] and lex[st][1] != side[1] for st in stems)


def same_side_in(word: str, stems: Collection[str]) -> bool:
    """Whether ``stems`` hold another word of ``word``'s side of its pair and none of the other side ("higher" for
    "rising", "reduced" for "lowered"): the same direction, in other words."""
    side = lexicon_side(word)
    if side is None:
        return False
    lex = _lexicon()
    # a comparative of the evidence is its base's side too: "higher" (a change) says "taller" as "high" does
    sides = {lex[form][1] for st in stems for form in _with_base(st) if form in lex and lex[form][0] == side[0]}
    return sides == {side[1]}


def _with_base(term_stem: str) -> tuple[str, ...]:
    """A stem and, for a comparative or superlative ("higher", "lowest"), its base ("high", "low")."""
    for suffix in ("est", "er"):
        if term_stem.endswith(suffix) and len(term_stem) > len(suffix) + 2:
            return term_stem, term_stem[: -len(suffix)]
    return (term_stem,)


def antonym_flips(claim: str, evidence: str, evidence_negated: Collection[str] = ()) -> list[tuple[int, int]]:
    """Spans of ``claim`` words whose opposite, and not themselves, is in ``evidence``.

    Both texts must take one side each of the same group; a text that has both sides of a group is
    ambiguous and yields nothing for it. An evidence word under a negation (stems in ``evidence_negated``: "the
    silverware was not very *clean*") says nothing of its side, so "unclean" or "dirty" is no flip against it.
    """
    claim_sides = _sides(claim)
    evidence_sides = _sides(evidence, skip=evidence_negated)
    spans: list[tuple[int, int]] = []
    for group, sides in claim_sides.items():
        other = evidence_sides.get(group)
        if len(sides) != 1 or not other or len(other) != 1:
            continue
        (side, words), = sides.items()
        if side in other or (_GROUPS[group] is _EXCHANGE and (_names_a_party(claim, evidence)
                                                              or _owner_named(claim, evidence, words))):
            continue
        if _GROUPS[group] is _CONTEST and _two_parties(claim, evidence, next(iter(other.values()))[0][0]):
            continue
        spans.extend(words)
    return sorted(set(spans) | set(_prefix_flips(claim, evidence, evidence_negated))
                  | set(_steady_flips(claim_sides, evidence_sides, claim, evidence, evidence_negated)))


def _steady_flips(claim_sides: dict[int, dict[int, list[tuple[int, int]]]],
                  evidence_sides: dict[int, dict[int, list[tuple[int, int]]]], claim: str, evidence: str,
                  evidence_negated: Collection[str]) -> list[tuple[int, int]]:
    """The claim's movement words where the evidence says the thing did not move (:data:`_STEADY`) and says no
    movement (``evidence_sides``: its words' sides, as :func:`_sides` reads them), and the claim says no steadiness."""
    moved = claim_sides.get(_MOVEMENTS)
    if not moved or _MOVEMENTS in evidence_sides:
        return []
    if not any(stem(evidence[s:e]) in _STEADY and stem(evidence[s:e]) not in evidence_negated
               for s, e in word_spans(evidence)):
        return []
    if any(stem(claim[s:e]) in _STEADY for s, e in word_spans(claim)):
        return []
    return [span for spans in moved.values() for span in spans]


# Opposites made by a negative prefix ("experienced" / "inexperienced", "structured" / "unstructured", "efficient" /
# "inefficient"): "un-" and "non-" before any word; "in-", "im-", "ir-", "il-" only before an adjective's ending,
# since most words that start so are no negation ("indoor", "inside", "income", "inform", "invest", "import").
# "dis-" is left out ("discover", "display", "dismiss", "discount"), and so is "unlike" ("like" is mostly a
# preposition). Hand-written general English, not taken from the development data.
_ANY_BASE_PREFIXES = ("un", "non")
_ADJECTIVE_PREFIXES = ("in", "im", "ir", "il")
_ADJECTIVE_ENDING = re.compile(r"(?:ible|able|ent|ant|ate|ive|al|ous|ete|ect|ed|ar|ic|ful|ure)$")
_NOT_PREFIXED = frozenset({"unlike", "until", "unless", "unto"})
_MIN_BASE = 4


def _negative_base(word: str) -> str | None:
    """The word a negative prefix turns around in ``word`` (lower case): "inexperienced" -> "experienced"."""
    if word in _NOT_PREFIXED:
        return None
    for prefix in _ANY_BASE_PREFIXES + _ADJECTIVE_PREFIXES:
        if word.startswith(prefix):
            base = word[len(prefix):].lstrip("-")
            if len(base) >= _MIN_BASE and (prefix in _ANY_BASE_PREFIXES or _ADJECTIVE_ENDING.search(base)):
                return base
    return None


def _prefix_flips(claim: str, evidence: str, evidence_negated: Collection[str] = ()) -> list[tuple[int, int]]:
    """Spans of ``claim`` words that the evidence says with a negative prefix, or without the claim's: each text
    uses one form and not the other (an evidence word under a negation is neither: "not clear" is "unclear")."""
    def forms(text: str, skip: Collection[str] = ()) -> dict[str, list[tuple[int, int]]]:
        out: dict[str, list[tuple[int, int]]] = {}
        for s, e in word_spans(text):
            # "Unilever", "Inland Revenue": names are no negations
            if not text[s].isupper() and stem(text[s:e]) not in skip:
                out.setdefault(text[s:e].lower(), []).append((s, e))
        return out

    ours, theirs = forms(claim), forms(evidence, evidence_negated)
    our_bases = {_negative_base(w) for w in ours} - {None}
    their_bases = {_negative_base(w) for w in theirs} - {None}
    spans = []
    for word, found in ours.items():
        base = _negative_base(word)
        if base is not None and base in theirs and base not in ours and word not in theirs:
            spans.extend(found)  # "unstructured" where the evidence says "structured"
        elif word not in theirs and word in their_bases and word not in our_bases:
            spans.extend(found)  # "experienced" where the evidence says "inexperienced"
    return spans


_FROM = re.compile(r"\bfrom\b", re.IGNORECASE)
_TO = re.compile(r"\bto\b", re.IGNORECASE)


def _names_a_party(claim: str, evidence: str) -> bool:
    """Whether the texts name the two sides of an exchange, one "from" and the other "to" ("bought ... from B",
    "sold ... to A"): then "bought" for "sold" can be the same sale seen from the buyer (the role check decides)."""
    return bool((_FROM.search(claim) and _TO.search(evidence)) or (_TO.search(claim) and _FROM.search(evidence)))


# A party named as the owner of what changes hands, right after the exchange word ("bought Harlow Bank's insurance
# arm"): the other side of the exchange, said without "from" or "to".
_OWNER_AFTER = re.compile(r"\s+(?:the\s+)?([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,5}?)['’]s\b")


def _owner_named(claim: str, evidence: str, spans: list[tuple[int, int]]) -> bool:
    """Whether the claim names both sides of an exchange, the one before its word and the owner after it ("Mercer
    Group bought Harlow Bank's insurance arm"), and the evidence names them both ("Harlow Bank sold its insurance arm
    to Mercer Group"): the same sale seen from the other side, for the role check to read."""
    theirs = _parties(evidence)
    for start, end in spans:
        owner = _OWNER_AFTER.match(claim, end)
        doers = _parties(claim, start)
        if owner is None or not doers:
            continue
        sides = (doers[-1], frozenset(w.lower() for w in owner.group(1).split()) - STOPWORDS)
        if all(side and any(side & party for party in theirs) for side in sides):
            return True
    return False


# A party: a run of capitalised words ("the Wisconsin Badgers", "Kentucky's"), its function words left out (a
# sentence's capitalised first word: "It will be looking to win", "If Duke wins").
_PARTY = re.compile(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")


def _parties(text: str, end: int | None = None) -> list[frozenset[str]]:
    """The parties ``text`` names (before ``end``), each as its lower-case words, in order."""
    out = []
    for m in _PARTY.finditer(text, 0, len(text) if end is None else end):
        words = frozenset(w.lower().removesuffix("'s").removesuffix("’s") for w in m.group().split()) - STOPWORDS
        if words:
            out.append(words)
    return out


def _two_parties(claim: str, evidence: str, evidence_word_start: int) -> bool:
    """Whether "lost" in ``claim`` and "won" in ``evidence`` can be one contest seen from its two sides, so no
    flip: the party the evidence names last before its word (the winner of "the Wisconsin Badgers, who rallied
    for a 71-64 victory") is not the claim's first party ("The Kentucky Wildcats' quest ... lost to the Wisconsin
    Badgers"); or the evidence names no winner ("It will be looking to win") while the claim names two parties.
    The same party winning in one and losing in the other stays a flip, and so do texts that name no party ("the
    launch failed" against "the launch was a success")."""
    theirs, ours = _parties(evidence, evidence_word_start), _parties(claim)
    if not theirs:
        return len(ours) >= 2
    return not ours or not (theirs[-1] & ours[0])
