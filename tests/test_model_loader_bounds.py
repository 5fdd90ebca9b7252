"""Issue 46: a model folder or name cannot hang the loader or exhaust memory; commands it suggests are quoted."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from halguard.errors import InvalidInputError, ModelLoadError, ModelNotAvailableError
from halguard.models.entailment import EntailmentScorer
from halguard.models.hub import CONFIG_BOUNDS, MAX_MODEL_NAME_CHARS, resolve_model
from tests import tiny_models as tm


def _copy(tiny_models, tmp_path, name="m"):
    return shutil.copytree(tiny_models["nli-bert"], tmp_path / name)


def _fails_fast(call, error, match):
    started = time.perf_counter()
    with pytest.raises(error, match=match):
        call()
    assert time.perf_counter() - started < 1.0


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_config_linked_to_a_device_is_refused_at_once(tiny_models, tmp_path):
    folder = _copy(tiny_models, tmp_path)
    (folder / "config.json").unlink()
    os.symlink("/dev/zero", folder / "config.json")
    _fails_fast(lambda: EntailmentScorer.load(folder), ModelLoadError, "device")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_config_that_is_a_fifo_is_refused_at_once(tiny_models, tmp_path):
    folder = _copy(tiny_models, tmp_path)
    (folder / "config.json").unlink()
    os.mkfifo(folder / "config.json")
    _fails_fast(lambda: EntailmentScorer.load(folder), ModelLoadError, "FIFO")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_tokenizer_file_that_is_a_fifo_is_refused_at_once(tiny_models, tmp_path):
    folder = _copy(tiny_models, tmp_path)
    os.mkfifo(folder / "tokenizer_config.json.fifo")
    _fails_fast(lambda: EntailmentScorer.load(folder), ModelLoadError, "not a regular file")


def test_an_oversized_config_is_refused(tiny_models, tmp_path):
    folder = _copy(tiny_models, tmp_path)
    (folder / "config.json").write_text('{"a": "' + "x" * (2 << 20) + '"}')
    _fails_fast(lambda: EntailmentScorer.load(folder), ModelLoadError, "limit")


@pytest.mark.parametrize(("key", "value"), [("num_labels", 10_000_000), ("vocab_size", 10**12),
                                            ("hidden_size", -1), ("num_hidden_layers", "many"),
                                            ("max_position_embeddings", 1.5)])
def test_config_values_that_size_tensors_are_bounded_before_any_allocation(tiny_models, tmp_path, key, value):
    folder = _copy(tiny_models, tmp_path)
    tm.edit_config(folder, **{key: value})
    _fails_fast(lambda: EntailmentScorer.load(folder), ModelLoadError, key)
    assert CONFIG_BOUNDS["num_labels"] < 10_000_000


def test_a_label_map_of_millions_is_refused(tiny_models, tmp_path):
    folder = _copy(tiny_models, tmp_path)
    tm.edit_config(folder, id2label={str(i): f"L{i}" for i in range(5000)})
    _fails_fast(lambda: EntailmentScorer.load(folder), ModelLoadError, "id2label")


def test_an_overlong_name_is_a_named_error_not_an_os_error():
    for name in ("a" * 100_000, "x/" + "a" * 5000, "bad\x00name"):
        _fails_fast(lambda name=name: resolve_model(name), InvalidInputError, "model name")
    # Under the limit but over the file system's: still halguard's error.
    with pytest.raises(ModelNotAvailableError):
        resolve_model("./" + "a" * (MAX_MODEL_NAME_CHARS - 10))


@pytest.mark.parametrize("revision", ["main; rm -rf ~", "$(id)", "a" * 300, "../../etc", " main", ""])
def test_odd_revisions_are_refused(revision):
    with pytest.raises(InvalidInputError, match="revision"):
        resolve_model("halguard-tests/no-such-model", revision=revision)


def test_the_suggested_command_quotes_the_revision(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotAvailableError) as caught:
        resolve_model("halguard-tests/no-such-model", revision="feature/x.1")
    assert "hf download halguard-tests/no-such-model --revision feature/x.1" in str(caught.value)
    from halguard.models.hub import _fetch_hint

    assert "--revision 'v1 2'" in _fetch_hint("o/n", "v1 2")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_the_embedder_folder_is_held_to_the_same_bounds(tmp_path):
    from halguard.grounding.embedding import LocalEmbedder, default_model_path

    folder = shutil.copytree(default_model_path(), tmp_path / "minilm")
    (folder / "config.json").unlink()
    os.mkfifo(folder / "config.json")
    _fails_fast(lambda: LocalEmbedder(folder).model, ModelLoadError, "FIFO")


def test_a_tokenizer_larger_than_the_models_vocabulary_fails_at_load_naming_both(tmp_path):
    from transformers import AutoModelForTokenClassification

    from halguard.grounding.span_detector import SpanDetector

    tok = tm.tokenizer()
    model = AutoModelForTokenClassification.from_config(tm.config("bert", len(tok) - 10))
    folder = tmp_path / "mismatch"
    model.save_pretrained(folder, safe_serialization=True)
    tok.save_pretrained(folder)
    with pytest.raises(ModelLoadError, match=rf"{len(tok):,} tokens.*{len(tok) - 10:,} rows"):
        SpanDetector(str(folder))
