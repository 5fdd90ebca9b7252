"""Words and numbers said otherwise: number words read as values, WordNet relations license a claim's words.

The verifier must not flag "seven million" against "7 million", "died" against "death", "staff" against
"personnel"; and it must still flag a word that its evidence does not say in any words, an antonym ("lower" /
"raise"), a sibling ("miles" / "kilometres") and a changed number written in words.
"""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.scope import scope_of
from halguard.grounding.signals.words import missing_numbers, novel_terms
from halguard.text.contexts import Source
from halguard.text.lexical import content_terms, number_mentions, number_values, term_set
from halguard.text.number_words import is_number_word, word_numbers
from halguard.text.wordnet import form_in, licensed, licensers

WORDNET_DIR = Path(__file__).resolve().parent.parent / "halguard" / "text" / "wordnet"


@pytest.mark.parametrize(("text", "value"), [
    ("about a thousand kilometres", 1000),
    ("more than two thousand ibex", 2000),
    ("one hundred and five", 105),
    ("twenty-five people", 25),
    ("seven million passengers", 7_000_000),
    ("a dozen eggs", 12),
    ("ninety-nine", 99),
    ("three hundred thousand", 300_000),
])
def test_number_words_have_their_value(text, value):
    found = word_numbers(text)
    assert [n.value for n in found] == [value]
    assert text[found[0].start:found[0].end].split()[-1] in text


@pytest.mark.parametrize(("text", "value", "percent"), [
    ("nine-tenths of its area", 0.9, 90.0),
    ("over a third fewer", 0.333333, 33.3),
    ("half of them", 0.5, 50.0),
    ("three quarters of voters", 0.75, 75.0),
])
def test_fractions_are_also_percentages(text, value, percent):
    (found,) = word_numbers(text)
    assert (found.value, found.percent) == (value, percent)
    # Both the written and the whole percentage stand in a context's numbers ("a third" is "33%").
    assert round(percent) in number_values(text)


@pytest.mark.parametrize("text", ["one of the largest cities", "the third quarter", "a fifth-generation jet",
                                  "an hour", "hundreds of people", "on the one hand"])
def test_words_that_are_not_numbers(text):
    assert word_numbers(text) == []


def test_number_words_are_numbers_not_words():
    assert is_number_word("Eight") and is_number_word("thousand") and is_number_word("tenths")
    assert not is_number_word("eighty-eight") and not is_number_word("tonne")
    mentions = number_mentions("Take one tablet every eight hours, and 7 million and seven million.")
    assert [m.value for m in mentions] == [7e6, 8, 7e6]


def test_number_word_scan_is_linear_on_crafted_text():
    text = "twenty " * 20000 + "and " * 20000 + "a third " * 20000
    started = time.perf_counter()
    word_numbers(text)
    assert time.perf_counter() - started < 2.0


def _novel(claim: str, context: str) -> list[str]:
    scope = scope_of([Source(id="0", text=context)], None)
    spans = novel_terms(content_terms(claim), scope, claim, term_set(context))
    return [claim[s:e] for s, e in spans]


@pytest.mark.parametrize(("claim", "context"), [
    ("The firm had a staff of 300.", "The business had 300 personnel."),
    ("She died in 1990.", "Her death came in 1990."),
    ("Northwind bought Palmera.", "Northwind has acquired Palmera."),
    ("Northwind bought Palmera.", "Northwind's acquisition of Palmera closed in May."),  # a form of a licenser
    ("The city paid for the bridge.", "The bridge was funded by the city."),
    ("Cyclists pay 20 dollars each.", "People on bicycles pay 20 dollars each."),  # "bicyclist" is a cyclist
    ("The bridge is 2 km long.", "The bridge is 2 kilometres long."),
    ("Eat it within eight days.", "Eat it within 8 days."),
    # "people" is said by any kind or group of people (training/wordnet_people.py), however far below "person"
    ("480 people were evacuated.", "480 residents were evacuated."),
    ("The 640 people enrolled were dogs' owners.", "The 640 participants enrolled were dogs' owners."),
    ("Twelve people were hired.", "A staff of twelve were hired."),
    ("About 480 more people were evacuated.", "480 residents were evacuated, and 30 firefighters fought the fire."),
    ("People in Pike Hollow were evacuated.", "Residents of Pike Hollow were evacuated."),  # uncounted
])
def test_words_said_otherwise_are_not_novel(claim, context):
    assert _novel(claim, context) == []


@pytest.mark.parametrize(("claim", "context", "novel"), [
    # a word the passage writes as two, closed up (an irregular past as its verb, a particle also first)
    ("It separated 58 minutes after liftoff.", "It lifted off at 06:42 and separated 58 minutes later.", []),
    ("The takeover was announced.", "Orbis took over Palmera, it was announced.", []),
    ("The layoffs were announced.", "Staff were laid off, it was announced.", []),
    ("The outbreak was announced.", "Cholera broke out, it was announced.", []),
    ("The nuts are not declared.", "The granola may contain undeclared nuts.", []),  # "not X" is "unX"
    ("The 400-gram pack was recalled.", "The 400 g pack was recalled.", []),  # a unit spelled otherwise
    # two words that are not adjacent close up nothing; a negative prefix says nothing of the word un-negated
    ("The takeover was announced.", "Orbis took Palmera over, it was announced.", ["takeover"]),
    ("The nuts are declared.", "The granola may contain undeclared nuts.", ["declared"]),
])
def test_words_the_passage_writes_apart_or_negated(claim, context, novel):
    scope = scope_of([Source(id="0", text=context)], None)
    spans = novel_terms(content_terms(claim), scope, claim, term_set(context), chunks=(context,))
    assert [claim[s:e] for s, e in spans] == novel


@pytest.mark.parametrize(("claim", "context", "novel"), [
    ("Prices were lowered in May.", "Prices were raised in May.", ["lowered"]),  # antonyms never license
    ("The road is 5 miles long.", "The road is 5 kilometres long.", ["miles"]),  # siblings never do
    ("The firm was fined.", "The business was praised.", ["fined"]),
    ("480 people were evacuated.", "480 tables were evacuated.", ["people"]),  # not a kind of person
    # counted: the passages must count a kind of people with the claim's number (the homes' 480 is no people's)
    ("480 people were evacuated.", "480 homes were evacuated, and 30 firefighters fought the fire.", ["people"]),
    ("480 people were evacuated.", "The model of the fan was evacuated.", ["people"]),  # first something else
])
def test_other_meanings_stay_novel(claim, context, novel):
    assert _novel(claim, context) == novel


def test_a_changed_number_in_words_is_missing():
    scope = scope_of([Source(id="0", text="The run lasted five years.")], None)
    claim = "The run lasted six years."
    assert [claim[s:e] for s, e in missing_numbers(claim, scope, set())] == ["six"]


def test_licensing_reads_only_the_evidence_it_is_given():
    assert licensed("staff", {"personnel"})
    assert not licensed("staff", set())
    assert "personnel" in licensers("staff")
    assert licensers("zzzz-not-a-word") == []


def test_table_and_license_ship_together():
    assert (WORDNET_DIR / "LICENSE-WordNet").read_text(encoding="utf-8").startswith("WordNet Release 3.0")
    with gzip.open(WORDNET_DIR / "related.tsv.gz", "rt", encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    assert len(lines) > 50_000
    keys = [line.split("\t", 1)[0] for line in lines]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    with gzip.open(WORDNET_DIR / "people.tsv.gz", "rt", encoding="utf-8") as fh:
        key, _, stems = fh.read().rstrip("\n").partition("\t")
    assert key == "person" and {"resident", "participant", "staff"} <= set(stems.split(" "))


def test_verifier_reads_paraphrases_and_still_flags_changes():
    verifier = LocalVerifier()
    context = ["Halvorsen Marine said its workforce grew to 3,400 people at the end of 2023. Seven million "
               "tonnes of cargo passed through its yards, and the company's founder, Erik Halvorsen, died in "
               "2019 at the age of 88."]
    grounded = verifier.verify("The company's founder died in 2019, aged eighty-eight.", context)
    assert grounded.label == "supported", grounded.claims
    changed = verifier.verify("The company's founder died in 2019, aged eighty-six.", context)
    assert changed.label == "hallucinated"


def test_dates_written_other_ways():
    from halguard.text.dates import date_month_numbers, month_of

    assert date_month_numbers("born on 4 March 2019 and in May") == {3.0}
    assert date_month_numbers("Dec. 10, 1815; the 1st of June") == {12.0, 6.0}
    assert month_of("Dec") == "december" and month_of("dec") is None and month_of("Mar") is None
    assert _novel("Ada Lovelace was born on Dec. 10, 1815.", "Ada Lovelace was born on 10 December 1815.") == []
    scope = scope_of([Source(id="0", text="It launched on 4 March 2019.")], None)
    claim = "It launched on 2019-03-04."
    assert missing_numbers(claim, scope, set()) == []
    changed = "It launched on 2019-05-04."
    assert [changed[s:e] for s, e in missing_numbers(changed, scope, set())] == ["05"]
    assert missing_numbers("It launched on 04/03/2019.", scope, set()) == []


def test_a_month_of_a_date_is_no_count():
    # "March" is 3 only in a date written in digits: "three letters" is a number the passage never gives
    scope = scope_of([Source(id="0", text="Applicants must send two letters of recommendation. Decisions will be "
                                          "released by March 20, 2027.")], None)
    claim = "Applicants must send three letters of recommendation."
    assert [claim[s:e] for s, e in missing_numbers(claim, scope, set())] == ["three"]
    assert missing_numbers("Decisions will be released by 2027-03-20.", scope, set()) == []
    # where another source (or the question) writes the number itself, it is theirs
    other = scope_of([Source(id="0", text="Decisions will be released by March 20, 2027."),
                      Source(id="1", text="Applicants must send 3 letters.")], None)
    assert missing_numbers(claim, other, set()) == []
    assert missing_numbers(claim, scope_of([Source(id="0", text="Released by March 20, 2027.")],
                                           "Do I need 3 letters?"), set()) == []


def test_date_scan_is_linear_on_crafted_text():
    from halguard.text.dates import date_month_numbers

    text = ("12 December " * 30000) + ("Decembers" * 30000) + (" 1" * 30000)
    started = time.perf_counter()
    assert date_month_numbers(text) == {12.0}
    assert time.perf_counter() - started < 2.0


def test_a_word_that_is_a_form_of_an_evidence_word_is_said():
    # "founder" is a form of "found" (WordNet keeps the derivation on the verb's line only); "refrigerated" has the
    # form "refrigerator", which the evidence says as "fridge"
    assert licensed("founder", {"found"}) and licensed("refrigerat", {"fridg"})
    assert not licensed("founder", {"bakeri"}) and not licensed("refrigerat", {"oven"})


def test_a_form_anywhere_in_the_context_says_the_word_but_a_synonym_only_near_it():
    # forms only: "founder" is said by "founded" in another sentence of the passage; "personnel" licenses "staff" in
    # the claim's evidence only (licensed), never from anywhere in the context
    assert form_in("founder", {"found", "bakeri"}) and form_in("found", {"founder"})
    assert not form_in("staff", {"personnel"}) and not form_in("founder", {"bakeri"})
    bakery = ("Hartmann's Bakery was founded in 1952 by Otto Hartmann in Freiburg. It now has 23 shops. Otto's "
              "granddaughter, Lena Hartmann, has run the company since 2015.")
    verdict = LocalVerifier().verify("Lena Hartmann, the founder's granddaughter, has led the company since 2015.",
                                     [bakery])
    assert verdict.label == "supported" and not verdict.claims[0].signals.novel_terms


STRIKE = ("Train drivers at Northern Rail will strike for 48 hours from Friday after talks over pay broke down. "
          "It is the third strike this year.")


@pytest.mark.parametrize(("answer", "label"), [
    ("It is the first strike this year.", "hallucinated"),  # the ordinal is the fact: "third" in the passage
    ("It is the third strike this year.", "supported"),
])
def test_an_ordinal_the_passage_gives_otherwise_is_a_changed_number(answer, label):
    verdict = LocalVerifier().verify(answer, [STRIKE])
    assert verdict.label == label
    assert bool(verdict.claims[0].signals.missing_numbers) == (label == "hallucinated")
    from halguard.grounding.signals.ordinals import changed_ordinals

    scope = scope_of([Source(id="0", text=STRIKE)], None)
    # a thing the passage numbers with no ordinal, or with the claim's own, decides nothing
    assert changed_ordinals("The first day of the strike is Friday.", scope) == []
    assert changed_ordinals("A third strike this year.", scope) == []


LOAN = "The bank lent 40 million dollars to the city to repair its bridges. The loan must be repaid within ten years."


@pytest.mark.parametrize(("answer", "label"), [
    ("The loan must be repaid within forty years.", "hallucinated"),  # 40 stands in the passage, of dollars
    ("The loan must be repaid within ten years.", "supported"),
    ("The loan must be repaid within a decade.", "supported"),  # the same quantity in other units
])
def test_a_quantity_the_passage_values_otherwise_is_changed(answer, label):
    verdict = LocalVerifier().verify(answer, [LOAN])
    assert verdict.label == label


def test_an_ordinal_of_another_proposition_is_not_changed():
    from halguard.grounding.signals.ordinals import changed_ordinals

    passage = "Mehdi Taremi scored twice in the first half, and Otávio added a third after the break."
    scope = scope_of([Source(id="0", text=passage)], None)
    claim = "Otávio scored a third in the second half."  # the passage's "after the break", not Taremi's half
    assert changed_ordinals(claim, scope) == []
    assert changed_ordinals("Mehdi Taremi scored twice in the second half.", scope) != []


ALBUM = ("It is the band's first headline tour since 2023 and follows the release of their fourth album, 'Saltwater "
         "Clocks', on 28 August. Singer Maya Thorne said the set list would include the entire new album.")


def test_an_ordinal_in_an_apposition_numbers_the_name_beside_it():
    from halguard.grounding.signals.ordinals import changed_ordinals

    scope = scope_of([Source(id="0", text=ALBUM)], None)
    # the apposed name is the passage's fourth album's: "fifth" numbers it otherwise
    claim = "Maya Thorne said the set would feature all of 'Saltwater Clocks', the band's fifth album."
    assert [claim[s:e] for s, e in changed_ordinals(claim, scope)] == ["fifth"]
    assert changed_ordinals(claim.replace("fifth", "fourth"), scope) == []
    # an apposition naming something the passage does not set beside its ordinal decides nothing
    assert changed_ordinals("Maya Thorne sang 'Harbour Lights', the band's fifth album.", scope) == []


def test_a_comparative_says_its_base_side():
    from halguard.grounding.signals.antonyms import same_side_in

    assert same_side_in("taller", {"higher"}) and same_side_in("taller", {"high"})
    assert not same_side_in("taller", {"lower"}) and not same_side_in("taller", {"higher", "lower"})


def test_ordinals_are_read_in_bounded_time_on_crafted_text():
    from halguard.grounding.signals.ordinals import changed_ordinals

    scope = scope_of([Source(id="0", text="It was the third item on the list. " * 30000)], None)
    started = time.perf_counter()
    assert changed_ordinals("It was the first item on the list.", scope) != []
    changed_ordinals("the first item " * 3000, scope)  # at most 16 ordinals a side are read
    assert time.perf_counter() - started < 2.0
