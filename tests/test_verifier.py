import asyncio
import copy

import pytest

import halguard
from halguard import ClaimStatus, InputTypeError, InvalidInputError, LocalVerifier


def test_grounded_answer_is_supported(verifier, eiffel_context):
    answer = "The Eiffel Tower is 330 metres tall. It was completed in 1889."
    v = verifier.verify(answer, eiffel_context, question="How tall is the Eiffel Tower?")
    assert v.label == "supported", v.claims
    assert not v.hallucination_detected
    assert v.spans == []
    assert v.claims[0].status == ClaimStatus.SUPPORTED
    # "It was completed in 1889." matches a longer evidence sentence less closely: not flagged either way.
    assert v.claims[1].status in (ClaimStatus.SUPPORTED, ClaimStatus.WEAK_SUPPORT)
    assert all(answer[c.start : c.end] == c.text for c in v.claims)
    assert v.claims[0].evidence[0].source_id == "tower"
    ev = v.claims[0].evidence[0]
    assert eiffel_context[0][1][ev.start : ev.end] == ev.text


@pytest.mark.parametrize(
    ("answer", "bad"),
    [
        ("The Eiffel Tower is 410 metres tall.", "410"),  # changed number
        ("The Eiffel Tower was completed in 1925.", "1925"),  # changed date
        ("The tower was designed by the engineering company of Thomas Edison.", "Thomas Edison"),  # changed name
    ],
)
def test_changed_fact_is_flagged_with_its_span(verifier, eiffel_context, answer, bad):
    v = verifier.verify(answer, eiffel_context)
    assert v.label == "hallucinated"
    assert v.hallucination_detected
    assert v.score >= v.threshold
    start = answer.index(bad)
    assert [(s.start, s.end, s.text) for s in v.spans] == [(start, start + len(bad), bad)]
    assert v.claims[0].status in (ClaimStatus.CONTRADICTION, ClaimStatus.HALLUCINATION)


def _status_of(kinds: set[str]) -> ClaimStatus:
    """A flagged claim's status: CONTRADICTION where one of its finding kinds blocks (issue 44)."""
    from halguard.grounding.blocking import BLOCKING_FINDINGS

    return ClaimStatus.CONTRADICTION if kinds & BLOCKING_FINDINGS else ClaimStatus.HALLUCINATION


def test_changed_number_against_numeric_evidence_is_a_contradiction_where_that_kind_blocks(verifier, eiffel_context):
    v = verifier.verify("The Eiffel Tower is 410 metres tall.", eiffel_context)
    assert v.label == "hallucinated"
    assert v.claims[0].status == _status_of({"changed_numbers", "changed_number_in_copy"})
    assert "410" in v.claims[0].signals.missing_numbers
    assert v.claims[0].signals.changed_numbers == ["410"]


def test_negation_flip_is_caught(verifier):
    context = ["The museum is open to the public on Mondays. Tickets are sold at the entrance."]
    ok = verifier.verify("The museum is open to the public on Mondays.", context)
    flipped = verifier.verify("The museum is not open to the public on Mondays.", context)
    assert ok.label == "supported"
    assert flipped.label == "hallucinated"
    assert flipped.claims[0].status == _status_of({"negation_mismatch"})
    assert flipped.claims[0].signals.negation_mismatch is True


def test_wrong_arithmetic_is_flagged(verifier):
    context = ["The shop sold 40 units in May and 50 units in June."]
    v = verifier.verify("Sales grew from 40 to 50 units, a 20% increase.", context)
    assert v.label == "hallucinated"
    assert v.claims[0].status == _status_of({"arithmetic_errors"})
    assert any("arithmetic" in r for r in v.claims[0].reasons)
    good = verifier.verify("Sales grew from 40 to 50 units, a 25% increase.", context)
    assert good.claims[0].status != ClaimStatus.CONTRADICTION


def test_short_answer_is_verified_with_its_question(verifier):
    context = ["Arthur's Magazine (1844-1846) was an American literary periodical. First for Women was started in 1989."]
    q = "Which magazine was started first, Arthur's Magazine or First for Women?"
    right = verifier.verify("Arthur's Magazine", context, question=q)
    wrong = verifier.verify("Harper's Bazaar", context, question=q)
    assert right.label == "supported"
    assert right.claims[0].signals.question_aware is True
    assert wrong.label == "hallucinated"
    assert wrong.spans[0].text == "Harper's Bazaar"


def test_citations_map_to_sources(verifier, eiffel_context):
    answer = "The Eiffel Tower is 330 metres tall [1]. It was built by the company of Gustave Eiffel [S1]. [7]"
    v = LocalVerifier(citation_mode="lenient", embedder=verifier.embedder).verify(answer, eiffel_context)
    assert v.claims[0].cited_sources == ["tower"]
    assert v.claims[1].cited_sources == ["design"]
    assert v.claims[1].signals.unresolved_citations == ["7"]
    assert any("unknown sources: [7]" in r for r in v.claims[1].reasons)
    # the marker is not read as the number 1 or 7
    assert v.claims[0].signals.missing_numbers == []


def test_citation_of_the_wrong_source_is_reported(verifier, eiffel_context):
    lenient = LocalVerifier(citation_mode="lenient", embedder=verifier.embedder)
    v = lenient.verify("The Eiffel Tower is 330 metres tall [3].", eiffel_context)
    assert v.claims[0].cited_sources == ["visits"]
    assert any("not in the cited" in r for r in v.claims[0].reasons)
    assert v.claims[0].status == ClaimStatus.SUPPORTED and v.spans == []
    strict = verifier.verify("The Eiffel Tower is 330 metres tall [3].", eiffel_context)  # strict is the default
    assert strict.claims[0].status == ClaimStatus.WEAK_SUPPORT
    assert any("cited source [3] does not support" in r for r in strict.claims[0].reasons)


def test_skipped_sentences_are_recorded(verifier, eiffel_context):
    v = verifier.verify("Here is what I found:\nThe Eiffel Tower is 330 metres tall.\nI hope this helps!", eiffel_context)
    assert len(v.claims) == 1
    assert [s.reason for s in v.skipped] == ["list introduction", "hedge or filler"]


def test_batch_matches_single_calls(verifier, eiffel_context):
    answers = ["The Eiffel Tower is 330 metres tall.", "The Eiffel Tower is 410 metres tall.", ""]
    batch = verifier.verify_batch(answers, [eiffel_context] * 3, questions=[None, None, None])
    single = [verifier.verify(a, eiffel_context) for a in answers]
    assert [b.label for b in batch] == [s.label for s in single] == ["supported", "hallucinated", "unverified"]
    assert [b.score for b in batch] == [s.score for s in single]


def test_batch_validates_lengths(verifier):
    with pytest.raises(InvalidInputError):
        verifier.verify_batch(["a", "b"], [["c"]])
    with pytest.raises(InputTypeError):
        verifier.verify_batch("a single string", ["c"])


async def test_averify_mirrors_verify(verifier, eiffel_context):
    answer = "The Eiffel Tower is 410 metres tall."
    sync = verifier.verify(answer, eiffel_context)
    a, b = await asyncio.gather(
        verifier.averify(answer, eiffel_context), verifier.averify("The tower is 330 metres tall.", eiffel_context)
    )
    assert a.label == sync.label and a.score == sync.score
    assert b.label == "supported"
    batch = await verifier.averify_batch([answer], [eiffel_context])
    assert batch[0].score == sync.score


def test_module_level_verify_and_averify(eiffel_context):
    v = halguard.verify("The Eiffel Tower is 330 metres tall.", eiffel_context)
    assert v.label == "supported"
    assert v.detector == "local:all-MiniLM-L6-v2"
    strict = halguard.verify("The Eiffel Tower is 330 metres tall.", eiffel_context, threshold=0.2, weak_threshold=0.1)
    assert strict.threshold == 0.2
    av = asyncio.run(halguard.averify("The Eiffel Tower is 410 metres tall.", eiffel_context))
    assert av.label == "hallucinated"
    with pytest.raises(InvalidInputError):
        halguard.verify("x", ["y"], detector=LocalVerifier(), threshold=0.3)


def test_usage_and_latency_are_reported(verifier):
    v = verifier.verify("A fresh claim about zebras 4471.", ["Zebras live in Africa 4471."])
    assert v.usage.embedded_texts + v.usage.cached_texts >= 2
    assert v.latency_ms > 0


# -- bad input -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "contexts", "code"),
    [
        ("", ["ctx"], "empty_answer"),
        ("   \n\t ", ["ctx"], "empty_answer"),
        ("The tower is tall.", [], "no_context"),
        ("The tower is tall.", None, "no_context"),
        ("The tower is tall.", ["   ", ""], "no_context"),
        ("I hope this helps!", ["ctx"], "no_checkable_claims"),
        ("\x00\x01\x02binary\x03\x04" * 20, ["ctx"], "not_text"),
        ("東京タワーの高さは333メートルです。1958年に完成しました。", ["東京タワーは333メートル。"], "unsupported_language"),
    ],
)
def test_unchecked_input_is_unverified_never_supported(verifier, answer, contexts, code):
    v = verifier.verify(answer, contexts)
    assert v.label == "unverified"
    assert v.score is None
    assert not v.hallucination_detected
    assert v.errors[0].code == code
    assert v.errors[0].message


@pytest.mark.parametrize(
    ("answer", "contexts", "message"),
    [(None, ["c"], "answer must be a str, got NoneType"), (42, ["c"], "answer must be a str, got int"),
     (b"bytes", ["c"], "answer must be a str, got bytes"), ("a", [1, 2], "context item 0 is int; expected a str")],
)
def test_wrong_types_raise_type_errors(verifier, answer, contexts, message):
    with pytest.raises(InputTypeError, match=f"^{message}"):  # names the argument and the type it got
        verifier.verify(answer, contexts)


def test_wrong_question_type(verifier):
    with pytest.raises(InputTypeError):
        verifier.verify("a fact", ["ctx"], question=["not", "a", "str"])


def test_ten_megabyte_answer_is_unverified_not_truncated(verifier):
    huge = "The tower is tall. " * (10_000_000 // 19)
    v = verifier.verify(huge, ["The tower is tall."])
    assert v.label == "unverified"
    assert v.errors[0].code == "answer_too_long"
    assert v.latency_ms < 5_000


def test_oversized_context_is_unverified_not_truncated():
    v = LocalVerifier(max_context_chars=100).verify("The tower is tall.", ["x" * 60, "y" * 60])
    assert v.label == "unverified"
    assert v.errors[0].code == "context_too_large"


def test_ten_thousand_contexts_are_all_searched(verifier):
    filler = [f"Filler passage about topic {i % 50} in the archive." for i in range(9_999)]
    contexts = [*filler, ("needle", "The lighthouse on Vardø island was built in 1896.")]
    v = verifier.verify("The lighthouse on Vardø island was built in 1896.", contexts)
    assert v.label == "supported"
    assert v.claims[0].evidence[0].source_id == "needle"


def test_callers_objects_are_not_mutated(verifier, eiffel_context):
    contexts = [list(pair) for pair in eiffel_context]
    contexts = [tuple(c) for c in contexts]
    before = copy.deepcopy(contexts)
    verifier.verify("The Eiffel Tower is 410 metres tall.", contexts, question="How tall?")
    assert contexts == before


def test_invalid_options_raise_value_errors():
    with pytest.raises(InvalidInputError, match="weak_threshold <= threshold"):
        LocalVerifier(threshold=0.2, weak_threshold=0.5)
    with pytest.raises(InvalidInputError, match="top_k must be a positive int, got 0"):
        LocalVerifier(top_k=0)
    with pytest.raises(InvalidInputError, match="max_chunk_chars must be at least 50, got 10"):
        LocalVerifier(max_chunk_chars=10)


def test_unsupported_words_are_marked_as_phrases_not_whole_sentences(verifier, eiffel_context):
    answer = "The Eiffel Tower is 330 metres tall, and it is painted bright purple every spring."
    v = verifier.verify(answer, eiffel_context)
    assert v.hallucination_detected
    phrases = [s for s in v.spans if s.reason == "words not in the context"]
    assert len(phrases) == 1, v.spans
    assert "painted bright purple" in phrases[0].text
    assert answer[phrases[0].start : phrases[0].end] == phrases[0].text
    assert all("Eiffel" not in s.text and "330" not in s.text for s in v.spans)


def test_punctuation_ends_an_unsupported_phrase(verifier, eiffel_context):
    answer = "The Eiffel Tower, painted purple; glowing turquoise, is 330 metres tall."
    v = verifier.verify(answer, eiffel_context)
    texts = [s.text for s in v.spans if s.reason == "words not in the context"]
    assert v.hallucination_detected and len(texts) >= 2, v.spans
    assert not any(";" in t or "," in t for t in texts)
