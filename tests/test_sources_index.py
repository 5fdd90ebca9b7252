import numpy as np
import pytest

from halguard import InputTypeError, Source
from halguard.grounding.index import EvidenceIndex
from halguard.text.contexts import chunk_source, normalize_contexts


def test_accepts_strings_pairs_sources_and_mappings():
    sources = normalize_contexts(["a", ("id1", "b"), Source("s", "c"), {"id": "m", "text": "d"}, {"page_content": "e"}])
    assert [(s.id, s.text) for s in sources] == [("0", "a"), ("id1", "b"), ("s", "c"), ("m", "d"), ("4", "e")]


def test_single_string_and_single_pair():
    assert normalize_contexts("just text") == [Source("0", "just text")]
    assert normalize_contexts((7, "seven")) == [Source("7", "seven")]


def test_duplicate_ids_are_made_unique():
    ids = [s.id for s in normalize_contexts([("x", "a"), ("x", "b"), ("x", "c")])]
    assert ids == ["x", "x#1", "x#2"]


@pytest.mark.parametrize(
    ("bad", "message"),
    [([42], "context item 0 is int; expected a str"), ([b"bytes"], "context item 0 is bytes; expected a str"),
     (3.5, "contexts must be a str or a list of passages, got float"),
     (b"raw", "contexts must be a str or a list of passages, got bytes"),
     ([("id", 5)], "context item 0 is tuple; expected a str")],
)
def test_wrong_types_raise_type_errors(bad, message):
    with pytest.raises(InputTypeError, match=f"^{message}"):  # says which item and what it is
        normalize_contexts(bad)


def test_callers_list_is_not_mutated():
    contexts = [("a", "one"), ("a", "two")]
    snapshot = list(contexts)
    normalize_contexts(contexts)
    assert contexts == snapshot


def test_chunks_overlap_and_keep_offsets():
    text = "A is one. B is two. C is three."
    chunks = chunk_source(text)
    assert [c.text for c in chunks] == [
        "A is one.", "B is two.", "C is three.", "A is one. B is two.", "B is two. C is three."
    ]
    assert all(text[c.start : c.end] == c.text for c in chunks)


def test_every_character_is_covered_and_chunks_fit_the_model():
    text = ("word " * 400) + "Then a normal sentence. " + "x" * 1500
    chunks = chunk_source(text, max_chars=300)
    covered = set()
    for c in chunks:
        assert len(c.text) <= 300
        assert text[c.start : c.end] == c.text
        covered.update(range(c.start, c.end))
    non_space = {i for i, ch in enumerate(text) if not ch.isspace()}
    assert non_space <= covered


def test_faiss_and_numpy_agree():
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(600, 16)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    q = emb[[5, 77, 599]] + 0.01
    big = EvidenceIndex(emb, faiss_min=10)
    small = EvidenceIndex(emb, faiss_min=10_000)
    assert big.uses_faiss and not small.uses_faiss
    s1, i1 = big.search(q, 3)
    s2, i2 = small.search(q, 3)
    assert (i1 == i2).all()
    assert np.allclose(s1, s2, atol=1e-5)
    assert list(i1[:, 0]) == [5, 77, 599]
