"""A passage sentence restated with one thing changed (issue 44; the held-out file fresh_2026-11-30i.jsonl): a
negation of the clause the passage states plainly while it negates another ("had not received assurances" against
"had received assurances that no posts would be cut"), a version taken from another sentence ("5.6.0 through 5.8.2"
against "through 5.8.1"), an opposite the lexicon lacked ("widened" / "narrowed"). Each beside the faithful
restatement that must still pass.
"""

from __future__ import annotations

import time

import pytest

from halguard.grounding.signals.codes import changed_codes
from halguard.grounding.signals.negation import negation_mismatch
from halguard.grounding.signals.scope import scope_of
from halguard.text.contexts import Source
from halguard.text.lexical import number_mentions, term_set

UNIONS = ("Union representatives said they had received assurances that no clinical posts would be cut during the "
          "first two years.")
PHONE = "It supports 45 W wired charging, which fills the battery to 50% in 20 minutes, but has no wireless charging."
ADVISORY = ("Fernlight Software has released version 5.8.2 of its Quillmark document server to fix a critical "
            "vulnerability. The flaw affects versions 5.6.0 through 5.8.1 and has a severity score of 9.8 out of 10.")
BANK = ("Net interest margin narrowed to 2.61 per cent from 2.74 per cent as the bank passed on more of its income to "
        "savers.")


def _negates(claim: str, sentence: str) -> bool:
    return negation_mismatch(claim, sentence, term_set(claim), term_set(sentence), 0.6)


@pytest.mark.parametrize(("claim", "sentence", "flipped"), [
    # the claim negates what the evidence states in a clause without a negator, its object too
    ("Union representatives said they had not received any assurances about clinical posts during the first two "
     "years.", UNIONS, True),
    # the evidence's own negation, said with another verb ("does not support wireless charging": "has no wireless
    # charging"), and the evidence's negated clause restated
    ("It supports 45 W wired charging but does not support wireless charging.", PHONE, False),
    ("Union representatives said they had received assurances that clinical posts would not be cut.", UNIONS, False),
    # a negation on one side only, as before
    ("Union representatives said they had received no assurances.", "Union representatives said they had received "
     "assurances.", True),
])
def test_a_negation_on_both_sides_flips_only_the_plainly_stated_clause(claim, sentence, flipped):
    assert _negates(claim, sentence) is flipped


def _codes(claim: str, context: str) -> list[str]:
    return [claim[a:b] for a, b in changed_codes(claim, scope_of([Source("p0", context)], None))]


def test_a_version_from_another_sentence_or_not_written_is_changed():
    assert _codes("The flaw affects Quillmark versions 5.6.0 through 5.8.2.", ADVISORY) == ["5.8.2"]
    assert _codes("The flaw affects versions 5.6.0 through 5.9.1.", ADVISORY) == ["5.9.1"]
    # the passages' own versions, each where they write it, also fused into one claim
    assert _codes("The flaw affects versions 5.6.0 through 5.8.1.", ADVISORY) == []
    assert _codes("Versions 5.6.0 to 5.8.1 have a critical flaw, and Fernlight fixed it in version 5.8.2.",
                  ADVISORY) == []
    # a dotted date is no version, and passages without versions leave the number readers to it
    assert _codes("It was reported on 30.06.2026.", "It was reported on 01.07.2026 in version 5.8.1.") == []
    assert _codes("It runs version 5.8.2.", "It runs the latest version.") == []


def test_versions_read_in_bounded_time():
    context = " ".join(f"Release {i}.{i}.{i} fixed bug {i}." for i in range(5_000))
    claim = " ".join(f"v{i}.{i}.{i}" for i in range(5_000))
    start = time.perf_counter()
    _codes(claim, context)
    assert time.perf_counter() - start < 5  # eight versions of the claim, each sentence of the passages once


def test_money_in_pounds_and_euros_takes_its_scale():
    assert [m.value for m in number_mentions("lending grew by £3.1bn and costs by €58m")] == [3.1e9, 58e6]
    assert [m.value for m in number_mentions("a 5 m wall")] == [5.0]  # metres, not millions


@pytest.mark.parametrize(("answer", "context", "label"), [
    ("Net interest margin widened to 2.61 per cent from 2.74 per cent as the bank passed on more of its income to "
     "savers.", BANK, "hallucinated"),
    ("Net interest margin narrowed to 2.61 per cent from 2.74 per cent as the bank passed on more of its income to "
     "savers.", BANK, "supported"),
    ("Union representatives said they had not received any assurances about clinical posts during the first two "
     "years.", UNIONS, "hallucinated"),
    ("The flaw affects Quillmark versions 5.6.0 through 5.8.2 and has a severity score of 9.8 out of 10.", ADVISORY,
     "hallucinated"),
    ("The flaw affects Quillmark versions 5.6.0 through 5.8.1 and has a severity score of 9.8 out of 10.", ADVISORY,
     "supported"),
])
def test_the_verifier_reads_the_one_change(verifier, answer, context, label):
    assert verifier.verify(answer, [context]).label == label


SCHOOL = ("Inspectors rated Larkfield Primary 'good' and found that attendance among disadvantaged pupils was 88 per "
          "cent. Headteacher Priya Nandakumar, who joined in September 2023, said the governors would appoint a "
          "dedicated attendance officer.")
WIND = ("The committee approved the wind farm. Opponents, led by local group Save Hollins Ridge, said they would "
        "consider a legal challenge. Planning officer Derek Amsel had recommended refusal, citing the visual impact.")
RESULTS = ("Orbis Health makes brakes. Chief executive Jane Doe said the company expects orders to rise 17% next "
           "year. Orders rose 9% in the quarter, finance chief Tom Reed said.")
BUDGET = ("The property tax rate increases by 1.8%, which the finance office estimates will add about $46 a year to the "
          "bill of a median-value home. Councillor Dana Whitfield, who voted against, argued the reserve was too small.")


def _speakers(claim: str, passage: str) -> list[str]:
    from halguard.grounding.signals.speakers import speakers_moved

    return [why for _, _, why in speakers_moved(claim, [passage], term_set(passage))]


@pytest.mark.parametrize(("claim", "passage", "why"), [
    ("The inspectors stated that the governors would appoint a dedicated attendance officer.", SCHOOL,
     "The inspectors said it where the passage has Headteacher Priya Nandakumar"),
    ("After the committee approved the wind farm, planning officer Derek Amsel said he would consider a legal "
     "challenge over its visual impact.", WIND, "planning officer Derek Amsel said it where the passage has Opponents"),
    ("Orders rose 9% in the quarter, Jane Doe said.", RESULTS, "Jane Doe said it where the passage has finance chief "
     "Tom Reed"),
    # a relative clause's subject is its speaker (twenty-fifth session's fresh file)
    ("The budget raises the property tax rate by 1.8%, which Councillor Dana Whitfield estimates will add about $46 a "
     "year to the bill of a median-value home.", BUDGET, "Councillor Dana Whitfield said it where the passage has the "
     "finance office"),
])
def test_words_another_speaker_said_are_moved(claim, passage, why):
    assert _speakers(claim, passage) == [why]


@pytest.mark.parametrize(("claim", "passage"), [
    # the speaker in other words or by part of the name, a pronoun, a body named where its officer speaks
    ("Nandakumar said the governors would appoint a dedicated attendance officer.", SCHOOL),
    ("The headteacher said the governors would appoint a dedicated attendance officer.", SCHOOL),
    ("She said the governors would appoint a dedicated attendance officer.", SCHOOL),
    ("The company said it expects orders to rise 17% next year.", RESULTS),
    ("Save Hollins Ridge said it would consider a legal challenge.", WIND),
    # a speaker the passages lack is the missing names' finding; words no speech of the passages says
    ("Mayor Jo Lind said the governors would appoint a dedicated attendance officer.", SCHOOL),
    ("The inspectors said attendance among disadvantaged pupils was 88 per cent.", SCHOOL),
    ("The tax rate goes up 1.8%, which the finance office estimates will add about $46 a year to a median-value "
     "home's bill.", BUDGET),
])
def test_the_speaker_said_otherwise_or_nothing_moved_is_no_finding(claim, passage):
    assert _speakers(claim, passage) == []


def test_speakers_read_in_bounded_time():
    from halguard.grounding.signals.speakers import speakers_moved

    passage = " ".join(f"Officer {i} said the plan {i} would cost {i} pounds." for i in range(3_000))
    claim = "Officer 5 said " * 2_000 + "the plan would cost pounds."
    start = time.perf_counter()
    speakers_moved(claim, [passage], term_set(passage))
    assert time.perf_counter() - start < 5  # four speeches of the claim, the passages' first sentences


BUG = ("Fernlight Software released a patch. The bug was reported on 2 November by researcher Tomasz Wielgus of the "
       "security firm Redline Labs.")


def _bodies(claim: str, passage: str) -> list[str]:
    from halguard.grounding.signals.affiliations import affiliations_moved

    return [why for _, _, why in affiliations_moved(claim, scope_of([Source("p0", passage)], None))]


def test_a_person_given_another_body_of_the_passages_is_moved():
    assert _bodies("Tomasz Wielgus of Fernlight Software reported the bug to Redline Labs.", BUG) == [
        "Tomasz Wielgus of Fernlight Software where the passage has Tomasz Wielgus of Redline Labs"]
    # the passage's body, by part of its name; a body the passages lack (the missing names'); a person the passages
    # never give a body with "of"
    assert _bodies("Tomasz Wielgus of Redline reported the bug.", BUG) == []
    assert _bodies("Tomasz Wielgus of Acme Labs reported the bug.", BUG) == []
    assert _bodies("Anna Berg of Fernlight Software reported the bug.", BUG + " Anna Berg found it.") == []


def test_affiliations_read_in_bounded_time():
    from halguard.grounding.signals.affiliations import affiliations_moved

    passage = " ".join(f"Ann Lee{i} of Body{i} Labs spoke." for i in range(2_000))
    claim = "Ann Lee1 of " + "Aa " * 20_000
    start = time.perf_counter()
    affiliations_moved(claim, scope_of([Source("p0", passage)], None))
    assert time.perf_counter() - start < 5  # eight of the claim's, each source's first 20,000 characters once
