"""The lexical candidate pass of the local verifier (halguard.grounding.candidates)."""

from __future__ import annotations

import time

import pytest

from halguard import InvalidInputError, LocalVerifier
from halguard.grounding.candidates import candidate_chunks, key_terms
from halguard.grounding.verifier import CANDIDATE_MIN_CHUNKS

FILLER = [f"Report {i} describes routine maintenance of pumps in sector {i}." for i in range(80)]


def test_key_terms_keep_numbers_and_stems_and_drop_stop_words():
    assert key_terms("The tower was completed in 1889.") == {"tower", "complet", "1889"}


def test_rare_shared_terms_win():
    chunks = [*FILLER, "The Eiffel Tower was completed in 1889.", "Eiffel built bridges."]
    keep = candidate_chunks(["The Eiffel Tower was completed in 1889."], chunks, 2)
    assert keep == [80, 81]


def test_a_claim_sharing_nothing_turns_the_pass_off_without_a_meaning_ranker():
    chunks = [*FILLER, "The Eiffel Tower was completed in 1889."]
    assert candidate_chunks(["Gustave's lattice landmark opened to visitors."], chunks, 4) is None


def test_a_claim_sharing_nothing_gets_the_chunks_closest_in_meaning(verifier):
    chunks = [*FILLER, "The Eiffel Tower was completed in 1889.", "Mount Everest is the highest mountain."]
    claim = "Gustave's lattice landmark opened to visitors in Paris."
    keep = candidate_chunks([claim, "Pumps in sector 3."], chunks, 2, by_meaning=verifier.embedder.word_vector_ranker)
    assert keep is not None and 80 in keep and 81 not in keep  # the tower, not the mountain


def test_the_word_vector_ranker_prefers_words_that_mean_the_same(verifier):
    closeness = verifier.embedder.word_vector_ranker(["The physician treated the patient.", "Stocks fell sharply.",
                                                      "The the of and."])
    scores = closeness("A doctor cared for a sick man.")
    assert scores[0] > scores[1] and scores[2] == 0.0  # stop words only: close to nothing


def test_no_pruning_when_every_chunk_is_kept():
    assert candidate_chunks(["pumps sector"], FILLER[:3], 8) is None


def test_ties_are_broken_by_position():
    chunks = ["alpha beta", "alpha gamma", "alpha delta"] * 20
    assert candidate_chunks(["alpha"], chunks, 3) == [0, 1, 2]


def test_the_pass_is_linear_on_a_large_context():
    chunks = [f"Sentence {i} mentions item{i % 500} and value {i}." for i in range(20_000)]
    claims = [f"Item{i} has value {i * 3}." for i in range(50)]
    t0 = time.perf_counter()
    keep = candidate_chunks(claims, chunks, 8)
    assert time.perf_counter() - t0 < 5
    assert keep is not None and len(keep) <= 50 * 8


@pytest.fixture(scope="module")
def verifiers():
    return LocalVerifier(candidates_per_claim=None), LocalVerifier(candidates_per_claim=8)


def test_verifier_with_candidates_embeds_fewer_texts_and_agrees(verifiers):
    full, pruned = verifiers
    context = [*FILLER, "The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair."]
    assert len(context) + 1 >= CANDIDATE_MIN_CHUNKS
    for answer in ("The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1925."):
        a = full.verify(answer, context)
        b = pruned.verify(answer + " ", context)  # another text: not served from the first check's cache
        assert a.label == b.label and abs(a.score - b.score) < 0.02
        assert b.claims[0].evidence[0].text.startswith(("It was completed in 1889", "The Eiffel Tower is in Paris"))


def test_only_embedding_is_narrowed_the_lexical_scope_is_the_whole_context(verifiers):
    _, pruned = verifiers
    context = [*FILLER, "Pump 7 was replaced in 2019."]
    job = pruned._prepare("Pump 7 was replaced in 2019.", context, None, None)
    assert len(job.chunks) < len(context)  # pruned
    assert len(job.sources) == len(context)  # names, numbers and records are looked up in every passage
    assert len(job.scope.sources) == len(context) and {7.0, 2019.0, 79.0} <= job.scope.numbers
    assert pruned.verify("Pump 7 was replaced in 2019.", context).label == "supported"


def test_candidates_per_claim_is_checked():
    with pytest.raises(InvalidInputError):
        LocalVerifier(candidates_per_claim=0)


def test_the_pass_is_on_by_default_from_the_documented_size():
    from halguard.grounding.verifier import DEFAULT_CANDIDATES_PER_CLAIM

    verifier = LocalVerifier()
    assert verifier.candidates_per_claim == DEFAULT_CANDIDATES_PER_CLAIM == 8
    small = verifier._prepare("Pump 7 was replaced in 2019.", FILLER[:5], None, None)
    assert len(small.chunks) == 5  # under CANDIDATE_MIN_CHUNKS: every chunk (one sentence per passage) is embedded


def test_the_verdict_records_the_answer_profile():
    from halguard.grounding.profile import answer_profile

    verifier = LocalVerifier()
    assert verifier.verify("Pump 7 was replaced in 2019.", FILLER[:3] + ["Pump 7 was replaced in 2019."]).profile == "short_summary"
    long_answer = " ".join(f"Report {i} describes pumps in sector {i}." for i in range(3))
    assert verifier.verify(long_answer, FILLER[:5], question="What do the reports say?").profile == "long_answer"
    assert answer_profile("The pump is blue.", ['{"pump": {"colour": "blue"}}']) == "records"
    assert answer_profile("The pump is blue.", ["[not json"], question="Colour?") == "short_answer"
    assert answer_profile("x", ["{" + "a" * 300_000]) == "short_summary"  # too long to parse: bounded, not a record
