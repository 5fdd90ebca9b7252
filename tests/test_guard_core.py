"""halguard.guard: the framework-free guard core both adapters translate into and out of."""

from __future__ import annotations

import asyncio

import pytest

from halguard import Detector, HallucinationError, UnverifiedError
from halguard.errors import InvalidInputError
from halguard.guard import FallbackAnswer, GuardCore, GuardHooks, GuardRequest, check_answer
from halguard.schema import Verdict

QUESTION = "How tall is the Eiffel Tower?"
GOOD = "The Eiffel Tower is 330 metres tall."
BAD = "The Eiffel Tower is 330 metres tall. It was designed by Leonardo da Vinci in 1620."


def request(answer: str, contexts, **kwargs) -> GuardRequest:
    return GuardRequest(QUESTION, answer, contexts, request_id="r1", source="test:core", **kwargs)


class Broken(Detector):
    def verify(self, answer, contexts, *, question=None):
        raise RuntimeError("the model file is corrupt " + "x" * 5000)


class BadInput(Detector):
    def verify(self, answer, contexts, *, question=None):
        raise InvalidInputError("no contexts")


def run_both(core: GuardCore, req: GuardRequest, hooks: GuardHooks = GuardHooks(),
             ahooks: GuardHooks | None = None):
    """The sync and the async twin on the same request: they must agree."""
    sync = core.run(req, hooks)
    async_ = asyncio.run(core.arun(req, ahooks or hooks))
    assert (sync.action, sync.text, sync.verdict.label) == (async_.action, async_.text, async_.verdict.label)
    return sync


def test_a_failure_inside_the_check_is_unverified_never_a_raw_exception(eiffel_context):
    core = GuardCore(Broken())
    outcome = run_both(core, request(GOOD, eiffel_context))
    verdict = outcome.verdict
    assert outcome.action == "pass" and verdict.label == "unverified"
    assert verdict.errors[0].code == "internal_error" and len(verdict.errors[0].message) < 300  # bounded
    assert verdict.request.id == "r1" and verdict.request.source == "test:core"


def test_bad_input_raises_for_a_guard_and_is_unverified_for_an_observer(eiffel_context):
    with pytest.raises(InvalidInputError):
        GuardCore(BadInput()).run(request(GOOD, eiffel_context))
    verdict = check_answer(BadInput(), GOOD, eiffel_context, bad_input="unverified")
    assert verdict.label == "unverified" and verdict.errors[0].code == "bad_input"


def test_fail_closed_turns_a_failed_check_into_an_error(eiffel_context):
    with pytest.raises(UnverifiedError):
        GuardCore(Broken(), on_hallucination="raise", on_unverified="fail_closed").run(request(GOOD, eiffel_context))


def test_supported_passes_with_the_request_stamped(verifier, eiffel_context):
    outcome = run_both(GuardCore(verifier, on_hallucination="filter"), request(GOOD, eiffel_context))
    assert outcome.action == "pass" and outcome.text is None
    assert outcome.verdict.label == "supported" and outcome.verdict.action.action == "annotate"
    assert outcome.verdict.request.question == QUESTION


def test_filter_drops_the_flagged_sentence(verifier, eiffel_context):
    outcome = run_both(GuardCore(verifier, on_hallucination="filter"), request(BAD, eiffel_context))
    assert outcome.action == "filter" and outcome.text == GOOD
    assert outcome.verdict.action.removed


def test_raise_tells_on_verdict_before_raising(verifier, eiffel_context):
    seen: list[Verdict] = []
    core = GuardCore(verifier, on_hallucination="raise", on_verdict=seen.append)
    with pytest.raises(HallucinationError):
        core.run(request(BAD, eiffel_context))
    assert [v.action.action for v in seen] == ["raise"]


def test_on_verdict_errors_are_logged_not_raised(verifier, eiffel_context):
    def broken_hook(verdict):
        raise ValueError("dashboard down")

    outcome = GuardCore(verifier, on_verdict=broken_hook).run(request(GOOD, eiffel_context))
    assert outcome.verdict.label == "supported"


def test_a_structured_answer_is_never_retyped(verifier, eiffel_context):
    core = GuardCore(verifier, on_hallucination="filter")
    with pytest.raises(HallucinationError, match="structured"):
        core.run(request(BAD, eiffel_context, structured=True))


def test_fixed_fallback_message_is_said_to_be_unchecked(verifier, eiffel_context):
    core = GuardCore(verifier, on_hallucination="fallback", fallback_message="Sorry.")
    outcome = run_both(core, request(BAD, eiffel_context))
    assert outcome.action == "fallback" and outcome.text == "Sorry." and outcome.fallback is None
    assert outcome.verdict.action.fallback_verdict.errors[0].code == "fallback_not_checked"


def test_a_fallback_source_is_asked_and_its_answer_checked(verifier, eiffel_context):
    purposes: list[str] = []

    def traced(check, req, purpose):
        purposes.append(purpose)
        return check(req)

    async def atraced(check, req, purpose):
        purposes.append(purpose)
        return await check(req)

    def fallback(rejected):
        assert rejected.label == "hallucinated"
        return FallbackAnswer({"answer": GOOD}, request(GOOD, eiffel_context))

    async def afallback(rejected):
        return fallback(rejected)

    core = GuardCore(verifier, on_hallucination="fallback")
    outcome = run_both(core, request(BAD, eiffel_context), GuardHooks(fallback=fallback, traced=traced),
                       GuardHooks(fallback=afallback, traced=atraced))
    assert outcome.action == "fallback" and outcome.fallback.result == {"answer": GOOD}
    assert outcome.verdict.label == "hallucinated"  # what was rejected
    assert outcome.verdict.action.fallback_verdict.label == "supported"  # what replaced it
    assert purposes == ["answer", "fallback"] * 2


def test_a_fallback_that_declines_or_cannot_be_read_is_not_checked(verifier, eiffel_context):
    core = GuardCore(verifier, on_hallucination="fallback")
    declines = GuardHooks(fallback=lambda r: FallbackAnswer("x", request("I don't know.", eiffel_context)))
    outcome = core.run(request(BAD, eiffel_context), declines)
    assert outcome.verdict.action.fallback_verdict.errors[0].code == "non_answer"
    unreadable = GuardHooks(fallback=lambda r: FallbackAnswer(object()))
    outcome = core.run(request(BAD, eiffel_context), unreadable)
    assert outcome.verdict.action.fallback_verdict.label == "unverified"


def test_on_checked_sees_the_verdict_before_the_policy(verifier, eiffel_context):
    checked: list[Verdict] = []
    core = GuardCore(verifier, on_hallucination="filter")
    core.run(request(BAD, eiffel_context), GuardHooks(on_checked=checked.append))
    assert [v.label for v in checked] == ["hallucinated"] and checked[0].action is None


def test_sampling_without_a_question_is_not_a_pass(verifier, eiffel_context):
    class NeverCalled:
        def check(self, *args, **kwargs):
            raise AssertionError("there is no question to paraphrase")

        acheck = check

    core = GuardCore(verifier, sampler=NeverCalled())
    outcome = core.run(GuardRequest(None, GOOD, eiffel_context))
    assert outcome.verdict.label == "unverified" and outcome.verdict.errors[0].code == "consistency_unverified"


def test_repair_needs_a_repairer_and_policies_are_checked_at_construction():
    with pytest.raises(InvalidInputError, match="repairer"):
        GuardCore(on_hallucination="repair")
    with pytest.raises(InvalidInputError):
        GuardCore(on_hallucination="shout")


def test_the_core_keeps_no_per_call_state(verifier, eiffel_context):
    core = GuardCore(verifier, on_hallucination="filter")
    before = dict(vars(core))
    run_both(core, request(BAD, eiffel_context))
    assert vars(core) == before


def test_warm_up_at_construction_when_asked(eiffel_context):
    class Counting(Detector):
        warmed = 0

        def warm_up(self):
            self.warmed += 1
            return 0.0

        def verify(self, answer, contexts, *, question=None):
            raise AssertionError("not called")

    lazy, eager = Counting(), Counting()
    GuardCore(lazy)
    GuardCore(eager, warm_up=True)
    assert (lazy.warmed, eager.warmed) == (0, 1)


def test_warm_up_runs_a_sample_check_once(verifier):
    from halguard import LocalVerifier

    fresh = LocalVerifier(embedder=verifier.embedder)
    calls = []
    original = fresh.verify_batch
    fresh.verify_batch = lambda *a, **k: calls.append(1) or original(*a, **k)
    fresh.warm_up()
    fresh.warm_up()
    assert len(calls) == 1  # the sample check, once


@pytest.mark.slow  # a fresh interpreter
def test_after_warm_up_a_first_check_loads_nothing_more():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from halguard import LocalVerifier\n"
        "v = LocalVerifier(time_budget_s=None)\n"
        "v.warm_up()\n"
        "before = set(sys.modules)\n"
        "v.verify('Acme Inc. reported revenue of $5.2 billion in 2019, up 3.5%.', "
        "['Acme Inc. (NYSE: ACM) reported revenue of $5.2 billion in fiscal 2019, up 3.5% from 2018 [1]. "
        "Mr. J. Smith resigned on 4 March 2019.', '{\"name\": \"Acme\", \"founded\": 1987}'], "
        "question='What did Acme report?')\n"
        "print(sorted(set(sys.modules) - before))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"
