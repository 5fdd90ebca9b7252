"""The retriever's own vectors: reused when the model matches, ignored otherwise, validated always."""

import numpy as np
import pytest

from halguard import InputTypeError, InvalidInputError, LocalVerifier, Source
from halguard.grounding.embedding import LocalEmbedder, default_model_path, same_model
from halguard.text.contexts import normalize_contexts

PASSAGES = {
    "launch": "JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou, French Guiana.",
    "mirror": "Webb's primary mirror is 6.5 metres across. It is made of 18 hexagonal segments.",
}
ANSWER = "On 25 December 2021, JWST was launched on an Ariane 5 rocket. Its mirror has 18 segments."
MODEL = "sentence-transformers/all-MiniLM-L6-v2"


@pytest.fixture(scope="module")
def reference_vectors(verifier):
    vecs, _ = verifier.embedder.encode(list(PASSAGES.values()))
    return dict(zip(PASSAGES, vecs))


def fresh_verifier() -> LocalVerifier:
    # A private embedder with an empty cache, so the counts show what was embedded for this call.
    return LocalVerifier(embedder=LocalEmbedder(default_model_path()))


def with_vectors(vectors, model=MODEL):
    return [Source(k, t, embedding=vectors[k], embedding_model=model) for k, t in PASSAGES.items()]


def test_model_names_match_with_or_without_organisation_and_case():
    assert same_model("sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2")
    assert same_model("all-minilm-l6-v2", "all-MiniLM-L6-v2")
    assert not same_model("BAAI/bge-small-en-v1.5", "all-MiniLM-L6-v2")
    assert not same_model(None, "all-MiniLM-L6-v2")


def test_vectors_of_the_same_model_are_reused_and_the_verdict_is_unchanged(reference_vectors):
    plain = fresh_verifier().verify(ANSWER, [(k, t) for k, t in PASSAGES.items()])
    reused = fresh_verifier().verify(ANSWER, with_vectors(reference_vectors))
    # Both passages are one evidence chunk each (a sentence, a two-sentence window): both vectors are used.
    assert reused.usage.precomputed_texts == 2
    assert reused.usage.embedded_texts < plain.usage.embedded_texts
    assert reused.label == plain.label == "supported"
    assert [c.score for c in reused.claims] == pytest.approx([c.score for c in plain.claims], abs=1e-4)


def test_the_given_vector_is_what_the_evidence_search_uses(reference_vectors):
    # A vector of another text under the right model name is trusted (the caller vouches for it): the
    # launch passage then no longer matches the launch claim. This proves the vector replaced our own.
    swapped = {"launch": reference_vectors["mirror"], "mirror": reference_vectors["mirror"]}
    verdict = fresh_verifier().verify(ANSWER, with_vectors(swapped))
    launch_claim = verdict.claims[0]
    assert launch_claim.evidence[0].similarity < 0.5  # 0.91 with the launch passage's own vector
    assert launch_claim.score > fresh_verifier().verify(ANSWER, with_vectors(reference_vectors)).claims[0].score


def test_vectors_of_another_model_or_without_a_model_name_are_ignored(reference_vectors):
    for model in ("BAAI/bge-small-en-v1.5", None):
        verdict = fresh_verifier().verify(ANSWER, with_vectors(reference_vectors, model))
        assert verdict.usage.precomputed_texts == 0
        assert verdict.label == "supported"


def test_a_passage_longer_than_one_window_is_embedded_window_by_window(reference_vectors):
    text = "Webb launched in 2021. It orbits near L2. Its mirror is 6.5 metres wide."
    vec = reference_vectors["mirror"]
    verdict = fresh_verifier().verify("Webb launched in 2021.", [Source("s", text, embedding=vec, embedding_model=MODEL)])
    assert verdict.usage.precomputed_texts == 0
    assert verdict.label == "supported"


def test_wrong_dimension_under_our_model_name_is_a_clear_error():
    sources = [Source("s", PASSAGES["launch"], embedding=[0.1] * 768, embedding_model=MODEL)]
    with pytest.raises(InvalidInputError, match="768 dimensions"):
        fresh_verifier().verify("JWST was launched in 2021.", sources)


@pytest.mark.parametrize(
    ("embedding", "error"),
    [([0.1, float("nan")], InvalidInputError), ([], InvalidInputError), ([0.0, 0.0], InvalidInputError),
     ("not a vector", InputTypeError), (np.zeros((2, 2)), InputTypeError)],
)
def test_bad_vectors_are_rejected_where_they_are_passed(embedding, error):
    why = "non-empty, finite, non-zero vector" if error is InvalidInputError else "sequence of numbers"
    with pytest.raises(error, match=f"^source 'a': embedding must be a {why}$"):  # names the source
        normalize_contexts([{"id": "a", "text": "t", "embedding": embedding, "embedding_model": MODEL}])


def test_sources_copy_the_vector_and_compare_by_id_and_text():
    vector = [0.5, 0.5, 0.0]
    source = normalize_contexts([{"id": "a", "text": "t", "embedding": vector, "embedding_model": MODEL}])[0]
    vector[0] = 9.0
    assert source.embedding == (0.5, 0.5, 0.0)
    assert source == Source("a", "t")
    assert hash(source) == hash(Source("a", "t"))
