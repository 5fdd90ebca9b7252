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
