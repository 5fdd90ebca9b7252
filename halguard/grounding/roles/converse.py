"""One event told from either side: "A bought X from B" is "B sold X to A", "Costa signed for Rivera" is "Rivera
signed Costa". The role check (:mod:`.matching`) reads an evidence frame the claim's way before comparing roles, so
the other side's telling is neither a swap nor an antonym. A move told with other verbs is read by where the mover
went and where it came from: "Costa joined Valmont from Rivera" against "Costa left Valmont and signed for Rivera"
puts Valmont on the wrong side (:func:`move_reversals`)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

from halguard.grounding.roles.frames import Argument, Frame
from halguard.text.lexical import base_form, stem
from halguard.text.wordnet import licensers

__all__ = ["CONVERSE_PREDICATES", "FOR_PHRASE_PATIENTS", "MOVES", "RELATION_NOUNS", "converse_frame", "move_reversals",
           "said_conversely", "same_stem", "told_by_the_doer"]

# The roles of a giving read from the receiver's side, and back ("A gave X to B" / "B received X from A").
_GIVEN = {"agent": "prep:from", "recipient": "agent", "prep:to": "agent", "patient": "patient"}
_RECEIVED = {"agent": "recipient", "prep:from": "agent", "patient": "patient"}
# The verbs of giving whose other side English tells with "receive" (hand-listed general English).
_GIVERS = ("give", "award", "present", "grant", "hand", "donate", "lend", "pay", "send")
# Converse predicates: "A bought X from B" says what "B sold X to A" says. An evidence frame of the converse predicate
# is read as the claim's predicate with its roles mapped (evidence role -> the claim predicate's role). Hand-listed:
# the exchange verbs whose two sides English names with two words (the role check compares frames, so a pair here
# is what stops "bought ... from" against "sold ... to" reading as an antonym or a swap when the roles agree).
CONVERSE_PREDICATES: dict[tuple[str, str], dict[str, str]] = {
    ("sell", "buy"): {"agent": "prep:from", "recipient": "agent", "prep:to": "agent", "patient": "patient"},
    ("buy", "sell"): {"agent": "recipient", "prep:from": "agent", "patient": "patient"},
    ("lend", "borrow"): {"agent": "prep:from", "recipient": "agent", "prep:to": "agent", "patient": "patient"},
    ("borrow", "lend"): {"agent": "recipient", "prep:from": "agent", "patient": "patient"},
    # A gift, a prize, a loan, a payment: "the jury awarded the prize to A" is "A received the prize from the jury"
    # (and "A won it"); "the bank lent 300 million to A" is "A received a 300 million loan from the bank".
    **{(giver, "receive"): _GIVEN for giver in _GIVERS},
    **{("receive", giver): _RECEIVED for giver in _GIVERS},
    ("award", "win"): {"recipient": "agent", "prep:to": "agent", "patient": "patient", "agent": "prep:from"},
    # A contest: "Valencia beat Sevilla" is "Sevilla lost to Valencia" ("defeat" is "beat" by WordNet, same_stem).
    ("beat", "lose"): {"agent": "prep:to", "patient": "agent"},
    ("lose", "beat"): {"agent": "patient", "prep:to": "agent"},
}
# Relations told from either side: "Paul is the father of Ann" says "Ann is the daughter of Paul" (roles/frames.
# _relation_frame reads a copula's relation as the noun's frame). Hand-listed general English (kinship, marriage,
# work); a pair says who is whose, not whether the words' genders agree.
_CONVERSE_RELATIONS: tuple[tuple[str, str], ...] = (
    ("father mother parent", "son daughter child"),
    ("grandfather grandmother grandparent", "grandson granddaughter grandchild"),
    ("uncle aunt", "nephew niece"),
    ("husband", "wife"),
    ("employer", "employee"),
    ("teacher", "student pupil"),
)
_SWAPPED = {"agent": "patient", "patient": "agent"}
CONVERSE_PREDICATES.update({(theirs, ours): _SWAPPED for one, other in _CONVERSE_RELATIONS
                            for a, b in ((one, other), (other, one)) for theirs in a.split() for ours in b.split()})
# Converse words that the role check does not map: "Lorient signed Tavares" says "Tavares joined Lorient", but "sign"
# also takes a contract ("Tavares signed a four-year contract with Lorient"), which a mapping of "join"'s roles
# would read as a swap. For the word checks only: either verb is said where the passages use the other.
_CONVERSE_WORDS: tuple[tuple[str, str], ...] = (("sign", "join"), ("join", "sign"))
# The claim word's base form -> its converse's ("buy" -> "sell"), for the word checks.
_CONVERSE_BASES: dict[str, frozenset[str]] = {}
# (A relation's word is said by its converse only where the frames agree on who is whose: verbs.verbs_said.)
_RELATION_WORDS = frozenset(w for pair in _CONVERSE_RELATIONS for side in pair for w in side.split())
# The nouns that name someone by their relation to another ("her son", "his predecessor"): never that other one.
# The converse relations' words and hand-listed general English (siblings, posts in turn, work).
RELATION_NOUNS = _RELATION_WORDS | frozenset(
    "brother sister sibling cousin predecessor successor deputy assistant colleague rival".split())
for _theirs, _ours in (*CONVERSE_PREDICATES, *_CONVERSE_WORDS):
    if _ours in _RELATION_WORDS:
        continue
    _CONVERSE_BASES[stem(_ours)] = _CONVERSE_BASES.get(stem(_ours), frozenset()) | {stem(_theirs)}
# Verbs one word tells from both sides, the other side in a "for" phrase: "Costa signed for Rivera" (the player) is
# "Rivera signed Costa" (the club). Hand-listed (general English: a transfer or a contract told by either party).
FOR_PHRASE_PATIENTS = frozenset({"sign"})


def same_stem(a: str, b: str) -> bool:
    """Whether two predicate stems are one predicate: the same, or one licensed by the other (WordNet)."""
    return a == b or b in licensers(a) or a in licensers(b)


def said_conversely(term_stem: str, nearby: Collection[str]) -> bool:
    """Whether one of the stems ``nearby`` is the converse of ``term_stem``'s predicate ("sold" for "bought"), read
    by their base forms: the same event from the other side."""
    converses = _CONVERSE_BASES.get(base_form(term_stem), frozenset())
    return bool(converses) and any(base_form(n) in converses for n in nearby)


def converse_frame(claim: Frame, evidence: Frame) -> Frame | None:
    """``evidence`` read as the claim's predicate where it is that predicate's converse ("sold X to A" as "A bought
    X from ..."), else None."""
    for (theirs, ours), roles in CONVERSE_PREDICATES.items():
        if same_stem(evidence.stem, stem(theirs)) and same_stem(claim.stem, stem(ours)) and not same_stem(
                claim.stem, evidence.stem):
            if ours == "pay" and same_stem(evidence.stem, "buy"):
                # a buyer receives the goods and pays the price: "The museum paid €2.3 million" is what "The museum
                # acquired the painting for €2.3 million" says from the same side, not the payee's
                continue
            slots = tuple((roles.get(role, role), arg) for role, arg in evidence.slots)
            return Frame(claim.predicate, claim.stem, evidence.negated, evidence.nominal, slots)
    return None


def told_by_the_doer(frame: Frame) -> Frame:
    """``frame`` told with the other side as agent where its verb is one of :data:`FOR_PHRASE_PATIENTS` and it has
    a "for" phrase but no object: "Costa signed for Rivera" as "Rivera signed Costa". Claim and evidence frames are
    both read this way, so either telling compares with the other; any other frame is returned as it is."""
    if frame.predicate not in FOR_PHRASE_PATIENTS or not frame.get("prep:for") or frame.get("patient"):
        return frame
    swap = {"agent": "patient", "prep:for": "agent"}
    return replace(frame, slots=tuple((swap.get(role, role), arg) for role, arg in frame.slots))


# A move told from the mover's side (its agent): which role of the verb is where the mover went ("destination") and
# which where it came from ("origin"). Hand-listed general English (a player's, an employee's, a company's move);
# "sign" in its "for" form only ("Costa signed for Rivera"; "Rivera signed Costa" is the club's telling).
MOVES: dict[str, dict[str, str]] = {
    "join": {"patient": "destination", "prep:from": "origin"},
    "leave": {"patient": "origin", "prep:for": "destination", "prep:to": "destination"},
    "quit": {"patient": "origin", "prep:for": "destination", "prep:to": "destination"},
    "sign": {"prep:for": "destination", "prep:from": "origin"},
    "move": {"prep:to": "destination", "prep:from": "origin"},
    "transfer": {"prep:to": "destination", "prep:from": "origin"},
    "relocate": {"prep:to": "destination", "prep:from": "origin"},
    "travel": {"prep:to": "destination", "prep:from": "origin"},
    "fly": {"prep:to": "destination", "prep:from": "origin"},
    "migrate": {"prep:to": "destination", "prep:from": "origin"},
}
_OTHER_SIDE = {"destination": "origin", "origin": "destination"}


# "Rivera United signed Costa from Valmont": the club's telling of a move, its object the mover.
_SIGNED_BY_THE_CLUB = {"agent": "destination", "prep:from": "origin"}


def _move(frame: Frame) -> tuple[Argument, list[tuple[str, Argument]]] | None:
    """A move frame's mover and its places (``(side, argument)``); None for another frame."""
    if frame.predicate == "sign" and frame.get("patient"):
        movers = frame.get("patient")
        places = [(_SIGNED_BY_THE_CLUB[role], arg) for role, arg in frame.slots if role in _SIGNED_BY_THE_CLUB]
        return (movers[0], places) if places and len(movers) == 1 and not frame.negated else None
    roles = MOVES.get(frame.predicate)
    agents = frame.get("agent")
    if roles is None or frame.negated or len(agents) != 1:
        return None
    places = [(roles[role], arg) for role, arg in frame.slots if role in roles]
    return (agents[0], places) if places else None


def _both_reversed(ours: list[tuple[str, Argument]], theirs: list[tuple[str, Argument]],
                   same: Callable[[Argument, Argument], bool]) -> bool:
    """Whether a move's two places (``ours``: an origin and a destination) are both the other side of ``theirs``."""
    sides = {side for side, _ in ours}
    return sides == {"origin", "destination"} and all(
        any(same(place, p) and s == _OTHER_SIDE[side] for s, p in theirs) for side, place in ours)


def move_reversals(claim_frames: Sequence[Frame], evidence: Sequence[Frame],
                   same: Callable[[Argument, Argument], bool]) -> list[tuple[Argument, str]]:
    """The claim's places of a move that its evidence gives the same mover on the other side, and no evidence frame
    on the claim's side, with the reason in words ("Valmont FC: where Ana Costa went, where the passage has where
    she came from (leave)"). ``same`` tells whether two arguments are one entity (:func:`.arguments.compare`)."""
    theirs = [(m, e.predicate) for e in evidence if (m := _move(e)) is not None]
    out = []
    for frame in claim_frames:
        ours = _move(frame)
        if ours is None or not theirs:
            continue
        mover, places = ours
        # a mover the passage names by a pronoun ("when it moved from Harbour Road to ...") is the claim's where the
        # claim reverses both of its places: one place on the other side says nothing of an unnamed mover
        movers = [their_places for (their_mover, their_places), _ in theirs
                  if same(mover, their_mover) or (their_mover.pronoun and _both_reversed(places, their_places, same))]
        for side, place in places:
            sides = {(s, verb) for (their_mover, their_places), verb in theirs
                     if any(their_places is m for m in movers) for s, p in their_places if same(place, p)}
            if sides and all(s == _OTHER_SIDE[side] for s, _ in sides):
                verb = next(v for _, v in sorted(sides))
                went = "went" if side == "destination" else "came from"
                was = "came from" if side == "destination" else "went"
                out.append((place, f"{place.text}: where {mover.text} {went}, where the passage has where it {was} "
                                   f"({verb})"))
    return out
