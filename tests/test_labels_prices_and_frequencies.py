"""A label's number said as a passage labels it ("a Band 2 course ... £73.50": moved_numbers), "free" and "extra"
said in other words ("don't cost anything", "is extra at £28": negation), a price said with "is" ("cover is £1.90 a
week": roles/priced.py), a difference said by a comparative ("£10 cheaper"), a share in words in a consequence ("so
with half off ... £23"), frequency adverbs ("fortnightly" for "every two weeks"), the grammar of "compared with",
"instead of", "adds up to", and "cheaper" no flip of a "cost": hand-written cases of `fresh_2026-12-02e` (issues 44 and
45), each with its wrong twin."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.antonyms import antonym_flips, lexicon_side
from halguard.grounding.signals.excepted import exceptions_turned
from halguard.grounding.signals.labels import labels_moved
from halguard.grounding.signals.negation import negation_mismatch, said_free
from halguard.text.lexical import term_set
from halguard.text.light_words import light_phrase_spans
from halguard.text.rates import frequency_said
from halguard.text.stated_reckoning import stated_reckoning

DENTIST = ["NHS patients pay £26.80 for a Band 1 course of treatment, which covers an examination, X-rays and a scale "
           "and polish if clinically needed. Band 2, which adds fillings, root canal work or extractions, costs "
           "£73.50, and Band 3, which includes crowns, dentures and bridges, costs £319.10. Private check-ups with Dr "
           "Ayesha Malik cost £55, while private check-ups with the newest dentist, Dr Tom Reilly, cost £45."]
STORAGE = ["A 100 sq ft unit costs £46 per week. New customers get 50% off the first 8 weeks on any unit except "
           "lockers. Goods must be insured, either through SafeStack's own cover, which costs £1.90 per week for every "
           "£1,000 of value, or through the customer's home insurance if it covers items in storage. The minimum cover "
           "through SafeStack is £2,000."]
BINS = ["Collections are every two weeks from March to November, reducing to once a month in December, January and "
        "February. Bins heavier than 60 kg or with a lid that will not close will not be emptied."]


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier(num_threads=1)


@pytest.mark.parametrize(("answer", "label"), [
    # the label the claim names is the one a passage prices, whatever the closest sentence says of Band 1
    ("A Band 2 course of NHS treatment costs £73.50, and it covers fillings, extractions and root canal work.",
     "supported"),
    ("A Band 2 course of NHS treatment costs £26.80.", "hallucinated"),  # Band 1's price
    ("A Band 3 course of NHS treatment costs £73.50.", "hallucinated"),  # Band 2's price
    ("NHS patients pay £26.80 for a Band 3 course of treatment.", "hallucinated"),  # the label moved
    # a difference said by a comparative: £55 - £45
    ("A private check-up with Dr Reilly is £10 cheaper than one with Dr Malik: £45 compared with £55.", "supported"),
    ("A private check-up with Dr Reilly is £15 cheaper than one with Dr Malik: £45 compared with £55.",
     "hallucinated"),
])
def test_dental_answers(verifier, answer, label):
    assert verifier.verify(answer, DENTIST).label == label, answer


@pytest.mark.parametrize(("answer", "label"), [
    # "is £1.90 a week" says the cover's price, which a "costs" frame gives; the "is £2,000" frame is its minimum
    ("SafeStack's cover is £1.90 a week per £1,000 of value.", "supported"),
    ("The minimum cover through SafeStack is £1,000.", "hallucinated"),
    # a number of the "costs" frame that is not its price tells no price of the "is" frame
    ("If you insure through SafeStack, the minimum cover is £1,000, charged at £1.90 a week for every £1,000 of value.",
     "hallucinated"),
    ("A 100 sq ft unit costs £46 a week, so with half off for the first eight weeks you pay £23 a week.",
     "supported"),
    ("A 100 sq ft unit costs £46 a week, so with half off for the first eight weeks you pay £26 a week.",
     "hallucinated"),
])
def test_storage_answers(verifier, answer, label):
    assert verifier.verify(answer, STORAGE).label == label, answer


@pytest.mark.parametrize(("answer", "label"), [
    ("From December to February, bins are emptied monthly rather than fortnightly.", "supported"),
    ("Bins lighter than 60 kg will not be emptied.", "hallucinated"),  # the opposite of "heavier"
    ("Bins heavier than 60 kg will not be emptied.", "supported"),
])
def test_bin_answers(verifier, answer, label):
    assert verifier.verify(answer, BINS).label == label, answer


def test_a_label_moved_is_still_a_moved_number(verifier):
    [claim] = verifier.verify("A Band 2 course of NHS treatment costs £26.80.", DENTIST).claims
    assert claim.signals.role_conflicts and "moved_numbers" in claim.signals.blocking


def test_cheaper_is_no_flip_of_a_cost():
    evidence = "Private check-ups with Dr Malik cost £55."
    assert antonym_flips("A check-up with Dr Reilly is cheaper than one with Dr Malik.", evidence) == []
    # "costly" is still read, as itself: its stem "cost" is not on the lexicon's "expensive" side
    assert lexicon_side("costly") is not None and lexicon_side("cost") is None
    assert antonym_flips("Check-ups are costly.", "Check-ups are cheap.") == [(14, 20)]
    assert lexicon_side("early") is not None and lexicon_side("ear") is None


@pytest.mark.parametrize(("claim", "evidence", "flipped"), [
    # "don't cost anything" says the passage's "free" of the same thing
    ("Children's DVDs don't cost anything.",
     "DVDs cost £1.50 per loan, except for children's DVDs, which are free.", False),
    # of another thing it is a denial of the price the passage gives
    ("Adult DVDs don't cost anything.", "Adult DVDs cost £1.50 per loan, while audiobooks are free.", True),
    # "is extra at £28" says the passage's "covers ... but not the away kit"
    ("The fee pays for registration, insurance and a home kit; the away kit is extra at £28.",
     "The fee covers registration, insurance and a home kit, but not the away kit, which costs £28.", False),
    ("The fee pays for registration, insurance, a home kit and the away kit.",
     "The fee covers registration, insurance and a home kit, but not the away kit, which costs £28.", True),
])
def test_free_and_extra_said_in_other_words(claim, evidence, flipped):
    assert negation_mismatch(claim, evidence, term_set(claim), term_set(evidence), 0.3) is flipped


def test_free_is_read_of_the_thing_it_is_said_of():
    assert said_free("cost", {"children", "dvd"}, "except for children's DVDs, which are free")
    assert not said_free("cost", {"adult", "dvd"}, "except for children's DVDs, which are free")
    assert not said_free("cost", {"children"}, "children are free to leave")  # no price
    assert not said_free("open", {"children"}, "children's DVDs are free")  # not a price word


@pytest.mark.parametrize(("text", "reckoned"), [
    ("A unit is £46 a week, so with half off you pay £23 a week.", {23.0}),
    ("A unit is £46 a week, so with 50% off you pay £23 a week.", {23.0}),
    ("A unit is £46 a week, so with half off you pay £25 a week.", set()),
])
def test_a_share_between_the_cue_and_the_number(text, reckoned):
    assert stated_reckoning(text) == reckoned


@pytest.mark.parametrize(("word", "passage", "said"), [
    ("fortnightly", "Bins are collected every two weeks.", True),
    ("fortnightly", "Bins are collected every other week.", True),
    ("fortnightly", "Bins are collected once a fortnight.", True),
    ("monthly", "It reduces to once a month in winter.", True),
    ("weekly", "Bins are collected every two weeks.", False),
    ("fortnightly", "Bins are collected every week.", False),
    ("quarterly", "Reports are due every three months.", True),
    ("often", "Bins are collected every two weeks.", False),  # no frequency adverb
])
def test_a_frequency_adverb_said_in_other_words(word, passage, said):
    assert frequency_said(word, [passage]) is said


def test_frequencies_are_bounded_on_crafted_text():
    passage = "every " * 200_000 + "week"
    t0 = time.perf_counter()
    assert not frequency_said("fortnightly", [passage])
    assert time.perf_counter() - t0 < 5.0


@pytest.mark.parametrize(("text", "grammar"), [
    ("£45 compared with £55", {"compared"}),
    ("£45 instead of £52", {"instead"}),
    ("which adds up to eight hours", {"adds"}),
    ("the plan adds a sauna visit", set()),  # "adds" of its own: a word to look up
])
def test_grammar_of_comparisons_and_totals(text, grammar):
    spans, _ = light_phrase_spans(text)
    assert {text[s:e] for s, e in spans} == grammar


@pytest.mark.parametrize(("claim", "turned"), [
    # an exception where the restated sentence says "for all patients"
    ("Hygienist sessions with Karen Obi cost £62 for 30 minutes, except for NHS patients.", True),
    ("Hygienist sessions with Karen Obi cost £62 for 30 minutes for every patient.", False),
    # an exception of another group than the one the passage says all of
    ("Hygienist sessions with Karen Obi cost £62 for 30 minutes, except on Mondays.", False),
])
def test_an_exception_where_the_passage_says_all(claim, turned):
    passage = "A 30-minute hygienist session with Karen Obi costs £62 for all patients, as hygiene visits are private."
    assert bool(exceptions_turned(claim, [passage])) is turned


def test_free_and_extra_are_bounded_on_crafted_text():
    claim = "word " * 20_000 + "is extra and " + "free " * 20_000 + "does not cost anything."
    evidence = "Band 2 " * 20_000 + ", which are free. " * 5_000
    t0 = time.perf_counter()
    negation_mismatch(claim, evidence, term_set(claim), term_set(evidence), 0.3)
    assert time.perf_counter() - t0 < 5.0


LINES = ["From Monday 9 March, Harlow Vale Transit will reroute Line 14 away from Dunmore Street to serve the new "
         "Kestrel Park hospital. Buses on the line will run every 12 minutes on weekdays, up from every 20 "
         "minutes. Line 7, which currently terminates at Ashby Cross, will be extended by 2.4 kilometres to "
         "Millbrook station."]


@pytest.mark.parametrize(("claim", "moved"), [
    # Line 7's extension given to Line 14 (every word and number is the passage's)
    ("From 9 March, Line 14 will be extended by 2.4 kilometres to Millbrook station.", True),
    ("From 9 March, Line 7 will be extended by 2.4 kilometres to Millbrook station.", False),
    # the claim names the figure's own label too
    ("Line 14 buses will run every 12 minutes, while Line 7 will be extended by 2.4 kilometres.", False),
    # a figure the passages give outside any label's clause says nothing of the label
    ("Line 7 buses will run every 12 minutes on weekdays.", False),
])
def test_a_figure_of_another_numbered_label(claim, moved):
    assert bool(labels_moved(claim, LINES)) is moved


def test_a_label_of_no_family_and_dates_are_not_read():
    assert labels_moved("Covid 19 cases rose by 20 in March.", ["Covid 19 cases rose by 20. Band 2 is 20."]) == []
    dates = ["On March 9 the line opens with 12 stops. On March 14 it closes."]
    assert labels_moved("On March 14 the line opens with 12 stops.", dates) == []


def test_labels_are_bounded_on_crafted_text():
    sources = ["Line 1 has 20 stops. " * 20_000, "Line 2 " * 50_000]
    t0 = time.perf_counter()
    labels_moved("Line 3 has 20 stops and Line 4 has 30 and Line 5 has 40 and Line 6 has 50.", sources)
    assert time.perf_counter() - t0 < 5.0
