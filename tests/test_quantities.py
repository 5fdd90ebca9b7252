"""Quantities said another way: a unit converted, a bound, an "about" (halguard.text.quantities).

A grounded answer writes "0.5 g" for "500 mg", "within three days" for "within 72 hours", "more than two thousand
ibex" for "around 2,700 ibex": none of those is a missing number. A changed number stays one, however it is bounded
or converted: "1.8 gallons" is not "1.8 litres", "more than two thousand" is not "around 1,600", "up to 1,600 rpm"
is not "up to 1,400 rpm".
"""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.scope import scope_of
from halguard.grounding.signals.words import missing_numbers, novel_terms
from halguard.text.contexts import Source
from halguard.text.lexical import content_terms, stem
from halguard.text.quantities import MAX_QUANTITIES_PER_TEXT, measured_by_unit, quantities, said_as

SAID_OTHERWISE = [
    ("Adults take one 0.5 g tablet every eight hours.", "Adults: take one 500 mg tablet every 8 hours with food."),
    ("The Forth Bridge is more than 2.5 kilometres long.", "The bridge is 2,528 metres long."),
    ("The park is home to more than two thousand Alpine ibex.", "Around 2,700 ibex live there today."),
    ("Colonies near treated fields produced over a third fewer queens.", "Colonies produced 37% fewer queens."),
    ("A breach must be reported within three days of becoming aware of it.",
     "Companies must report a breach within 72 hours of becoming aware of it."),
    ("Arvena won the time trial by less than ten seconds over Norda-Velo.",
     "Arvena won in 31 minutes 5 seconds, 9 seconds faster than Norda-Velo."),
    ("Bhutan has fewer than a million inhabitants.", "It has about 780,000 inhabitants."),
    ("The Tana runs for about a thousand kilometres.", "The Tana is 1,012 kilometres long."),
    ("He spent a decade at Pfizer.", "He previously worked for ten years at Pfizer."),
    ("The tank holds 1.5 litres.", "The tank holds 1,500 ml of water."),
    ("The flight takes nearly two hours.", "The flight takes 1 hour 50 minutes, or 110 minutes."),
]

CHANGED = [
    ("The park is home to more than two thousand ibex.", "Around 1,600 ibex live there today."),
    ("The Aurea spins at up to 1,600 revolutions per minute.", "It spins at up to 1,400 revolutions per minute."),
    ("The river is about 2,000 km long.", "The river is 1,012 kilometres long."),
    ("A breach must be reported within five days.", "Companies must report a breach within 72 hours."),
    ("The course takes 3 days.", "The course takes 60 hours."),
    ("Fewer than 500 people attended the meeting.", "The meeting was attended by 520 people."),
]


def _missing(claim: str, passage: str) -> list[str]:
    scope = scope_of([Source("p0", passage)], None)
    return [claim[s:e] for s, e in missing_numbers(claim, scope, set())]


@pytest.mark.parametrize(("claim", "passage"), SAID_OTHERWISE)
def test_a_quantity_said_another_way_is_not_missing(claim, passage):
    assert _missing(claim, passage) == []


@pytest.mark.parametrize(("claim", "passage"), CHANGED)
def test_a_changed_quantity_is_still_missing(claim, passage):
    assert _missing(claim, passage) != []


def test_the_unit_of_a_converted_quantity_is_no_novel_word():
    claim, passage = "The Forth Bridge is more than 2.5 kilometres long.", "The Forth Bridge is 2,528 metres long."
    scope = scope_of([Source("p0", passage)], None)
    novel = [claim[s:e] for s, e in novel_terms(content_terms(claim), scope, claim, set())]
    assert "kilometres" not in novel
    # a unit the passage does not convert to stays a word of the claim's own
    other = "The Forth Bridge is 2.5 miles long."
    assert "miles" in [other[s:e] for s, e in novel_terms(content_terms(other), scope, other, set())]


@pytest.mark.parametrize(("claim", "passage", "unit"), [
    ("The Brevo 300 has a 1.8-gallon water tank.", "The Brevo 300 has a 1.8-litre water tank.", "gallon"),
    ("The dose is 500 mcg.", "The dose is 500 mg.", "mcg"),
    ("It covers 25,000 square kilometres.", "The border is 25,000 kilometres long.", "square"),
])
def test_the_same_number_in_another_unit_keeps_its_unit_novel(claim, passage, unit):
    # the value is the passage's, so the number is found; the unit is what changed, and it stays a novel word
    assert _missing(claim, passage) == []
    scope = scope_of([Source("p0", passage)], None)
    assert unit in [claim[s:e] for s, e in novel_terms(content_terms(claim), scope, claim, set())]


def test_a_quantity_reads_its_unit_bound_and_context():
    (q,) = quantities("The bridge is more than 2.5 kilometres long.")
    assert (q.value, q.dimension, q.base, q.bound) == (2.5, "length", 2500.0, "gt")
    assert "long" in q.context and "bridg" in q.context
    (p,) = quantities("Around 2,700 ibex live there.")
    assert (p.dimension, p.bound) == (None, "about")
    assert said_as(q, [p]) is False  # a length is never a count


def test_times_of_day_and_areas_are_not_converted():
    found = quantities("It opens at 5 pm on 3 square miles.")
    assert [q.dimension for q in found] == ["compound"]  # "5 pm" is a time of day, not five of anything
    assert [q.dimension for q in quantities("It covers 3 square miles.")] == ["compound"]


def test_verifier_supports_a_converted_paraphrase_and_flags_a_changed_unit():
    verifier = LocalVerifier()
    passage = "The Forth Bridge, opened in 1890, is 2,528 metres long."
    question = "How long is the Forth Bridge?"
    assert verifier.verify("It is more than 2.5 kilometres long.", [passage], question=question).label == "supported"
    assert verifier.verify("It is more than 2.5 miles long.", [passage], question=question).label == "hallucinated"


def test_quantities_are_bounded_and_linear_on_crafted_text():
    crafted = "more than 1 km " * 20_000
    start = time.monotonic()
    found = quantities(crafted)
    assert len(found) == MAX_QUANTITIES_PER_TEXT
    claim = quantities("It is more than 3 km long.")[0]
    assert said_as(claim, found) is False
    assert time.monotonic() - start < 10
    # no number at all, a long run of bound words: nothing, fast
    start = time.monotonic()
    assert quantities("more than over above about " * 50_000) == []
    assert time.monotonic() - start < 10


def _changed_units(claim: str, passage: str) -> list[str]:
    from halguard.grounding.signals.words import changed_units

    scope = scope_of([Source("p0", passage)], None)
    return [claim[s:e] for s, e in changed_units(claim, scope)]


@pytest.mark.parametrize(("claim", "passage", "changed"), [
    ("The Brevo 300 has a 1.8-gallon water tank.", "The Brevo 300 has a 1.8-litre water tank.", "1.8-gallon"),
    ("The dose is 500 mcg.", "The dose is 500 mg.", "500 mcg"),
    ("The Tana flows about 1,000 miles.", "The Tana flows about 1,000 kilometres to the ocean.", "1,000 miles"),
    ("The course takes 3 weeks.", "The course takes 3 days.", "3 weeks"),
])
def test_a_number_the_passage_writes_with_another_unit_is_a_changed_quantity(claim, passage, changed):
    assert _changed_units(claim, passage) == [changed]


@pytest.mark.parametrize(("claim", "passage"), [
    ("Adults take one 0.5 g tablet.", "Adults: take one 500 mg tablet."),  # said another way
    ("The dose is 500 mg.", "The dose is 500 mg, or 500 mcg for children."),  # the passage writes the claim's unit
    ("It weighs 6 kg.", "It is 6 metres long and weighs 4 kg."),  # another dimension: a number of something else
    ("It rose 6%.", "It rose 6 points."),  # a percentage has no unit to swap
    ("The dose is 500 mcg.", "The dose is 500 tablets."),  # the passage's number has no unit
])
def test_a_unit_is_changed_only_against_the_same_number_in_another_unit_of_its_dimension(claim, passage):
    assert _changed_units(claim, passage) == []


def test_verifier_gives_a_changed_unit_as_the_changed_number():
    verifier = LocalVerifier()
    passage = "Adults: take one 500 mg tablet every 8 hours with food. Do not take more than 3 tablets in 24 hours."
    verdict = verifier.verify("Adults should take one 500 mcg tablet every 8 hours with food.", [passage],
                              question="What dose should adults take?")
    assert verdict.label == "hallucinated"
    (claim,) = verdict.claims
    assert "numbers the context gives otherwise: 500 mcg" in claim.reasons
    assert "500 mcg" in claim.signals.changed_numbers
    assert verifier.verify("Adults should take one 0.5 g tablet every 8 hours with food.", [passage],
                           question="What dose should adults take?").label == "supported"


@pytest.mark.parametrize(("text", "found"), [
    ("Take the capsules three times a day, at evenly spaced times, for 7 days.", [(3.0, "day")]),
    ("Take them twice weekly.", [(2.0, "week")]),
    ("The airport handles 5 million passengers a year.", [(5e6, "year")]),
    ("He works 3 days a week and 2 tablets per day.", [(3.0, "week"), (2.0, "day")]),
    ("It opens every day.", []),  # no number: no rate
    ("It had 3,100 staff a year earlier.", []),  # a time placed, not a rate
    ("It was founded in 2020. A day later it closed.", []),  # another sentence's number
    # a price's or a dose's unit, each written one way
    ("It sells at €5.40 per litre, or 5.40 euros a liter.", [(5.4, "litre"), (5.4, "litre")]),
    ("Farms get €0.30 per kilogram and $2 a kg.", [(0.3, "kilogram"), (2.0, "kilogram")]),
    ("Earnings were $1.20 a share.", [(1.2, "share")]),
    ("a pound of flesh for 3 dollars", []),  # no number before the unit
])
def test_rates_read_a_number_and_its_period(text, found):
    from halguard.text.rates import rates

    assert [(r.value, r.period) for r in rates(text)] == found


def test_a_rate_with_another_period_is_a_changed_quantity():
    passage = "Take amoxicillin capsules three times a day, at evenly spaced times, for 7 days."
    assert _changed_units("Take the capsules three times a week for 7 days.", passage) == ["three times a week"]
    assert _changed_units("Take the capsules three times daily for 7 days.", passage) == []
    assert _changed_units("Take the capsules twice a week.", passage) == []  # a period the passage gives no rate
    once = "Take one 20 mg tablet once a day, with or without food."
    assert _changed_units("Take one 20 mg tablet twice a day.", once) == ["twice a day"]  # another frequency
    assert _changed_units("Take one 20 mg tablet once daily.", once) == []
    twice = once.replace("once a day", "twice a day")
    assert _changed_units("Take one 20 mg tablet once a day.", twice) == ["once a day"]  # "once": a word of frequency
    cargo = "Its harbour handles around 3 million tonnes of cargo a year."
    assert _changed_units("The harbour handles 3 million tonnes of cargo a month.", cargo) == [
        "3 million tonnes of cargo a month"]


def test_a_price_per_another_unit_is_a_changed_quantity():
    oil = ("The mill will sell the oil at €5.40 per litre to wholesale buyers. Farms will receive €0.30 per kilogram "
           "of lost fruit.")
    assert _changed_units("The oil sells at €5.40 per kilogram.", oil) == ["5.40 per kilogram"]
    assert _changed_units("The oil sells at 5.40 euros a liter.", oil) == []
    assert _changed_units("Farms get 30 cents a kilo of lost fruit.", oil) == []  # no number the passage gives


def test_rates_are_bounded_on_crafted_text():
    from halguard.text.rates import rates

    crafted = "1 a day " * 50_000
    start = time.monotonic()
    assert len(rates(crafted, limit=100)) == 100
    assert len(rates("a day " * 50_000)) == 0
    assert time.monotonic() - start < 5.0


@pytest.mark.parametrize(("claim", "passage", "changed"), [
    ("The effect was larger in people under 60.", "The effect was larger in people over 60.", "under 60"),
    ("More than 5 people were injured.", "Fewer than 5 people were injured.", "More than 5"),
    ("It took under 10 minutes.", "It took over 10 minutes.", "under 10 minutes"),
    ("At least 5 people were injured.", "More than 5 people were injured.", None),  # the same direction
    ("Fewer than 5 people were injured.", "Five people were hurt, and fewer than 5 were injured.", None),
    ("The trial was in people aged under 60.", "The trial enrolled people aged 60 and over.", None),  # read after
    ("The effect was bigger in people younger than 60.", "The effect was larger in people over 60.", "younger than 60"),
    ("The effect was bigger in people older than 60.", "The effect was larger in people over 60.", None),
])
def test_a_bound_the_passages_give_the_other_way_is_a_changed_number(claim, passage, changed):
    v = LocalVerifier().verify(claim, [passage])
    spans = [s.text for s in v.spans]
    if changed is None:
        assert not v.claims[0].signals.changed_numbers, spans
    else:
        assert v.label == "hallucinated" and changed in spans
        assert any("numbers the context gives otherwise" in r for r in v.claims[0].reasons)


@pytest.mark.parametrize(("word", "evidence", "said"), [
    ("area", "It had shrunk to less than 2,000 square kilometres.", True),
    ("area", "The estate covers 40 hectares.", True),
    ("weight", "The adult male weighs up to 80 kg.", True),
    ("capacity", "The tank holds 1,500 litres.", True),
    ("duration", "The flight takes 1 hour 50 minutes.", True),
    # a length is not an area, and a length unit does not say which length ("height" or "width")
    ("area", "The runway is 3 kilometres long.", False),
    ("height", "The bridge is 2,528 metres long.", False),
    ("weight", "The tank holds 1,500 litres.", False),
])
def test_a_dimension_noun_is_said_by_a_unit_of_its_dimension(word, evidence, said):
    evidence_stems = {stem(w.lower()) for w in evidence.replace(",", " ").replace(".", " ").split()}
    assert measured_by_unit(stem(word), evidence_stems) is said


def test_a_dimension_noun_measured_by_the_evidence_is_no_novel_word():
    claim = "Lake Chad lost more than nine-tenths of its area."
    passage = "Lake Chad covered 25,000 square kilometres in the 1960s, and less than 2,000 square kilometres later."
    scope = scope_of([Source("p0", passage)], None)
    nearby = {stem(w.lower()) for w in passage.replace(",", " ").replace(".", " ").split()}
    assert "area" not in [claim[s:e] for s, e in novel_terms(content_terms(claim), scope, claim, nearby)]
