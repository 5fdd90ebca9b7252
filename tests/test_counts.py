"""Counts bound to their things (halguard.text.counts): a number the passages give to something else is flagged;
the same counts said in other words, or for another entity of the same passages, are not."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.text.counts import CountIndex, counts, moved_counts

LAPTOP = ("The Corvin 14 laptop weighs 1.3 kg and has a 14-inch display. It has two USB-C ports and one HDMI port, "
          "and charges at 65 W.")
PHONE = ("The Pallas X2 phone has a 6.1-inch OLED screen. Its main camera has a 50-megapixel sensor, and the front "
         "camera has 12 megapixels.")
CRASH = "Five people were killed and 12 injured when the bus left the road."
MODELS = "The Aster 3 has two fans. The Aster 5 has four fans and one USB port."
FINAL = "Nadal won 6-4, 6-4, 6-7, 6-7, 9-7, ending Federer's run of five consecutive Wimbledon titles."
LAKE = ("Lake Chad covered about 25,000 square kilometres in the 1960s, but by the 1980s it had shrunk to less than "
        "2,000 square kilometres.")


def _index(*passages: str) -> CountIndex:
    return CountIndex((c.value, c.thing) for p in passages for c in counts(p, bounded=True))


def _moved(claim: str, *passages: str) -> list[str]:
    return [claim[s:e] for s, e in moved_counts(claim, _index(*passages))]


def test_a_count_reads_the_words_after_its_number():
    found = {(claim_count.value, claim_count.thing) for claim_count in counts(LAPTOP)}
    assert (2.0, ("usb", "c", "port")) in found
    assert (1.0, ("hdmi", "port")) in found
    assert not any(thing[:1] == ("laptop",) for _, thing in found)  # "Corvin 14" is a name


@pytest.mark.parametrize(("claim", "passage", "moved"), [
    ("The Corvin 14 has one USB-C port and two HDMI ports.", LAPTOP, ["one", "two"]),
    ("It has two HDMI ports.", LAPTOP, ["two"]),  # the passage's two counts USB-C ports, the same kind of thing
    ("The main camera has a 12-megapixel sensor, and the front camera has 50 megapixels.", PHONE, ["12", "50"]),
    ("Nadal ended Federer's run of six consecutive Wimbledon titles.", FINAL, ["six"]),  # a thing of three words
    ("By the 1980s it had shrunk to 2,500 square kilometres.", LAKE, ["2,500"]),
])
def test_a_count_given_to_something_else_is_found(claim, passage, moved):
    assert _moved(claim, passage) == moved


@pytest.mark.parametrize(("claim", "passage"), [
    ("The Corvin 14 has two USB-C ports and one HDMI port.", LAPTOP),
    ("It offers one HDMI port as well as two USB-C ports.", LAPTOP),
    ("The phone has a 12-megapixel front camera.", PHONE),  # "front camera" is no thing the passage counts
    ("12 people were injured.", CRASH),  # the passage counts "injured", not "people", with 12
    ("The Aster 5 has four fans.", MODELS),  # another model's count of the same thing: ambiguous, not read
    ("The Aster 3 has four fans.", MODELS),  # the passages give four to fans too: not a moved count (by design)
    ("It has more than one HDMI port.", LAPTOP),  # a bound is checked as a bound
    ("The phone went on sale on 12 March.", PHONE),  # a date, the date check's
    ("The bus crashed in 2014 with five people on board.", CRASH),
    ("Nadal ended Federer's run of five consecutive Wimbledon titles.", FINAL),
    ("By the 1980s it had shrunk to less than 2,000 square kilometres.", LAKE),  # the passage's bound is its count
    ("It once covered more than 20,000 square kilometres.", LAKE),  # a claim's bound is the bound check's
    # a part counts its whole's thing: "4 of the 320 vaccinated dogs"
    ("4 vaccinated dogs and 27 placebo dogs had confirmed infection.",
     "After 12 months, 4 of the 320 vaccinated dogs and 27 of the 320 dogs given a placebo developed infection."),
    ("E. coli exceeded the threshold on 19 of the 52 sampling days.",
     "E. coli levels exceeded the threshold on 19 of 52 sampling days."),
])
def test_counts_said_otherwise_or_ambiguous_are_not_found(claim, passage):
    assert _moved(claim, passage) == []


def test_percentages_years_and_list_markers_are_no_counts():
    text = "1. Sales rose 12% in 2019, and 3. the firm hired staff."
    assert [text[c.start:c.end] for c in counts(text)] == []


def test_crafted_number_runs_are_read_in_linear_time():
    passage = " ".join(f"{i} widgets and" for i in range(60_000))
    start = time.perf_counter()
    index = _index(passage)
    moved_counts("It has 7 gadgets and 9 widgets. " * 200, index)
    assert time.perf_counter() - start < 10.0
    assert len(counts(passage)) == 2000  # capped per text
    named = " ".join("A" + "a" * 60 + " 1 Bb 2" for _ in range(5000))  # capitalised words before every number
    start = time.perf_counter()
    assert len(counts(named)) == 2000  # "Bb 2" is a name's number; "...aaa 1" counts one "Bb"
    assert time.perf_counter() - start < 5.0


def test_the_verifier_flags_a_swapped_count_and_passes_the_restatement():
    verifier = LocalVerifier(meaning=False)
    swapped = verifier.verify("The Corvin 14 has one USB-C port and two HDMI ports.", [LAPTOP])
    kept = verifier.verify("The Corvin 14 has two USB-C ports and one HDMI port.", [LAPTOP])
    assert swapped.claims[0].status.value in ("HALLUCINATION", "CONTRADICTION")
    assert set(swapped.claims[0].signals.missing_numbers) == {"one", "two"}
    # the numbers stand in the passage: the reason says they are given otherwise, not that they are missing
    assert {(s.text, s.reason) for s in swapped.spans} == {("one", "number the context gives otherwise"),
                                                           ("two", "number the context gives otherwise")}
    assert "numbers the context gives otherwise: one, two" in swapped.claims[0].reasons
    assert kept.claims[0].status.value == "SUPPORTED"


def test_a_count_the_passages_write_in_words_is_theirs():
    from halguard.text.counts import counted_as_said

    claim = "It has 2 USB-C ports and 1 HDMI port."
    assert [claim[s:e] for s, e in counted_as_said(claim, _index(LAPTOP))] == ["2", "1"]
    verdict = LocalVerifier(meaning=False).verify(claim, [LAPTOP])
    assert verdict.label == "supported"  # "1" was a number not in the context: the passage writes "one"


@pytest.mark.parametrize(("question", "answer", "flagged"), [
    ("How many HDMI ports does it have?", "Two.", True),
    ("How many USB-C ports does the Corvin 14 have?", "It has one.", True),
    ("How many HDMI ports does it have?", "One.", False),
    ("How many USB-C ports does it have?", "Two.", False),
    ("How many fans does it have?", "Two.", False),  # a thing the passage never counts: not read here
])
def test_a_short_answer_to_how_many_is_the_count_asked_about(question, answer, flagged):
    from halguard.text.counts import answered_counts

    assert bool(answered_counts(answer, question, _index(LAPTOP))) is flagged
    verdict = LocalVerifier(meaning=False).verify(answer, [LAPTOP], question=question)
    assert (verdict.label == "hallucinated") is flagged, verdict.label


PARK = ("The park was created to protect the Alpine ibex, whose numbers had fallen to fewer than 100 animals in the "
        "19th century. Around 2,700 ibex live there today.")


@pytest.mark.parametrize(("answer", "label"), [
    ("Today the park is home to more than two thousand Alpine ibex.", "supported"),  # a bound the count meets
    ("More than 2,000 ibex live there today.", "supported"),
    ("More than 3,000 ibex live there today.", "hallucinated"),
    ("Fewer than 2,000 ibex live there today.", "hallucinated"),
    ("2,000 ibex live there today.", "hallucinated"),
])
def test_a_bounded_answer_to_how_many_is_read_with_its_bound(answer, label):
    # "more than two thousand" to "How many ibex ...?" where the passage says "Around 2,700": the count asked about,
    # said as a bound it meets (measure.py reads quantities.said_as before the count check); and the sentence that
    # holds 2,700 is the one that says "home to" as "live" (the idiom)
    verdict = LocalVerifier(meaning=False).verify(answer, [PARK], question="How many ibex live in the park today?")
    assert verdict.label == label, verdict.claims[0].signals
