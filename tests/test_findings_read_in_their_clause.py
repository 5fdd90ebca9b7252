"""Findings read where they stand (twenty-eighth session, from `fresh_2026-12-01e`): a negation against its own
clause's proposition and never against a lexical negation of the same word; a day of a month the passages date on
other days only; "24/7" for "around the clock"; an ordinal whose noun the passage leaves out; cents for a hundredth of
a dollar; "only" before a number. Each faithful form beside its wrong twin."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.calendar import changed_dates
from halguard.grounding.signals.choice import choice_conflicts
from halguard.grounding.signals.flips import clauses
from halguard.grounding.signals.negated_clauses import negation_dropped
from halguard.grounding.signals.negation import negation_mismatch
from halguard.grounding.signals.only_added import only_added
from halguard.grounding.signals.ordinals import changed_ordinals
from halguard.grounding.signals.scope import scope_of
from halguard.grounding.signals.widened import widened_scopes
from halguard.text.contexts import Source
from halguard.text.currency import cent_values
from halguard.text.dates import unpinned_months
from halguard.text.lexical import term_set

PARKING = ("Permit holders may park in Zone C without time limits, Monday to Saturday, 8am to 6pm; outside those hours "
           "and on Sundays, parking is unrestricted for everyone.")
BAGS = ("Checked baggage is not included on Basic fares. Flex fares include one checked bag of up to 23 kg, and "
        "Business fares include two bags of up to 32 kg each.")
FLEX = "Flex fares include one checked bag of up to 23 kg, and Business fares include two bags of up to 32 kg each."
DIVIDEND = ("The Board approved a quarterly dividend of $0.52 per share, payable December 15 to shareholders of record "
            "on November 28. The results were published on November 6, 2026.")
PERMITS = ("Each household may hold up to two annual permits. The first permit costs $45 per year and the second "
           "costs $90.")
SUPPORT = ("Business customers get a first response within 1 hour for Severity 1 incidents, around the clock, while "
           "Standard customers get a response within 4 business hours.")
TOURS = ("Guided tours in English leave at 11:00 and 14:00 daily; they are limited to 25 people, so book at the front "
         "desk on arrival.")


def _scope(*passages: str):
    return scope_of([Source(id=str(i), text=p) for i, p in enumerate(passages)], None)


def _flips(claim: str, evidence: str) -> bool:
    return negation_mismatch(claim, evidence, term_set(claim), term_set(evidence), 0.6)


def test_a_lexical_negation_is_the_same_polarity_as_a_grammatical_one():
    assert not _flips("Permit holders can park in Zone C with no time limit from Monday to Saturday.", PARKING)
    assert not _flips("Permit holders may park in Zone C without time limits.",
                      "Permit holders may park in Zone C with no time limit.")
    # the negation dropped or added against a plain statement is still a flip
    assert _flips("Permit holders may park in Zone C with no time limit.",
                  "Permit holders may park in Zone C with a time limit.")


def test_a_negation_is_read_against_its_own_clause():
    claim = "Basic fares have no checked luggage, Flex includes a single 23 kg bag and Business gives you two."
    assert not _flips(claim, FLEX)  # the "no" is Basic fares', which the Flex sentence does not state
    assert _flips("Flex fares do not include a checked bag of up to 23 kg, and Business fares include two bags.", FLEX)


def test_the_verdicts_of_the_negations():
    verifier = LocalVerifier()
    assert verifier.verify("Permit holders can park in Zone C with no time limit from Monday to Saturday.",
                           [PARKING]).label == "supported"
    assert verifier.verify("Permit holders cannot park in Zone C from Monday to Saturday.",
                           [PARKING]).label != "supported"
    assert verifier.verify("Basic fares have no checked luggage, Flex includes a single 23 kg bag and Business "
                           "gives you two at up to 32 kg each.", [BAGS]).label == "supported"
    assert verifier.verify("Flex fares do not include a checked bag.", [BAGS]).label != "supported"


@pytest.mark.parametrize(("claim", "changed"), [
    ("The dividend goes to shareholders of record on November 15.", ["November 15"]),
    ("The dividend is payable on November 28.", []),  # a day the passages date (of another thing: the roles' check)
    ("The dividend goes to shareholders of record on November 28.", []),
    ("The dividend is payable on 15 December.", []),
    ("The dividend goes to shareholders of record on 28 November.", []),
])
def test_a_day_of_a_month_the_passages_date_on_other_days_only(claim, changed):
    assert [claim[s:e] for s, e in changed_dates(claim, _scope(DIVIDEND))] == changed


@pytest.mark.parametrize("passage", [
    "The festival runs between 3 and 7 March. Tickets go on sale on 12 February.",  # a range of days
    "The festival runs from March 3 to 7. Tickets go on sale on 12 February.",
    "The festival runs 3-7 March. Tickets go on sale on 12 February.",
    "The festival is held in March; the programme is published on 1 March.",  # the month alone
    "The festival is held in mid-March; the programme is published on 1 March.",
])
def test_a_month_named_otherwise_than_as_one_day_may_hold_the_claims_day(passage):
    assert changed_dates("The festival opens on 5 March.", _scope(passage)) == []
    assert 3 in unpinned_months(passage)


def test_unpinned_months_is_linear_on_crafted_text():
    text = "between 3 and 7 March, " * 20_000 + "November " * 20_000
    started = time.perf_counter()
    assert unpinned_months(text) == frozenset({3, 11})
    assert time.perf_counter() - started < 3.0


def test_every_hour_in_numbers_is_said_by_every_hour_in_words():
    verifier = LocalVerifier()
    claim = "Business customers get a first response within an hour for Severity 1 incidents, 24/7."
    assert verifier.verify(claim, [SUPPORT]).label == "supported"
    # a passage that never says every hour does not give "24/7"
    narrow = SUPPORT.replace(", around the clock,", "")
    assert verifier.verify(claim, [narrow]).label != "supported"


def test_an_ordinal_whose_noun_the_passage_leaves_out():
    scope = _scope(PERMITS)
    assert changed_ordinals("A second permit costs $90.", scope) == []
    claim = "A third permit costs $90."
    assert [claim[s:e] for s, e in changed_ordinals(claim, scope)] == ["third"]


def test_cents_are_a_hundredth_of_the_currency():
    assert cent_values("a dividend of 52 cents per share, and a 5-cent fee; 50 pence") == {0.52, 0.05, 0.5}
    verifier = LocalVerifier()
    assert verifier.verify("The board approved a quarterly dividend of 52 cents per share.",
                           [DIVIDEND]).claims[0].signals.missing_numbers == []
    wrong = verifier.verify("The board approved a quarterly dividend of 53 cents per share.", [DIVIDEND])
    assert wrong.claims[0].signals.missing_numbers != []


def test_only_before_a_number_says_how_few():
    assert only_added("Each tour takes only 25 people, so book at the front desk.", [TOURS]) == []
    # and a list's clause after "so" is no other item of the list
    assert only_added("Only guided tours in English are limited to 25 people.", [TOURS]) == []


MUSEUM = ("General admission is €18 for adults, €12 for students with valid ID and for visitors over 67. On the first "
          "Sunday of each month, admission is free for residents of the Vestfold region, who must show ID at the desk. "
          "The special exhibition requires a timed ticket costing €6 on top of general admission.")
HALF_PRICE = ("Each household may hold up to two annual permits. The first permit costs $45 per year and the second "
              "costs $90. Residents aged 65 or older pay half price for their first permit only.")


@pytest.mark.parametrize(("claim", "passage", "widened"), [
    ("Residents aged 65 and over pay half price on both permits.", HALF_PRICE, "both permits"),
    ("On the first Sunday of every month, entry is free for everyone.", MUSEUM, "everyone"),
])
def test_both_and_everyone_widen_a_restricted_group(claim, passage, widened):
    found = widened_scopes(claim, [passage])
    assert [claim[s:e] for s, e, _ in found] == [widened]


@pytest.mark.parametrize(("claim", "passage"), [
    ("Residents aged 65 and over pay half price on their first permit.", HALF_PRICE),
    ("Both the first and the second permit are annual.", HALF_PRICE),  # "both A and B" names the two
    ("On the first Sunday of every month, entry is free for everyone from the Vestfold region who shows ID.", MUSEUM),
    ("Everyone pays €6 on top of general admission for the special exhibition.", MUSEUM),  # no people restricted
])
def test_what_keeps_the_group_is_no_widening(claim, passage):
    assert widened_scopes(claim, [passage]) == []


def test_everyone_is_bounded_on_crafted_text():
    claim = "Entry is free for everyone " * 2_000 + "on Sundays."
    passage = "Entry is free on Sundays for residents of the region and for members. " * 5_000
    started = time.perf_counter()
    widened_scopes(claim, [passage])
    assert time.perf_counter() - started < 3.0


def test_a_short_clause_after_and_shares_the_subject_before_it():
    passage = ("Permits run from 1 April to 31 March and are not prorated, so a permit bought in January still "
               "expires on 31 March.")
    dropped = "Permits are valid from 1 April to 31 March and are prorated, so a permit bought later costs less."
    assert negation_dropped([c for _, c in clauses(dropped)], [passage]) == passage
    kept = "Permits run from 1 April to 31 March and are not prorated."
    assert negation_dropped([c for _, c in clauses(kept)], [passage]) is None
    # a relative clause's subject is its own: "a leader who won't disrespect their intelligence" says nothing of the
    # American people disrespecting it
    leader = "The American people deserve a leader who won't disrespect their intelligence, who won't pander to them."
    claim = "He has also disrespected the intelligence of the American people."
    assert negation_dropped([c for _, c in clauses(claim)], [leader]) is None


def test_both_widens_only_a_mention_that_singles_one_out():
    bands = "Oasis were an English rock band. Oingo Boingo was an American new wave band formed in 1972."
    assert widened_scopes("Oasis and Oingo Boingo were both American bands.", [bands]) == []
    assert widened_scopes("Both bands were formed in 1972.", [bands]) == []


GRENADE = ("During World War II, Operation Grenade was the crossing of the Roer river by the U.S. Ninth Army, in "
           "February 1945.Lorraine Campaign is a term used by U.S. Army historians for operations in Lorraine from "
           "September 1 through December 18, 1944.")
BRANDS = ("Crusha is a brand of milkshake mix. The brand first appeared in the 1950s, and was bought by British Sugar."
          "Grapette is a grape-flavored soft drink that was first produced and marketed in 1939.")


@pytest.mark.parametrize(("claim", "question", "passage", "picked"), [
    ("Operation Grenade.", "Which occurred earlier, Operation Grenade or Lorraine Campaign?", GRENADE, True),
    ("Lorraine Campaign.", "Which occurred earlier, Operation Grenade or Lorraine Campaign?", GRENADE, False),
    ("Crusha was marketed earlier.", "Which brand was marketed earlier--Crusha or Grapette?", BRANDS, True),
    ("Grapette was marketed earlier.", "Which brand was marketed earlier--Crusha or Grapette?", BRANDS, False),
])
def test_an_initials_stop_ends_no_sentence_and_a_coming_out_is_one_event(claim, question, passage, picked):
    # "the U.S. Ninth Army" is one sentence; "first appeared in the 1950s" dates a brand "marketed" in the question
    assert bool(choice_conflicts(claim, question, [passage], answers_alone=True)) is picked


def test_a_hundredth_is_said_by_its_currency():
    verifier = LocalVerifier()
    claim = "The 52-cent dividend is payable December 15 to shareholders of record on November 28."
    assert verifier.verify(claim, [DIVIDEND]).label == "supported"
    assert verifier.verify("The 53-cent dividend is payable December 15.", [DIVIDEND]).label != "supported"
