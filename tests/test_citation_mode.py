"""citation_mode: a claim backed by another source than the one it cites is not plainly SUPPORTED."""

import pytest

import halguard
from halguard import ClaimStatus, InvalidInputError, LocalVerifier

CONTEXT = [
    ("tower", "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair."),
    ("louvre", "The Louvre is the most visited museum in the world, with about 9 million visitors a year."),
]


@pytest.fixture
def lenient(verifier):
    return LocalVerifier(citation_mode="lenient", embedder=verifier.embedder)


def test_citing_the_wrong_source_is_weak_support_with_a_span_on_the_marker(verifier):
    answer = "The Eiffel Tower was completed in 1889 [2]."
    v = verifier.verify(answer, CONTEXT)
    claim = v.claims[0]
    assert claim.status == ClaimStatus.WEAK_SUPPORT
    assert claim.score >= verifier.weak_threshold and v.label == "supported"  # another source does support it
    assert claim.signals.miscited is True
    (span,) = v.spans
    assert (span.text, answer[span.start : span.end]) == ("[2]", "[2]")
    assert "cited source [2] does not support" in span.reason and "tower" in span.reason


@pytest.mark.parametrize("marker", ["[1]", "[S0]", "[tower]"])
def test_the_right_citation_stays_supported(verifier, marker):
    v = verifier.verify(f"The Eiffel Tower was completed in 1889 {marker}.", CONTEXT)
    assert v.claims[0].status == ClaimStatus.SUPPORTED
    assert v.spans == [] and v.claims[0].signals.miscited is False


def test_a_citation_naming_no_source_is_weak_support(verifier):
    v = verifier.verify("The Eiffel Tower was completed in 1889 [7].", CONTEXT)
    assert v.claims[0].status == ClaimStatus.WEAK_SUPPORT
    assert v.spans[0].text == "[7]" and "names none of the 2 sources" in v.spans[0].reason


def test_a_claim_no_source_supports_is_flagged_as_before(verifier, lenient):
    answer = "The Eiffel Tower was completed in 1925 [2]."
    strict_v, lenient_v = verifier.verify(answer, CONTEXT), lenient.verify(answer, CONTEXT)
    assert strict_v.label == lenient_v.label == "hallucinated"
    assert strict_v.claims[0].status == lenient_v.claims[0].status == ClaimStatus.CONTRADICTION
    assert strict_v.score == lenient_v.score


def test_lenient_only_notes_the_wrong_citation(lenient):
    v = lenient.verify("The Eiffel Tower was completed in 1889 [2].", CONTEXT)
    assert v.claims[0].status == ClaimStatus.SUPPORTED and v.spans == []
    assert any("not in the cited ['louvre']" in r for r in v.claims[0].reasons)


def test_answers_without_citations_are_checked_the_same_in_both_modes(verifier, lenient):
    answer = "The Eiffel Tower was completed in 1889. The Louvre has about 9 million visitors a year."
    assert verifier.verify(answer, CONTEXT).model_dump(exclude={"latency_ms", "usage"}) == lenient.verify(
        answer, CONTEXT
    ).model_dump(exclude={"latency_ms", "usage"})


def test_one_wrong_citation_in_a_longer_answer(verifier):
    answer = "The Eiffel Tower is 330 metres tall [1]. The Louvre has about 9 million visitors a year [1]."
    v = verifier.verify(answer, CONTEXT)
    assert [c.status for c in v.claims] == [ClaimStatus.SUPPORTED, ClaimStatus.WEAK_SUPPORT]
    assert [s.text for s in v.spans] == ["[1]"] and v.spans[0].start > len("The Eiffel Tower is 330 metres tall [1].")


def test_option_is_validated_and_passes_through_verify():
    with pytest.raises(InvalidInputError):
        LocalVerifier(citation_mode="loose")
    v = halguard.verify("The Eiffel Tower was completed in 1889 [2].", CONTEXT, citation_mode="lenient")
    assert v.claims[0].status == ClaimStatus.SUPPORTED
