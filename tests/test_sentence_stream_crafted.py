"""Crafted streams through the core SentenceGate: nothing unchecked or flagged goes out, whatever the chunking.

Run-ons past the release cut, whole answers in one chunk, fullwidth and zero-width sentence ends, abbreviations,
lists and character-by-character streams; every policy's final verdict agrees with what was sent.
"""

from __future__ import annotations

import pytest

from halguard.guard import GuardCore, GuardRequest, sentences
from halguard.guard.sentences import MAX_PENDING_CHARS, PREFIX_CHECK_MAX_CHARS, SentenceGate
from halguard.policy import DEFAULT_FALLBACK
from tests.jwst import BAD, CONTEXTS, GOOD, KEPT

QUESTION = "Tell me about JWST."
FABRICATION = "Falcon Heavy"


def gate(verifier, policy="filter", **options):
    return SentenceGate(GuardCore(verifier, on_hallucination=policy, **options), GuardRequest(QUESTION, "", CONTEXTS))


def stream(g, chunks):
    out = [r for chunk in chunks for r in g.feed(chunk)]
    rest, outcome = g.close()
    return out + rest, outcome


def sent_text(released):
    return "".join(r.text for r in released)


def chunked(text, size):
    return [text[i:i + size] for i in range(0, len(text), size)]


def run_on(fact: str) -> str:
    """One sentence of well over MAX_PENDING_CHARS: grounded clauses, then ``fact`` straddling the cut."""
    clauses = ", and as the mission team noted, Webb's primary mirror is 6.5 metres across" * 14
    return f"JWST was launched on 25 December 2021{clauses}, and {fact}."


def assert_agrees(released, outcome):
    """The final verdict's action matches what was sent: every flagged claim was acted on where it was flagged (a
    piece of it dropped or replaced; a claim cut across pieces may have sent its grounded start)."""
    out = sent_text(released)
    verdict = outcome.verdict
    for claim in verdict.flagged_claims:
        acted = [r for r in released if r.status in ("dropped", "fallback") and r.start < claim.end
                 and claim.start < r.end]
        if verdict.action.action in ("filter", "fallback"):
            assert acted, (claim.text, verdict.action.action)
    if verdict.action.action == "annotate":
        assert verdict.label != "hallucinated" or any(r.status == "flagged" for r in released)
    assert FABRICATION not in out or verdict.action.action == "annotate"


@pytest.mark.parametrize("size", [1, 7, 64, 5000])
def test_a_run_on_sentence_past_the_cut_never_leaks_its_fabrication(verifier, size):
    text = run_on("it was launched on a Falcon Heavy rocket in 2019")
    assert len(text) > MAX_PENDING_CHARS
    released, outcome = stream(gate(verifier), chunked(text, size))
    assert FABRICATION not in sent_text(released)
    assert outcome.verdict.label == "hallucinated"
    assert_agrees(released, outcome)


def test_a_whole_answer_in_one_chunk_is_split_into_its_sentences(verifier):
    grounded = [GOOD, KEPT, "Webb's primary mirror is made of 18 hexagonal segments."] * 6
    text = " ".join([*grounded[:9], BAD, *grounded[9:]])
    assert len(text) > MAX_PENDING_CHARS
    released, outcome = stream(gate(verifier), [text])
    dropped = [r for r in released if r.status == "dropped"]
    assert [text[r.start:r.end].strip() for r in dropped] == [BAD]  # one sentence, not 1,000 characters of them
    assert sent_text(released).count("hexagonal") == 6
    assert outcome.verdict.action.action == "filter"
    assert_agrees(released, outcome)


@pytest.mark.parametrize("end", ["\u3002", "\uff0e", ".\u200b", "!\u200b\u200b", ".\u00a0", ".\u200b\u200b\u200b"])
def test_unusual_sentence_ends_do_not_let_a_fabrication_through(verifier, end):
    text = f"{KEPT[:-1]}{end} {BAD[:-1]}{end} {GOOD}"
    for size in (1, 5, len(text)):
        released, outcome = stream(gate(verifier), chunked(text, size))
        assert FABRICATION not in sent_text(released)
        assert_agrees(released, outcome)


def test_abbreviations_and_lists(verifier):
    text = (f"Facts (approx.) about JWST, cf. NASA:\n- {KEPT}\n- {BAD}\n- {GOOD}\n"
            "1. Webb's primary mirror is made of 18 hexagonal segments.\n2. JWST was launched from Kourou.")
    for size in (1, 3, 40, len(text)):
        released, outcome = stream(gate(verifier), chunked(text, size))
        out = sent_text(released)
        assert FABRICATION not in out and "hexagonal" in out and "Kourou" in out
        assert_agrees(released, outcome)


@pytest.mark.parametrize("policy", ["annotate", "filter", "fallback"])
def test_every_policys_verdict_matches_what_was_sent(verifier, policy):
    text = " ".join([KEPT, BAD, GOOD, run_on("it was launched on a Falcon Heavy rocket in 2019")])
    released, outcome = stream(gate(verifier, policy), chunked(text, 11))
    assert outcome.verdict.label == "hallucinated"
    assert_agrees(released, outcome)
    if policy == "fallback":
        assert released[-1].status == "fallback" and released[-1].text == DEFAULT_FALLBACK


def test_filter_with_every_sentence_flagged_sends_the_fallback_message(verifier):
    text = f"{BAD} The mirror is 9 metres across and made of gold bricks."
    released, outcome = stream(gate(verifier, "filter"), chunked(text, 4))
    assert sent_text(released).strip() == DEFAULT_FALLBACK  # what invoke() returns, not ''
    assert outcome.verdict.action.action == "filter" and outcome.text == DEFAULT_FALLBACK


def test_a_long_answer_is_checked_in_full_each_sentence_once(verifier, monkeypatch):
    facts = [f"Station {i} recorded {100 + i} millimetres of rain in {1950 + i}." for i in range(40)]
    contexts = [(f"s{i}", fact) for i, fact in enumerate(facts)]
    answer = [facts[i % 40] for i in range(300)]
    answer[250] = "Station 7 recorded 999 millimetres of rain in 1957."
    text = " ".join(answer)
    assert len(text) > 3 * PREFIX_CHECK_MAX_CHARS
    # The time budget is the benchmark's to measure (bench_sentence_stream.py --long): here, on a shared machine,
    # what is tested is that every sentence is checked and that each check's work stays bounded.
    monkeypatch.setattr(sentences, "STREAM_CHECK_BUDGET_S", 120.0)
    calls = []
    verify = verifier.verify
    monkeypatch.setattr(verifier, "verify", lambda answer, *a, **k: calls.append(len(answer)) or verify(answer, *a, **k))
    g = SentenceGate(GuardCore(verifier, on_hallucination="filter"), GuardRequest("Rain?", "", contexts))
    released, outcome = stream(g, chunked(text, 37))
    assert not [r for r in released if r.status == "unverified"], outcome.verdict.errors  # every sentence checked
    assert [text[r.start:r.end].strip() for r in released if r.status == "dropped"] == [answer[250]]
    # Past the prefix limit each check reads its sentence and a bounded window, not the answer so far.
    assert max(calls) <= PREFIX_CHECK_MAX_CHARS + 800
    assert_agrees(released, outcome)


def test_sentences_joined_by_a_zero_width_space_alone_are_still_split(verifier):
    text = f"{KEPT}\u200b{GOOD}\u200b{BAD}"  # no visible space: the verifier reads three sentences, so must the gate
    released, outcome = stream(gate(verifier), chunked(text, 3))
    assert FABRICATION not in sent_text(released) and "6.5 metres" in sent_text(released)
    assert_agrees(released, outcome)
