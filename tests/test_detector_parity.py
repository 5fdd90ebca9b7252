"""The field's detectors read as their authors read them: ``reading="reference"`` against the authors' own code
(LettuceDetect 0.2.3, sentence-transformers' CrossEncoder) on tiny random models built here, and the authors'
documented input layouts (HHEM-2.1-open, MiniCheck) on tiny models of each architecture."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from halguard.grounding.span_detector import SpanDetector  # noqa: E402
from tests import tiny_models as tm  # noqa: E402

# Pieces per window, small enough that the long rows below take several chunks (the byte-level tokenizer trained
# here cuts the prompt into 154 pieces).
WINDOWS = {"modernbert-bytes": 240, "bert-wordpiece": 96}
QUESTION = "When was the tower built?"
ROWS = {
    "short": (["The Eiffel Tower is in Paris. It was completed in 1889."], "The tower was completed in 1889.",
              QUESTION),
    "summary": (["The Eiffel Tower is in Paris.", "Gustave designed it."], "The tower in Paris was designed by a "
                "company.", None),
    "long": ([f"In {1800 + i} the tower had {i} million visits from people of the city." for i in range(14)],
             "The tower had 5 million visits in 1805 and the rocket was launched.", QUESTION),
    "one passage longer than a chunk": (["the tower " * 60, "Paris is the capital city of France."],
                                        "The capital of France is Paris; the tower is tall.", "What is the capital?"),
    "blank passages": (["", "The tower is in Paris.", "   ", "It was built in 1889."] * 3,
                       "The tower was built in Paris in 1889.", QUESTION),
    "unicode": (["Café Zürich opened in 東京 in 1889.", "Naïve visitors: 9 million 🎉!"],
                "Café Zürich opened in 東京 in 1889 🎉. Naïve visitors: 9 million!", None),
}


@pytest.fixture(scope="module")
def span_models(tmp_path_factory):
    root = tmp_path_factory.mktemp("span-parity")
    return {"modernbert-bytes": tm.save_byte_level("modernbert", "token", root / "modernbert-bytes", seed=3,
                                                   max_position_embeddings=512),
            "bert-wordpiece": tm.save("bert", "token", root / "bert-wordpiece", seed=5)}


@pytest.mark.parametrize("model", ["modernbert-bytes", "bert-wordpiece"])
@pytest.mark.parametrize("row", list(ROWS))
def test_reference_spans_are_lettucedetects_own(span_models, model, row):
    transformer = pytest.importorskip("lettucedetect.detectors.transformer")
    folder = span_models[model]
    passages, answer, question = ROWS[row]
    window = WINDOWS[model]
    theirs = transformer.TransformerDetector(str(folder), max_length=window, device="cpu").predict(
        passages, answer, question=question, output_format="spans")
    ours = SpanDetector(folder, reading="reference", max_length=window).verify(answer, passages, question=question)
    assert ours.label in ("supported", "hallucinated")
    got = [(s.start, s.end, s.confidence) for s in ours.spans]
    assert [(s, e) for s, e, _ in got] == [(t["start"], t["end"]) for t in theirs]
    for (_, _, c), t in zip(got, theirs):
        assert c == pytest.approx(t["confidence"], abs=1e-4)
    assert [s.text for s in ours.spans] == [t["text"] for t in theirs]
    assert ours.label == ("hallucinated" if theirs else "supported")


@pytest.mark.parametrize("model", ["modernbert-bytes", "bert-wordpiece"])
@pytest.mark.parametrize("row", ["short", "summary", "unicode"])
def test_inside_one_window_both_readings_give_the_authors_spans(span_models, model, row):
    """The default reading differs from the authors' only where the input takes several windows."""
    passages, answer, question = ROWS[row]
    window = WINDOWS[model]
    evidence = SpanDetector(span_models[model], max_length=window)
    reference = SpanDetector(span_models[model], reading="reference", max_length=window)
    assert len(evidence._units(answer, passages, question)) == 1
    spans = [(s.start, s.end, round(s.confidence, 4)) for s in reference.verify(answer, passages,
                                                                                 question=question).spans]
    assert [(s.start, s.end, round(s.confidence, 4)) for s in evidence._verdict(
        answer, passages, question, sorted(evidence._token_risks(answer, passages, question, None).items())).spans
    ] == spans


@pytest.mark.parametrize("model", ["modernbert-bytes", "bert-wordpiece"])
def test_the_rows_exercise_what_they_claim(span_models, model):
    from transformers import AutoTokenizer

    from halguard.models.readings import lettucedetect as lettuce

    tok = AutoTokenizer.from_pretrained(str(span_models[model]))
    for row in ("long", "one passage longer than a chunk", "blank passages"):
        passages, answer, question = ROWS[row]
        assert len(lettuce.passage_groups(tok, passages, question, answer, WINDOWS[model])) > 1, row
    groups = lettuce.passage_groups(tok, ROWS["blank passages"][0], QUESTION, ROWS["blank passages"][1],
                                    WINDOWS[model])
    assert "" in groups[0]  # blank passages are kept, and numbered
    if model == "modernbert-bytes":
        pieces = tok(ROWS["unicode"][1], return_offsets_mapping=True)["offset_mapping"]
        assert len(pieces) != len(set(map(tuple, pieces)))  # byte pieces that share one character's range


def test_an_answer_longer_than_the_window_is_unverified_in_the_reference_reading(span_models):
    folder = span_models["bert-wordpiece"]
    answer = "The tower was built in 1889. " * 20
    window = WINDOWS["bert-wordpiece"]
    verdict = SpanDetector(folder, reading="reference", max_length=window).verify(answer, ["The tower."])
    assert verdict.label == "unverified" and verdict.errors[0].code == "answer_too_long"
    # halguard's own reading reads it in parts
    assert SpanDetector(folder, max_length=window).verify(answer, ["The tower."]).label != "unverified"


def test_evidence_reading_reads_byte_pieces_one_by_one(span_models):
    """Byte-level pieces of one character share a character range: each keeps its own risk (they were merged into
    one, keeping the lowest)."""
    passages, answer, question = ROWS["unicode"]
    det = SpanDetector(span_models["modernbert-bytes"], max_length=WINDOWS["modernbert-bytes"])
    risks = det._token_risks(answer, passages, question, None)
    assert len({(s, e) for s, e, _ in risks}) < len(risks)
    verdict = det.verify(answer, passages, question=question)
    assert all(answer[s.start:s.end] == s.text for s in verdict.spans)


def test_reading_is_checked(span_models):
    from halguard.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="reading"):
        SpanDetector(span_models["bert-wordpiece"], reading="authors")
    with pytest.raises(InvalidInputError, match="layout"):
        SpanDetector(span_models["bert-wordpiece"], reading="reference", layout="plain")


def test_no_token_types_reach_a_span_model(span_models):
    det = SpanDetector(span_models["bert-wordpiece"])
    seen = []
    real = det.model

    class Recording(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner, self.config = real, real.config

        def forward(self, **inputs):
            seen.append(sorted(inputs))
            return self.inner(**inputs)

    det.model = Recording()
    det.verify(*ROWS["short"][1::-1], question=QUESTION)
    assert seen and all(keys == ["attention_mask", "input_ids"] for keys in seen)


# -- nli: read as sentence-transformers' CrossEncoder ------------------------------------------------------------

PREMISE_ROWS = [
    (["The Eiffel Tower is in Paris. It was completed in 1889."], "The tower was completed in 1889."),
    (["Café Zürich opened in 東京.", "", "Naïve visitors: 9 million."], "Café Zürich opened in 東京 🎉."),
    ([f"In {1800 + i} the tower had {i} million visits." for i in range(40)], "The tower had 5 million visits."),
]


@pytest.mark.parametrize("family", ["bert", "roberta"])
@pytest.mark.parametrize("row", range(len(PREMISE_ROWS)))
def test_nli_reference_reading_is_cross_encoders_own(tiny_models, family, row):
    sentence_transformers = pytest.importorskip("sentence_transformers")
    from halguard.detectors import make_detector

    folder = tiny_models[f"nli-{family}"]
    passages, answer = PREMISE_ROWS[row]
    document = "\n".join(passages)
    logits = sentence_transformers.CrossEncoder(str(folder), device="cpu").predict([(document, answer)],
                                                                                    convert_to_tensor=True)
    entailment = float(torch.softmax(logits.float(), dim=-1)[0, 0])  # the tiny models' class 0 is entailment
    verdict = make_detector(f"nli:{folder}", reading="reference").verify(answer, passages)
    assert 1.0 - verdict.score == pytest.approx(entailment, abs=1e-5)
    assert [(c.start, c.end) for c in verdict.claims] == [(0, len(answer))]


# -- hhem: HHEM-2.1-open without its remote code -----------------------------------------------------------------

@pytest.fixture(scope="module")
def hhem(tmp_path_factory):
    root = tmp_path_factory.mktemp("hhem")
    model = tm.save_hhem(root / "hhem", root / "flan-t5", seed=1)
    return root / "hhem", root / "flan-t5", model


def _authors_hhem(model, tokenizer, pairs):
    """HHEMv2ForSequenceClassification.predict, as its model card documents it."""
    prompt = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"
    inputs = tokenizer([prompt.format(text1=p, text2=h) for p, h in pairs], return_tensors="pt", padding=True)
    with torch.no_grad():
        logits = model(**inputs).logits[:, 0, :]
    return torch.softmax(logits, dim=-1)[:, 1].tolist(), inputs


def test_hhem_reads_its_prompt_and_class_one_without_remote_code(hhem):
    from halguard.detectors import make_detector

    folder, foundation, model = hhem
    tokenizer = tm.t5_tokenizer()
    detector = make_detector(f"hhem:{folder}", reading="reference")
    for passages, answer in PREMISE_ROWS[:2]:
        (expected,), inputs = _authors_hhem(model, tokenizer, [("\n".join(passages), answer)])
        ids = inputs["input_ids"][0].tolist()
        assert ids[0] == tokenizer.pad_token_id and ids[-1] == tokenizer.eos_token_id  # "<pad> Determine ..." </s>
        verdict = detector.verify(answer, passages)
        assert 1.0 - verdict.score == pytest.approx(expected, abs=1e-5)
    assert not list(folder.glob("*.py"))  # nothing of its code is there, nor needed


def test_hhem_evidence_reading_scores_claims_with_the_same_model(hhem):
    from halguard.detectors import make_detector

    folder, _, model = hhem
    detector = make_detector(f"hhem:{folder}")
    passages, answer = PREMISE_ROWS[0]
    scorer = detector.claim_checker
    (expected,), _ = _authors_hhem(model, tm.t5_tokenizer(), [(passages[0], answer)])
    with scorer.running():
        assert scorer.support([passages[0]], [answer])[0] == pytest.approx(expected, abs=1e-5)
    assert detector.name == f"hhem:{folder}" and detector.verify(answer, passages).label != "unverified"


def test_hhem_refuses_what_it_cannot_read_at_once(hhem, tiny_models, tmp_path):
    import time

    from halguard.detectors import make_detector
    from halguard.errors import ModelLoadError, ModelNotAvailableError

    folder, foundation, _ = hhem
    started = time.perf_counter()
    with pytest.raises(ModelLoadError, match="not HHEM-2.1-open"):
        make_detector(f"hhem:{tiny_models['nli-bert']}")
    with pytest.raises(ModelNotAvailableError):
        make_detector(f"hhem:{tmp_path / 'absent'}")
    wrong = tmp_path / "wrong-foundation"
    tm.save_hhem(tmp_path / "other", wrong, seed=2)
    (wrong / "config.json").write_text((wrong / "config.json").read_text().replace('"d_model": 32', '"d_model": 16'))
    with pytest.raises(ModelLoadError, match="do not fit"):
        make_detector(f"hhem:{folder}", foundation=str(wrong))
    assert time.perf_counter() - started < 5  # each refusal is a config read, not a model run


def test_hhem_reference_reading_bounds_what_one_pass_reads(hhem):
    from halguard.detectors import make_detector

    folder, _, _ = hhem
    detector = make_detector(f"hhem:{folder}", reading="reference", max_length=160)
    verdict = detector.verify("The tower is tall.", ["The tower is tall. " * 40])
    assert verdict.label == "unverified" and verdict.errors[0].code == "context_too_long"


# -- minicheck: the RoBERTa/DeBERTa classifiers and Flan-T5 -------------------------------------------------------

@pytest.fixture(scope="module")
def minicheck(tmp_path_factory):
    root = tmp_path_factory.mktemp("minicheck")
    return {"roberta": tm.save_byte_level("roberta", "sequence", root / "roberta", seed=4, id2label={0: "0", 1: "1"}),
            "t5": tm.save_t5_seq2seq(root / "flan-t5", seed=6)}


def _sentences(block):
    """A stand-in for NLTK's punkt in these tests (the chunking around it is MiniCheck's)."""
    out, start = [], 0
    for i, ch in enumerate(block):
        if ch == "." and (i + 1 == len(block) or block[i + 1] == " "):
            out.append(block[start:i + 1].strip())
            start = i + 1
    rest = block[start:].strip()
    return [s for s in [*out, rest] if s]


def test_minicheck_chunks_whole_sentences_as_its_inferencer(minicheck):
    from transformers import AutoTokenizer

    from halguard.models.readings.minicheck import document_chunks

    tok = AutoTokenizer.from_pretrained(str(minicheck["roberta"]))
    doc = "The tower is tall.  It is in Paris.\nIt was built in 1889.\n\nPeople visit it."
    assert document_chunks(doc, family="minicheck", tokenizer=tok, split=_sentences) == [
        "The tower is tall. It is in Paris.\nIt was built in 1889.\n\n People visit it."]
    sizes = [len(tok(s, add_special_tokens=False)["input_ids"]) for s in _sentences(doc.replace("\n", " "))]
    small = document_chunks(doc, family="minicheck", tokenizer=tok, split=_sentences, chunk_size=sizes[0] + 1)
    assert small[0] == "The tower is tall." and len(small) > 2
    words = document_chunks(doc, family="minicheck-t5", tokenizer=tok, split=_sentences, chunk_size=5)
    assert words[0] == "The tower is tall."  # Flan-T5 counts whitespace words


def test_minicheck_classifier_reads_doc_eos_claim_as_one_string_and_class_one(minicheck):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from halguard.detectors import make_detector
    from halguard.grounding.reference_detector import ReferenceDetector

    folder = minicheck["roberta"]
    tok = AutoTokenizer.from_pretrained(str(folder))
    model = AutoModelForSequenceClassification.from_pretrained(str(folder)).eval()
    detector = make_detector(f"minicheck:{folder}")  # the config's labels "0"/"1" are read as MiniCheck's
    scorer = detector.claim_checker
    doc, claim = "The tower is tall. It is in Paris.", "The tower is in Paris."
    enc = scorer.pair_inputs.encode(scorer.tokenizer, [doc], [claim], scorer.max_length)
    assert tok.convert_ids_to_tokens(enc["input_ids"][0])[0] == "<s>"
    assert enc["input_ids"][0].tolist() == tok(doc + "</s>" + claim)["input_ids"]  # <s>doc</s>claim</s>
    with torch.no_grad():
        expected = float(torch.softmax(model(**tok([doc + tok.eos_token + claim], return_tensors="pt")).logits,
                                       dim=-1)[0, 1])
    reference = ReferenceDetector(scorer, sentences=_sentences)
    assert 1.0 - reference.verify(claim, [doc]).score == pytest.approx(expected, abs=1e-5)
    assert scorer.max_length == tm.MAX_POSITIONS  # the authors' 512, within this tiny model's positions


def test_minicheck_takes_the_highest_support_over_chunks(minicheck):
    from halguard.detectors import make_detector
    from halguard.grounding.reference_detector import ReferenceDetector
    from halguard.models.readings.minicheck import document_chunks

    scorer = make_detector(f"minicheck:{minicheck['roberta']}").claim_checker
    doc = " ".join(f"In {1800 + i} the tower had {i} million visits." for i in range(60))
    claim = "The tower had 5 million visits."
    chunks = document_chunks(doc, family="minicheck", tokenizer=scorer.tokenizer, split=_sentences)
    assert len(chunks) > 1
    with scorer.running():
        each = scorer.support(chunks, [claim] * len(chunks))
    verdict = ReferenceDetector(scorer, sentences=_sentences).verify(claim, [doc])
    assert 1.0 - verdict.score == pytest.approx(max(each), abs=1e-6)


def test_minicheck_flan_t5_reads_two_label_tokens(minicheck):
    from transformers import AutoTokenizer, T5ForConditionalGeneration

    from halguard.detectors import make_detector

    folder = minicheck["t5"]
    tok = AutoTokenizer.from_pretrained(str(folder))
    model = T5ForConditionalGeneration.from_pretrained(str(folder)).eval()
    scorer = make_detector(f"minicheck:{folder}").claim_checker
    doc, claim = "The tower is in Paris.", "The tower is in France."
    inputs = tok(["predict: " + doc + tok.eos_token + claim], return_tensors="pt")
    with torch.no_grad():
        logits = model(**inputs, decoder_input_ids=torch.zeros((1, 1), dtype=torch.long)).logits[:, 0, [3, 209]]
    with scorer.running():
        assert scorer.support([doc], [claim])[0] == pytest.approx(float(torch.softmax(logits, -1)[0, 1]), abs=1e-5)
    assert scorer.pair_inputs.family == "minicheck-t5" and scorer.max_length == 2048


def test_minicheck_refuses_other_models_and_reference_needs_punkt(tiny_models, minicheck, monkeypatch):
    from halguard.detectors import make_detector
    from halguard.errors import ModelLoadError

    with pytest.raises(ModelLoadError, match="not a MiniCheck model"):
        make_detector(f"minicheck:{tiny_models['nli-modernbert']}")
    with pytest.raises(ModelLoadError, match="2 classes"):
        make_detector(f"minicheck:{tiny_models['nli-roberta']}")
    import halguard.models.readings.minicheck as mc

    def no_punkt():
        raise ModelLoadError("minicheck reading='reference' splits documents with NLTK's punkt")

    monkeypatch.setattr(mc, "punkt_sentences", no_punkt)
    with pytest.raises(ModelLoadError, match="punkt"):
        make_detector(f"minicheck:{minicheck['roberta']}", reading="reference")


# -- names and options -------------------------------------------------------------------------------------------

def test_family_names_and_options_are_checked_before_anything_loads():
    from halguard.detectors import check_detector_name, check_detector_options, parse_detector_option
    from halguard.errors import InvalidInputError

    for name in ("hhem:vectara/hallucination_evaluation_model", "minicheck:lytang/MiniCheck-RoBERTa-Large"):
        assert check_detector_name(name) == name
    with pytest.raises(InvalidInputError, match="hhem:<model>"):
        check_detector_name("hhem:")
    assert parse_detector_option("max_length=512") == ("max_length", 512)
    assert parse_detector_option('labels=["unsupported", "supported"]') == ("labels", ["unsupported", "supported"])
    assert parse_detector_option("reading=reference") == ("reading", "reference")
    with pytest.raises(InvalidInputError, match="key=value"):
        parse_detector_option("reference")
    with pytest.raises(InvalidInputError, match="no option 'labels'"):
        check_detector_options("minicheck:x/y", {"labels": [0, 1]})
    with pytest.raises(InvalidInputError, match="reading"):
        check_detector_options("nli:x/y", {"reading": "authors"})
    with pytest.raises(InvalidInputError, match="trust_remote_code"):
        check_detector_options("nli:x/y", {"trust_remote_code": "yes"})
    with pytest.raises(InvalidInputError, match="revision"):
        check_detector_options("nli:x/y@abc", {"revision": "def"})
    with pytest.raises(InvalidInputError, match="none by name"):
        check_detector_options("local", {"reading": "reference"})


def test_cli_detector_options_reach_the_detector(capsys, tiny_models):
    import json

    from halguard.tools.cli import main

    folder = tiny_models["spans-bert"]
    code = main(["check", "--detector", f"spans:{folder}", "--detector-option", "reading=reference",
                 "--detector-option", "max_length=96", "--answer", "The tower was completed in 1889.",
                 "--context", "The tower was completed in 1889 in Paris."])
    verdict = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and verdict["detector"] == f"spans:{folder}"
    code = main(["check", "--detector", f"nli:{folder}", "--detector-option", "layout=plain", "--answer", "x",
                 "--context", "y"])
    assert code == 2 and "no option 'layout'" in capsys.readouterr().err


def test_families_work_through_the_adapters(hhem, minicheck):
    from llama_index.core.schema import NodeWithScore, TextNode

    from langchain_halguard import with_halguard
    from llamaindex_halguard import HalguardNodePostprocessor
    from tests.test_langchain_guard import GOOD, QUESTION, rag_chain

    for name in (f"hhem:{hhem[0]}", f"minicheck:{minicheck['roberta']}"):
        out = with_halguard(rag_chain(GOOD), detector=name).invoke(QUESTION)
        assert out["halguard"].detector == name
        nodes = [NodeWithScore(node=TextNode(text="JWST was launched in 2021.", id_="a"), score=0.9)]
        post = HalguardNodePostprocessor(detector=name).postprocess_nodes(nodes, query_str="When was JWST launched?")
        assert "halguard" in post[0].node.metadata


def test_families_work_in_the_agent_middleware_and_query_engine(hhem, minicheck):
    from llama_index.core import Document, Settings, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.llms import MockLLM

    from halguard.detectors import make_detector
    from langchain_halguard import HalguardMiddleware
    from llamaindex_halguard import HalguardQueryEngine
    from tests.jwst import GOOD, search_tool
    from tests.test_middleware import agent, user

    reference = make_detector(f"hhem:{hhem[0]}", reading="reference")
    for detector in (reference, f"minicheck:{minicheck['roberta']}"):
        name = detector if isinstance(detector, str) else detector.name
        state = agent(search_tool(), GOOD, middleware=[HalguardMiddleware(detector=detector)]).invoke(user())
        assert state["halguard"]["detector"] == name
    Settings.embed_model = MockEmbedding(embed_dim=8)
    index = VectorStoreIndex.from_documents([Document(text="JWST was launched in 2021.")])
    engine = HalguardQueryEngine(index.as_query_engine(llm=MockLLM()), detector=reference)
    assert engine.query("When was JWST launched?").metadata["halguard"]["detector"] == reference.name


def test_a_family_name_on_another_familys_model_names_the_family(hhem, tiny_models, tmp_path):
    from halguard.detectors import make_detector
    from halguard.errors import ModelLoadError, ModelNotAvailableError

    with pytest.raises(ModelLoadError, match="not a MiniCheck model: its model_type is 'HHEMv2'"):
        make_detector(f"minicheck:{hhem[0]}")
    moved = tmp_path / "hhem-without-foundation"
    moved.mkdir()
    for f in hhem[0].iterdir():
        (moved / f.name).write_bytes(f.read_bytes())
    with pytest.raises(ModelNotAvailableError, match="is built on"):
        make_detector(f"hhem:{moved}", foundation=str(tmp_path / "absent-flan"))


def test_reference_readings_agree_sync_async_and_under_threads(hhem, span_models):
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from halguard.detectors import make_detector

    detectors = [make_detector(f"hhem:{hhem[0]}", reading="reference"),
                 SpanDetector(span_models["bert-wordpiece"], reading="reference", max_length=WINDOWS["bert-wordpiece"])]
    rows = [ROWS[k] for k in ("short", "long", "blank passages", "unicode")]
    for det in detectors:
        alone = [det.verify(a, p, question=q).model_dump(exclude={"latency_ms"}) for p, a, q in rows]
        with ThreadPoolExecutor(4) as pool:
            threaded = list(pool.map(lambda r: det.verify(r[1], r[0], question=r[2]), rows * 2))
        assert [v.model_dump(exclude={"latency_ms"}) for v in threaded] == alone * 2
        p, a, q = rows[0]
        assert asyncio.run(det.averify(a, p, question=q)).model_dump(exclude={"latency_ms"}) == alone[0]


def test_calibrate_and_bench_take_a_reference_reading(tmp_path, tiny_models):
    import json

    from halguard.detectors import make_detector
    from halguard.tools.cli import main
    from tests.test_trained_detectors_everywhere import ROWS as LABELLED

    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in LABELLED), encoding="utf-8")
    name = f"nli:{tiny_models['nli-bert']}"
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(rows), "--detector", name, "--detector-option", "reading=reference", "--out",
                 str(out), "--folds", "2", "--quiet"]) == 0
    detector = make_detector(name, calibration=str(out), reading="reference")
    verdict = detector.verify(LABELLED[0]["answer"], LABELLED[0]["context"])
    assert verdict.probability is not None and len(verdict.claims) == 1
    report = tmp_path / "bench.json"
    assert main(["bench", str(rows), "--detector", name, "--detector-option", "reading=reference", "--limit", "6",
                 "--quiet", "--json-out", str(report)]) == 0
    assert json.loads(report.read_text())["detector"] == name


@pytest.mark.parametrize("reading", ["evidence", "reference"])
def test_thousands_of_passages_finish_within_the_budget(span_models, reading):
    import time

    # The budget is a fraction of the reading (about 1 s on an idle 2-core machine): a faster machine read all
    # 6,000 passages within a 1 s budget and rightly gave a verdict.
    det = SpanDetector(span_models["bert-wordpiece"], reading=reading, max_length=WINDOWS["bert-wordpiece"],
                       time_budget_s=0.2)
    passages = ["", "The tower is in Paris.", "  "] * 2000
    started = time.perf_counter()
    verdict = det.verify("The tower is in Paris.", passages)
    assert time.perf_counter() - started < 15
    assert verdict.label == "unverified" and verdict.errors[0].code == "budget_exceeded"


def test_hhem_refuses_a_foundation_tokenizer_past_its_embedding_table(tmp_path):
    import json

    from safetensors.torch import save_file
    from transformers import T5ForTokenClassification

    from halguard.detectors import make_detector
    from halguard.errors import ModelLoadError

    foundation, folder = tmp_path / "flan", tmp_path / "hhem"
    foundation.mkdir()
    folder.mkdir()
    small = tm.t5_config(50)  # 50 rows, and a tokenizer of several hundred tokens beside it
    small.save_pretrained(foundation)
    tm.t5_tokenizer().save_pretrained(foundation)
    model = T5ForTokenClassification(small)
    save_file({f"t5.{k}": v.clone().contiguous() for k, v in model.state_dict().items()
               if k != "transformer.encoder.embed_tokens.weight"}, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({"model_type": "HHEMv2", "foundation": str(foundation)}))
    with pytest.raises(ModelLoadError, match="do not belong together"):
        make_detector(f"hhem:{folder}")
