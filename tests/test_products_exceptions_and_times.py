"""Products, excepted cases, British times and everyday words (issues 44 and 45), hand-written cases of
`fresh_2026-12-03e`, each with its wrong twin: a total that a count the claim states times a passage's price each
gives (text/products.py), a negation that says a passage's "unless" case (signals/excepted.py) or its own negated
proposition (signals/negation.py), a requirement denied whose condition follows it (signals/permission.py), times
written "8.30am" and a time alone ("opens at", "shuts at") read as hours (signals/hours.py, signals/prose_hours.py),
the words of opening hours beside a time the passages give (signals/times_of_day.py), and "ring" and "jab"
(text/phrasal.py)."""

from __future__ import annotations

import pytest

from halguard import LocalVerifier
from halguard.grounding.claim_verdict import ClaimStatus
from halguard.grounding.signals.closest import source_sentences
from halguard.grounding.signals.excepted import excepted_case
from halguard.grounding.signals.flips import clauses
from halguard.grounding.signals.hours import paired_hours
from halguard.grounding.signals.negated_clauses import negated_clause
from halguard.grounding.signals.permission import modality_turned
from halguard.grounding.signals.prose_hours import prose_hours_moved
from halguard.text.lexical import number_values, term_set
from halguard.text.products import MAX_COUNTS, ProductSpans

RECYCLING = ["Tyres cost £3.50 each, maximum four per visit. Rooms at the lodge are £80 a night. Overdue DVDs are "
             "charged 20p a day."]
LIBRARY = ["Loans can be renewed up to three times online, by phone or at the counter, unless another member has "
           "reserved the item."]
DENTAL = ["Harlow Green Dental Surgery is open Monday to Thursday from 8.30am to 5.30pm and on Fridays from 8.30am to "
          "1pm.", "Emergency slots are released at 8.30am each weekday and can be booked by phone only, on 01632 "
          "960418; they cannot be booked online."]
BROADBAND = ["You can cancel within 14 days of your service going live without paying anything, as long as you return "
             "the router."]
VET = ["Puppies and kittens need two primary vaccinations, given two to four weeks apart, from eight weeks of age."]


@pytest.fixture(scope="module")
def verifier() -> LocalVerifier:
    return LocalVerifier(num_threads=1)


def _products(text: str, sources: list[str]) -> list[str]:
    spans = ProductSpans(text, [source_sentences(source) for source in sources],
                         {v for source in sources for v in number_values(source)} | {0.2})
    return [text[a:b] for a in range(len(text)) for b in range(a + 1, len(text) + 1) if spans(a, b)]


def test_a_total_is_a_stated_count_times_a_price_each():
    assert _products("Four tyres would cost £14.", RECYCLING) == ["Four", "14"]
    assert _products("Three nights would come to £240.", RECYCLING) == ["Three", "240"]
    assert _products("A DVD five days late costs £1.", RECYCLING) == ["five", "1"]  # pence, per day
    assert not _products("Four tyres would cost £15.", RECYCLING)
    assert not _products("Three tyres would cost £14.", RECYCLING)
    assert not _products("Three days would come to £240.", RECYCLING)  # a night's price, not a day's
    assert not _products("Four tyres would cost $14.", RECYCLING)  # another currency
    assert not _products("Four tyres would cost £14.", ["Boxes are £3.50 each."])  # no word shared: another thing
    # only the mention that makes the product is found: "three per visit" is still the claim's own number
    # and an amount the passages state is theirs: "10 bags" is no count of "£40 a load" beside "£4 per bag"
    assert not _products("Rubble is £4 a bag or £40 a load, up to 10 bags per visit.",
                         ["Rubble is charged at £4 per bag or £40 per trailer load, up to 5 bags per visit."])
    assert _products("Three tyres cost £10.50 and you can bring three per visit.", RECYCLING) == ["Three", "10.50"]


def test_product_reading_is_bounded():
    claim = " ".join(f"{n} items" for n in range(2, 40)) + " cost £14."
    assert not _products(claim, RECYCLING)  # the 14 is 4 x £3.50, but only the first MAX_COUNTS counts are read
    assert MAX_COUNTS < 30
    spans = ProductSpans("Four tyres would cost £14.", [source_sentences("Tyres cost £3.50 each. " * 100_000)], {3.5})
    assert spans(23, 25)  # "14"


def test_verifier_passes_a_product_and_flags_a_wrong_one(verifier):
    assert verifier.verify("At £3.50 a tyre, four would cost £14.", RECYCLING).label == "supported"
    assert verifier.verify("Four tyres would cost £14.", RECYCLING).label == "supported"
    wrong = verifier.verify("Four tyres would cost £15.", RECYCLING)
    assert wrong.label == "hallucinated" and wrong.claims[0].status == ClaimStatus.CONTRADICTION


def test_a_negation_of_the_unless_case_is_no_flip(verifier):
    claim = "No, once another member has placed a reservation on an item, it can't be renewed."
    assert excepted_case("renew", term_set(claim), LIBRARY[0])
    assert not excepted_case("renew", term_set("Loans can't be renewed unless another member has reserved it."),
                             LIBRARY[0])
    assert not excepted_case("renew", term_set("Loans can't be renewed online."), LIBRARY[0])
    assert verifier.verify(claim, LIBRARY).claims[0].status != ClaimStatus.CONTRADICTION
    for wrong in ("Loans can't be renewed unless another member has reserved the item.",
                  "Loans can't be renewed online."):
        assert verifier.verify(wrong, LIBRARY).claims[0].status == ClaimStatus.CONTRADICTION, wrong


def test_a_negation_the_passage_states_itself_is_no_flip(verifier):
    said = verifier.verify("Emergency slots can't be booked online.", DENTAL)
    assert said.label == "supported"
    wrong = verifier.verify("Emergency slots can't be booked by phone.", DENTAL)
    assert wrong.claims[0].status == ClaimStatus.CONTRADICTION


def test_a_requirement_denied_before_its_condition(verifier):
    claim = "You don't need to send the router back if you cancel within 14 days."
    assert modality_turned(claim, BROADBAND[0], term_set(claim), term_set(BROADBAND[0]), 0.6)
    assert verifier.verify(claim, BROADBAND).claims[0].status == ClaimStatus.CONTRADICTION
    said = "You must return the router if you cancel within 14 days."
    assert not modality_turned(said, BROADBAND[0], term_set(said), term_set(BROADBAND[0]), 0.6)
    assert verifier.verify(said, BROADBAND).label == "supported"


def test_british_times_and_a_time_alone_are_hours():
    assert paired_hours("The surgery is open 8.30am to 1pm on Fridays.")[0]
    assert not paired_hours("Rated 4.0 to 5.0 stars on Fridays.")[0]  # no time in a decimal
    assert prose_hours_moved("The surgery closes at 5.30pm on Fridays.", DENTAL)
    assert prose_hours_moved("The surgery opens at 1pm on Fridays.", DENTAL)
    assert prose_hours_moved("The surgery is open 8.30am to 5.30pm on Fridays.", DENTAL)
    assert not prose_hours_moved("The surgery closes at 1pm on Fridays.", DENTAL)
    assert not prose_hours_moved("On Fridays the surgery opens at 8.30am and shuts at 1pm.", DENTAL)
    assert not prose_hours_moved("The surgery opens at 8.30am on Fridays.", DENTAL)


def test_words_of_opening_hours_beside_a_given_time(verifier):
    for said in ("The surgery closes at 1pm on Fridays.", "On Fridays the surgery opens at 8.30am and shuts at 1pm.",
                 "The surgery shuts at one o'clock on Fridays."):
        verdict = verifier.verify(said, DENTAL)
        assert verdict.label == "supported", said
    assert verifier.verify("The surgery closes at 8.30am on Fridays.", DENTAL).label == "hallucinated"


def test_ring_and_jab(verifier):
    assert verifier.verify("Emergency slots can't be booked online; ring 01632 960418.", DENTAL).label == "supported"
    assert verifier.verify("Puppies need two jabs, two to four weeks apart.", VET).label == "supported"
    assert verifier.verify("Puppies need two jabs, two to six weeks apart.", VET).label == "hallucinated"
    assert verifier.verify("Emergency slots can't be booked online; she wears a ring.", DENTAL).label == "hallucinated"


def test_hours_said_of_every_day_where_the_passage_names_some():
    office = ["Claims go to the Season Ticket Office at Harrowgate Street station, open weekdays 7am–7pm; appeals are "
              "handled by customer relations manager Helen Brady."]
    assert prose_hours_moved("The Season Ticket Office at Harrowgate Street station is open every day from 7am to "
                             "7pm.", office)
    assert prose_hours_moved("The Season Ticket Office is open 7am to 7pm seven days a week.", office)
    assert not prose_hours_moved("The Season Ticket Office at Harrowgate Street station is open weekdays from 7am to "
                                 "7pm.", office)
    assert not prose_hours_moved("The Season Ticket Office is open Monday to Friday, 7am to 7pm.", office)
    week = ["The café is open Monday to Friday 8am to 6pm and Saturday and Sunday 8am to 6pm."]
    assert not prose_hours_moved("The café is open every day from 8am to 6pm.", week)


BINS = ["Blue and yellow bins will be collected fortnightly on alternate weeks, while the grey bin will be emptied "
        "every four weeks. Households will sort recycling into three bins instead of two."]


def test_fortnightly_is_every_two_weeks_in_its_own_clause(verifier):
    for said in ("Blue and yellow bins are collected every two weeks.", "Blue bins are collected every 14 days.",
                 "The blue and yellow bins will each be picked up every two weeks, in alternating weeks, and the grey "
                 "bin once every four weeks."):
        assert verifier.verify(said, BINS).label == "supported", said
        assert verifier.verify(said, BINS[:1]).label == "supported", said
    # the grey bin's "every two weeks" moves the four's (where a passage writes a "two": a number the passages give
    # only in another unit is not read as moved)
    wrong = verifier.verify("The grey bin is emptied every two weeks.", BINS)
    assert wrong.claims[0].status == ClaimStatus.CONTRADICTION
    assert "where the passage has" in " ".join(wrong.claims[0].reasons)
    assert verifier.verify("Blue and yellow bins are collected every three weeks.", BINS).label == "hallucinated"


def test_a_contrast_tail_is_read_whole(verifier):
    bins = ["Blue-lidded bins are for paper, cardboard, food tins, drinks cans and plastic bottles, while glass "
            "bottles and jars go in the separate 44-litre green box."]
    said = verifier.verify("Glass belongs in the separate green box, not the blue-lidded bin.", bins)
    assert said.claims[0].status != ClaimStatus.CONTRADICTION
    for wrong in ("Glass goes in the blue-lidded bin, not the separate green box.",
                  "Paper goes in the green box, not the blue-lidded bin."):
        assert verifier.verify(wrong, bins).claims[0].status == ClaimStatus.CONTRADICTION, wrong
    # a tail with its own predicate is a negated clause, read alone (SummEdits' "... but not exploring them through
    # the experiences of a teenager" against a passage that explores them so); a noun phrase's tail is not
    podcast = ["The podcast discusses common problems in a teenager's life and explores them through the experiences "
               "of a teenager."]
    turned = "The podcast discusses common problems but not exploring them through the experiences of a teenager."
    assert negated_clause([part for _, part in clauses(turned)], podcast, 0.6) == podcast[0]
    tail = "Glass belongs in the separate green box, not the blue-lidded bin."
    assert negated_clause([part for _, part in clauses(tail)], bins, 0.6) is None


def test_the_unless_case_granted_on_its_condition(verifier):
    pool = ["Under-12s cannot use the deep end unless a parent or guardian is on poolside."]
    said = verifier.verify("Under-12s can only use the deep end if a parent or guardian is on poolside.", pool)
    assert said.label == "supported"
    answered = verifier.verify("No, under-12s can only use the deep end if a parent or guardian is on poolside.", pool)
    assert answered.claims[0].status != ClaimStatus.CONTRADICTION  # the answer's "No," negates no condition
    assert verifier.verify("No, under-12s can use the deep end if a parent isn't on poolside.",
                           pool).claims[0].status == ClaimStatus.CONTRADICTION
    for wrong in ("Under-12s can use the deep end.", "Under-12s can use the deep end if a lifeguard is on poolside.",
                  "Under-12s can use the deep end if a parent isn't on poolside.",
                  "Under-12s can use the deep end without a parent on poolside."):
        assert verifier.verify(wrong, pool).claims[0].status == ClaimStatus.CONTRADICTION, wrong


def test_a_bound_is_turned_only_in_a_clause_that_restates_its_sentence(verifier):
    bus = ["The pass gives free travel on all routes after 9:30am on weekdays and at any time at weekends. Before "
           "9:30am on weekdays, pass holders pay the full adult fare."]
    said = verifier.verify("On weekdays free travel doesn't start until 9:30am, so you'd pay the full adult fare "
                           "before then.", bus)
    assert said.claims[0].status != ClaimStatus.CONTRADICTION
    wrong = verifier.verify("On weekdays, pass holders don't pay the full adult fare before 9:30am.", bus)
    assert wrong.claims[0].status == ClaimStatus.CONTRADICTION
