"""Issue 45: an answer's words about its own sources ("Passage 2 explains ...") are no novel facts."""

from __future__ import annotations

import pytest

from halguard import LocalVerifier
from halguard.text.reporting import reporting_word_spans


def _words(text: str) -> list[str]:
    return [text[s:e] for s, e in reporting_word_spans(text)]


@pytest.mark.parametrize(("text", "words"), [
    ("Passage 1 discusses its credits, while Passage 2 explains its role.",
     ["Passage", "discusses", "Passage", "explains"]),
    ("These passages provide general tips.", ["passages", "provide"]),
    ("The data does not mention if reservations are accepted.", ["The", "data", "not", "mention"]),
    ("The Italian meaning of Teresa is not explicitly stated in the passages.", ["stated", "passages"]),
    ("It is rated 4 stars, based on the provided data.", ["based", "provided", "data"]),
])
def test_the_sources_named_as_the_answers_own_and_the_verbs_near_them(text, words):
    assert _words(text) == words


@pytest.mark.parametrize("text", [
    # the article is the magazine's: a thing of the world, and "highlighted" what its critique did
    "The Columbia Journalism School's critique of the article highlighted the need for better fact-checking.",
    "The company mentioned a loss of 5 million dollars.",
    "Sources said the minister would resign.",
])
def test_a_source_word_of_the_world_reports_nothing(text):
    assert _words(text) == []


def test_a_reporting_verb_of_the_reported_content_is_checked():
    text = "According to Passage 2, it is important to title your graph to provide context and explain what it shows."
    assert _words(text) == ["Passage"]


def test_bounded_on_a_crafted_text():
    text = "passage " * 20_000 + "provides"
    assert len(reporting_word_spans(text)) == 20_001


def test_a_report_of_what_a_passage_says_is_checked_for_what_it_says():
    verifier = LocalVerifier(meaning=False)
    context = ["Magellan Health offers continuing education credits to providers who attend its monthly webinars.",
               "Magellan Health is the behavioral health organization for the state of Idaho."]
    question = "What is Magellan Health?"
    faithful = ("Passage 1 discusses Magellan Health's continuing education credits for providers, while Passage 2 "
                "explains its role as the state of Idaho's behavioral health organization. It offers them to providers "
                "who attend its webinars.")
    verdict = verifier.verify(faithful, context, question=question)
    first = verdict.claims[0]
    assert "discusses" not in first.signals.novel_terms and "explains" not in first.signals.novel_terms
    invented = "Passage 2 explains that Magellan Health is the behavioral health organization for the state of Oregon."
    verdict = verifier.verify(invented, context, question=question)
    assert verdict.label == "hallucinated"
    assert "Oregon" in verdict.claims[0].signals.missing_entities


def test_what_the_answer_is_an_overview_of_is_checked_not_the_words_overview_and_json():
    from halguard.text.claims import extract_claims

    answer = ("Here's an objective overview of Rusty's Pizza Parlor based on the provided structured data in JSON "
              "format. It is in Goleta.")
    first = extract_claims(answer).claims[0]
    assert answer[first.hedge_span[0]:first.hedge_span[1]] == "Here's an objective overview of"
    assert _words(first.text) == ["based", "provided", "structured", "data", "JSON", "format"]
    assert extract_claims("Here is a summary of the article. The tower was completed in 1925.").skipped == [
        (0, 33, "hedge or filler")]
    verifier = LocalVerifier(meaning=False)
    record = '{"name": "Rusty\'s Pizza Parlor", "city": "Goleta", "state": "CA", "stars": 4.0}'
    assert verifier.verify(answer, [record]).label == "supported"
    assert verifier.verify(answer.replace("Goleta", "Ventura"), [record]).label == "hallucinated"
