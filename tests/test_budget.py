"""The evidence budget in bits: the arithmetic, redaction, the report, and every fault (never a silent pass)."""

import json
import math
import time

import pytest

from halguard import InputTypeError, InvalidInputError
from halguard.budget import bernoulli_kl_bits, budget, detect_hallucination
from halguard.budget.verifier import REDACTED
from halguard.llm.envelope import request_data
from halguard.llm.providers import CallableChat
from tests.llm_protocol import verdict, verdict_reply

SPANS = [{"sid": "S0", "text": "JWST was launched on 25 December 2021 on an Ariane 5 rocket."},
         {"sid": "S1", "text": "Webb's primary mirror is 6.5 metres across."}]


def test_bits_by_hand():
    assert bernoulli_kl_bits(0.95, 0.5) == pytest.approx(0.7136, abs=1e-4)  # prior 0.5, target 0.95
    assert bernoulli_kl_bits(0.5, 0.5) == 0
    b = budget([0.5], [0.99], 0.95)
    assert b.required.min == pytest.approx(0.7136, abs=1e-4)
    assert b.observed.min == pytest.approx(bernoulli_kl_bits(0.99, 0.5))
    assert b.budget_gap.min < 0 and not b.under_budget
    lowered = budget([0.6], [0.3], 0.95)  # evidence that lowers the probability supports nothing
    assert lowered.observed.max == 0 and lowered.under_budget
    assert math.isfinite(bernoulli_kl_bits(1.0, 0.0))  # clamped, never infinite


def test_ranges_come_from_real_variants():
    b = budget([0.5, 0.3], [0.9, 0.97], 0.95)
    gaps = [bernoulli_kl_bits(0.95, q) - bernoulli_kl_bits(p, q) for q, p in ((0.5, 0.9), (0.3, 0.97))]
    assert (b.budget_gap.min, b.budget_gap.max) == pytest.approx((min(gaps), max(gaps)))


def scripted(yes_when_evidence: float, yes_when_redacted: float, *, logprobs=True, seen=None):
    """A verifier whose P(yes) depends on whether the cited evidence is visible."""

    def chat(messages):
        data = request_data(messages)
        if seen is not None:
            seen.append(data)
        redacted = any(e["text"] == REDACTED for e in data["evidence"]) or not data["evidence"]
        p = yes_when_redacted if redacted else yes_when_evidence
        word = "yes" if p >= 0.5 else "no"
        if not logprobs:
            return verdict_reply(messages, word)
        return verdict_reply(messages, word, [("yes", math.log(p)), ("no", math.log(1 - p))])

    return CallableChat(chat, name="scripted")


def test_supported_claim_is_within_budget_and_redaction_removes_the_cited_text():
    seen = []
    report = detect_hallucination("JWST launched in December 2021 [S0].", SPANS,
                                  verifier=scripted(0.99, 0.5, seen=seen))
    (d,) = report["details"]
    assert not report["flagged"] and not report["unverified"] and d["scored"] and not d["flagged"]
    assert d["cites"] == ["S0"] and d["prior_yes"]["max"] == pytest.approx(0.5) and d["post_yes"]["min"] > 0.98
    assert d["budget_gap"]["units"] == "bits" and d["budget_gap"]["max"] < 0
    priors = [s for s in seen if s["evidence"][0]["text"] == REDACTED]
    assert len(priors) == 2 and all(SPANS[0]["text"] not in json.dumps(s) for s in priors)
    assert len(seen) == 4 and report["summary"]["llm_calls"] == 4  # 2 variants x (prior, posterior)
    assert report["summary"]["probabilities"] == "token-logprobs"


def test_weak_evidence_is_under_budget():
    report = detect_hallucination("JWST launched in 2019 [S0].", SPANS, verifier=scripted(0.6, 0.5))
    assert report["flagged"] and report["under_budget"] and report["summary"]["flagged_idxs"] == [0]
    assert report["details"][0]["budget_gap"]["min"] > 0


def test_citations_unknown_missing_and_context_modes():
    seen = []
    report = detect_hallucination("The mirror is 6.5 metres [S1]. It orbits the Sun [S7]. It is gold.", SPANS,
                                  verifier=scripted(0.99, 0.5, seen=seen), require_citations=True,
                                  context_mode="all")
    by = {d["idx"]: d for d in report["details"]}
    assert by[1]["unknown_cites"] == ["S7"] and by[1]["has_any_citations"] and by[1]["missing_citations"]
    assert by[2]["missing_citations"] and by[2]["flagged"] and not by[2]["has_any_citations"]
    assert all(len(s["evidence"]) == 2 for s in seen)  # "all": every span, cited ones redacted for the prior
    with pytest.raises(InvalidInputError, match="context_mode"):
        detect_hallucination("x [S0].", SPANS, verifier=scripted(0.9, 0.5), context_mode="some")


def test_numbered_citations_map_to_spans():
    report = detect_hallucination("The mirror is 6.5 metres across [2].", SPANS, verifier=scripted(0.99, 0.5))
    assert report["details"][0]["cites"] == ["S1"]


def test_without_logprobs_the_word_is_read_and_the_report_says_so():
    report = detect_hallucination("JWST launched in 2021 [S0].", SPANS, verifier=scripted(0.99, 0.2, logprobs=False))
    assert report["summary"]["probabilities"] == "verbalised-argmax"
    assert report["details"][0]["post_yes"]["min"] == 0.99 and report["details"][0]["prior_yes"]["min"] == 0.01


def test_unusable_replies_leave_the_claim_unscored_never_supported():
    garbage = CallableChat(lambda m: verdict(m, "Well, it depends."), name="garbage")
    report = detect_hallucination("JWST launched in 2021 [S0].", SPANS, verifier=garbage)
    d = report["details"][0]
    assert report["unverified"] and not d["scored"] and "neither yes nor no" in d["error"]
    assert report["summary"]["unscored"] == [0] and report["summary"]["claims_scored"] == 0
    unbound = detect_hallucination("JWST launched in 2021 [S0].", SPANS,
                                   verifier=CallableChat(lambda m: "yes", name="unbound"))
    assert unbound["unverified"] and unbound["details"][0]["error"].startswith("judge_no_nonce")


def test_provider_errors_and_the_time_budget():
    def broken(messages):
        raise ConnectionError("down")

    report = detect_hallucination("JWST launched in 2021 [S0].", SPANS,
                                  verifier=CallableChat(broken, max_retries=0, name="down"))
    assert report["unverified"] and "provider error" in report["details"][0]["error"]

    def slow(messages):
        time.sleep(1.0)
        return verdict(messages, "yes")

    t0 = time.perf_counter()
    report = detect_hallucination("JWST launched in 2021 [S0].", SPANS, verifier=CallableChat(slow, name="slow"),
                                  timeout_s=0.2)
    assert time.perf_counter() - t0 < 0.9
    assert report["unverified"] and "timeout_s" in report["details"][0]["error"]


def test_only_the_claims_asked_for_are_scored():
    seen = []
    answer = "JWST launched in December 2021 [S0]. The mirror is 6.5 metres across [S1]."
    report = detect_hallucination(answer, SPANS, verifier=scripted(0.99, 0.5, seen=seen),
                                  only_claims=["The mirror is 6.5 metres across."])
    assert len(seen) == 4 and [d["scored"] for d in report["details"]] == [False, True]
    assert report["details"][0]["asked"] is False and not report["unverified"]


def test_empty_spans_no_claims_and_max_claims():
    report = detect_hallucination("", [], verifier=scripted(0.9, 0.5))
    assert report["unverified"] and report["details"] == []
    answer = " ".join(f"Fact number {i} is true [S0]." for i in range(4))
    report = detect_hallucination(answer, SPANS, verifier=scripted(0.99, 0.5), max_claims=2)
    assert [d["scored"] for d in report["details"]] == [True, True, False, False]
    assert "max_claims" in report["details"][3]["error"]
    with pytest.raises(InputTypeError, match="spans"):
        detect_hallucination("x", [{"id": "S0"}], verifier=scripted(0.9, 0.5))


# -- BudgetVerifier: the budget as a Detector ------------------------------------------------------------------

from halguard import LocalVerifier, Verdict  # noqa: E402
from halguard.budget import BudgetVerifier  # noqa: E402
from halguard.detector import Detector  # noqa: E402
from halguard.schema import ClaimSignals, ClaimStatus, ClaimVerdict, EvidenceRef  # noqa: E402

CONTEXTS = [(s["sid"], s["text"]) for s in SPANS]


def test_budget_verifier_maps_onto_the_shared_verdict():
    good = BudgetVerifier(scripted(0.99, 0.5)).verify("JWST launched in December 2021 [S0].", CONTEXTS)
    assert good.label == "supported" and good.score < 0.5 and good.claims[0].status == ClaimStatus.SUPPORTED
    assert good.claims[0].budget.budget_gap.units == "bits" and good.claims[0].budget.target == 0.95
    assert good.usage.llm_calls == 4 and good.detector == "budget:scripted"
    weak = BudgetVerifier(scripted(0.6, 0.5)).verify("JWST launched in 2019 [S0].", CONTEXTS)
    assert weak.label == "hallucinated" and weak.claims[0].status == ClaimStatus.HALLUCINATION
    assert weak.claims[0].budget.budget_gap.min > 0 and "bits" in weak.claims[0].reasons[-1]
    assert [sp.text for sp in weak.spans] == ["JWST launched in 2019 [S0]."] and "bits" in weak.spans[0].reason
    lowered = BudgetVerifier(scripted(0.1, 0.5)).verify("JWST launched in 2019 [S0].", CONTEXTS)
    assert lowered.claims[0].status == ClaimStatus.CONTRADICTION  # the evidence made it less likely
    restored = Verdict.from_metadata(weak.to_metadata())
    assert restored.claims[0].budget == weak.claims[0].budget


def test_unscored_claims_make_the_verdict_unverified():
    garbage = CallableChat(lambda m: "maybe", name="garbage")
    verdict = BudgetVerifier(garbage).verify("JWST launched in 2021 [S0].", CONTEXTS)
    assert verdict.label == "unverified" and verdict.errors[0].code == "budget_unscored" and verdict.score is None


def test_no_logprobs_is_said_in_the_verdict():
    verdict = BudgetVerifier(scripted(0.99, 0.2, logprobs=False)).verify("JWST launched in 2021 [S0].", CONTEXTS)
    assert verdict.label == "supported" and [e.code for e in verdict.errors] == ["no_logprobs"]


class Preset(Detector):
    """A cascade stand-in that returns fixed claim statuses."""

    name = "preset"

    def __init__(self, *claims):
        self.claims = claims

    def verify(self, answer, contexts, *, question=None):
        claims = []
        for text, status, signals in self.claims:
            start = answer.index(text)
            claims.append(ClaimVerdict(text=text, start=start, end=start + len(text), status=status, score=0.45,
                                       signals=signals, evidence=[EvidenceRef(source_id="S1", start=0, end=5,
                                                                              text="Webb.", similarity=0.7)]))
        flagged = any(c.status.is_flagged for c in claims)
        return Verdict(label="hallucinated" if flagged else "supported", hallucination_detected=flagged, score=0.45,
                       claims=claims, detector="preset", threshold=0.5)


def test_the_cascade_sends_only_unsettled_claims_to_the_llm():
    answer = "JWST launched in 2021. The mirror is 6.5 metres across."
    settled = Preset(("JWST launched in 2021.", ClaimStatus.SUPPORTED, None),
                     ("The mirror is 6.5 metres across.", ClaimStatus.SUPPORTED, None))
    seen = []
    verdict = BudgetVerifier(scripted(0.99, 0.5, seen=seen), cascade=settled).verify(answer, CONTEXTS)
    assert verdict.label == "supported" and seen == [] and verdict.usage.llm_calls == 0
    numbers = ClaimSignals(similarity=0.9, missing_numbers=["2019"])
    mixed = Preset(("JWST launched in 2021.", ClaimStatus.HALLUCINATION, numbers),
                   ("The mirror is 6.5 metres across.", ClaimStatus.WEAK_SUPPORT, None))
    verdict = BudgetVerifier(scripted(0.99, 0.5, seen=seen), cascade=mixed, cite_by_evidence=True).verify(
        answer, CONTEXTS)
    assert verdict.label == "hallucinated"  # the concrete local finding stands
    assert verdict.claims[0].budget is None and verdict.claims[1].budget is not None
    assert verdict.claims[1].status == ClaimStatus.SUPPORTED  # the LLM settled the weak one
    assert verdict.checked_text == "JWST launched in 2021 [S1]. The mirror is 6.5 metres across [S1]."
    assert verdict.usage.llm_calls == len(seen) == 4  # only the open claim went to the LLM: 1 claim x 4 calls
    assert {s["claim"] for s in seen} == {"The mirror is 6.5 metres across [S1]."}


def test_budget_verifier_in_a_langchain_guard(verifier):
    from langchain_core.runnables import RunnableLambda

    from langchain_halguard import with_halguard

    chain = RunnableLambda(lambda q: {"input": q, "context": [s["text"] for s in SPANS],
                                      "answer": "JWST launched in December 2021 [1]."})
    out = with_halguard(chain, detector=BudgetVerifier(scripted(0.99, 0.5))).invoke({"input": "When?"})
    assert out["halguard"].label == "supported" and out["halguard"].claims[0].budget.target == 0.95


def test_cite_by_evidence_needs_a_cascade():
    with pytest.raises(InvalidInputError, match="cascade"):
        BudgetVerifier(scripted(0.9, 0.5), cite_by_evidence=True)
    assert isinstance(BudgetVerifier(scripted(0.9, 0.5), cascade=LocalVerifier()).cascade, LocalVerifier)


def test_a_repeated_check_is_served_from_the_cache():
    from halguard import ResponseCache

    cache, seen = ResponseCache(), []
    model = scripted(0.99, 0.5, seen=seen)
    first = detect_hallucination("JWST launched in December 2021 [S0].", SPANS, verifier=model, cache=cache)
    again = detect_hallucination("JWST launched in December 2021 [S0].", SPANS, verifier=model, cache=cache)
    assert len(seen) == 4 and again["summary"]["llm_calls"] == 0 and again["summary"]["cached_calls"] == 4
    assert again["details"][0]["budget_gap"] == first["details"][0]["budget_gap"]


async def test_async_twins_give_the_same_report():
    from halguard.budget import adetect_hallucination

    answer = "JWST launched in December 2021 [S0]. It launched in 2019 [S0]."
    sync = detect_hallucination(answer, SPANS, verifier=scripted(0.99, 0.5))
    report = await adetect_hallucination(answer, SPANS, verifier=scripted(0.99, 0.5))
    strip = [{k: v for k, v in d.items()} for d in report["details"]]
    assert strip == sync["details"] and report["summary"]["llm_calls"] == 8
    verdict = await BudgetVerifier(scripted(0.6, 0.5)).averify("JWST launched in 2019 [S0].", CONTEXTS)
    assert verdict.label == "hallucinated" and verdict.claims[0].budget.budget_gap.min > 0


async def test_async_time_budget():
    import asyncio

    async def slow(messages):
        await asyncio.sleep(1.0)
        return verdict(messages, "yes")

    from halguard.budget import adetect_hallucination

    t0 = time.perf_counter()
    report = await adetect_hallucination("JWST launched in 2021 [S0].", SPANS, verifier=CallableChat(slow),
                                         timeout_s=0.2)
    assert time.perf_counter() - t0 < 0.9 and report["unverified"]
    assert "timeout_s" in report["details"][0]["error"]


def test_budget_verifier_in_llamaindex_engines_and_the_evaluator():
    from llama_index.core import Document, Settings, VectorStoreIndex
    from llama_index.core.llms import MockLLM

    from halguard import get_verdict
    from llamaindex_halguard import HalguardEmbedding, HalguardEvaluator, HalguardQueryEngine
    from tests.test_llamaindex import ScriptedLLM

    Settings.llm = MockLLM()
    index = VectorStoreIndex.from_documents([Document(text=SPANS[0]["text"], id_="S0")],
                                            embed_model=HalguardEmbedding())
    answer = "JWST was launched on 25 December 2021 [S0]."
    inner = index.as_query_engine(llm=ScriptedLLM(answers=[answer], prompts=[]), similarity_top_k=1)
    budget_verifier = BudgetVerifier(scripted(0.99, 0.5))
    response = HalguardQueryEngine(inner, detector=budget_verifier).query("When did JWST launch?")
    verdict = get_verdict(response)
    assert verdict.label == "supported" and verdict.claims[0].budget is not None
    assert response.metadata["halguard"]["claims"][0]["budget"]["budget_gap"]["units"] == "bits"
    result = HalguardEvaluator(detector=BudgetVerifier(scripted(0.6, 0.5))).evaluate(
        query="When did JWST launch?", response="JWST launched in 2019 [S0].", contexts=[SPANS[0]["text"]])
    assert result.passing is False and not result.invalid_result and "bits" in result.feedback
