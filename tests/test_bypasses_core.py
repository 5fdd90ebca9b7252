"""Issue 25, the local verifier's items: what a crafted document or an answer's form once got past the check.

Each test is named after its item; the neighbours tried beside each item's own case are parametrised with it.
"""

from __future__ import annotations

import json
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from halguard import LocalVerifier
from halguard.errors import HallucinationError
from halguard.grounding.profile import answer_profile
from halguard.grounding.signals.records import absent_features
from halguard.policy import decide
from halguard.text.normalize import FoldedTooLong, normalize_text
from halguard.text.structured import field_names, render_structured
from halguard.util import safejson

EIFFEL = [
    ("tower", "The Eiffel Tower was completed in 1889 in Paris. It is 330 metres tall."),
    ("design", "The tower was designed and built by the engineering company of Gustave Eiffel."),
]
FABRICATION = "The Eiffel Tower was completed in 1925 in Berlin."


# -- 1. one retrieved document disables the guard ---------------------------------------------------

CRAFTED_DOCUMENTS = {
    "brackets": "[" * 1000 + "]" * 1000,
    "braces": '{"a":' * 5000 + "1" + "}" * 5000,
    "unclosed brackets": "[" * 100_000,
    "mixed nesting": "[{" * 3000 + "}]" * 3000,
    "nested in a string": '["' + "[" * 5000 + '"]',
    "binary": "ab\x00cd" * 50,
}


@pytest.mark.parametrize("name", sorted(CRAFTED_DOCUMENTS))
def test_item1_a_crafted_document_does_not_disable_the_check(verifier, name):
    doc = CRAFTED_DOCUMENTS[name]
    verdict = verifier.verify(FABRICATION, [*EIFFEL, ("crafted", doc)])
    assert verdict.label == "hallucinated", verdict.errors
    readable = name == "nested in a string"  # a JSON string of brackets is one shallow list: it is read
    assert [s.source_id for s in verdict.skipped_sources] == ([] if readable else ["crafted"])
    assert all(s.reason for s in verdict.skipped_sources)
    # and the true answer still passes beside the same document
    assert verifier.verify("The Eiffel Tower was completed in 1889.", [*EIFFEL, ("crafted", doc)]).label == "supported"


def test_item1_only_unreadable_documents_is_unverified_with_the_list(verifier):
    verdict = verifier.verify(FABRICATION, [("a", "[" * 1000 + "]" * 1000), ("b", "\x00" * 100)])
    assert verdict.label == "unverified"
    assert verdict.errors[0].code == "no_context"
    assert {s.source_id for s in verdict.skipped_sources} == {"a", "b"}


@pytest.mark.parametrize("on_unverified", ["fail_open", "fail_closed"])
def test_item1_a_crafted_document_cannot_open_a_raise_policy(verifier, on_unverified):
    docs = [t for _, t in EIFFEL] + ["[" * 1000 + "]" * 1000]
    verdict = verifier.verify(FABRICATION, docs)
    with pytest.raises(HallucinationError):
        decide(verdict, FABRICATION, on_hallucination="raise", on_unverified=on_unverified)
    assert decide(verdict, FABRICATION, on_hallucination="fallback", on_unverified=on_unverified).action == "fallback"


def test_item1_no_recursion_on_user_text():
    deep = "[" * 200_000
    assert answer_profile("It is tall.", [deep, '{"a":' * 10_000]) in ("short_summary", "long_summary")
    assert absent_features(deep) == frozenset()
    with pytest.raises(safejson.JSONTooDeep):
        safejson.loads(deep)
    assert isinstance(safejson.JSONTooDeep("x"), ValueError)
    assert safejson.json_depth('{"a": "[[[[", "b": [1, [2]]}') == 3
    # structured outputs: a cyclic or absurdly deep value is written, not recursed into
    nested: list = []
    node = nested
    for _ in range(5_000):
        node.append([])
        node = node[0]
    cyclic: dict = {"name": "x"}
    cyclic["self"] = cyclic
    assert isinstance(render_structured(nested), str)
    assert "name" in render_structured(cyclic)
    assert field_names(cyclic)[0] == "name"


_BRACKETS = st.sampled_from(["[", "]", "{", "}", '"', "\\", ":", ",", "1", "a", " ", "\n", "\x00", "\u200b"])


@pytest.mark.timeout(600)
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(document=st.tuples(st.lists(_BRACKETS, min_size=1, max_size=6).map("".join), st.integers(1, 20_000))
       .map(lambda t: (t[0] * (t[1] // len(t[0]) + 1))[: t[1]]),
       question=st.one_of(st.none(), st.text(max_size=300), st.just("[" * 5000)),
       as_mapping=st.booleans())
def test_item1_fuzzed_documents_questions_and_mappings(verifier, document, question, as_mapping):
    contexts = ({"tower": EIFFEL[0][1], "crafted": document} if as_mapping
                else [EIFFEL[0], ("crafted", document)])
    verdict = verifier.verify(FABRICATION, contexts, question=question)
    assert verdict.label == "hallucinated", (verdict.errors, verdict.skipped_sources)


# -- 6. limits after folding, a budget on every input -----------------------------------------------


def test_item6_size_limits_hold_after_folding(verifier):
    folded = "\ufdfa" * 60_000  # 60,000 characters given, 1,080,000 once folded
    verdict = verifier.verify(folded, EIFFEL)  # an Arabic ligature: refused for its script before it is folded
    assert verdict.label == "unverified" and verdict.errors[0].code in ("answer_too_long", "unsupported_language")
    parenthesised = "The tower is tall. " + "\u2474" * 40_000  # "(1)" once folded: 40,019 given, 120,019 folded
    verdict = verifier.verify(parenthesised, EIFFEL)
    assert verdict.label == "unverified" and verdict.errors[0].code == "answer_too_long"
    verdict = verifier.verify("The tower is in Paris.", [folded])
    assert verdict.label == "unverified" and verdict.errors[0].code == "context_too_large"
    with pytest.raises(FoldedTooLong):
        normalize_text("\ufdfa" * 1000, max_chars=10_000)
    assert len(normalize_text("\ufdfa" * 100, max_chars=10_000).text) == 1800


def test_item6_the_question_has_a_size_limit(verifier):
    verdict = verifier.verify("The tower is in Paris.", EIFFEL, question="Where is it? " * 2000)
    assert verdict.label == "unverified" and verdict.errors[0].code == "question_too_long"
    verdict = verifier.verify("The tower is in Paris.", EIFFEL, question="\ufdfa" * 2000)
    assert verdict.label == "unverified" and verdict.errors[0].code == "question_too_long"
    roomy = LocalVerifier(embedder=verifier.embedder, max_question_chars=50_000)
    assert roomy.verify("The tower is in Paris.", EIFFEL, question="Where is it? " * 2000).label == "supported"


def test_item6_a_folding_bomb_does_not_exhaust_memory(verifier):
    import tracemalloc

    tracemalloc.start()
    verifier.verify("The tower is in Paris.", ["\ufdfa" * 1_000_000])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100 * 2**20  # it once peaked at 838 MB


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", ["unclosed citation markers", "run-on invented words", "tiny sentences",
                                  "tiny sentences after a long question"])
def test_item6_the_budget_holds_on_pathological_answers(verifier, name):
    rng = random.Random(7)
    answer = {
        "unclosed citation markers": "The tower is tall " + " ".join(f"[S{i}" for i in range(20_000)),
        "run-on invented words": "The tower " + " ".join(rng.choice(["florbic", "wendle", "zastrop", "quimble"])
                                                         for _ in range(16_000)),
        # Invented two-word sentences: "A b c." carries no word to look up, and a long answer of nothing but that
        # is not flagged once the check completes (its outcome depended on whether the machine beat the budget).
        "tiny sentences": "Qz vb. " * 14_000,
        "tiny sentences after a long question": "Qz vb. " * 14_000,
    }[name][:100_000]
    # The question's words were once read again for every sentence: 131 s for these 14,000 sentences
    question = ("Tell me about the tower and the people who built it. " * 400)[:19_999] if "question" in name else None
    budget = 4.0
    fast = LocalVerifier(embedder=verifier.embedder, time_budget_s=budget)
    verifier.embedder._cache.clear()  # noqa: SLF001 - first sight
    t0 = time.perf_counter()
    verdict = fast.verify(answer, EIFFEL, question=question)
    seconds = time.perf_counter() - t0
    # one encoding batch of slack (benchmarks/bench_worst_case.py measures the 10 s budget: docs/guarantees.md)
    assert seconds < budget * 1.2 + 2.0, (seconds, verdict.label)
    assert verdict.label in ("hallucinated", "unverified")


# -- 7. volume dilutes --------------------------------------------------------------------------------

_NOUNS = ["farmers", "bakers", "sailors", "lawyers", "poets", "miners", "weavers", "doctors"]
_VERBS = ["praised", "painted", "guarded", "cleaned", "sold", "photographed", "repaired", "climbed"]


def _invented(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    return " ".join(f"The {rng.choice(_NOUNS)} quietly {rng.choice(_VERBS)} the old {rng.choice(_NOUNS)} near the "
                    "river." for _ in range(n))


@pytest.mark.parametrize("n", [3, 10, 40, 150])
@pytest.mark.parametrize("question", [None, "Tell me about the tower."])
def test_item7_a_mostly_unsupported_answer_is_flagged_at_any_length(verifier, n, question):
    verdict = verifier.verify(_invented(n), EIFFEL, question=question)
    assert verdict.label == "hallucinated"
    assert len(verdict.flagged_claims) > n // 2


def test_item7_a_mostly_unsupported_answer_behind_true_sentences_is_flagged(verifier):
    true = "The Eiffel Tower was completed in 1889 in Paris. It is 330 metres tall. "
    assert verifier.verify(true + _invented(20), EIFFEL).label == "hallucinated"


def test_item7_a_long_run_on_sentence_of_invented_words_is_not_supported(verifier):
    rng = random.Random(1)
    answer = "The tower " + " ".join(rng.choice(["florbic", "wendle", "zastrop", "quimble", "trazzle", "noffin"])
                                     for _ in range(3_000)) + "."
    assert verifier.verify(answer, EIFFEL).label in ("hallucinated", "unverified")


def test_item7_invented_sentences_among_many_true_ones_are_flagged(verifier):
    # a minority of invented sentences, so only the capped correction keeps them from dilution
    context = [" ".join(f"Station {i} opened in the year {1900 + i} on the northern line." for i in range(60))]
    true = [f"Station {i} opened in the year {1900 + i} on the northern line." for i in range(60)]
    answer = " ".join(true[:40]) + " " + _invented(20, seed=5)
    verdict = verifier.verify(answer, context)
    assert verdict.label == "hallucinated"
    assert len(verdict.flagged_claims) == 20  # the invented ones, none of the true


def test_item7_a_long_grounded_answer_is_still_supported(verifier):
    context = [" ".join(f"Station {i} opened in the year {1900 + i} on the northern line." for i in range(60))]
    answer = " ".join(f"Station {i} opened in the year {1900 + i} on the northern line." for i in range(0, 60, 2))
    assert verifier.verify(answer, context).label == "supported"


# -- 8. other scripts are checked for their numbers and names ---------------------------------------

SALE = [("sale", "The Eiffel Tower is in Paris. In 2019 the city spent 500 million euros on its renovation.")]


@pytest.mark.parametrize("sentence", [
    "该塔于2021年以5亿欧元出售给卡塔尔。",  # a year the context lacks
    "该塔于2019年以7亿欧元出售。",  # an amount the context lacks (700 million)
    "塔はNASAが建てた。",  # a Latin-script name the context lacks
    "Башня была продана в 1925 году.",  # Cyrillic, a year the context lacks
    "Ο πύργος πουλήθηκε το 1999.",  # Greek
    "بيع البرج عام 2021.",  # Arabic
])
def test_item8_a_foreign_sentence_is_checked_for_numbers_and_names(verifier, sentence):
    verdict = verifier.verify("The Eiffel Tower is in Paris. " + sentence, SALE)
    assert verdict.label == "hallucinated"
    assert verdict.claims[-1].status.is_flagged
    assert verdict.spans


@pytest.mark.parametrize("sentence", ["该塔于2019年花费5亿欧元翻新。", "埃菲尔铁塔很美。", "Башня очень красивая."])
def test_item8_a_foreign_sentence_that_could_not_be_checked_keeps_the_answer_from_supported(verifier, sentence):
    verdict = verifier.verify("The Eiffel Tower is in Paris. " + sentence, SALE)
    assert verdict.label == "unverified"
    assert verdict.errors[0].code == "unchecked_script"
    assert verdict.claims[-1].status.value == "WEAK_SUPPORT"
    assert "script" in verdict.claims[-1].reasons[0]


def test_item8_an_english_answer_is_unchanged(verifier):
    assert verifier.verify("The Eiffel Tower is in Paris.", SALE).label == "supported"


# -- 9. a negation inside a long verbatim copy ----------------------------------------------------

ARTEMIS = ["The Artemis programme was announced in 2017.", "NASA led the project with support from ESA.",
           "The first crewed flight is planned for 2026.", "The Space Launch System rocket carries the Orion capsule.",
           "Orion was built by Lockheed Martin.", "The service module was supplied by Airbus.",
           "The programme aims to land astronauts near the lunar south pole.",
           "Several commercial landers will deliver cargo.", "The Gateway station will orbit the Moon.",
           "Japan will contribute a pressurised rover.", "Canada supplies the Canadarm3 robotic arm.",
           "The programme has been delayed several times."]
NEGATED = {1: "NASA did not lead the project with support from ESA.",
           5: "The service module was not supplied by Airbus.",
           4: "Orion was never built by Lockheed Martin.",
           9: "Japan will not contribute a pressurised rover."}


@pytest.mark.parametrize("n", [4, 6, 8, 12])
@pytest.mark.parametrize("which", sorted(NEGATED))
@pytest.mark.parametrize("question", [None, "What is the Artemis programme?"])
def test_item9_a_negation_inside_a_long_verbatim_copy_is_flagged(verifier, n, which, question):
    copied = ARTEMIS[: max(n, which + 1)]
    answer = " ".join(NEGATED[which] if i == which else s for i, s in enumerate(copied))
    verdict = verifier.verify(answer, [" ".join(ARTEMIS)], question=question)
    assert verdict.label == "hallucinated"
    assert any(c.text == NEGATED[which] for c in verdict.flagged_claims)


def test_item9_the_copy_itself_is_supported(verifier):
    assert verifier.verify(" ".join(ARTEMIS[:8]), [" ".join(ARTEMIS)]).label == "supported"


@pytest.mark.parametrize("added", [
    "NASA did not lead the project.",  # "led" in the context: an irregular past form
    "Airbus did not supply the service module.",  # "supplied" in the context
    "The project was not led by NASA.",
    "ESA did not support the project.",
])
@pytest.mark.parametrize(("n", "at"), [(4, 0), (8, 4), (12, 12)])
def test_item9_a_negated_sentence_added_to_a_copy_is_flagged(verifier, added, n, at):
    copied = ARTEMIS[:n]
    answer = " ".join([*copied[:at], added, *copied[at:]])
    verdict = verifier.verify(answer, [" ".join(ARTEMIS)])
    assert any(c.text == added for c in verdict.flagged_claims), [c.reasons for c in verdict.claims]


@pytest.mark.parametrize("n", [6, 12])
def test_item9_a_name_swapped_into_a_long_copy_is_flagged(verifier, n):
    swapped = "Orion was built by Boeing."
    answer = " ".join(swapped if i == 4 else s for i, s in enumerate(ARTEMIS[:n]))
    verdict = verifier.verify(answer, [" ".join(ARTEMIS)])
    assert [c.text for c in verdict.flagged_claims] == [swapped]


def test_item9_irregular_forms_and_prefixes_count_as_shared_words():
    from halguard.grounding.signals.closest import shared_share
    from halguard.text.lexical import content_terms, term_set

    def share(claim: str, sentence: str) -> float:
        return shared_share({st for _, _, st in content_terms(claim)}, term_set(sentence))

    assert share("NASA did not lead the project", "NASA led the project") == 1.0
    assert share("Airbus did not supply the module", "The module was supplied by Airbus") == 1.0
    assert share("The cat sat on the mat", "A dog barked at the door") == 0.0


# -- 13. text identical to the context --------------------------------------------------------------

IDENTICAL = ["The router supports Wi-Fi.", "The amplifier is Hi-Fi.", "The adapter takes 12 V DC.",
             "The champion was Li Na.", "The cellist is Yo-Yo Ma.", "The port is USB-C.", "It runs on AA cells.",
             "The chip is an M2.", "She met Xi Jinping in 2015.", "The film stars Ng Man-tat."]


@pytest.mark.parametrize("text", IDENTICAL)
def test_item13_text_identical_to_the_context_is_supported(verifier, text):
    verdict = verifier.verify(text, [text])
    assert verdict.label == "supported", verdict.claims[0].reasons
    assert not verdict.claims[0].signals.missing_entities


@pytest.mark.parametrize("text", IDENTICAL[:5])
def test_item13_words_in_the_same_order_inside_a_longer_sentence_are_supported(verifier, text):
    context = text[:-1] + " and more, according to the manual."
    assert verifier.verify(text, [context]).label == "supported"


def test_item13_a_short_name_the_context_lacks_is_still_missing(verifier):
    verdict = verifier.verify("The champion was Li Na.", ["The champion was Serena Williams."])
    assert verdict.label == "hallucinated"


@pytest.mark.parametrize(("claim", "sentence"), [
    ("The kit costs 5 dollars.", "The kit costs 5,000 dollars."),
    ("The pole is 2 metres tall.", "The pole is 2.5 metres tall."),
])
def test_item13_in_order_words_do_not_excuse_a_changed_number(verifier, claim, sentence):
    verdict = verifier.verify(claim, [sentence])
    assert verdict.label == "hallucinated", verdict.claims[0].reasons


# -- 14. a false premise echoed from the question ----------------------------------------------------

PREMISES = [
    ("The port supports 100 W fast charging.", ["The charger supports 65 W fast charging."],
     "Does it support 100 W charging?"),
    ("Yes, the Eiffel Tower was built in Berlin in 1889.", ["The Eiffel Tower was built in Paris in 1889."],
     "Was the Eiffel Tower built in Berlin?"),
    ("Yes, the battery lasts 20 hours.", ["The battery lasts 12 hours."], "Does the battery last 20 hours?"),
    ("The launch was in 2021, as you said.", ["The launch was in 2019."], "Why was the launch in 2021?"),
    ("Marie Curie discovered radium with Albert Einstein.", ["Marie Curie discovered radium with Pierre Curie."],
     "Did Marie Curie discover radium with Albert Einstein?"),
]


@pytest.mark.parametrize(("answer", "context", "question"), PREMISES)
def test_item14_a_false_premise_echoed_from_the_question_is_flagged(verifier, answer, context, question):
    verdict = verifier.verify(answer, context, question=question)
    assert verdict.label == "hallucinated", verdict.claims[0].reasons


@pytest.mark.parametrize(("answer", "question"), [
    ("Yes, it is 330 metres tall.", "Is the Eiffel Tower 330 metres tall?"),
    ("It was completed in 1889.", "When was the Eiffel Tower completed?"),
    ("Gustave Eiffel's company built it.", "Who built the Eiffel Tower?"),
])
def test_item14_question_words_still_help_a_true_answer(verifier, answer, question):
    assert verifier.verify(answer, EIFFEL, question=question).label == "supported"


CHARGER = ["The charger supports 65 W fast charging."]


@pytest.mark.parametrize(("answer", "question", "context"), [
    ("No, it was built in Paris, not Berlin.", "Was the Eiffel Tower built in Berlin?", EIFFEL),
    ("No, the Eiffel Tower is not in Berlin; it is in Paris.", "Is the Eiffel Tower in Berlin?", EIFFEL),
    ("No, it supports 65 W, not 100 W.", "Does it support 100 W charging?", CHARGER),
    ("No, it does not support 100 W charging.", "Does it support 100 W charging?", CHARGER),
])
def test_item14_denying_the_false_premise_is_supported(verifier, answer, question, context):
    assert verifier.verify(answer, context, question=question).label == "supported"


@pytest.mark.parametrize(("answer", "question", "context"), [
    ("It was not built in Paris but in Berlin.", "Was the Eiffel Tower built in Berlin?", EIFFEL),
    ("It was built in Berlin, not in Paris.", "Was the Eiffel Tower built in Berlin?", EIFFEL),
    ("It supports 100 W, not 65 W.", "Does it support 100 W charging?", CHARGER),
    ("Not 65 W: it supports 100 W.", "Does it support 100 W charging?", CHARGER),
])
def test_item14_a_denial_does_not_excuse_an_asserted_premise(verifier, answer, question, context):
    assert verifier.verify(answer, context, question=question).label == "hallucinated"


@pytest.mark.parametrize(("answer", "question", "context"), [
    ("Yes.", "Was the Eiffel Tower built in Berlin?", EIFFEL),
    ("Yes, it was.", "Was the Eiffel Tower built in Berlin?", EIFFEL),
    ("Yes, it does.", "Does it support 100 W charging?", CHARGER),
    ("Correct.", "Is the Eiffel Tower 500 metres tall?", EIFFEL),
    ("That's right.", "Did Albert Einstein design the Eiffel Tower?", EIFFEL),
])
def test_item14_a_bare_yes_affirms_the_false_premise(verifier, answer, question, context):
    verdict = verifier.verify(answer, context, question=question)
    assert verdict.label == "hallucinated"
    assert any("affirms what only the question states" in r for r in verdict.claims[0].reasons)


@pytest.mark.parametrize(("answer", "question", "context"), [
    ("Yes.", "Was the Eiffel Tower completed in 1889?", EIFFEL),
    ("Yes, it is.", "Is the Eiffel Tower in Paris?", EIFFEL),
    ("No.", "Was the Eiffel Tower built in Berlin?", EIFFEL),
    ("Correct, it supports 65 W.", "Does it support 65 W charging?", CHARGER),
    ("Right, it supports 65 W.", "Does it support 65 W charging?", CHARGER),
])
def test_item14_yes_to_a_true_premise_and_no_to_a_false_one_are_supported(verifier, answer, question, context):
    assert verifier.verify(answer, context, question=question).label == "supported"


def test_item14_what_counts_as_support_is_in_the_readme():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "counts as support" in readme


def test_json_of_verdicts_round_trips_with_skipped_sources(verifier):
    verdict = verifier.verify(FABRICATION, [*EIFFEL, ("crafted", "[" * 1000)])
    again = type(verdict).model_validate(json.loads(verdict.model_dump_json()))
    assert again.skipped_sources == verdict.skipped_sources


def _budget_runs_out_after(monkeypatch, calls: int) -> None:
    """The verifier's deadline checks pass ``calls`` times, then the budget is gone (deterministic, any machine)."""
    import halguard.grounding.batch_encoding as encoding_module
    import halguard.grounding.measured_claim as measuring_module
    from halguard.text.segment import BudgetExceeded

    seen = {"n": 0}

    def check(deadline):
        if deadline is None:
            return
        seen["n"] += 1
        if seen["n"] > calls:
            raise BudgetExceeded

    # The verifier's stages check the deadline where they run: encoding in slices, and measuring the claims.
    monkeypatch.setattr(encoding_module, "check_deadline", check)
    monkeypatch.setattr(measuring_module, "check_deadline", check)


def test_item7_an_answer_cut_short_by_the_budget_is_flagged_from_the_claims_encoded(verifier, monkeypatch):
    budgeted = LocalVerifier(embedder=verifier.embedder, time_budget_s=60.0, batch_size=2)
    answer = _invented(30, seed=3)
    verifier.embedder._cache.clear()  # noqa: SLF001 - every window must be encoded
    _budget_runs_out_after(monkeypatch, 4)
    verdict = budgeted.verify(answer, EIFFEL)
    assert verdict.label == "hallucinated"
    assert verdict.errors and verdict.errors[0].code == "budget_exceeded"
    assert 0 < len(verdict.claims) < 30 and all(c.status.is_flagged for c in verdict.claims)


def test_item7_a_grounded_answer_cut_short_by_the_budget_is_unverified_not_supported(verifier, monkeypatch):
    budgeted = LocalVerifier(embedder=verifier.embedder, time_budget_s=60.0, batch_size=2)
    answer = " ".join(["The Eiffel Tower was completed in 1889 in Paris.", "It is 330 metres tall.",
                       "The tower was designed by the company of Gustave Eiffel."] * 4)
    verifier.embedder._cache.clear()  # noqa: SLF001
    _budget_runs_out_after(monkeypatch, 3)
    verdict = budgeted.verify(answer, EIFFEL)
    assert verdict.label == "unverified" and verdict.errors[0].code == "budget_exceeded"
    assert verdict.score is None
