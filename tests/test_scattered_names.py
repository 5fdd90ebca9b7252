"""A short answer's name must be the passages' name, not their words scattered (halguard.grounding.signals.words)."""

import pytest

from halguard.grounding.signals.scope import scope_of
from halguard.grounding.signals.words import scattered_names
from halguard.text.contexts import Source

HYDE = ("He played for Hyde United during the 2008-09 season. Hyde United Football Club is a semi-professional "
        "football club in Hyde, Greater Manchester, England.")
QUESTION = "What is a semi-professional football club in Hyde, Greater Manchester, England?"


def _scattered(claim: str, *passages: str) -> list[str]:
    scope = scope_of([Source(id=str(i), text=p) for i, p in enumerate(passages)], None)
    return [claim[s:e] for s, e in scattered_names(claim, scope)]


def test_words_of_the_passage_that_never_stand_together_are_no_name_of_it():
    assert _scattered("The Manchester United semi-professional club.", HYDE) == ["Manchester United"]
    assert _scattered("Hyde United Football Club.", HYDE) == []


@pytest.mark.parametrize(("claim", "passage"), [
    ("Jake Kasdan is a director.", 'Jacob "Jake" Kasdan (born October 28, 1974) is an American director.'),
    ("Barack Obama spoke.", "Barack Hussein Obama spoke in Chicago."),  # a middle name between
    ("Texas Attorney General Ken Paxton sued.", "Texas Attorney General said on Monday that Ken Paxton sued."),
    ("The Friedmans were filmed.", "Capturing the Friedman family was filmed."),  # one word: not read
    ("Chow Yun-fat starred.", "It starred Chow Yun-fat and Jacky Cheung."),
    ("Santa Cruz Island is nearby.", "The island nearby is called Santa Cruz Island."),
])
def test_names_the_passage_gives_together_or_in_parts(claim, passage):
    assert _scattered(claim, passage) == []


def test_verifier_flags_a_short_answer_naming_the_passages_words_scattered(verifier):
    wrong = verifier.verify("The Manchester United semi-professional club.", [HYDE], question=QUESTION)
    assert wrong.label == "hallucinated"
    assert wrong.claims[0].signals.missing_entities == ["Manchester United"]
    right = verifier.verify("Hyde United Football Club.", [HYDE], question=QUESTION)
    assert right.label == "supported"
    # A long answer is not read for it: its names carry offices and list items ("Open Mozilla Firefox").
    long = verifier.verify("Hyde United plays in Hyde. It is semi-professional. The Manchester United name is not "
                           "its own.", [HYDE], question=QUESTION)
    assert all(c.signals.missing_entities == [] for c in long.claims)


def test_a_long_passage_is_read_in_bounded_time():
    # Read as a ratio (a shared machine's speed varies): four times the passage takes about four times as long; a
    # search of every word against every other would take sixteen.
    import time

    def read(words: int) -> float:
        passage = "Manchester " * words + "United"
        t0 = time.perf_counter()
        assert _scattered("The Manchester United club.", passage) == []  # the words do stand together, at the end
        return time.perf_counter() - t0

    quarter, whole = read(12_500), read(50_000)
    assert whole < 8 * quarter + 0.5


def test_a_crafted_run_of_names_is_read_in_bounded_time(verifier):
    # A short answer is at most 12 words (QUESTION_AWARE_MAX_WORDS), so a few two-word names, each searched in every
    # passage: here four against 240 KB of the names' words, none beside another of the answer's pairs.
    import itertools
    import string
    import time

    pairs = itertools.islice(itertools.product(string.ascii_lowercase, repeat=2), 400)
    words = ["Zor" + a + b + "ix" for a, b in pairs]
    passage = " and ".join(words) + "."
    answer = " and ".join(f"{a} {b}" for a, b in zip(words[:8:2], words[399:392:-2])) + "."
    t0 = time.perf_counter()
    verdict = verifier.verify(answer, [passage * 20], question="Who?")
    assert time.perf_counter() - t0 < 10.0
    assert verdict.label == "hallucinated"
    assert len(verdict.claims[0].signals.missing_entities) == 4


LEAGUE = '[{"season": "2012-13", "champion": "Manchester City", "runner_up": "Chelsea"}]'


def test_a_short_answers_name_with_a_word_changed_is_another_name():
    # Half its words the passages' (more than half would be missing_names' business), the name theirs with one word
    # changed: "Manchester United" is not "Manchester City".
    assert _scattered("Manchester United.", LEAGUE) == ["Manchester United"]
    assert _scattered("Manchester City.", LEAGUE) == []
    assert _scattered("The Greater Manchester club Hyde United.", HYDE) == []  # both names the passage's own


def test_verifier_flags_the_other_club_against_a_json_listing(verifier):
    # A one-word-changed name was only a novel word (risk 0.82, under the records shape's 0.88): it passed.
    question = "Who won the 2012-13 season?"
    wrong = verifier.verify("Manchester United.", [LEAGUE, "The 2012-13 season ended in May."], question=question)
    assert wrong.label == "hallucinated"
    assert wrong.claims[0].signals.missing_entities == ["Manchester United"]
    right = verifier.verify("Manchester City.", [LEAGUE, "The 2012-13 season ended in May."], question=question)
    assert right.label == "supported"
