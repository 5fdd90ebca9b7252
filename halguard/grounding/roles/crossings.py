"""Who trades places with whom between a claim's frame and an evidence frame of the same verb (:mod:`.matching`): the
agent and the patient crossed ("Palmera Freight bought Northwind" against "Northwind bought Palmera Freight"), or half
of that where the passage's other side is a pronoun ("Paul Berg replaces Ingrid Solvang" against "she replaces Paul
Berg"); the agent and a phrase's object ("hired Sara Lind from the Halden Institute"); and two differing arguments
each of which is what the passage has in the other's place. A symmetric predicate ("Kessler met Rao") crosses
nothing.
"""

from __future__ import annotations

from halguard.grounding.roles.arguments import compare
from halguard.grounding.roles.frames import Argument, Frame

__all__ = ["SYMMETRIC_PREDICATES", "agent_and_patient_crossed", "crossed_with_phrase", "exchanged"]

# Predicates whose agent and patient can be exchanged without changing what is said. Hand-listed from the issue's
# cases and their neighbours (stems of halguard.text.lexical.stem's lemmas are compared, so list lemmas).
SYMMETRIC_PREDICATES = frozenset({
    "meet", "marry", "wed", "divorce", "date", "play", "face", "draw", "tie", "merge", "collide", "border", "adjoin",
    "neighbour", "neighbor", "resemble", "equal", "match", "partner", "compete", "battle", "fight", "debate",
    "negotiate", "talk", "speak", "chat", "trade", "swap", "exchange", "share", "join", "sit", "be", "lie", "stand",
    "touch", "meet with", "team up", "split", "separate", "correspond", "agree", "disagree", "coincide", "rival",
    "contest", "duel", "wrestle", "race", "box", "spar", "kiss", "hug", "embrace", "collaborate", "cooperate",
    "connect", "link", "differ", "alternate",
    # relations a copula states of two ("X is the cousin of Y": roles/frames._relation_frame)
    "cousin", "friend", "colleague", "sibling", "twin", "spouse", "classmate", "teammate", "ally", "peer",
    "contemporary", "counterpart", "equivalent", "opposite", "namesake", "relative", "neighbour", "neighbor",
})

# The roles whose argument can trade places with the agent: whom something goes to, where someone comes from or goes
# to ("sold X to Y", the parser's recipient; "hired X from Y", "loaned X to Y"). A recipient and a "to" phrase are one
# role (the parser reads "supply power to the city" either way).
_CROSSING_ROLES = ("recipient", "prep:from", "prep:to")
_ONE_ROLE = {"recipient": ("recipient", "prep:to"), "prep:to": ("recipient", "prep:to")}


def agent_and_patient_crossed(claim: Frame, evidence: Frame) -> tuple[Argument, Argument, Argument, Argument] | None:
    """(claim agent, patient, evidence agent, patient) where the claim's agent is the passage's patient and its patient
    the passage's agent, or half of that ("Paul Berg replaces Ingrid Solvang" against "she replaces Paul Berg", "he
    was replaced by Luca Conti": nobody does the thing to themself), one agent and one patient each; else None."""
    c_agents, c_patients = claim.get("agent"), claim.get("patient")
    e_agents, e_patients = evidence.get("agent"), evidence.get("patient")
    if not len(c_agents) == len(c_patients) == len(e_agents) == len(e_patients) == 1:
        return None
    ca, cp, ea, ep = c_agents[0], c_patients[0], e_agents[0], e_patients[0]
    if "same" in (compare(ca, ea), compare(cp, ep)):
        return None
    doer_was_done_to, done_to_was_doer = compare(ca, ep) == "same", compare(cp, ea) == "same"
    if doer_was_done_to and done_to_was_doer:
        return ca, cp, ea, ep
    # half: one name the passage puts on the other side of the verb, whose other side is a pronoun ("she", "he") or
    # another name ("Ekdahl will be replaced by Raman"... where Solvane Energy replaces Ekdahl: Ekdahl replaces no one)
    half = (doer_was_done_to and _both_names(ca, ep) and (_third_person(ea) or _other_name(cp, ea))) or (
        done_to_was_doer and _both_names(cp, ea) and (_third_person(ep) or _other_name(ca, ep)))
    one_way = SYMMETRIC_PREDICATES.isdisjoint((claim.predicate, evidence.predicate)) and claim.predicate != "have"
    return (ca, cp, ea, ep) if half and one_way else None


def _both_names(ours: Argument, theirs: Argument) -> bool:
    return ours.head_is_name and theirs.head_is_name


def _other_name(ours: Argument, theirs: Argument) -> bool:
    return _both_names(ours, theirs) and compare(ours, theirs) == "differ"


def _third_person(arg: Argument) -> bool:
    return arg.pronoun and arg.text.lower() in ("he", "she", "it", "they", "him", "her", "them")


def crossed_with_phrase(claim: Frame, evidence: Frame) -> tuple[str, str] | None:
    """The roles (the claim's and the evidence's, of :data:`_CROSSING_ROLES`) whose one argument trades places with
    the one agent of both frames: the claim's agent is the evidence's phrase object and the reverse, and neither is
    the same as where it stands in the other frame. None for a symmetric predicate, or where nothing crosses."""
    if not SYMMETRIC_PREDICATES.isdisjoint((claim.predicate, evidence.predicate)):
        return None
    c_agents, e_agents = claim.get("agent"), evidence.get("agent")
    if len(c_agents) != 1 or len(e_agents) != 1:
        return None
    ca, ea = c_agents[0], e_agents[0]
    for role in _CROSSING_ROLES:
        ours = claim.get(role)
        for their_role in _ONE_ROLE.get(role, (role,)):
            theirs = evidence.get(their_role)
            if len(ours) == len(theirs) == 1 and compare(ca, theirs[0]) == "same" \
                    and compare(ours[0], ea) == "same" and compare(ca, ea) != "same" \
                    and compare(ours[0], theirs[0]) != "same":
                return role, their_role
    return None


def exchanged(differing: list[tuple[str, Argument, Argument]]
               ) -> tuple[tuple[str, Argument, Argument], tuple[str, Argument, Argument]] | None:
    """Two differing arguments each of which is what the passage has in the other's place, or None."""
    for i, first in enumerate(differing):
        for second in differing[i + 1:]:
            if compare(first[1], second[2]) == "same" and compare(second[1], first[2]) == "same":
                return first, second
    return None
