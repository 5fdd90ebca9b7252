"""Trained detectors by name (issue 39): the hub loader, label maps, the entailment scorer, nli: and spans:
detectors, the export of halguard's own checker, and the registry. Tiny random models of each family the docs name
(tests/tiny_models.py), loaded by path through the real code; nothing below transformers is replaced, and no test
touches the network (HF_HUB_OFFLINE=1)."""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch
from transformers import AutoModelForSequenceClassification, AutoModelForTokenClassification, AutoTokenizer

from halguard.detectors import check_detector_name, make_detector
from halguard.errors import InputTypeError, InvalidInputError, ModelLoadError
from halguard.grounding.entailment_detector import EntailmentDetector
from halguard.grounding.span_detector import SpanDetector
from halguard.models.entailment import EntailmentScorer
from halguard.models.hub import ModelNotAvailableError, resolve_model
from tests import tiny_models as tm

PREMISE = "The Eiffel tower in Paris was completed in 1889 and is 330 metres tall."
CLAIMS = ["The tower was completed in 1889.", "The tower is in France."]
CONTEXT = [("tower", "The Eiffel tower is 330 metres tall. It was completed in 1889 in Paris."),
           ("visits", "About 6 million people visit the tower every year.")]
ANSWER = "The Eiffel tower was completed in 1889. About 9 million people visit it every year."


def reference_risk(folder, premise, claim, supported):
    """P(unsupported) computed by hand with transformers: premise first, claim second."""
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    enc = tok(premise, claim, return_tensors="pt")
    types = getattr(model.config, "type_vocab_size", 0) or 0
    accepted = {"input_ids", "attention_mask"} | ({"token_type_ids"} if types >= 2 else set())
    with torch.inference_mode():
        probs = torch.softmax(model(**{k: v for k, v in enc.items() if k in accepted}).logits, -1)[0]
    return 1.0 - float(sum(probs[i] for i in supported))


# -- the hub loader -----------------------------------------------------------------------------------------------

def test_a_missing_folder_fails_at_once_naming_it(tmp_path):
    missing = tmp_path / "no-model-here"
    started = time.perf_counter()
    with pytest.raises(ModelNotAvailableError, match="no-model-here"):
        EntailmentDetector(str(missing))
    assert time.perf_counter() - started < 1.0
    assert issubclass(ModelNotAvailableError, ModelLoadError) and issubclass(ModelNotAvailableError, RuntimeError)


def test_an_uncached_hub_id_offline_fails_at_construction_with_the_fetch_command():
    started = time.perf_counter()
    for name in ("nli:halguard-tests/no-such-model", "spans:halguard-tests/no-such-model@v1"):
        with pytest.raises(ModelNotAvailableError, match=r"halguard-tests/no-such-model.*hf download"):
            make_detector(name)
    assert time.perf_counter() - started < 1.0  # a cache lookup, never a network wait


def test_revision_is_for_hub_models_not_folders(tiny_models):
    with pytest.raises(InvalidInputError, match="revision"):
        resolve_model(tiny_models["nli-bert"], revision="main")


def test_pickle_weights_are_refused_naming_safetensors(tmp_path, tiny_models):
    folder = tmp_path / "pickled"
    folder.mkdir()
    (folder / "config.json").write_text((tiny_models["nli-bert"] / "config.json").read_text())
    (folder / "pytorch_model.bin").write_bytes(b"not loaded")
    with pytest.raises(ModelLoadError, match=r"safetensors.*pytorch_model\.bin"):
        EntailmentScorer.load(folder)


def test_remote_code_needs_trust_remote_code(tmp_path, tiny_models):
    import shutil

    folder = shutil.copytree(tiny_models["nli-bert"], tmp_path / "remote")
    tm.edit_config(folder, auto_map={"AutoModelForSequenceClassification": "modeling.Custom"})
    with pytest.raises(ModelLoadError, match="trust_remote_code=True"):
        EntailmentScorer.load(folder)
    with pytest.raises(ModelLoadError, match="could not load"):  # allowed, but its code is not there
        EntailmentScorer.load(folder, trust_remote_code=True)


def test_a_broken_weights_file_is_a_model_load_error(tmp_path, tiny_models):
    import shutil

    folder = shutil.copytree(tiny_models["nli-bert"], tmp_path / "broken")
    (folder / "model.safetensors").write_bytes(b"\x00" * 64)
    with pytest.raises(ModelLoadError, match="broken"):
        EntailmentScorer.load(folder)


# -- label maps and pair order --------------------------------------------------------------------------------

@pytest.mark.parametrize("family", tm.FAMILIES)
def test_each_family_scores_premise_first_with_its_label_map(tiny_models, family):
    folder = tiny_models[f"nli-{family}"]
    scorer = EntailmentScorer.load(folder)
    got = [s.risk for s in scorer.score([PREMISE] * 2, CLAIMS)]
    want = [reference_risk(folder, PREMISE, c, supported=[0]) for c in CLAIMS]
    assert got == pytest.approx(want, abs=1e-5)
    swapped = [reference_risk(folder, c, PREMISE, supported=[0]) for c in CLAIMS]
    assert got != pytest.approx(swapped, abs=1e-5)  # the order matters, so the test above can fail


@pytest.mark.parametrize("labels", [
    {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"},
    {0: "neutral", 1: "entailment", 2: "contradiction"},
    {0: "not_entailment", 1: "entailment"},
    {0: "unsupported", 1: "supported"},
])
def test_label_names_in_any_order(tmp_path, labels):
    folder = tm.save("bert", "sequence", tmp_path / "m", id2label=labels)
    supported = [i for i, v in labels.items() if v.lower() in ("entailment", "supported")]
    got = EntailmentScorer.load(folder).score([PREMISE], [CLAIMS[0]])[0].risk
    assert got == pytest.approx(reference_risk(folder, PREMISE, CLAIMS[0], supported), abs=1e-5)


def test_labels_that_say_nothing_need_an_override(tmp_path):
    folder = tm.save("roberta", "sequence", tmp_path / "m", num_labels=2)  # LABEL_0, LABEL_1
    with pytest.raises(ModelLoadError, match=r"LABEL_0.*labels="):
        EntailmentScorer.load(folder)
    by_list = EntailmentScorer.load(folder, labels=["unsupported", "supported"]).score([PREMISE], [CLAIMS[0]])
    by_name = EntailmentScorer.load(folder, labels={"LABEL_1": "entailment", "LABEL_0": "neutral"}).score(
        [PREMISE], [CLAIMS[0]])
    want = reference_risk(folder, PREMISE, CLAIMS[0], supported=[1])
    assert by_list[0].risk == pytest.approx(want, abs=1e-5) and by_name[0].risk == pytest.approx(want, abs=1e-5)
    with pytest.raises(InvalidInputError, match="not a role"):
        EntailmentScorer.load(folder, labels=["unsupported", "positive"])
    with pytest.raises(InvalidInputError, match="does not exist"):
        EntailmentScorer.load(folder, labels={5: "supported"})


def test_unreadable_labels_are_an_error_naming_them(tmp_path):
    folder = tm.save("deberta-v2", "sequence", tmp_path / "m", id2label={0: "positive", 1: "negative"})
    with pytest.raises(ModelLoadError, match="'positive'"):
        EntailmentDetector(folder)


# -- windows, batches, threads, devices --------------------------------------------------------------------------

def test_long_evidence_is_windowed_never_cut(tiny_models):
    scorer = EntailmentScorer.load(tiny_models["nli-bert"], max_length=40)
    premise = " ".join(f"In {1800 + i} the tower had {i} visitors." for i in range(12))  # ~100 pieces
    units = scorer._units(0, premise, CLAIMS[0])
    assert len(units) > 2
    covered = set()
    for u in units:
        start = premise.index(u.premise)
        covered |= set(range(start, start + len(u.premise)))
        n = len(scorer.tokenizer(u.premise, u.claim)["input_ids"])
        assert n <= 40  # each window fits: nothing is cut
    assert covered >= {i for i, ch in enumerate(premise) if not ch.isspace()}
    whole = scorer.score([premise], [CLAIMS[0]])[0].risk
    windows = [scorer.score([u.premise], [u.claim])[0].risk for u in units]
    assert whole == pytest.approx(min(windows), abs=1e-6)  # supported where some window supports it


def test_a_long_claim_is_read_in_parts_each_of_which_must_hold(tiny_models):
    scorer = EntailmentScorer.load(tiny_models["nli-bert"], max_length=40)
    claim = " ".join(["The tower was completed in 1889 in Paris and is tall."] * 4)
    units = scorer._units(0, PREMISE, claim)
    parts = {u.part for u in units}
    assert len(parts) > 1
    per_part = {p: min(scorer.score([u.premise], [u.claim])[0].risk for u in units if u.part == p) for p in parts}
    assert scorer.score([PREMISE], [claim])[0].risk == pytest.approx(max(per_part.values()), abs=1e-6)


def test_batches_and_threads_do_not_change_scores(tiny_models):
    premises = [PREMISE, "About 6 million people visit the tower every year.", PREMISE]
    claims = [CLAIMS[0], "Nine million people visit it.", "The tower is short."]
    one = EntailmentScorer.load(tiny_models["nli-modernbert"], batch_size=1).score(premises, claims)
    eight = EntailmentScorer.load(tiny_models["nli-modernbert"], batch_size=8)
    before = torch.get_num_threads()
    two_threads = eight.score(premises, claims, num_threads=2)
    assert torch.get_num_threads() == before  # torch's process-wide setting is put back
    assert [s.risk for s in one] == pytest.approx([s.risk for s in two_threads], abs=1e-5)


def test_device_names_are_checked(tiny_models):
    with pytest.raises(InvalidInputError, match="device"):
        EntailmentDetector(tiny_models["nli-bert"], device="tpu")
    assert EntailmentScorer.load(tiny_models["nli-bert"], device="cpu").score([PREMISE], [CLAIMS[0]])


# -- the nli: detector -------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def nli(tiny_models):
    return make_detector(f"nli:{tiny_models['nli-deberta-v2']}")


def test_nli_detector_reads_each_claim_with_the_model(nli, tiny_models):
    assert isinstance(nli, EntailmentDetector) and nli.name == f"nli:{tiny_models['nli-deberta-v2']}"
    verdict = nli.verify(ANSWER, CONTEXT)
    assert verdict.detector == nli.name and verdict.label in ("supported", "hallucinated")
    read = [c for c in verdict.claims if c.signals and c.signals.meaning_support is not None]
    assert len(read) == 2
    for claim in read:  # no finding in the first claim: its risk is the model's
        if not (claim.signals.missing_numbers or claim.signals.missing_entities):
            assert claim.score == pytest.approx(1 - claim.signals.meaning_support, abs=2e-3)
    assert verdict.claims[1].score >= 0.5  # "9 million" is a changed number: the rules' finding holds


def test_nli_sync_async_and_concurrent_checks_agree(nli):
    alone = nli.verify(ANSWER, CONTEXT).model_dump(exclude={"latency_ms"})
    awaited = asyncio.run(nli.averify(ANSWER, CONTEXT)).model_dump(exclude={"latency_ms"})
    with ThreadPoolExecutor(4) as pool:
        many = list(pool.map(lambda _: nli.verify(ANSWER, CONTEXT).model_dump(exclude={"latency_ms"}), range(8)))
    assert awaited == alone and all(m == alone for m in many)


def test_nli_detector_refuses_meaning_and_bad_input(tiny_models, nli):
    with pytest.raises(TypeError, match="meaning"):
        EntailmentDetector(tiny_models["nli-bert"], meaning=True)
    with pytest.raises(InputTypeError):
        nli.verify(42, CONTEXT)
    assert nli.verify(ANSWER, []).label == "unverified"


# -- halguard's own checker, exported ----------------------------------------------------------------------------

def test_the_exported_checker_gives_the_built_in_scores(tmp_path):
    from halguard import LocalVerifier
    from halguard.grounding.meaning import export_claim_checker

    folder = export_claim_checker(tmp_path / "checker")
    assert (folder / "model.safetensors").is_file() and not list(folder.glob("*.bin"))
    exported = make_detector(f"nli:{folder}")
    built_in = LocalVerifier(meaning=True)
    answers = [ANSWER, "The tower is 330 metres tall and was finished in 1889.", "It was built in 1925 in Rome."]
    for answer in answers:
        skip = {"latency_ms", "detector", "usage"}  # the second check finds the passages embedded
        a = exported.verify(answer, CONTEXT).model_dump(exclude=skip)
        b = built_in.verify(answer, CONTEXT).model_dump(exclude=skip)
        assert a == b  # scores, probabilities, claims, meaning support and spans alike
    config = json.loads((folder / "config.json").read_text())
    assert config["model_type"] == "halguard-claim-checker" and "auto_map" not in config


# -- the spans: detector -----------------------------------------------------------------------------------------

UNICODE_ANSWER = "Café Zürich opened in 東京 in 1889 🎉. Naïve visitors: 9 million!"


def reference_token_risks(folder, first, answer):
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForTokenClassification.from_pretrained(folder).eval()
    enc = tok(first, answer, return_offsets_mapping=True, return_tensors="pt")
    with torch.inference_mode():
        probs = torch.softmax(model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).logits, -1)
    return {tuple(o): float(probs[0, t, 1]) for t, (o, seq) in
            enumerate(zip(enc["offset_mapping"][0].tolist(), enc.sequence_ids(0))) if seq == 1 and o[1] > o[0]}


@pytest.mark.parametrize("family", tm.FAMILIES)
def test_span_offsets_are_exact_on_unicode_text(tiny_models, family):
    folder = tiny_models[f"spans-{family}"]
    probe = SpanDetector(folder, threshold=0.5)
    first = probe._first_segment([t for _, t in CONTEXT], "Where is it?")
    risks = reference_token_risks(folder, first, UNICODE_ANSWER)
    threshold = sorted(risks.values())[len(risks) // 2]  # about half the tokens flagged
    verdict = SpanDetector(folder, threshold=threshold).verify(UNICODE_ANSWER, CONTEXT, question="Where is it?")
    flagged = {i for (s, e), r in risks.items() if r >= threshold for i in range(s, e)
               if not UNICODE_ANSWER[i].isspace()}
    in_spans = {i for sp in verdict.spans for i in range(sp.start, sp.end) if not UNICODE_ANSWER[i].isspace()}
    assert flagged and in_spans == flagged
    for span in verdict.spans:
        assert UNICODE_ANSWER[span.start:span.end] == span.text
    assert verdict.score == pytest.approx(max(risks.values()), abs=1e-5)
    for claim in verdict.claims:
        assert UNICODE_ANSWER[claim.start:claim.end] == claim.text
        assert claim.status.is_flagged == any(s.start < claim.end and claim.start < s.end for s in verdict.spans)


def test_span_layouts_follow_the_model_card(tiny_models):
    det = SpanDetector(tiny_models["spans-modernbert"])
    passages = ["First passage.", "Second passage."]
    context = "passage 1: First passage.\npassage 2: Second passage."
    qa = det._first_segment(passages, "What is it?")
    assert qa.startswith("Briefly answer the following question:\nWhat is it?\n") and "following 2 passages" in qa
    assert det._first_segment(passages, None) == f"Summarize the following text:\n{context}\noutput:"
    plain = SpanDetector(tiny_models["spans-modernbert"], layout="plain")
    assert plain._first_segment(["ctx"], "q?") == "ctx\n\nq?"


def test_a_long_context_is_read_in_windows_that_fit(tiny_models):
    det = SpanDetector(tiny_models["spans-bert"], max_length=48)
    seen = []
    real = det.model

    class Recording(torch.nn.Module):  # sees what the real model is given
        def __init__(self):
            super().__init__()
            self.inner = real
            self.config = real.config

        def forward(self, **inputs):
            seen.append(inputs["input_ids"].shape[1])
            return self.inner(**inputs)

    det.model = Recording()
    long_context = [" ".join(f"In {1800 + i} the tower had {i} visitors." for i in range(20))]
    verdict = det.verify("The tower had 5 visitors in 1805.", long_context)
    assert verdict.label in ("supported", "hallucinated")
    assert len(seen) > 1 and max(seen) <= 48


def test_span_labels_and_bad_input(tmp_path, tiny_models):
    named = tm.save("bert", "token", tmp_path / "named", id2label={0: "hallucinated", 1: "supported"})
    assert SpanDetector(named)._hallucinated == 0
    three = tm.save("bert", "token", tmp_path / "three", num_labels=3)
    with pytest.raises(ModelLoadError, match="hallucinated_label"):
        SpanDetector(three)
    assert SpanDetector(three, hallucinated_label=2)._hallucinated == 2
    det = SpanDetector(tiny_models["spans-bert"])
    assert det.verify("  ", CONTEXT).errors[0].code == "empty_answer"
    assert det.verify(ANSWER, []).errors[0].code == "no_context"
    assert SpanDetector(tiny_models["spans-bert"], max_context_chars=10).verify(ANSWER, CONTEXT).label == "unverified"
    with pytest.raises(InputTypeError):
        det.verify(ANSWER, CONTEXT, question=3)


def test_spans_async_matches_sync(tiny_models):
    det = make_detector(f"spans:{tiny_models['spans-roberta']}")
    alone = det.verify(ANSWER, CONTEXT).model_dump(exclude={"latency_ms"})
    assert asyncio.run(det.averify(ANSWER, CONTEXT)).model_dump(exclude={"latency_ms"}) == alone


# -- the registry ------------------------------------------------------------------------------------------------

def test_detector_names():
    assert check_detector_name("nli:owner/model") == "nli:owner/model"
    for bad in ("nli:", "spans: ", "hhem", None):
        with pytest.raises(InvalidInputError, match="unknown detector"):
            check_detector_name(bad)


def test_a_span_models_supported_does_not_stand_against_the_rules(tiny_models):
    # threshold 1.0: this random model marks nothing, so every verdict it gives on its own is "supported".
    det = SpanDetector(tiny_models["spans-bert"], threshold=1.0, weak_threshold=1.0)
    context = ["The treaty was signed in 1803 in Paris."]
    assert det.verify("The treaty was signed in 1803 in Paris.", context).label == "supported"
    changed = det.verify("The treaty was signed in 1850 in Paris.", context)
    assert changed.label == "hallucinated" and changed.errors[-1].code == "llm_overruled"
    assert any(s.text == "1850" for s in changed.spans)


@pytest.mark.parametrize("invisible", ["\u200b\u200b", "\u00ad \u200d\n\u2060", "\ufeff"])
def test_invisible_contexts_are_no_context_for_model_detectors(tiny_models, invisible):
    for det in (SpanDetector(tiny_models["spans-bert"]), make_detector(f"nli:{tiny_models['nli-bert']}")):
        verdict = det.verify("The treaty was signed in 1803.", [invisible, invisible])
        assert verdict.label == "unverified" and verdict.errors[0].code == "no_context"
