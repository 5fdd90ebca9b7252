"""A claim's frames against its evidence's: roles exchanged, an entity or a number in the wrong place.

A claim frame is compared with every evidence frame whose predicate is the same or licensed (the same stem, or
WordNet synonyms and derivations: :mod:`halguard.text.wordnet`, "bought" for "acquired", "purchase" for "buy").
Argument by argument (same role), two arguments are *the same* when they share a name, else a number, else their
head word or a content word; they *differ* when both have names and share none, or both have numbers and share
none; anything else (a pronoun, "the company" against "Northwind") says nothing.

An evidence frame *supports* the claim frame when it agrees on at least one argument and differs on none. It
*conflicts* when:

- the claim's agent is the evidence's patient and its patient the evidence's agent (roles exchanged; never for a
  symmetric predicate: "met", "married", "played against", "is next to"), or
- it agrees on at least one argument and, on another, the claim puts a name or a number that the passage has
  elsewhere (an entity of the same passage in the wrong place, a number that belongs to another argument). A
  name or number the passage lacks is the other signals' finding (missing names and numbers), not this one's.

The claim frame is flagged when its best-aligned conflicting frame (agreeing arguments, an exchange counting two)
aligns better than every supporting frame: "Ilves beat Chen in their previous meetings in 2023" is read against
"Chen had beaten Ilves in their two previous meetings, both in 2023", not against the final Ilves won.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from halguard.grounding.roles.frames import Argument, Frame
from halguard.text.wordnet import licensers

__all__ = ["RoleConflict", "SYMMETRIC_PREDICATES", "conflicts"]

# Predicates whose agent and patient can be exchanged without changing what is said. Hand-listed from the issue's
# cases and their neighbours (stems of halguard.text.lexical.stem's lemmas are compared, so list lemmas).
SYMMETRIC_PREDICATES = frozenset({
    "meet", "marry", "wed", "divorce", "date", "play", "face", "draw", "tie", "merge", "collide", "border", "adjoin",
    "neighbour", "neighbor", "resemble", "equal", "match", "partner", "compete", "battle", "fight", "debate",
    "negotiate", "talk", "speak", "chat", "trade", "swap", "exchange", "share", "join", "sit", "be", "lie", "stand",
    "touch", "meet with", "team up", "split", "separate", "correspond", "agree", "disagree", "coincide", "rival",
    "contest", "duel", "wrestle", "race", "box", "spar", "kiss", "hug", "embrace", "collaborate", "cooperate",
    "connect", "link", "differ", "alternate",
})


@dataclass(frozen=True)
class RoleConflict:
    """A finding: the claim's words ``start:end`` (offsets in the claim's text) and why, in words."""

    start: int
    end: int
    reason: str


def _same_predicate(claim: Frame, evidence: Frame) -> bool:
    if claim.predicate == evidence.predicate or claim.stem == evidence.stem:
        return True
    return evidence.stem in licensers(claim.stem) or claim.stem in licensers(evidence.stem)


def _years(arg: Argument) -> frozenset[float]:
    return frozenset(n for n in arg.numbers if 1000 <= n < 3000 and n == int(n))


def compare(a: Argument, b: Argument, role: str = "") -> str:
    """``"same"``, ``"differ"`` or ``"unknown"`` (see the module's docstring). Times are compared by their years
    ("in 1890" is "on 4 March 1890"; "Dec. 10, 1815" is "10 December 1815"), else by their numbers."""
    if a.pronoun or b.pronoun:
        return "unknown"
    if role == "time":
        ya, yb = _years(a), _years(b)
        if ya and yb:
            return "same" if ya & yb else "differ"
        if a.numbers and b.numbers:
            return "same" if a.numbers <= b.numbers or b.numbers <= a.numbers else (
                "differ" if not a.numbers & b.numbers else "unknown")
    if a.names and b.names:
        return "same" if a.identity & b.identity else "differ"
    if a.numbers and b.numbers:
        return "same" if a.numbers & b.numbers else "differ"
    if (a.head and a.head == b.head) or (a.words & b.words):
        return "same"
    return "unknown"


def _misattached(arg: Argument, others: list[Argument]) -> Argument | None:
    """The evidence argument that describes what the claim's number measures with another number, where the
    claim's number belongs to something else: "4% of patients on the drug" against "9% of patients on the drug and
    4% of those on placebo" gives "9% of patients on the drug"."""
    if not arg.numbers or not arg.words or len(others) < 2:
        return None
    described = [o for o in others if o.words & arg.words]
    if any(o.numbers & arg.numbers for o in described):
        return None  # the claim's number with what it measures
    owners = [o for o in others if o.numbers & arg.numbers]
    rivals = [o for o in described if o.numbers and not o.numbers & arg.numbers]
    return rivals[0] if owners and rivals else None


def _adjunct(role: str) -> bool:
    return role in ("time", "advmod") or role.startswith("prep:")


@dataclass
class _Alignment:
    frame: Frame
    score: int
    swapped: tuple[Argument, Argument, Argument, Argument] | None  # claim agent, patient; evidence agent, patient
    differing: list[tuple[str, Argument, Argument]]  # (role, claim argument, evidence argument)


def _align(claim: Frame, evidence: Frame, elsewhere: Callable[[Argument], bool]) -> _Alignment:
    same = 0
    differing: list[tuple[str, Argument, Argument]] = []
    swapped = None
    c_agents, c_patients = claim.get("agent"), claim.get("patient")
    e_agents, e_patients = evidence.get("agent"), evidence.get("patient")
    crossed = False
    if len(c_agents) == len(c_patients) == len(e_agents) == len(e_patients) == 1:
        ca, cp, ea, ep = c_agents[0], c_patients[0], e_agents[0], e_patients[0]
        crossed = (compare(ca, ep) == "same" and compare(cp, ea) == "same"
                   and compare(ca, ea) != "same" and compare(cp, ep) != "same")
        if crossed and SYMMETRIC_PREDICATES.isdisjoint((claim.predicate, evidence.predicate)):
            swapped = (ca, cp, ea, ep)
        elif crossed:  # "Kessler met Rao" is "Rao met Kessler": both sides agree
            same += 2
    adjuncts = [a for r, a in evidence.slots if _adjunct(r)]
    for role, arg in claim.slots:
        if crossed and role in ("agent", "patient"):
            continue
        others = evidence.get(role)
        results = [(compare(arg, other, role), other) for other in others]
        misplaced = _misattached(arg, others)
        if misplaced is not None and elsewhere(arg):
            differing.append((role, arg, misplaced))
        elif any(r == "same" for r, _ in results):
            same += 1
        elif _adjunct(role) and any(compare(arg, other) == "same" for other in adjuncts):
            same += 1  # the same words in another adjunct ("48 seconds behind" read as an adverb or a preposition)
        elif not others and _adjunct(role) and arg.names and elsewhere(arg) and (rival := next(
                (o for o in adjuncts if o.names and arg.described_by & o.described_by and compare(arg, o) == "differ"),
                None)) is not None:
            # "with a header from Jamal Reyes" where the parse hangs "with a header from Lena Okafor" elsewhere
            differing.append((role, arg, rival))
        elif elsewhere(arg) and len(claim.get(role)) == 1 and (
                theirs := next((o for r, o in results if r == "differ"), None)) is not None:
            # (a coordinated argument, "in the United States, Japan and the EU", is where the parser errs most)
            differing.append((role, arg, theirs))
    if claim.nominal and evidence.nominal and claim.predicate == evidence.predicate:
        same += 1  # the same event noun is itself an agreement ("an article by ..." against "an article by ...")
    return _Alignment(evidence, same + (2 if swapped else 0), swapped, differing)


def _where(value_arg: Argument, evidence: Sequence[Frame]) -> str | None:
    """Where the evidence puts a claim argument's names or numbers: "make up: 31% of the group's revenue"."""
    for frame in evidence:
        for role, arg in frame.slots:
            if (value_arg.numbers and value_arg.numbers & arg.numbers) or (value_arg.names and
                                                                            value_arg.names & arg.names):
                return f"{frame.predicate} ({role}: {arg.text})"
    return None


def conflicts(claim_frames: Sequence[Frame], evidence: Sequence[Frame],
              elsewhere: Callable[[Argument], bool]) -> list[RoleConflict]:
    """The conflicts of a claim's frames with its evidence's frames (offsets in the claim's text).

    Args:
        claim_frames: The claim's frames.
        evidence: The frames of its evidence sentences.
        elsewhere: Whether a claim argument's names or numbers are in the passage (so the claim moved them).
    """
    out: list[RoleConflict] = []
    for claim in claim_frames:
        aligned = [_align(claim, e, elsewhere) for e in evidence
                   if e.negated == claim.negated and _same_predicate(claim, e)]
        support = max((a.score for a in aligned if a.score >= 1 and not a.swapped and not a.differing), default=0)
        conflicting = [a for a in aligned if (a.swapped or (a.differing and a.score >= 1)) and a.score > support]
        if not conflicting:
            continue
        best = max(conflicting, key=lambda a: a.score)
        if best.swapped is not None:
            ca, cp, ea, ep = best.swapped
            out.append(RoleConflict(min(ca.start, cp.start), max(ca.end, cp.end),
                                    f"roles swapped: {ca.text} / {cp.text} (the passage: {ea.text} "
                                    f"{best.frame.predicate} {ep.text})"))
        for role, arg, theirs in best.differing:
            where = _where(arg, [f for f in evidence if f is not best.frame])
            belongs = f"; the passage has it in {where}" if where else ""
            out.append(RoleConflict(arg.start, arg.end,
                                    f"{arg.text} where the passage has {theirs.text} ({best.frame.predicate})"
                                    + belongs))
    return out
