"""A claim that fuses two statements of the passages ("... to 60% in 15 minutes, and the phone goes on sale on 9
October") copies neither of their sentences whole, so the copy checks read each of its parts against the passages'
closest sentence (halguard.grounding.signals.closest.fused_parts, issue 44): a number moved into one part, a
"not" dropped from one. A number the copied sentence gives of another thing ("and 15 W wireless charging") may still
be moved into another slot ("in 15 minutes" where it has "in 25 minutes"). Faithful fused claims stay supported."""

import pytest

from halguard.grounding.signals.closest import (
    SENTENCES_SCANNED_CHARS,
    ClosestSentence,
    fused_parts,
    source_sentences,
)
from halguard.grounding.signals.moved_numbers import numbers_moved
from halguard.grounding.signals.scope import scope_of
from halguard.text.contexts import Source

PHONE = ("The Norvik Aero 7 smartphone features a 6.4-inch OLED display. The 4,850 mAh battery supports 45 W wired "
         "charging, which Norvik says reaches 60% in 25 minutes, and 15 W wireless charging. The phone weighs 187 "
         "grams. It goes on sale on 9 October at €549 for the 128 GB model and €619 for the 256 GB model.")
RECALL = ("Brennor Pharmaceuticals has voluntarily recalled three lots of its blood-thinning tablet Clotvane 5 mg "
          "after routine testing found that some tablets contained up to 9% less active ingredient than labelled. "
          "Health Canada published the recall notice on 6 May. Dr. Elaine Moreau, Brennor's chief medical officer, "
          "said the company has received no reports of adverse events. Patients are advised not to stop taking "
          "their medication but to contact their pharmacist, who can exchange the tablets free of charge.")
GUIDANCE = ("Updated guidance lowers the blood pressure target for most adults under 80 with treated hypertension to "
            "below 130/80 mmHg, replacing the previous target of 140/90 mmHg. For adults aged 80 and over, the "
            "recommended target remains below 150/90 mmHg.")
ELECTION = ("Final results in the Dunmere County Council election, released on 3 June 2026, gave the Progressive "
            "Alliance 23 of the council's 49 seats. Civic Reform leader Donal Brierley held his own seat in Kilrush "
            "Ward by just 112 votes. The new council will meet for the first time on 17 June to elect a chair.")
FIRE = ("A fire broke out shortly after 2 a.m. on Tuesday at a warehouse operated by Brantley Logistics. About 60 "
        "firefighters and 12 fire engines attended. The company said about 40 of its staff would be moved.")


def test_parts_are_split_where_a_comma_or_semicolon_joins_two_statements():
    text = "The phone weighs 187 grams, and it goes on sale on 9 October; the battery holds 4,850 mAh."
    assert [part for _, part in fused_parts(text)] == [
        "The phone weighs 187 grams, and ", "it goes on sale on 9 October; ", "the battery holds 4,850 mAh."]
    assert all(text[at:at + len(part)] == part for at, part in fused_parts(text))
    assert fused_parts("The phone weighs 187 grams and goes on sale on 9 October.") == []  # one statement
    assert fused_parts("It was made by Ana, with Sofia.") == []  # a part of fewer than three content words
    # a relative clause after a comma ends the statement before it, and is no part itself (it lacks its subject)
    assert [part for _, part in fused_parts("Crews tackled the fire, which broke out shortly after 2 a.m. on "
                                            "Tuesday.")] == ["Crews tackled the fire, which "]


def test_a_crafted_claim_of_many_joins_is_read_as_at_most_four_parts():
    crafted = ", and ".join(["the phone weighs 187 grams"] * 5000)
    assert len(fused_parts(crafted)) <= 4


def test_a_source_is_split_for_parts_only_up_to_its_first_characters():
    long_source = "The phone weighs 187 grams. " * 50_000
    sentences = source_sentences(long_source)
    assert sum(len(s) for s, _ in sentences) <= SENTENCES_SCANNED_CHARS
    closest = ClosestSentence.among("the phone weighs 187 grams", [PHONE, long_source])
    assert closest.text == "The phone weighs 187 grams."


def test_a_number_the_sentence_gives_of_another_thing_is_moved_into_a_slot():
    claim = "Norvik says the 45 W wired charging takes the 4,850 mAh battery to 60% in 15 minutes"
    scope = scope_of([Source("p0", PHONE)], None)
    assert [why for *_, why in numbers_moved(claim, ClosestSentence.among(claim, [PHONE]), scope, 0.8)] == [
        "15 where the passage has 25"]
    claim = "those aged 80 and over have a target of below 140/90 mmHg"  # the very slot: "below _ 90"
    scope = scope_of([Source("p0", GUIDANCE)], None)
    assert [why for *_, why in numbers_moved(claim, ClosestSentence.among(claim, [GUIDANCE]), scope, 0.8)] == [
        "140 where the passage has 150"]


@pytest.mark.parametrize(("answer", "passage", "reason"), [
    ("Norvik says the 45 W wired charging takes the 4,850 mAh battery to 60% in 15 minutes, and the phone goes on "
     "sale on 9 October at €549 for the 128 GB model.", PHONE, "15 where the passage has 25"),
    ("Civic Reform leader Donal Brierley held his Kilrush Ward seat by 112 votes, and the new council will hold its "
     "first meeting on 3 June to elect a chair.", ELECTION, "3 where the passage has 17"),
    ("Most adults under 80 with treated hypertension should aim for under 130/80 mmHg, while those aged 80 and "
     "over have a target of below 140/90 mmHg.", GUIDANCE, "140 where the passage has 150"),
    ("About 40 firefighters and 12 fire engines tackled the fire, which broke out shortly after 2 a.m. on Tuesday.",
     FIRE, "40 where the passage has 60"),
])
def test_a_number_moved_into_one_part_of_a_fused_claim_is_flagged(verifier, answer, passage, reason):
    verdict = verifier.verify(answer, [passage])
    assert verdict.label == "hallucinated"
    assert any(reason in r for r in verdict.claims[0].reasons), verdict.claims[0].reasons


def test_a_not_dropped_from_one_part_of_a_fused_claim_is_flagged(verifier):
    answer = ("Brennor has recalled three lots of Clotvane 5 mg, and patients are advised to stop taking the "
              "affected tablets and contact their pharmacist, who can exchange them free of charge.")
    verdict = verifier.verify(answer, [RECALL])
    assert verdict.label == "hallucinated"
    assert verdict.claims[0].signals.negation_mismatch


@pytest.mark.parametrize(("answer", "passage"), [
    ("Norvik says the 45 W wired charging reaches 60% in 25 minutes, and the phone goes on sale on 9 October at "
     "€549 for the 128 GB model.", PHONE),
    ("Brennor has recalled three lots of Clotvane 5 mg, and patients are advised not to stop taking their "
     "medication but to contact their pharmacist.", RECALL),
    ("Most adults under 80 with treated hypertension should aim for below 130/80 mmHg, while for adults aged 80 "
     "and over the target remains below 150/90 mmHg.", GUIDANCE),
    ("Donal Brierley held his own seat in Kilrush Ward by just 112 votes, and the new council will meet for the "
     "first time on 17 June to elect a chair.", ELECTION),
    ("About 60 firefighters and 12 fire engines attended the fire, which broke out shortly after 2 a.m. on Tuesday.",
     FIRE),
])
def test_faithful_fused_claims_are_supported(verifier, answer, passage):
    verdict = verifier.verify(answer, [passage])
    assert verdict.label == "supported", [(c.text, c.reasons) for c in verdict.claims]
