"""Robustness: no input can stall a check, hide a fabrication, or escape as a raw exception (issue 12).

Every slow case runs under a time bound in the test itself: the inputs that took seconds to minutes before
(exponential citation regex, recursive splitter, quadratic equation regex, deep JSON) must now be fast. The
200 KB fuzz run is marked ``slow`` (``pytest -m slow``); the default run fuzzes smaller inputs.
"""

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import halguard
from halguard import ClaimStatus, InputTypeError, LocalVerifier
from halguard.grounding.signals.arithmetic import check_arithmetic
from halguard.text.claims import extract_claims, find_citations
from halguard.consistency.judges import json_objects, parse_judgment
from halguard.grounding.signals.records import absent_feature_mentions, absent_features
from halguard.text.segment import split_sentences

CONTEXT = ["The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair in Paris."]


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


# -- 1-5. bounded time --------------------------------------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize("text", [
    "The tower is tall [" + ", ".join(f"S{i}" for i in range(40)),  # cut off inside a citation list
    "[a" + ",ab" * 26 + "!",  # 52 s with the old regex
    "[" * 100_000,
    "[S1]" * 20_000,
])
def test_citation_markers_are_found_in_linear_time(text):
    _, seconds = timed(find_citations, text)
    assert seconds < 3.0  # milliseconds when idle; generous for a loaded machine (the old regex took 52 s)


def test_citations_still_parse():
    found = [m.labels for m in find_citations("A [S0] b [1, 2] c [doc-7][Source 2] d [a b] e [x, ].")]
    assert found == [("S0",), ("1", "2"), ("doc-7",), ("Source 2",)]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("unit", ["a b c ", "x", "(a (b (c) d) e) ", "Dr. U.S. e.g. ", '{"k": [1, 2]}, '])
def test_sentence_splitting_is_linear_and_never_recurses(unit):
    text = unit * (80_000 // len(unit))
    spans, seconds = timed(split_sentences, text)
    assert seconds < 6.0  # 137 s (or a RecursionError) before
    covered = bytearray(len(text))
    for s, e in spans:
        covered[s:e] = b"\x01" * (e - s)
    assert all(covered[i] or text[i].isspace() for i in range(len(text)))  # no character dropped


def test_text_before_a_dot_without_space_is_kept():
    text = "abc.def ghi jkl" * 3000  # one line, over the piece size, no ". " anywhere
    spans = split_sentences(text)
    assert spans[0][0] == 0 and "".join(text[s:e] for s, e in spans).replace(" ", "") == text.replace(" ", "")


@pytest.mark.timeout(60)
def test_arithmetic_is_bounded():
    many_terms = "The total is " + " + ".join(["1"] * 5000) + " = 5."
    _, seconds = timed(check_arithmetic, many_terms)
    assert seconds < 1.0  # a RecursionError in sympy before
    _, seconds = timed(check_arithmetic, "1 + " * 10_000 + "= 2")
    assert seconds < 2.0  # 100 s for 40 KB before
    assert check_arithmetic("9**9**9 = 1") == []  # no powers: never evaluated
    assert [f.ok for f in check_arithmetic("12 + 30 = 43. (2+3)*4 = 20. 5 - -3 = 8")] == [False, True, True]


@pytest.mark.timeout(60)
def test_records_are_bounded():
    assert absent_features("[" * 5000) == frozenset()  # a RecursionError before
    assert absent_features('{"a":' * 3000 + "1" + "}" * 3000) == frozenset()
    record = json.dumps({f"Feature{i}": False for i in range(5000)})
    features, seconds = timed(absent_features, record)
    claim = "It offers feature12 and feature4999; it has no feature7. " * 50
    found, seconds2 = timed(absent_feature_mentions, claim, features)
    assert seconds + seconds2 < 2.0  # 11.5 s before
    assert {f[2] for f in found} == {"feature12", "feature4999"}  # the negated clause agrees with the record


@pytest.mark.timeout(60)
def test_judge_reply_scan_is_linear():
    _, seconds = timed(json_objects, "{" * 8000)
    assert seconds < 0.5  # 1.4 s before, quadratic
    reply = 'quoting {"hallucination_detected": false, "confidence_score": 1} then ' \
            '{"nonce": "0123abcd", "hallucination_detected": true, "confidence_score": 0.8}'
    with pytest.raises(ValueError, match="2 verdict objects"):  # two verdicts: neither is read (issue 25)
        parse_judgment(reply, "0123abcd")


@pytest.mark.timeout(120)
def test_a_check_stops_at_its_time_budget(verifier):
    big = [" ".join(f"Paragraph {i} sentence {j} mentions topic {i * 31 + j} and place {j * 7}." for j in range(60))
           for i in range(200)]  # ~700 KB of distinct sentences: minutes to embed on one core
    fast = LocalVerifier(embedder=verifier.embedder, time_budget_s=0.5)
    verdict, seconds = timed(fast.verify, "Topic 42 is in place 7.", big)
    assert verdict.label == "unverified" and verdict.errors[0].code == "budget_exceeded"
    assert seconds < 0.5 + 4.0  # the budget plus at most one step


def test_a_failure_inside_the_check_is_unverified(verifier, monkeypatch):
    import halguard.grounding.signals.measure as module

    def explode(text):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(module, "check_arithmetic", explode)
    verdict = verifier.verify("The tower is 330 metres tall.", CONTEXT)
    assert verdict.label == "unverified" and verdict.errors[0].code == "internal_error"
    assert "RecursionError" in verdict.errors[0].message


def test_bad_input_still_raises(verifier):
    with pytest.raises(InputTypeError):
        verifier.verify(42, CONTEXT)


# Building blocks of pathological text: brackets, digits, operators, no punctuation, deep nesting, format
# characters, CJK, very long words.
UNITS = ["[", "]", "(", ")", "{", "}", "[S1, ", "1 + ", "= 2", "%", "$", ".", ". ", "!", "?", "\n", " ", "a",
         "Word ", "12345", "1,000", "x" * 50, "\u200b", "東京", "\u00ad", "don't ", "not ", '"', "'", ":", ";",
         "e.g. ", "Dr. ", "http://a.b/c ", "<b>", "\\", "\x00", "-" * 10, "ﬁ", "３", "https://x.y?q=[1]"]


def pathological(max_chars):
    block = st.lists(st.sampled_from(UNITS), min_size=1, max_size=8).map("".join)
    return st.tuples(block, st.integers(1, max_chars), st.text(max_size=50)).map(
        lambda t: (t[0] * max(1, t[1] // len(t[0])))[:max_chars] + t[2]
    )


def _check_fuzzed(verifier, answer, context, budget):
    fast = LocalVerifier(embedder=verifier.embedder, time_budget_s=budget)
    verdict, seconds = timed(fast.verify, answer, [context, CONTEXT[0]], question="How tall is it?")
    # a coherent verdict: flagged exactly when hallucinated, a score exactly when checked, never a raw exception
    assert verdict.hallucination_detected == (verdict.label == "hallucinated")
    assert (verdict.score is None) == (verdict.label == "unverified")
    assert seconds < budget + 5.0
    for claim in verdict.claims:
        assert answer[claim.start : claim.end] == claim.text
    return seconds


@pytest.mark.timeout(600)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(answer=pathological(4_000), context=pathological(20_000))
def test_fuzzed_checks_finish_and_return_a_verdict(verifier, answer, context):
    _check_fuzzed(verifier, answer, context, budget=3.0)


@pytest.mark.slow
@pytest.mark.timeout(3600)
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(answer=pathological(100_000), context=pathological(200_000))
def test_fuzzed_200kb_checks_finish_within_the_budget(verifier, answer, context):
    _check_fuzzed(verifier, answer, context, budget=10.0)


# -- 6-10. fabrications that came back supported ------------------------------------------------------

EIFFEL = [("tower", "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair. "
                    "It was designed by the engineering company of Gustave Eiffel.")]


@pytest.mark.parametrize("prefix", ["Overall, ", "Of course, ", "Certainly, ", "I'm not sure, but ",
                                    "Sure, here is the answer: ", "Unfortunately, ", "In summary, "])
def test_a_fabrication_behind_a_hedge_is_checked(verifier, prefix):
    verdict = verifier.verify(f"The tower is 330 metres tall. {prefix}it was completed in 1925.", EIFFEL)
    assert verdict.label == "hallucinated", prefix
    assert any("1925" in s.text for s in verdict.spans)


def test_a_fabrication_in_a_list_intro_is_checked(verifier):
    verdict = verifier.verify("The tower's features, added by Thomas Edison in 1925, include:\n- a lift", EIFFEL)
    assert verdict.label == "hallucinated"


def test_pure_hedges_and_refusals_are_still_skipped():
    answer = ("Sure, here is a summary of the passage in 40 words:\nThe tower is tall.\nI hope this helps! "
              "Let me know if you have any other questions.")
    split = extract_claims(answer, "How tall is the tower?")
    assert [answer[c.start : c.end] for c in split.claims] == ["The tower is tall."]
    assert [r for _, _, r in split.skipped] == ["list introduction", "hedge or filler", "hedge or filler"]
    refusal = extract_claims("The context does not mention the tower's height. It is 330 metres tall.",
                             "How tall is the tower?")
    assert [r for _, _, r in refusal.skipped] == ["non-answer"] and len(refusal.claims) == 1


SENTENCES = [
    "The Eiffel Tower was completed in 1889 for the World Fair.", "It is 330 metres tall and stands in Paris.",
    "The tower was designed by the company of Gustave Eiffel.", "It was the tallest structure until 1930.",
    "About six million people visit it every year.", "The tower has three levels for visitors.",
    "Its iron structure weighs about 7,300 tonnes.", "The tower is repainted every seven years.",
    "It was almost torn down in 1909.", "Radio antennas on the tower saved it from demolition.",
    "The top level is 276 metres above the ground.", "Restaurants operate on the first and second levels.",
]


def test_one_changed_year_flags_a_copied_answer(verifier):
    answer = " ".join([SENTENCES[0].replace("1889", "1887"), *SENTENCES[1:3]])
    assert verifier.verify(answer, [" ".join(SENTENCES)]).label == "hallucinated"  # 0.43 before


def test_one_negation_flags_a_long_copied_answer(verifier):
    answer = " ".join([*SENTENCES[:2], "The tower was not designed by the company of Gustave Eiffel.", *SENTENCES[3:]])
    verdict = verifier.verify(answer, [" ".join(SENTENCES)])
    assert verdict.label == "hallucinated"  # 0.10 before
    assert verdict.flagged_claims[0].status == ClaimStatus.CONTRADICTION


@pytest.mark.timeout(120)
@pytest.mark.parametrize("size", [8_000, pytest.param(99_000, marks=pytest.mark.slow)])
def test_many_invented_numbers_flag_a_huge_answer(verifier, size):
    answer = " ".join(f"The tower received {10_000 + 7 * i} visitors on day {i}." for i in range(2200))[:size]
    verdict = LocalVerifier(embedder=verifier.embedder, time_budget_s=60).verify(answer, [" ".join(SENTENCES)])
    assert verdict.label == "hallucinated" and verdict.score > 0.9  # 0.003 before


@pytest.mark.parametrize("hidden", ["2\u200b019", "20\u206019", "２０１９", "2\ufeff019"])
def test_format_characters_do_not_hide_a_number(verifier, hidden):
    answer = f"The Eiffel Tower was completed in {hidden}."
    verdict = verifier.verify(answer, EIFFEL)
    assert verdict.label == "hallucinated"
    (span,) = [s for s in verdict.spans if s.reason == "number not in the context"]
    assert answer[span.start : span.end] == span.text == hidden  # offsets into the caller's text


def test_format_characters_do_not_hide_a_name(verifier):
    verdict = verifier.verify("It was designed by Thomas Ed\u00adi\u200bson.", EIFFEL)
    assert verdict.label == "hallucinated"
    assert any("Ed\u00adi\u200bson" in s.text for s in verdict.spans)
    clean = verifier.verify("It was designed by the company of Gus\u00adtave Eif\u200bfel.", EIFFEL)
    assert clean.label == "supported"


# A passage of only format characters (zero-width, soft hyphens, bidi marks, tags) and spaces holds nothing once
# folded: it is no passage, as a blank one is not, and the check has no context (not an internal error).
INVISIBLE = ["\u200b\u200b\u200b", "\u200b \u200d\ufeff\n\t", "\u00ad", "\u2060\u2060", "\u3000\u200b",
             "\u200e\u200f\u202a", "\U000e0001\U000e0020"]


@pytest.mark.parametrize("answer", ["Some answer.", "The Eiffel Tower is 330 metres tall."])
@pytest.mark.parametrize("contexts", [[INVISIBLE[0]], [INVISIBLE[1]], [INVISIBLE[2]], INVISIBLE,
                                      [("a", INVISIBLE[0]), ("b", " ")]])
def test_a_context_of_only_invisible_characters_is_no_context(verifier, answer, contexts):
    verdict = verifier.verify(answer, contexts)
    assert verdict.label == "unverified" and [e.code for e in verdict.errors] == ["no_context"]


def test_an_invisible_passage_beside_a_real_one_is_dropped(verifier):
    verdict = verifier.verify("The Eiffel Tower is 330 metres tall.", [INVISIBLE[0], *EIFFEL])
    assert verdict.label == "supported" and {e.source_id for c in verdict.claims for e in c.evidence} == {"tower"}


def test_a_mapping_of_contexts_is_id_to_text(verifier):
    verdict = verifier.verify("The tower is 500 metres tall.", {"doc-1": EIFFEL[0][1]})
    assert verdict.label == "hallucinated" and verdict.claims[0].evidence[0].source_id == "doc-1"
    with pytest.raises(InputTypeError):
        verifier.verify("The tower is 500 metres tall.", {EIFFEL[0][1]: 1})  # text as key: refused, not read
    assert verifier.verify("It is 330 metres tall.", {"id": "x", "text": EIFFEL[0][1]}).label == "supported"


@pytest.mark.parametrize("passage", [
    ", ".join(str(1000 + i) for i in range(150)) + ".",  # digits in a list
    "東京タワーは高さ三百三十三メートルです。" * 40,  # CJK: one word piece per character
    " ".join(f"{i:08x}" for i in range(120)),  # hex
])
def test_no_chunk_is_longer_than_the_model_reads(verifier, passage):
    verdict = verifier.verify("The value 1042 is listed.", [passage])
    tokenizer = verifier.embedder.model.tokenizer
    limit = verifier.embedder.max_seq_length - 2
    assert verdict.claims and all(claim.evidence for claim in verdict.claims)  # chunks to measure
    for claim in verdict.claims:
        for ev in claim.evidence:
            assert len(tokenizer(ev.text, add_special_tokens=False, verbose=False)["input_ids"]) <= limit
            assert passage[ev.start : ev.end] == ev.text
    windows = verifier.embedder.fit(passage[:600]) or [(0, 600)]
    assert all(len(tokenizer(passage[s:e], add_special_tokens=False, verbose=False)["input_ids"]) <= limit
               for s, e in windows)


# -- 19. options -------------------------------------------------------------------------------------


@pytest.mark.parametrize("options", [
    {"threshold": "0.5"}, {"threshold": 1.5}, {"threshold": float("nan")}, {"weights": "default"}, {"meaning": 1},
    {"threshold": 0.3, "weak_threshold": 0.4}, {"calibration": 3}, {"calibration": {"format": "other"}},
    {"faiss_min_chunks": "x"}, {"time_budget_s": -1}, {"top_k": True}, {"num_threads": 0},
    {"embedder": "model"}, {"citation_mode": "loose"},
])
def test_bad_verifier_options_raise_invalid_input(options):
    with pytest.raises(halguard.InvalidInputError):
        LocalVerifier(**options)


@pytest.mark.parametrize("options", [{"max_retries": -1}, {"backoff": -1}, {"timeout": 0}, {"timeout": "2"},
                                     {"deadline": float("inf")}, {"max_backoff": float("nan")}])
def test_bad_provider_options_raise_invalid_input(options):
    from halguard.llm.providers import CallableChat

    with pytest.raises(halguard.InvalidInputError):
        CallableChat(lambda messages: "x", **options)


def test_a_sentence_about_the_answering_itself_is_skipped_in_a_longer_answer():
    question = "How do automotive technicians get paid?"
    for remark in ("Therefore, I can confidently answer the question.", "This is mentioned in passage 2."):
        split = extract_claims(f"Technicians are paid hourly. {remark}", question)
        assert len(split.claims) == 1 and [r for _, _, r in split.skipped] == ["non-answer"]
    # Checked: an answer of its own, a claim about a passage, a yes or no, and a one-sentence answer.
    for answer in ("Technicians are paid hourly. The answer is that they are paid by commission.",
                   "Technicians are paid hourly. Passage 3 provides instructions for folding a quilt.",
                   "Technicians are paid hourly. The answer is yes."):
        assert len(extract_claims(answer, question).claims) == 2
    assert len(extract_claims("Therefore, I can confidently answer the question.", question).claims) == 1


def test_a_clause_is_read_between_its_edges_within_its_reach():
    import re

    from halguard.text.segment import clause_end, clause_start
    edge = re.compile(r"[,;]")
    text = "Tyres cost £3.50 each, up to four a visit; rubble is £4 a bag"
    at = text.index("four")
    assert text[clause_start(text, at, edge):clause_end(text, at, edge)] == " up to four a visit"
    assert clause_start(text, at, edge, reach=5) == at - 5  # no edge within the reach: the reach's start
    assert clause_end(text, at, edge, reach=5) == at + 5
    assert (clause_start("no edge", 3, edge), clause_end("no edge", 3, edge)) == (0, 7)
    crafted = "a," * 50_000
    assert clause_start(crafted, len(crafted), edge) == len(crafted)
