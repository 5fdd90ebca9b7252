"""Light words (halguard.text.light_words): a support verb or a preposition the passage does not use weighs less than
a content word, so a close paraphrase with one of them passes; a fabrication's fact keeps its full weight."""

from __future__ import annotations

import pytest

from halguard import LocalVerifier
from halguard.grounding.scoring import DEFAULT_WEIGHTS
from halguard.grounding.signals import ClaimMeasurements
from halguard.grounding.signals.paraphrase import UNIT_AND_TIME_WORDS
from halguard.text.lexical import stem
from halguard.text.light_words import LIGHT_WORDS, _light_stems, is_light_word


@pytest.mark.parametrize("word", ["stands", "reaching", "versus", "daily", "got", "came", "takes", "shows", "held",
                                  "happened", "occurs"])
def test_light_words_in_any_form(word):
    assert is_light_word(word)


@pytest.mark.parametrize("word", ["weekly", "hours", "left", "stayed", "paid", "won", "lost", "evacuated", "severe",
                                  "doctors", "miles", "November"])
def test_words_that_carry_a_fact_are_not_light(word):
    assert not is_light_word(word)


def test_no_light_word_is_a_unit_or_time_word():
    assert not (_light_stems() & UNIT_AND_TIME_WORDS)
    assert all(w == w.lower() for w in LIGHT_WORDS)


def test_a_light_word_weighs_less_and_content_words_come_first():
    w = DEFAULT_WEIGHTS
    one_light = ClaimMeasurements(similarity=0.9, novel_ratio=0.1, novel_terms=[(0, 5)], light_novel_terms=[(0, 5)])
    one_heavy = ClaimMeasurements(similarity=0.9, novel_ratio=0.1, novel_terms=[(0, 5)])
    assert w.risk(one_light) < 0.5 <= w.risk(one_heavy)
    # the cap counts content words first: three content words and a light one weigh as three content words
    four = ClaimMeasurements(similarity=0.9, novel_ratio=0.4, novel_terms=[(0, 1), (2, 3), (4, 5), (6, 7)],
                             light_novel_terms=[(6, 7)])
    three = ClaimMeasurements(similarity=0.9, novel_ratio=0.4, novel_terms=[(0, 1), (2, 3), (4, 5)])
    assert w.signals_logit(four) == pytest.approx(w.signals_logit(three))


PASSAGES = {
    "tower": "The Eiffel Tower is 330 metres tall and was completed in 1889.",
    "sales": "Sales grew by 8% to 4.2 billion euros in 2024.",
    "final": "In the final, Spain beat England 2-1 in Berlin.",
    "deal": "Harbor Foods acquired Linden Dairy in 2018 for 90 million dollars.",
}


@pytest.mark.parametrize(("key", "answer", "label"), [
    ("tower", "The Eiffel Tower stands 330 metres high.", "supported"),
    ("sales", "Sales grew by 8%, reaching 4.2 billion euros.", "supported"),
    ("final", "The final was Spain versus England, and Spain beat them 2-1.", "supported"),
    # the fact of a fabrication is not light: a changed number, a swapped name, a content word
    ("tower", "The Eiffel Tower stands 300 metres high.", "hallucinated"),
    ("sales", "Sales grew by 8%, reaching 4.2 billion euros, a record for the group.", "hallucinated"),
    ("final", "The final was Spain versus France, and Spain beat them 2-1.", "hallucinated"),
    # an event noun's happening is the noun's fact: "took place" is one light word; the year and a status are not
    ("deal", "The acquisition of Linden Dairy by Harbor Foods took place in 2018.", "supported"),
    ("deal", "The acquisition of Linden Dairy by Harbor Foods happened in 2018.", "supported"),
    ("deal", "The acquisition of Linden Dairy by Harbor Foods took place in 2019.", "hallucinated"),
    ("deal", "The acquisition of Linden Dairy by Harbor Foods was cancelled in 2018.", "hallucinated"),
])
def test_light_words_in_answers(key, answer, label):
    verdict = LocalVerifier().verify(answer, [PASSAGES[key]])
    assert verdict.label == label, (answer, verdict.score, [c.signals.novel_terms for c in verdict.claims])
    assert stem("stands") in _light_stems()


def test_took_place_is_one_light_word():
    from halguard.text.light_words import light_phrase_spans

    text = "The vote took place on Monday; the takeover took six months."
    verbs, nouns = light_phrase_spans(text)
    assert [text[a:b] for a, b in verbs] == ["took"] and [text[a:b] for a, b in nouns] == ["place"]


def test_so_far_is_grammar_and_far_a_distance_is_a_word():
    from halguard.text.light_words import light_phrase_spans

    text = "No deaths have been reported so far; it is by far the largest; the glacier retreated twice as far."
    dropped, _ = light_phrase_spans(text)
    assert sorted(text[a:b] for a, b in dropped) == ["far", "far"]
    assert all(a < text.index("twice") for a, _ in dropped)  # the distance sense stays a word to look up
    volcano = "Mount Aral erupted on Tuesday night. No deaths have been reported."
    assert LocalVerifier().verify("No deaths have been reported so far.", [volcano]).label == "supported"


@pytest.mark.parametrize(("text", "grammar"), [
    ("Children under 16 get in free as long as they're with an adult.", ["long"]),
    ("The queue was as long as a bus.", []),  # a length: a word to look up
    ("There's no longer any NSF fee.", ["longer"]),
    ("The wait is no longer than 5 minutes.", []),  # a comparison
    ("If you'd like to go aboard, book a timed ticket.", ["like"]),
    ("Visitors like the new galleries.", []),
    ("You'll need to arrive by 4:15pm.", ["need"]),
    ("The roof needs to be replaced.", ["needs"]),
    ("Patients need rest.", []),  # a need of a thing is a fact
])
def test_conditions_and_wishes_are_grammar(text, grammar):
    from halguard.text.light_words import light_phrase_spans

    dropped, _ = light_phrase_spans(text)
    assert sorted(text[a:b] for a, b in dropped) == grammar


def test_a_cause_connective_is_grammar_and_its_cause_a_fact():
    from halguard.text.light_words import light_phrase_spans

    text = "Charges rose owing to weaker conditions; he leads thanks to his second place; thanks were given."
    dropped, _ = light_phrase_spans(text)
    assert sorted(text[a:b] for a, b in dropped) == ["owing", "thanks"]  # not the thanks that were given
    passage = "Impairment charges rose to £58 million because of weaker conditions among small business borrowers."
    verifier = LocalVerifier()
    assert verifier.verify("Impairment charges rose to £58 million owing to weaker conditions among small business "
                           "borrowers.", [passage]).label == "supported"
    assert verifier.verify("Impairment charges rose to £58 million owing to higher interest rates.",
                           [passage]).label == "hallucinated"
