"""Phrasal verbs read as the verbs they mean (halguard.text.phrasal), both ways; a phrasal verb of another meaning is
still a word of its own."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.text.lexical import stem, term_set
from halguard.text.phrasal import IDIOMS, PHRASAL_VERBS, phrasal_said, phrasals_in, verb_said_as_phrasal


@pytest.mark.parametrize(("claim", "passage"), [
    ("The minister stepped down on Friday.", "The minister resigned on Friday."),
    ("The minister resigned on Friday.", "The minister stepped down on Friday."),
    ("Northwind took over Palmera in 2021.", "Northwind acquired Palmera in 2021."),
    ("Two nurses set up the company in 1998.", "The company was founded in 1998 by two nurses."),
    ("The rocket was launched at 9:14 a.m.", "The rocket lifted off at 9:14 a.m."),
    ("The European Investment Bank paid for the expansion.",
     "The expansion was funded by the European Investment Bank."),
    ("The match was called off because of rain.", "The match was cancelled because of rain."),
    ("Justice Helen Rowe threw out the counter-claim.", "Justice Helen Rowe dismissed the counter-claim."),
    ("The festival was held in May.", "The festival took place in May."),
    ("The engine broke down on the motorway.", "The engine failed on the motorway."),
    ("The council will deal with the complaints.", "The council will handle the complaints."),
    ("Bus drivers will walk out on Monday.", "Bus drivers will strike on Monday."),
    ("The coach left out the captain for the final.", "The coach dropped the captain for the final."),
    ("The gallery handed back the mask in 2022.", "The gallery returned the mask in 2022."),
    ("The patch came out on 19 November.", "The patch was published on 19 November."),
    # a separable phrasal verb with its object between the verb and the particle
    ("Councillor Dana Okafor, who put the plan forward, chairs the committee.",
     "Councillor Dana Okafor, who proposed the plan, chairs the committee."),
    ("The food bank handed out 1.8 million meals in 2024.", "The food bank distributed 1.8 million meals in 2024."),
    ("The crew picked the bins up on Thursday.", "The crew collected the bins on Thursday."),
    ("The club set £2 million aside for the new stand.", "The club earmarked £2 million for the new stand."),
    # another phrasal verb of the same meaning ("give out" / "hand out": both "distribute")
    ("No bibs will be given out on race day.", "No bibs will be handed out on race day."),
    ("The price is locked in until March.", "The price is fixed until March."),
])
def test_a_phrasal_verb_and_its_verb_say_the_same(claim, passage):
    verdict = LocalVerifier().verify(claim, [passage])
    assert verdict.label == "supported", [c.signals.novel_terms for c in verdict.claims]


@pytest.mark.parametrize(("claim", "passage"), [
    ("The minister stepped up on Friday.", "The minister resigned on Friday."),  # another particle, another verb
    ("The minister stayed on until Friday.", "The minister resigned on Friday."),
    ("The company laid off 200 workers.", "The company hired 200 workers."),
    ("The plant was shut down in 2019.", "The plant was sold in 2019."),
    ("The engine broke down on the motorway.", "The engine overheated on the motorway."),
    # a preposition's object is no separable particle's: "paid the bill for" is no "pay for"
    ("The city paid the contractor for the expansion.", "The expansion was funded by the city."),
    ("The crew picked the bins up on Thursday.", "The crew emptied the bins on Thursday."),
])
def test_another_phrasal_verb_is_no_synonym(claim, passage):
    verdict = LocalVerifier().verify(claim, [passage])
    assert verdict.label == "hallucinated", [c.signals.novel_terms for c in verdict.claims]


def test_the_table_reads_both_ways():
    claim = "She stepped down in May."
    assert [claim[s:e] for s, e in phrasal_said(claim, term_set("She resigned in May."))] == ["stepped", "down"]
    assert phrasals_in("She stepped down in May.") == {"step down"}
    assert verb_said_as_phrasal(stem("resigned"), phrasals_in("She stepped down in May."))
    assert not verb_said_as_phrasal(stem("resigned"), phrasals_in("She stepped up in May."))
    assert all(len(phrase.split()) == 2 and verbs for phrase, verbs in PHRASAL_VERBS.items())


def test_phrasal_scan_is_bounded():
    crafted = "stepped down " * 50_000
    start = time.monotonic()
    assert len(phrasal_said(crafted, {"resign"})) == 2 * 64
    assert verb_said_as_phrasal(stem("resign"), phrasals_in(crafted))
    assert time.monotonic() - start < 10


@pytest.mark.parametrize(("claim", "passage"), [
    ("More than 1,500 of the people on board lost their lives.", "More than 1,500 of the people on board died."),
    ("More than 1,500 of the people on board died.", "More than 1,500 of the people on board lost their lives."),
    ("Dealers will replace the faulty sensor at no cost.", "Dealers will replace the faulty sensor free of charge."),
    ("Dealers will replace the faulty sensor for free.", "Dealers will replace the faulty sensor at no cost."),
    ("Today the park is home to about 2,000 Alpine ibex.", "Today about 2,000 Alpine ibex live in the park."),
    ("The Chrysler Building stands 319 m high.", "The Chrysler Building is 319 metres tall."),
    ("Durance said it would challenge the verdict in a higher court.", "Durance said it would appeal the verdict."),
    ("Okafor beat the sitting mayor, Ruth Berg.", "Okafor beat the incumbent mayor, Ruth Berg."),
    ("The species was named in honour of Rodrigo Mena.", "The researchers named the species after Rodrigo Mena."),
    ("At the end of 2023 Halvorsen had a staff of 3,400.", "At the end of 2023 Halvorsen had 3,400 employees."),
    ("Most of the plant's workers belong to the union.", "Most of the plant's workers are members of the union."),
    ("About 35,000 homes were left without power.", "About 35,000 homes lost power on Sunday."),
    ("Laura Finch is in charge of the school.", "Laura Finch leads the school."),
    ("The ministry made sure that schools stayed open.", "The ministry ensured that schools stayed open."),
    ("The team came up with a new design.", "The team devised a new design."),
    ("Luca Conti took the place of the captain.", "Luca Conti replaced the captain."),
    ("Leo Park was found not guilty of fraud.", "Leo Park was acquitted of fraud."),  # (the "qu" of acquitted: lexical)
    ("Leo Park was found guilty of fraud.", "Leo Park was convicted of fraud."),
    ("Victor Hale received a six-year sentence.", "Victor Hale was sentenced to six years."),
    ("Marta Silva took first place in the marathon.", "Marta Silva won the marathon."),
    ("The council gave the green light to the upgrade.", "The council approved the upgrade."),
    ("The board signed off on the merger.", "The board approved the merger."),
    ("Harwick Rovers came out on top against Stenmouth.", "Harwick Rovers beat Stenmouth."),
    ("A state grant will pay for the upgrade.", "A state grant will cover the upgrade."),
    ("Helen Okafor will take charge of the new trust.", "Dr. Helen Okafor will lead the new trust."),
    ("The satellite will keep watch on sea ice and coastal erosion.", "The satellite will monitor sea ice and "
     "coastal erosion."),
    ("A spa session runs for 75 minutes.", "Each spa session lasts 75 minutes."),
    ("You shouldn't take over four capsules in a single day.", "Do not take more than four capsules in one day."),
    ("The library opens its doors again on 2 June.", "The library reopens on 2 June."),
    ("The council covered £3 million of the renovation.", "The council paid £3 million of the renovation."),
])
def test_an_idiom_and_the_word_it_means_say_the_same(claim, passage):
    verdict = LocalVerifier().verify(claim, [passage])
    assert verdict.label == "supported", [c.signals.novel_terms for c in verdict.claims]


@pytest.mark.parametrize(("claim", "passage"), [
    ("The Chrysler Building stands 319 m high.", "The Chrysler Building is 319 metres wide."),
    ("More than 1,500 of the people on board lost their lives.", "More than 1,500 people on board were rescued."),
    ("Dealers will replace the faulty sensor at no cost.", "Dealers will replace the faulty sensor for a fee of 80 "
     "dollars."),
    ("Leo Park was found guilty of fraud.", "Leo Park was acquitted of fraud."),  # guilty is no acquittal
    ("Marta Silva took first place in the marathon.", "Marta Silva finished 41st in the marathon."),
    ("The council gave the green light to the upgrade.", "The council rejected the upgrade."),
    ("Harwick Rovers came out on top against Stenmouth.", "Harwick Rovers lost to Stenmouth."),
    ("Helen Okafor will take charge of the new trust.", "Dr. Helen Okafor will advise the new trust."),
    # "runs for" a post is no lasting; "a single" before no count is no "one"
    ("Dana Reyes runs for mayor in 2026.", "Dana Reyes will last as mayor until 2026."),
    ("She is a single parent of one child.", "She is a married parent of one child."),
    ("The library opens its doors again on 2 June.", "The library closes on 2 June."),
    ("The council covered £3 million of the renovation.", "The council borrowed £3 million for the renovation."),
    ("The council covered the renovation in scaffolding.", "The council paid for the renovation."),
])
def test_an_idiom_the_passage_does_not_mean_stays_novel(claim, passage):
    assert LocalVerifier().verify(claim, [passage]).label == "hallucinated"


def test_idioms_carry_no_roles_and_scan_bounded():
    # an idiom that says who did what to whom would hide a swap from the role check ("took X to court" for "sued")
    assert not any("court" in name and "take" in name for name, _, _ in IDIOMS)
    claim = "Nearly 300 people lost their lives."
    assert [claim[s:e] for s, e in phrasal_said(claim, term_set("Nearly 300 people died."))] == ["lost", "lives"]
    assert verb_said_as_phrasal(stem("died"), phrasals_in(claim))
    crafted = "stood " + "a " * 50_000 + "high lost their lives " * 20_000
    start = time.monotonic()
    assert len(phrasal_said(crafted, {"die"})) <= 2 * 64
    assert time.monotonic() - start < 10


def test_an_irregular_past_form_of_the_evidence_says_its_verb():
    # "fell" is "fall" for the phrasal verb "came down"; "taught" licenses "lessons" as "teach" does
    assert LocalVerifier().verify("Two people were hurt by trees that came down.",
                                  ["Two people were injured by trees that fell on Sunday."]).label == "supported"
    novel = LocalVerifier().verify("Lessons will be held at the community centre.",
                                   ["Pupils will be taught at the community centre."]).claims[0].signals.novel_terms
    assert "Lessons" not in novel
    assert "Lessons" in LocalVerifier().verify("Lessons will be held at the community centre.",
                                               ["Pupils will be fed at the community centre."]
                                               ).claims[0].signals.novel_terms


def test_a_restated_figure_is_read_against_the_sentence_that_gives_it():
    # the closest sentence by words is the one about sales (Kestrel Foods, 2024, year); the staff figure is the next
    passage = ("Kestrel Foods reported sales of 910 million euros for 2024, up 6% on the year before. The group had "
               "5,200 workers at the end of the year, against 4,900 a year earlier. Its Porto plant opened in 2019.")
    verdict = LocalVerifier().verify("At the end of 2024 Kestrel Foods had a staff of 5,200.", [passage])
    assert verdict.claims[0].signals.novel_terms == [] and verdict.label == "supported"
    fabricated = LocalVerifier().verify("At the end of 2024 Kestrel Foods had 5,200 volunteers.", [passage])
    assert fabricated.claims[0].signals.novel_terms == ["volunteers"]


def test_a_phrasal_verb_is_said_by_its_closed_noun():
    # "taking over" of "Sentinel Bank's takeover": the phrasal verb's own noun written closed
    passage = "Sentinel Bank's takeover of Harbor Credit Union was blocked by the regulator."
    assert LocalVerifier().verify("The regulator blocked Sentinel Bank from taking over Harbor Credit Union.",
                                  [passage]).label == "supported"
    assert LocalVerifier().verify("The regulator blocked Sentinel Bank from taking over Harbor Credit Union.",
                                  [passage.replace("takeover", "bid")]).label == "hallucinated"


def test_a_light_verb_of_a_phrasal_verb_weighs_as_its_event():
    # "turned ... down" says "rejected": the light verb "turn" weighs as a content word there, so one novel word of it
    # flags where the passage says "proposed" ("put ... forward" is what "proposed" says)
    passage = "In May the board proposed a new rehearsal schedule for the choir's spring season."
    verifier = LocalVerifier()
    assert verifier.verify("In May the board turned a new rehearsal schedule down.", [passage]).label == "hallucinated"
    assert verifier.verify("In May the board put a new rehearsal schedule forward.", [passage]).label == "supported"
