"""A number of the passages moved into a copy of a sentence that gives another (halguard.grounding.signals.
moved_numbers, issue 44): "The city of Reykjavík has about 240,000 inhabitants." where the city's figure is 140,000
and 240,000 is the capital region's. The sentence's own number, a number only computed, a year, a list marker, a
score and a loose paraphrase are no finding."""

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.closest import ClosestSentence
from halguard.grounding.signals.moved_numbers import numbers_exchanged, numbers_moved
from halguard.grounding.signals.scope import scope_of
from halguard.text.contexts import Source

REYKJAVIK = ("Reykjavík is the capital and largest city of Iceland, with about 140,000 inhabitants. Around 240,000 "
             "people, nearly two-thirds of the country's population, live in the capital region.")
BOJ = ("The Bank of Japan said on Wednesday it would conduct emergency bond buying to keep the 10-year yield within "
       "0.5% of its target. Analysts had expected a 1% band.")
PRIZE = ("The novel won the International Book Prize, worth 50,000 pounds, which will be shared equally between the "
         "author and her translator.")
FINAL = "Sweden beat Norway 2-0 in the semi-final. Sweden then lost the final to Denmark 1-0."
STEPS = "1. Season the fillets. 2. Heat the pan for 3 minutes."
METRO = ("The new metro line M4 opened on Saturday. It cost 2.1 billion euros, 300 million more than the original "
         "budget, and opened two years late.")


def _moved(claim: str, passage: str) -> list[str]:
    scope = scope_of([Source("p0", passage)], None)
    return [why for _, _, why in numbers_moved(claim, ClosestSentence.of(claim, passage), scope, 0.8)]


def test_a_number_of_another_sentence_in_the_copied_slot_is_moved():
    assert _moved("The city of Reykjavík has about 240,000 inhabitants.", REYKJAVIK) == [
        "240,000 where the passage has 140,000"]
    assert _moved("The Bank of Japan said on Wednesday it would conduct emergency bond buying to keep the 10-year "
                  "yield within 1% of its target.", BOJ) == ["1% where the passage has 0.5%"]


@pytest.mark.parametrize(("claim", "passage"), [
    ("The city of Reykjavík has about 140,000 inhabitants.", REYKJAVIK),  # the sentence's own number
    ("About 240,000 people live in Reykjavík's capital region.", REYKJAVIK),  # the other sentence's, rightly
    ("The author and her translator will each receive 25,000 pounds.", PRIZE),  # computed, not written
    ("Denmark won the final, beating Sweden 1-0.", FINAL),  # a score is one number
    ("2. Season the fillets.", STEPS),  # a list marker
    # the sentence's own number in other words, though "euros" follows 2.1 billion there
    ("The M4 opened two years late because its cost rose 300 million euros above the budget.", METRO),
    ("The city of Reykjavík has about 90,000 inhabitants.", REYKJAVIK),  # a number the passage lacks: missing
])
def test_the_sentence_own_number_a_computed_one_a_score_or_a_marker_is_no_finding(claim, passage):
    assert _moved(claim, passage) == []


def test_the_verifier_flags_the_moved_number_as_a_role_conflict():
    verdict = LocalVerifier().verify("The city of Reykjavík has about 240,000 inhabitants.", [REYKJAVIK])
    assert verdict.label == "hallucinated"
    assert any("240,000 where the passage has 140,000" in r for r in verdict.claims[0].reasons)
    assert LocalVerifier().verify("Reykjavík has about 140,000 inhabitants.", [REYKJAVIK]).label == "supported"


FIRE = ("A fire broke out shortly after 2 a.m. on Tuesday at a warehouse. About 60 firefighters and 12 fire engines "
        "attended. The operator said about 40 of its staff would be moved temporarily.")


def test_a_number_counting_the_sentences_noun_is_moved_in_a_looser_copy():
    # "tackled" is not the sentence's word (3 of 4 words copied): the number counts the same firefighters
    assert _moved("About 40 firefighters and 12 fire engines tackled the fire.", FIRE) == [
        "40 where the passage has 60"]
    # the sentence's own number, and a looser copy whose number counts no noun of the sentence's, are no finding
    assert _moved("About 60 firefighters and 12 fire engines tackled the fire.", FIRE) == []
    assert _moved("Crews of 40 tackled the fire with 12 engines.", FIRE) == []


VACCINE = ("The most common side effects were injection-site pain (61%), fatigue (34%) and headache (27%), usually "
           "lasting one to two days.")
ROOMS = "Meeting rooms can be hired for £15 an hour by community groups and £35 an hour by businesses."


def _exchanged(claim: str, passage: str) -> list[str]:
    return [why for *_, why in numbers_exchanged(claim, ClosestSentence.of(claim, passage), 0.8)]


def test_two_numbers_of_a_copied_sentence_that_trade_places_are_swapped():
    assert _exchanged("The most common side effects were injection-site pain in 61% of recipients, fatigue in 27% "
                      "and headache in 34%.", VACCINE) == ["numbers swapped: 27% / 34% (the passage: fatigue 34%, "
                                                          "headache 27%)"]
    assert _exchanged("Meeting rooms cost £35 an hour for community groups and £15 an hour for businesses.",
                      ROOMS) == ["numbers swapped: 35 / 15 (the passage: 15 community, 35 businesses)"]
    # a number's word stays within its phrase: "adults" before "and £12" is 7's, so the reason pairs by the words
    # after ("cost 12, adults 7" read the pairs across the "and")
    assert _exchanged("Tickets cost £7 for adults and £12 for children.",
                      "Tickets cost £12 for adults and £7 for children. The museum is closed on Mondays.") == [
        "numbers swapped: 7 / 12 (the passage: 12 adults, 7 children)"]


@pytest.mark.parametrize(("claim", "passage"), [
    # the pairs kept, in another order
    ("The most common side effects were headache (27%), fatigue (34%) and injection-site pain (61%).", VACCINE),
    ("Meeting rooms cost £35 an hour for businesses and £15 an hour for community groups.", ROOMS),
    # no copy of the sentence: nothing to pair against
    ("Fatigue hit 27% and headaches 34% of the town's runners.", VACCINE),
])
def test_pairs_kept_or_no_copy_are_no_swap(claim, passage):
    assert _exchanged(claim, passage) == []


def test_the_verifier_flags_numbers_swapped_in_one_part_of_a_fused_claim(verifier):
    answer = ("The vaccine was 91.4% effective against severe disease, and its most common side effects were "
              "injection-site pain in 61% of recipients, fatigue in 27% and headache in 34%.")
    verdict = verifier.verify(answer, ["In the trial the vaccine showed 91.4% efficacy against severe disease. "
                                       + VACCINE])
    assert verdict.label == "hallucinated"
    assert any("numbers swapped: 27% / 34%" in r for r in verdict.claims[0].reasons)
