"""A claim's frames against its evidence's: roles exchanged, an entity or a number in the wrong place.

A claim frame is compared with every evidence frame whose predicate is the same or licensed (the same stem, or
WordNet synonyms and derivations: :mod:`halguard.text.wordnet`, "bought" for "acquired", "purchase" for "buy").
Argument by argument (same role), two arguments are *the same*, *differ* or say nothing (a pronoun, "the company"
against "Northwind"), as :func:`.arguments.compare` reads them.

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

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from halguard.grounding.roles.arguments import compare
from halguard.grounding.roles.converse import (
    CONVERSE_PREDICATES,
    RELATION_NOUNS,
    converse_frame,
    move_reversals,
    said_conversely,
    told_by_the_doer,
)
from halguard.grounding.roles.crossings import (
    SYMMETRIC_PREDICATES,
    agent_and_patient_crossed,
    crossed_with_phrase,
    exchanged,
)
from halguard.grounding.roles.events import (
    CORE_ROLES,
    in_another_event,
    lone_participant_moved,
    same_event,
    same_predicate,
)
from halguard.grounding.roles.frames import Argument, Frame
from halguard.grounding.roles.priced import of_another_kind, priced_otherwise

__all__ = ["CONVERSE_PREDICATES", "RoleConflict", "SYMMETRIC_PREDICATES", "conflicts", "said_conversely"]

@dataclass(frozen=True)
class RoleConflict:
    """A finding: the claim's words ``start:end`` (offsets in the claim's text) and why, in words; ``number``: the
    claim's words are a number where the passage's frame gives another number ("12 where the passage has 6"), not a
    name or a description."""

    start: int
    end: int
    reason: str
    number: bool = False


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
    contrasted: int = 0  # of differing, the descriptions the passage tells apart (:func:`_contrasted`)


def _align(claim: Frame, evidence: Frame, elsewhere: Callable[[Argument], bool],
           frames: Sequence[Frame] = ()) -> _Alignment:
    same, swapped, skipped = _crossings(claim, evidence)
    contrasted = 0
    differing: list[tuple[str, Argument, Argument]] = []
    adjuncts = [a for r, a in evidence.slots if _adjunct(r)]
    for role, arg in claim.slots:
        if role in skipped:
            continue
        others = evidence.get(role)
        results = [(compare(arg, other, role), other) for other in others]
        misplaced = _misattached(arg, others)
        alike = [other for r, other in results if r == "same"]
        if misplaced is not None and elsewhere(arg):
            differing.append((role, arg, misplaced))
        elif alike and all(_contrasted(arg, other, evidence, frames) for other in alike):
            differing.append((role, arg, alike[0]))
            contrasted += 1
        elif alike:
            same += 1
        elif _adjunct(role) and any(r == "differ" and _nested_place(arg, other, adjuncts) for r, other in results):
            # the differing phrase only says where the claim's is: "collect your pack at the Expo" against "collect
            # their race packs from the Expo at the Convention Centre"
            same += 1
        elif _adjunct(role) and not any(r == "differ" for r, _ in results) and any(
                compare(arg, other) == "same" for other in adjuncts):
            # the same words in another adjunct ("48 seconds behind" read as an adverb or a preposition), unless the
            # evidence's own in that role differs ("from Lagos" / "from Benin City, ... at a ceremony in Lagos")
            same += 1
        elif not others and _adjunct(role) and arg.names and elsewhere(arg) and (rival := next(
                (o for o in adjuncts if o.names and arg.described_by & o.described_by and compare(arg, o) == "differ"),
                None)) is not None:
            # "with a header from Jamal Reyes" where the parse hangs "with a header from Lena Okafor" elsewhere
            differing.append((role, arg, rival))
        elif _adjunct(role) and not (claim.nominal or evidence.nominal) and (
                theirs := _place_moved(arg, others, evidence, frames)) is not None:
            differing.append((role, arg, theirs))
        elif role in ("agent", "patient") and len(others) == 1 and _named_description(arg) \
                and _named_description(others[0]) is not None and others[0].head != arg.head \
                and not arg.identity & others[0].identity and results[0][0] == "unknown" and elsewhere(arg) \
                and in_another_event(claim, role, arg, frames):
            # "The Lisbon jury overturned the conviction" against "The appeal court overturned the conviction of Rui
            # Matos, who had been found guilty by a Lisbon jury": two descriptions say nothing by themselves ("the
            # nation" is Turkey), but the claim's, name and all, did another thing to the same man in the passage
            differing.append((role, arg, others[0]))
        elif role in ("agent", "patient") and len(others) == 1 and results[0][0] == "unknown" \
                and _someone_else(arg, others[0]) and in_another_event(claim, role, arg, frames):
            # "A farmer bought the fossil" against "The fossil, found by a farmer ..., was bought by the Natural
            # History Museum" (and "The museum found the fossil"): a new someone is not the name, when the claim's
            # did another thing to the same participant
            differing.append((role, arg, others[0]))
        elif elsewhere(arg) and len(claim.get(role)) == 1 and (
                theirs := next((o for r, o in results if r == "differ"), None)) is not None and (
                (arg.identity and theirs.identity) or elsewhere(replace(arg, names=frozenset()))):
            # (two numbers differ only where the claim's number is the passage's: "a 65-year-old grandmother from
            # Luxor" against "the grandmother of two" moved no number, whatever names it shares)
            # (a coordinated argument, "in the United States, Japan and the EU", is where the parser errs most)
            differing.append((role, arg, theirs))
    if claim.nominal and evidence.nominal and claim.predicate == evidence.predicate:
        same += 1  # the same event noun is itself an agreement ("an article by ..." against "an article by ...")
    elif lone_participant_moved(claim, evidence, differing, frames):
        same += 1  # one participant each: the predicate is what aligns ("Victor Hale was acquitted")
    if differing and not same_event(claim, evidence, {id(arg) for _, arg, _ in differing}):
        differing = []  # another event of the same predicate (a distractor passage): it neither supports nor conflicts
    return _Alignment(evidence, same + (2 if swapped else 0), swapped, differing, contrasted if differing else 0)


def _crossings(claim: Frame, evidence: Frame
               ) -> tuple[int, tuple[Argument, Argument, Argument, Argument] | None, tuple[str, ...]]:
    """The agreements two frames' crossed arguments make (a symmetric predicate's), the swap they make otherwise, and
    the claim's roles that the crossing has read."""
    crossed = agent_and_patient_crossed(claim, evidence)
    if crossed is not None and SYMMETRIC_PREDICATES.isdisjoint((claim.predicate, evidence.predicate)):
        return 0, crossed, ("agent", "patient")
    if crossed is not None:  # "Kessler met Rao" is "Rao met Kessler": both sides agree
        return 2, None, ("agent", "patient")
    crossed_roles = crossed_with_phrase(claim, evidence)
    if crossed_roles is None:
        return 0, None, ()
    # "The central bank hired Sara Lind from the Halden Institute" against "The Halden Institute hired economist Sara
    # Lind from the central bank": who acted and whom the phrase names trade places, which a name against a
    # description ("the central bank") cannot show as two differing names
    ca, ea = claim.get("agent")[0], evidence.get("agent")[0]
    return 0, (ca, claim.get(crossed_roles[0])[0], ea, evidence.get(crossed_roles[1])[0]), ("agent", crossed_roles[0])


def _nested_place(ours: Argument, theirs: Argument, adjuncts: list[Argument]) -> bool:
    """Whether an evidence phrase that differs from the claim's comes right after another phrase of the same frame
    that is the claim's ("from the Expo at the Convention Centre": the parser hangs the second on the verb, where it
    says where the Expo is). Only the space or a comma between them: "from Benin City, ... at a ceremony in Lagos"
    places nothing."""
    return any(o is not theirs and compare(ours, o) == "same" and 0 <= theirs.start - o.end <= 2 for o in adjuncts)


def _contrasted(ours: Argument, theirs: Argument, evidence: Frame, frames: Sequence[Frame]) -> bool:
    """Whether two nameless descriptions of one head word, "the same" by :func:`.arguments.compare`, are two things
    the passage tells apart: each has a word the other lacks, and another frame of the passage holds a description of
    that head with a word of the claim's own and none of the evidence argument's ("Standard plan customers ... within
    2 hours" against "Business plan customers ... within 2 hours, while Standard plan customers ... within 8 hours";
    "The laser cutter requires a briefing" where the passage says so of the "vinyl cutter" and books "the laser
    cutter"). A description the passage never contrasts ("the new terminal" for "the terminal") is the same thing."""
    if ours.identity or theirs.identity or ours.numbers or theirs.numbers or not ours.head or ours.head != theirs.head:
        return False
    mine, its_own = ours.words - theirs.words, theirs.words - ours.words
    return bool(mine and its_own) and any(
        frame is not evidence and any(o.head == ours.head and mine & o.words and not its_own & o.words
                                      for _, o in frame.slots) for frame in frames)


def _number_of_one_thing(ours: Argument, theirs: Argument) -> bool:
    """Whether two arguments give one thing two numbers: one head word, or a bare number ("sold 380,000"); "a
    five-year deal" against "The 23-year-old" (a parse that hangs "running until 2031" on him) are two things."""
    return bool(ours.numbers and theirs.numbers and not ours.numbers & theirs.numbers) and (
        ours.head == theirs.head or not (ours.head.isalpha() and theirs.head.isalpha()))


def _place_moved(arg: Argument, others: list[Argument], evidence: Frame, frames: Sequence[Frame]
                 ) -> Argument | None:
    """The evidence frame's named argument where the claim puts a description that the passage gives another event:
    "stolen from a flat in Lyon" against "stolen from the Halden Museum ... found in a flat in Lyon". A name against
    a description says nothing by itself ("the grandmother of two" can be "Sissa Abu Dahou"); the same description
    as another event's argument, sharing no word with the name, is the claim's argument moved. Verbs only (the
    caller's test): an event noun's phrases are another event's as often as not ("an investigation by the law firm
    of O'Melveny & Myers" where the passage's "investigation ... by the U.S. Department of Education" is another
    one, and the firm's is "the O'Melveny & Myers investigation"). Returns None when not."""
    if arg.identity or arg.numbers or not arg.words or len(others) != 1:
        return None
    theirs = others[0]
    if not (theirs.head_is_name and theirs.identity) or arg.words & theirs.words or arg.names & theirs.names:
        return None
    moved = any(frame is not evidence and any(a.words == arg.words and compare(arg, a) == "same"
                                              for _, a in frame.slots) for frame in frames)
    return theirs if moved else None


def _someone_else(ours: Argument, theirs: Argument) -> bool:
    """Whether of a name and a description, one is an indefinite description ("a farmer", "an engineer") or someone's
    relation ("her son", "his predecessor"): it brings in someone new, so it is not the name. A definite one ("the
    company", "the museum") may be the name and says nothing."""
    for description, name in ((ours, theirs), (theirs, ours)):
        if _named_description(description) is False and name.head_is_name and name.identity:
            words = description.text.lower().split() or [""]
            return words[0] in ("a", "an") or (
                len(words) == 2 and words[0] in _POSSESSIVE_PRONOUNS and description.head in RELATION_NOUNS)
    return False


def _named_description(arg: Argument) -> bool | None:
    """For a description (a noun that is no name, no pronoun): whether a name qualifies it ("the Lisbon jury", "the
    TESS satellite"); None for a name or a pronoun."""
    if arg.head_is_name or arg.pronoun:
        return None
    return bool(arg.identity)


def _other_mention(claim: Frame, differing: tuple[str, Argument, Argument], best: _Alignment,
                   aligned: list[_Alignment]) -> bool:
    """Whether a name the claim puts where the passage has another name is no moved name but the passage's own
    mention: the claim's frame is a copula (it says too little of an event: "The US Embassy is in contact" against
    "Our U.S. Consulate General in Karachi is ..."), or another frame of the same event holds the claim's name in the
    same role ("Christina Aguilera joined" beside "Xtina joined"). Names only: a number the coordination gives to
    another group ("4% of those on placebo") is what a misattached number is."""
    role, ours, theirs = differing
    if not (ours.identity and theirs.identity) or ours.numbers:
        return False
    # The other frame must be the same event: one that itself differs from the claim is another event of the name
    # ("Anna Weber ... opened its first shop in 2019" says nothing of who founded the bakery in 1952).
    return (claim.predicate == "be" and not _one_of_a_kind(claim, best.frame)) or any(
        a is not best and not a.differing and any(compare(ours, o, role) == "same" for o in a.frame.get(role))
        for a in aligned)


def _told_otherwise(claim: Frame, differing: tuple[str, Argument, Argument], evidence: Sequence[Frame],
                    best: Frame) -> bool:
    """Whether another evidence frame tells the claim's event with another verb: it holds the claim's differing name
    in the same role and agrees on another core argument of the claim that the conflicting frame (``best``) does not
    have ("Otávio scored a third" against "Mehdi Taremi scored twice ..., and Otávio added a third": "add" with the
    agent Otávio and the patient "a third"), and none it differs on. An argument both frames share says nothing of
    which event is the claim's ("the tent left behind by Scott" against "Scott's party ... found the tent left
    behind by Amundsen")."""
    role, ours, _ = differing
    if not ours.identity or role not in CORE_ROLES:
        return False
    rest = [(r, a) for r, a in claim.slots if a is not ours and r in CORE_ROLES
            and not any(compare(a, o, r) == "same" for o in best.get(r))]
    # what places the claim in the conflicting frame's event must place it in the other too: "Ingrid Solberg wrote the
    # novel in 1998" is the writing of 1998 (by Arne Dahl), not her translation, which has no year
    placed = [(r, a) for r, a in claim.slots if r not in CORE_ROLES and any(compare(a, o, r) == "same"
                                                                           for o in best.get(r))]
    return bool(rest) and any(frame is not best and any(_as_itself(ours, o, role) for o in frame.get(role))
                              and any(_as_itself(a, o, r) for r, a in rest for o in frame.get(r))
                              and all(any(compare(a, o, r) == "same" for o in frame.get(r)) for r, a in placed)
                              and not _differs(claim, frame) for frame in evidence)


def _counted_together(claim: Frame, differing: tuple[str, Argument, Argument], evidence: Sequence[Frame],
                      best: Frame) -> bool:
    """Whether another evidence frame holds the claim's differing number together with another number of the claim:
    the passage tells the claim's figures in other words ("Sales rose 9% to £84 million" against "reported sales of
    £84 million, up 9%", where the frame of the same verb is a part's: "whose sales climbed 21%"). Numbers only: a
    name held beside another of the claim's is how a moved name is found ("Smith, who worked at Acme, joined Beta")."""
    _, ours, _ = differing
    # the event's other figure ("to £84 million", "over three years"), not a number naming a party ("the 10-year
    # bonds touched 0.5%" against "touched 0.505%, breaching the 0.5% cap")
    others = [a for r, a in claim.slots if a is not ours and r not in CORE_ROLES and a.numbers - ours.numbers]
    return bool(ours.numbers and others) and any(
        frame is not best and any(ours.numbers & arg.numbers for _, arg in frame.slots)
        and any(o.numbers & arg.numbers for o in others for _, arg in frame.slots) for frame in evidence)


def _differs(claim: Frame, evidence: Frame) -> bool:
    """Whether a core argument of ``evidence`` names other things than the claim's in the same role: another event
    ("The Louvre lent the Vermeer" tells nothing of who sent the Velázquez portraits). Looser than :func:`compare`'s
    "differ" (two names): here a description naming other things counts too."""
    return any(compare(a, o, r) == "differ" or (a.identity and o.identity and not a.identity & o.identity
                                                 and compare(a, o, r) != "same")
               for r, a in claim.slots if r in CORE_ROLES for o in evidence.get(r))


def _as_itself(ours: Argument, theirs: Argument, role: str) -> bool:
    """The same argument, and a name where the claim's is a name: not one that only owns it ("Keller Pharma" is not
    "Keller's board", which shares its name)."""
    return compare(ours, theirs, role) == "same" and ours.head_is_name == theirs.head_is_name


# The possessives of a relation that is someone else's ("her son"): personal pronouns only ("the museum's director").
_POSSESSIVE_PRONOUNS = frozenset({"his", "her", "their", "my", "our", "your"})
# Words that make what a copula says one of a kind: "the highest mountain in Kenya" is one mountain, so another name
# given it is a conflict ("Mount Elgon is the highest mountain in Kenya" against "Mount Kenya is the highest ...").
_ONE_OF_A_KIND = frozenset(
    "first last only most least best worst highest lowest tallest largest biggest smallest longest shortest oldest "
    "newest youngest earliest latest fastest slowest richest poorest deepest busiest heaviest strongest".split())


def _one_of_a_kind(claim: Frame, evidence: Frame) -> bool:
    """Whether the claim's copula and the evidence's say the same one-of-a-kind attribute (a superlative, "the first",
    "the only"; every word of the claim's in the evidence's, which may say more: "at 5,199 metres"), so the two
    subjects cannot both have it."""
    ours, theirs = claim.get("attr"), evidence.get("attr")
    if len(ours) != 1 or len(theirs) != 1 or compare(ours[0], theirs[0], "attr") != "same":
        return False
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", ours[0].text)}
    return bool(words & _ONE_OF_A_KIND) and words <= {w.lower() for w in re.findall(r"[A-Za-z]+", theirs[0].text)}


def _converse_swap(claim: Frame, best: _Alignment, original: Frame) -> RoleConflict | None:
    """The finding for a claim frame that conflicts with a converse evidence frame on who is who: "Northwind
    bought the division from Palmera" against "Northwind sold its division to Palmera" (the claim's buyer is the
    passage's seller)."""
    agents = claim.get("agent")
    sellers = original.get("agent")
    if len(agents) != 1 or not sellers or not any(role == "agent" for role, _, _ in best.differing):
        return None
    ours = agents[0]
    if not any(compare(ours, theirs) == "same" for theirs in sellers):
        return None
    others = best.frame.get("agent")  # the passage's buyer, where the claim has its seller
    other = f" / {others[0].core_text or others[0].text}" if others else ""
    told = " ".join(a.text for _, a in original.slots if a.start > sellers[0].start)
    return RoleConflict(ours.start, ours.end, f"roles swapped: {ours.text}{other} (the passage: {sellers[0].text} "
                        f"{original.predicate} {told})")


def _party_switched(claim: Frame, read: Frame, original: Frame) -> RoleConflict | None:
    """The finding for a claim that makes the passage's party of an exchange the other party, the thing exchanged
    the same: "The museum sold the painting" against "The museum purchased the painting" (``read``: the passage's
    frame as the claim's predicate, the museum its buyer). None where the claim names who it traded with as the
    passage does, or the thing differs."""
    agents, patients = claim.get("agent"), claim.get("patient")
    others = read.get("recipient") + read.get("prep:to") + read.get("prep:from")
    if len(agents) != 1 or not patients or not any(compare(agents[0], o) == "same" for o in others):
        return None
    if any(compare(agents[0], a) == "same" for a in read.get("agent")):
        return None
    if not all(any(compare(p, q) == "same" for q in read.get("patient")) for p in patients):
        return None
    ours = agents[0]
    theirs = " ".join([*(a.text for a in original.get("agent")), original.predicate,
                       *(a.text for a in original.get("patient"))])
    return RoleConflict(ours.start, ours.end, f"roles swapped: {ours.text} on the other side of '{claim.predicate}' "
                        f"(the passage: {theirs})")


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
    out = [RoleConflict(arg.start, arg.end, why) for arg, why in move_reversals(
        claim_frames, evidence, lambda a, b: compare(a, b) == "same")]  # "joined Valmont" for "left Valmont"
    evidence = [told_by_the_doer(e) for e in evidence]  # "Costa signed for Rivera" as "Rivera signed Costa"
    for claim in map(told_by_the_doer, claim_frames):
        aligned = []
        originals: dict[int, Frame] = {}  # a converse frame's id -> the evidence frame it was read from
        switched: dict[int, RoleConflict] = {}  # an alignment's id -> the claim's party of the exchange switched
        for e in evidence:
            if e.negated != claim.negated:
                continue
            if same_predicate(claim, e):
                aligned.append(_align(claim, e, elsewhere, evidence))
            elif (read := converse_frame(claim, e)) is not None:
                originals[id(read)] = e
                aligned.append(_align(claim, read, elsewhere, evidence))
                if (party := _party_switched(claim, read, e)) is not None:  # the other side: no support
                    switched[id(aligned[-1])] = party
        support = max((a.score for a in aligned if a.score >= 1 and not a.swapped and not a.differing
                       and id(a) not in switched), default=0)
        conflicting = [a for a in aligned if (a.swapped or (a.differing and a.score >= 1)) and a.score > support]
        if not conflicting:
            if switched and not support:  # no frame says the claim's side: the first switch found is the finding
                out.append(next(iter(switched.values())))
            continue
        # of two alike, the one whose every description is the claim's: "Standard plan customers ... 2 hours" is
        # read against the Standard frame's 8 hours, not the Business frame's customers
        best = max(conflicting, key=lambda a: (a.score, -a.contrasted))
        original = originals.get(id(best.frame))
        if original is not None and (swap := _converse_swap(claim, best, original)) is not None:
            out.append(swap)
            continue
        if best.swapped is not None:
            ca, cp, ea, ep = best.swapped
            out.append(RoleConflict(min(ca.start, cp.start), max(ca.end, cp.end),
                                    f"roles swapped: {ca.text} / {cp.text} (the passage: {ea.text} "
                                    f"{best.frame.predicate} {ep.text})"))
        differing = [d for d in best.differing if not _other_mention(claim, d, best, aligned)]
        if not differing and best.swapped is None:
            continue
        pair = exchanged(differing)
        if pair is not None:  # two arguments that trade places: one swap, said once
            (_, a1, t1), (_, a2, t2) = pair
            differing = [d for d in differing if d not in pair]
            out.append(RoleConflict(min(a1.start, a2.start), max(a1.end, a2.end),
                                    f"roles swapped: {a1.text} / {a2.text} (the passage: {t2.text} / {t1.text}, "
                                    f"{best.frame.predicate})"))
        differing = [d for d in differing if not any(told(claim, d, evidence, best.frame) for told in (
            _told_otherwise, _counted_together, priced_otherwise, of_another_kind))]
        for role, arg, theirs in differing:
            where = _where(arg, [f for f in evidence if f is not best.frame])
            belongs = f"; the passage has it in {where}" if where else ""
            out.append(RoleConflict(arg.start, arg.end,
                                    f"{arg.text} where the passage has {theirs.text} ({best.frame.predicate})"
                                    + belongs, number=_number_of_one_thing(arg, theirs)))
    return out
