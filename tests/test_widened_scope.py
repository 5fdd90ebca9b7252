"""A group the passages restrict, said whole ("all students" for "international students"), is a role conflict; a
group the passages also name whole, bare or numbered, a weakened universal, a time and a claim about another
statement are not."""

from __future__ import annotations

import time

import pytest

from halguard.grounding.signals.widened import MAX_PHRASES, widened_scopes

FEES = ("The university will raise tuition fees for international students by 6% from September, to 24,300 pounds a "
        "year for most courses. Home fees stay frozen.")
TOUR = ("Pianist Mateo Ruiz will play Rachmaninoff's Third Piano Concerto at the first five concerts of the eight-city "
        "tour, after which Lena Ostrova takes over the solo part.")
GUIDANCE = ("The new guidance lowers the blood pressure target for most adults under 80 with treated hypertension to "
            "below 130/80 mmHg.")


ROUTER = ("This update applies to AX3200 units with hardware revision B or later; revision A units remain on the 4.10 "
          "branch. Version 4.12.7 addresses a vulnerability (NP-SA-2026-019) in the guest network isolation feature.")
CHOIR = ("Members of the choir rehearse on Tuesday evenings. Members of the youth section will sing at the Easter "
         "service in Ripon Cathedral, conducted by Alma Reyes.")


def _widened(claim: str, *passages: str) -> list[str]:
    return [why for _, _, why in widened_scopes(claim, list(passages))]


@pytest.mark.parametrize(("claim", "passage", "why"), [
    ("Fees for all students, home and international, will rise by 6% from September.", FEES,
     "scope widened: all students (the passage: international students)"),
    ("Mateo Ruiz will play Rachmaninoff's Third Piano Concerto at every concert of the eight-city tour.", TOUR,
     "scope widened: every concert (the passage: first five concerts)"),
    ("The guidance lowers the blood pressure target for all adults with treated hypertension to below 130/80 mmHg.",
     GUIDANCE, "scope widened: all adults (the passage: most adults)"),
    # a restriction after the noun; a bare mention in a sentence the claim does not restate is another statement
    ("All members of the choir will sing at the Easter service in Ripon Cathedral.", CHOIR,
     "scope widened: All members (the passage: Members of the youth section)"),
    ("Fees for all students will rise by 6% from September.", FEES + " Students can pay in three instalments.",
     "scope widened: all students (the passage: international students)"),
    ("Every passenger may check two bags free of charge.",
     "All the business class passengers may check two bags free of charge.",
     "scope widened: Every passenger (the passage: business class passengers)"),
    # a letter names the kind ("revision B"), and the part of a fused claim restates the sentence
    ("The update applies to all AX3200 units, including hardware revision A, and fixes the guest network isolation "
     "vulnerability NP-SA-2026-019.", ROUTER,
     "scope widened: all AX3200 units (the passage: units with hardware revision B)"),
])
def test_a_restricted_group_said_whole_is_found(claim, passage, why):
    assert _widened(claim, passage) == [why]


@pytest.mark.parametrize(("claim", "passages"), [
    # the passages say it of the whole group too: in another sentence, or in another passage, or bare
    ("Fees for all students will rise by 6% from September.", (FEES, "All students pay a 6% higher fee.")),
    ("Fees for all students will rise by 6% from September.",
     (FEES, "Students pay 6% more from September under the new fee rules.")),
    # the claim keeps the passage's restriction, or a number that counts the whole group
    ("Fees for all international students will rise by 6% from September.", (FEES,)),
    ("All 300 students will pay 6% more from September.", ("The 300 students will pay 6% more from September.",)),
    # no universal
    ("Fees for international students will rise by 6% from September.", (FEES,)),
    ("Not all students will pay 6% more from September.", (FEES,)),
    ("Almost all students will pay 6% more from September.", (FEES,)),
    # a passage says it of all of them ("all the pieces of the kit"), or names the group bare in the sentence restated
    ("All the pieces of the kit ship in one box.", ("All the pieces of the Arden kit ship in one box.",)),
    ("All members of the choir sing at the Easter service.",
     ("Members of the choir sing at the Easter service; members of the youth section sing at Christmas.",)),
    # a name, not a universal
    ("Ashesi University is in Ghana while All Nations University is in Togo.",
     ("All Nations University is in Ghana, as is Ashesi University.",)),
    ("The update applies to all AX3200 units with hardware revision B or later, and fixes the guest network flaw.",
     (ROUTER,)),
    # a time, not a group
    ("Ruiz will practise the concerto every day of the eight-city tour.", (TOUR,)),
    # another statement about the same kind of thing
    ("Choose a height that allows a clear representation of all the data points.",
     ("Pie charts work best when you have only a few data points to display.",)),
])
def test_a_group_the_passages_name_whole_or_another_statement_is_not(claim, passages):
    assert _widened(claim, *passages) == []


def test_a_paraphrase_of_a_universal_passes():
    assert _widened("Every member of the kitchen team will redo the food safety training.",
                    "All kitchen staff will retake food safety training by the end of September.") == []


def test_a_crafted_claim_of_many_universals_is_read_for_its_first_few_in_bounded_time():
    claim = "Fees for all students, " * 5_000 + "will rise."
    passage = FEES * 200
    started = time.perf_counter()
    found = widened_scopes(claim, [passage])
    assert len(found) <= MAX_PHRASES
    assert time.perf_counter() - started < 5.0


def test_the_verifier_flags_a_widened_scope_as_a_role_conflict(verifier):
    verdict = verifier.verify("Fees for all students, home and international, will rise by 6% from September.",
                              [FEES])
    claim = verdict.claims[0]
    assert verdict.label == "hallucinated"
    assert claim.signals.role_conflicts == ["scope widened: all students (the passage: international students)"]
    assert verifier.verify("Fees for international students will rise by 6% from September.",
                           [FEES]).label == "supported"
