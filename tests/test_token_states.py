"""Issue 45's latency: the word states a claim's alignment reads come from the pass that embedded the texts."""

from __future__ import annotations

import numpy as np
import pytest

from halguard.grounding.embedding import LocalEmbedder, _pool_words
from halguard.grounding.token_states import embed_keeping_states
from halguard.util.cache_budgets import TOKEN_STATES_BYTES
from halguard.util.memo import cache_usage

TEXTS = ["The cat sat on the mat.",
         "  Northwind Logistics acquired Palmera Freight for 410 million euros in March 2022, the board said.",
         "x", "Wi-Fi is free; 12 V DC.", "Über café naïve résumé", "Tea and coffee can reduce absorption."] * 2


@pytest.fixture()
def embedder():
    # A fresh embedder of the bundled model: its caches start empty and are its own.
    shared = LocalEmbedder.shared()
    return LocalEmbedder(shared.model_path)


def test_the_embeddings_are_those_of_encode_and_the_states_those_of_a_pass_of_their_own(embedder):
    model = embedder.model
    expected = model.encode(TEXTS, batch_size=4, normalize_embeddings=True, convert_to_numpy=True,
                            show_progress_bar=False)
    vectors, kept = embed_keeping_states(model, TEXTS, batch_size=4, max_length=embedder.max_seq_length)
    assert vectors.dtype == np.float32 and vectors.shape == expected.shape
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    by_pass = LocalEmbedder(embedder.model_path).word_states(TEXTS)  # another embedder: a forward pass of its own
    for text, states, words in zip(TEXTS, kept, by_pass):
        assert states is not None and states.states.flags.owndata  # not a view keeping the batch alive
        pooled = _pool_words(text, states.offsets.tolist(), states.states)
        assert pooled.spans == words.spans
        np.testing.assert_allclose(pooled.vectors, words.vectors, atol=1e-5)


def test_word_states_of_texts_just_embedded_run_no_model(embedder, monkeypatch):
    texts = ["The firm's revenue rose 12%.", "Revenue at the company grew by 12 percent."]
    embedder.encode(texts)
    transformer = embedder.model[0].auto_model

    def no_pass(*args, **kwargs):
        raise AssertionError("a second forward pass")

    monkeypatch.setattr(transformer, "forward", no_pass)
    states = embedder.word_states(texts)
    assert [texts[0][s:e] for s, e in states[0].spans] == ["The", "firm", "s", "revenue", "rose", "12"]
    assert embedder.word_states(texts)[1] is states[1]  # and kept as word states from then on


def test_a_text_read_as_other_pieces_keeps_no_states(embedder, monkeypatch):
    """Where the ids the model read are not the ids the offsets describe (a prompt, left padding), the offsets would
    name the wrong words: nothing is kept, and the words are read by a pass of their own."""
    model = embedder.model
    real = type(model).encode

    def shifted(self, *args, **kwargs):
        outputs = real(self, *args, **kwargs)
        for o in outputs:
            o["input_ids"] = o["input_ids"].roll(1)
        return outputs

    monkeypatch.setattr(type(model), "encode", shifted)
    text = "A sentence whose pieces were read otherwise."
    embedder.encode([text])
    assert embedder._token_cache.get(text) is None
    monkeypatch.undo()
    (states,) = embedder.word_states([text])  # read by its own pass
    assert [text[s:e] for s, e in states.spans][:2] == ["A", "sentence"]


def test_the_kept_states_are_a_named_bounded_cache_cleared_with_the_others(embedder):
    embedder.encode(["A text to keep the states of."])
    caches = {c.name: c for c in cache_usage()}
    name = "halguard.grounding.embedding.LocalEmbedder.tokens"
    assert name in caches and caches[name].max_bytes == TOKEN_STATES_BYTES
    assert embedder._token_cache.bytes > 0
    shared = LocalEmbedder.shared()
    shared.encode(["Another text to keep the states of."])
    LocalEmbedder.clear_shared_caches()
    assert shared._token_cache.bytes == 0


def test_no_texts(embedder):
    vectors, kept = embed_keeping_states(embedder.model, [], batch_size=8, max_length=embedder.max_seq_length)
    assert vectors.shape[0] == 0 and kept == []
