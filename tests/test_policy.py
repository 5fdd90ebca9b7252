import pytest

from halguard import ClaimStatus, ClaimVerdict, HallucinationError, InvalidInputError, UnverifiedError, Verdict
from halguard.policy import DEFAULT_FALLBACK, decide, filter_answer, replacement_text

ANSWER = "The tower is 330 m tall. It was built in 1925. It is in Paris."


def _verdict(label="hallucinated"):
    spans = [(0, 24, ClaimStatus.SUPPORTED), (25, 46, ClaimStatus.CONTRADICTION), (47, 62, ClaimStatus.WEAK_SUPPORT)]
    claims = [ClaimVerdict(text=ANSWER[s:e], start=s, end=e, status=st, score=0.9 if st == ClaimStatus.CONTRADICTION
                           else 0.2) for s, e, st in spans]
    if label == "unverified":
        return Verdict.unverified("no_context", "nothing retrieved", detector="t", threshold=0.5)
    return Verdict(label=label, hallucination_detected=label == "hallucinated", score=0.9, threshold=0.5,
                   claims=claims, detector="t")


def test_filter_answer_removes_flagged_claims():
    text, removed = filter_answer(ANSWER, _verdict())
    assert text == "The tower is 330 m tall. It is in Paris."
    assert [r.text for r in removed] == ["It was built in 1925."]


def test_annotate_passes_and_records_the_action():
    v = _verdict()
    d = decide(v, ANSWER)
    assert d.action == "pass" and d.verdict.action.action == "annotate"
    assert v.action is None  # the input verdict is not changed


def test_raise_carries_the_verdict():
    with pytest.raises(HallucinationError) as info:
        decide(_verdict(), ANSWER, on_hallucination="raise")
    assert info.value.verdict.action.action == "raise"
    assert [c.text for c in info.value.verdict.flagged_claims] == ["It was built in 1925."]  # the detail, on the object
    # the message (which logs and traces record) says what happened without quoting the answer
    assert str(info.value) == ("halguard flagged the answer as hallucinated (risk 0.90; 1 of 3 claims unsupported "
                               "(claims [1])); the flagged claims are on exc.verdict")


def test_supported_is_never_acted_on():
    for policy in ("raise", "fallback", "filter"):
        assert decide(_verdict("supported"), ANSWER, on_hallucination=policy).action == "pass"


def test_fallback_and_filter():
    d = decide(_verdict(), ANSWER, on_hallucination="fallback")
    assert d.action == "fallback" and replacement_text(d, None) == DEFAULT_FALLBACK
    assert replacement_text(d, "Sorry.") == "Sorry."
    f = decide(_verdict(), ANSWER, on_hallucination="filter")
    assert f.answer == "The tower is 330 m tall. It is in Paris."
    assert f.verdict.action.filtered_answer == f.answer


def test_unverified_open_and_closed():
    assert decide(_verdict("unverified"), ANSWER, on_hallucination="raise").action == "pass"
    for policy in ("raise", "filter"):
        with pytest.raises(UnverifiedError, match=r"\(not checked: no_context\)") as info:
            decide(_verdict("unverified"), ANSWER, on_hallucination=policy, on_unverified="fail_closed")
        assert "nothing retrieved" not in str(info.value)  # an error message may quote the input: codes only
        assert info.value.verdict.errors[0].message == "nothing retrieved"
    fb = decide(_verdict("unverified"), ANSWER, on_hallucination="fallback", on_unverified="fail_closed")
    assert fb.action == "fallback"


def test_unknown_policies():
    with pytest.raises(InvalidInputError, match="on_hallucination must be one of .*, got 'shout'"):
        decide(_verdict(), ANSWER, on_hallucination="shout")
    with pytest.raises(InvalidInputError, match="on_unverified must be one of .*, got 'maybe'"):
        decide(_verdict(), ANSWER, on_unverified="maybe")


def test_filter_with_nothing_left_falls_back():
    v = _verdict()
    for c in v.claims:
        c.status = ClaimStatus.HALLUCINATION
    d = decide(v, ANSWER, on_hallucination="filter")
    assert d.answer == ""
    assert replacement_text(d, None) == DEFAULT_FALLBACK
    assert replacement_text(d, "Nothing reliable.") == "Nothing reliable."
