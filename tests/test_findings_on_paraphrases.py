"""Findings that a held-out file's faithful paraphrases set off, read right now (issue 44: a flag must be right), and
the fabrications beside them that must still flag: a movement's numbers taken from the next clause, a negation the
passage says with "un-", a unit symbol read as a name, an acronym of a lower-case term, a rate before "on", a
frequency's "times", and "raised" against "unchanged"."""

import pytest

from halguard.grounding.signals.antonyms import antonym_flips, lexicon_side
from halguard.grounding.signals.direction import direction_errors
from halguard.text.lexical import content_terms, entity_mentions
from halguard.text.mentions import mentioned
from halguard.text.rates import rates

BEES = ("Researchers found that bumblebee colonies exposed to low doses of the pesticide flurvaxin produced 23% fewer "
        "queens than unexposed colonies.")
THERMOSTAT = ("The Velora HX-40 smart thermostat supports Wi-Fi on the 2.4 GHz band only; 5 GHz networks are not "
              "supported.")
CHARGE = ("The city will charge private cars £6 a day to enter the central zone from 1 April 2026. Electric vehicles "
          "will be exempt until March 2028.")
ROUTE = ("Skylen Air will begin nonstop service between Dunmore and Calvera on 5 May 2026, operating four flights a "
         "week on Airbus A220 aircraft.")


def test_a_movement_reads_its_own_clause_numbers():
    # the "increase" is the revenue's 6%; the "from ... to" after "though" is the profit's slip
    text = ("Tarvelle Foods brought in €412 million, a 6% year-over-year increase, though operating profit slipped "
            "from €35 million to €31 million.")
    assert direction_errors(text) == []
    assert direction_errors("Operating profit slipped from €31 million to €35 million.")
    assert direction_errors("Revenue rose from 15 million to 12 million, the company said.")


@pytest.mark.parametrize(("answer", "label"), [
    ("Colonies given low doses of flurvaxin raised 23% fewer queens than colonies that weren't exposed.", None),
    ("Colonies exposed to low doses of flurvaxin did not produce fewer queens than unexposed colonies.",
     "hallucinated"),
])
def test_a_negation_the_passage_says_with_un_is_no_flip(verifier, answer, label):
    verdict = verifier.verify(answer, [BEES])
    assert not verdict.claims[0].signals.negation_mismatch if label is None else verdict.label == label


def test_a_unit_symbol_after_a_number_is_no_name_of_a_role(verifier):
    verdict = verifier.verify("Only 2.4 GHz Wi-Fi is supported by the thermostat.", [THERMOSTAT])
    assert verdict.label == "supported"
    assert not verdict.claims[0].signals.role_conflicts


def test_an_acronym_of_a_lower_case_term_is_the_term():
    assert mentioned("EVs", ["Electric vehicles will be exempt until March 2028."])
    assert mentioned("AI", ["Advances in artificial intelligence drove the rally."])
    # letters of words that are no term, or separated by punctuation, name nothing
    assert not mentioned("GE", ["The company, in general, expects growth."])
    assert not mentioned("EV", ["It was electric, vehicles said."])


def test_an_acronym_paraphrase_passes_and_a_changed_date_still_flags(verifier):
    assert verifier.verify("EVs will be exempt from the charge until March 2028.", [CHARGE]).label == "supported"
    assert verifier.verify("EVs will be exempt from the charge until March 2029.", [CHARGE]).label == "hallucinated"


def test_a_rate_before_on_and_a_name_is_a_rate(verifier):
    assert [(r.value, r.period) for r in rates(ROUTE)] == [(4.0, "week")]
    assert rates("A year on, sales had doubled.") == []  # a time, not a rate
    assert verifier.verify("Skylen Air will fly four times a week between Dunmore and Calvera.",
                           [ROUTE]).label == "supported"
    verdict = verifier.verify("Skylen Air will operate four flights a day on Airbus A220 aircraft.", [ROUTE])
    assert verdict.label == "hallucinated"


def test_unchanged_against_a_movement_is_a_flip():
    assert lexicon_side("unchanged") is None  # no side of the movements: a claim may say both
    assert antonym_flips("Tarvelle Foods raised its full-year revenue forecast.",
                         "The company kept its full-year revenue forecast unchanged.")
    assert not antonym_flips("Tarvelle Foods left its full-year revenue forecast unchanged.",
                             "The company kept its full-year revenue forecast unchanged.")
    assert antonym_flips("Sales rose.", "Sales fell.")  # the two sides as before


def test_unchanged_beside_a_movement_keeps_the_movements_sides():
    # "remains unchanged despite cost jumps" against "unchanged ... despite cost increases": "jumps" is "increases"
    evidence = "Adjusted EBITDA guidance remains unchanged despite raw material cost increases exceeding 10%."
    assert not antonym_flips("Guidance remains unchanged despite raw material cost jumps exceeding 10%.", evidence)
    assert antonym_flips("Guidance remains unchanged despite raw material cost cuts exceeding 10%.", evidence)


RIVER = ("The 2025 annual report found that average dissolved oxygen in the lower Quillon River rose to 7.4 mg/L, up "
         "from 6.1 mg/L in 2023.")
SEVERANCE = ("Orvane Logistics will cut 640 jobs. Affected employees will receive 16 weeks of base pay plus one "
             "additional week for every year of service.")
EXHIBITION = ("The Aldercrest Museum of Art will open \"Tides of Glass\" on April 18, 2026, in its east wing "
              "galleries. The exhibition gathers 112 objects, including 37 pieces on loan from the Ca' Morosini "
              "collection in Venice.")


def test_a_decimal_point_ends_no_movement(verifier):
    # "7.4" once ended the movement's clause at its decimal point: no movement was read at all
    assert verifier.verify("Dissolved oxygen in the lower Quillon River fell to 6.1 mg/L, down from 7.4 mg/L.",
                           [RIVER]).label == "hallucinated"
    assert verifier.verify("Dissolved oxygen in the lower Quillon River rose to 7.4 mg/L from 6.1 mg/L.",
                           [RIVER]).label == "supported"


@pytest.mark.parametrize(("answer", "label"), [
    ("Affected employees will receive 16 weeks of base pay plus one additional week for every month of service.",
     "hallucinated"),
    ("Affected employees will receive 16 weeks of base pay plus one additional week for every year of service.",
     "supported"),
])
def test_a_unit_swapped_in_a_copied_sentence_is_found(verifier, answer, label):
    verdict = verifier.verify(answer, [SEVERANCE])
    assert verdict.label == label
    assert bool(verdict.claims[0].signals.role_conflicts) == (label == "hallucinated")


def test_an_ergative_verbs_lone_subject_is_what_it_happens_to(verifier):
    # "Tides of Glass opens at the museum" is "the museum opens Tides of Glass": no one swapped
    answer = "\"Tides of Glass\" opens at the Aldercrest Museum of Art on 18 April 2026."
    verdict = verifier.verify(answer, [EXHIBITION])
    assert not verdict.claims[0].signals.role_conflicts
    assert verdict.label == "supported"


def test_an_elided_name_is_no_possessive(verifier):
    verdict = verifier.verify("Of the 112 objects, 37 are loans from Venice's Ca' Morosini collection.", [EXHIBITION])
    assert not verdict.claims[0].signals.role_conflicts


def test_a_contracted_pronoun_and_a_number_sign_are_no_words_or_names():
    text = "You'll need the receipt, and he'll wear the No. 8 shirt; they've said it's Kestrel's."
    assert [text[s:e] for s, e, _ in content_terms(text)] == ["need", "receipt", "wear", "shirt", "Kestrel's"]
    assert [text[s:e] for s, e in entity_mentions(text)] == ["Kestrel's"]


def test_one_unit_written_two_ways_is_no_swap(verifier):
    passage = "Mount Aral erupted on Tuesday night, sending a column of ash 8 kilometres into the sky."
    verdict = verifier.verify("Mount Aral erupted on Tuesday night, sending ash 8 km into the sky.", [passage])
    assert verdict.label == "supported"
    assert not verdict.claims[0].signals.role_conflicts


LEAVE = ("Up to 5 unused days may be carried over into the next calendar year, but carried-over days must be used by "
         "31 March or they are lost.")


@pytest.mark.parametrize(("answer", "label"), [
    # "if not X, Y" says what "X or Y" says: a negated condition asserts no negation
    ("Up to five unused days can be carried over into the next calendar year, but they are lost if not used by 31 "
     "March.", "supported"),
    # the asserted negations still flip
    ("Up to five unused days can be carried over into the next calendar year, but they are not lost if not used by "
     "31 March.", "hallucinated"),
    ("Unused days cannot be carried over into the next calendar year.", "hallucinated"),
])
def test_a_negated_condition_is_no_flip(verifier, answer, label):
    assert verifier.verify(answer, [LEAVE]).label == label


PROFIT = ("Operating profit fell 3% to €38 million, which the company attributed to higher cocoa prices. Chief "
          "executive Ines Korthals said the snack division grew fastest.")


@pytest.mark.parametrize(("answer", "flipped"), [
    # "a decline" names the drop before it; it is no flip against the cause's "higher" prices
    ("Operating profit fell 3% to €38 million, a decline the company attributed to higher cocoa prices.", []),
    # a real flip in the appositive's own clause, or in the movement it names, stays one
    ("Operating profit fell 3% to €38 million, which the company attributed to lower cocoa prices.", ["lower"]),
    ("Operating profit rose 3% to €38 million, a rise the company attributed to higher cocoa prices.", ["rose"]),
])
def test_an_appositive_naming_the_movement_before_it_is_read_with_it(verifier, answer, flipped):
    claim = verifier.verify(answer, [PROFIT]).claims[0]
    assert claim.signals.antonym_flips == flipped


def test_a_negated_condition_is_no_assertion_against_a_negation_either(verifier):
    # the condition names the evidence's own negated proposition: neither said nor denied (a RAGTruth answer)
    evidence = "When a door latch won't catch, it's because the latch doesn't align with the hole in the strike plate."
    conditioned = verifier.verify("Move the strike plate if the latch doesn't align with it.", [evidence])
    asserted = verifier.verify("The latch aligns with the hole in the strike plate.", [evidence])
    assert not conditioned.claims[0].signals.negation_mismatch
    assert asserted.claims[0].signals.negation_mismatch


HOTEL = ("Guests at the Harbour View Hotel may check in from 3 pm. Parking costs €18 per night. Pets are not allowed. "
         "The spa is open daily.")


@pytest.mark.parametrize(("answer", "flipped"), [
    # the passage's topic, named in the claim, need not be in the negated sentence: the rest of the claim copies it
    ("Pets are allowed at the Harbour View Hotel.", True),
    ("The Harbour View Hotel allows pets.", True),
    ("Pets are not allowed at the Harbour View Hotel.", False),
    # a name the passages do not give is not the topic: the claim does not copy the sentence
    ("Pets are allowed at the Seaview Lodge.", False),
])
def test_a_negation_is_read_without_the_passages_topic_name(verifier, answer, flipped):
    assert verifier.verify(answer, [HOTEL]).claims[0].signals.negation_mismatch is flipped


@pytest.mark.parametrize(("claim", "evidence", "flip"), [
    # a bound's word compares no amounts: "no more than three" is "at most 3", "$50 or less" a bound after its number
    ("There are no more than three overdraft charges a day, and none if you are overdrawn by $50 or less.",
     "Overdraft fee: $29 per item, charged at most 3 times per business day; no fee is charged if the account is "
     "overdrawn by $50 or less.", False),
    ("Seniors aged 65 or older pay less.", "Seniors aged 65 or older pay more.", True),
    ("Sales fell by more than 5%.", "Sales rose by more than 5%.", True),  # the movement still read
])
def test_a_bound_s_words_are_no_opposites(claim, evidence, flip):
    assert bool(antonym_flips(claim, evidence)) is flip


FEES = ("Out-of-network ATM withdrawals: $2.50 per withdrawal charged by Brightwater; Brightwater refunds up to $10 "
        "per statement cycle in fees charged by other ATM operators. Overdraft fee: $29 per item.")


@pytest.mark.parametrize(("answer", "label"), [
    # the thing moved from one number to another
    ("Brightwater refunds up to $10 per withdrawal in fees charged by other ATM operators.", "hallucinated"),
    ("Brightwater refunds up to $10 per statement cycle in other operators' ATM fees.", "supported"),
    ("Each out-of-network withdrawal costs $2.50, and Brightwater refunds up to $10 per cycle in other operators' "
     "fees.", "supported"),
])
def test_a_number_per_another_thing_is_a_changed_quantity(verifier, answer, label):
    assert verifier.verify(answer, [FEES]).label == label
    assert [(r.value, r.period) for r in rates(FEES)] == [(2.5, "withdrawal"), (10.0, "cycl"), (29.0, "item")]


def test_a_frequency_per_a_priced_thing_is_no_changed_rate(verifier):
    hotel = "Guests may bring up to two dogs for a non-refundable cleaning fee of $40 per stay."
    answer = "Guests may bring dogs for a $40 cleaning fee charged once per stay."
    assert verifier.verify(answer, [hotel]).label == "supported"
