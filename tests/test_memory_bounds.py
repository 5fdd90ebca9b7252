"""Memory stays bounded over checks of contexts never seen before (issue 38).

Every cache keeps within its byte budget and counts what it holds; what a check brings is not kept anywhere else
(spaCy's string store, the batch behind a cached embedding, a dict made by measuring an entry). No RSS is asserted:
on a shared machine it moves with the allocator and other work. The soak that measures RSS is
``benchmarks/bench_memory_soak.py``.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from halguard import LocalVerifier
from halguard.grounding.roles import available as roles_available
from halguard.grounding.roles import parse
from halguard.text.contexts import Chunk
from halguard.util.memo import BytesLRU, cache_usage, named_caches, size_of

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from soak_text import soak_check  # noqa: E402

SMALL_BUDGET = 96 * 1024


def _retained(fn) -> int:
    """Bytes of Python allocations that ``fn()`` leaves alive."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        fn()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.fixture
def small_budgets(monkeypatch):
    """Every named cache emptied and given a budget a few checks overflow."""
    for cache in named_caches():
        cache.clear()
        monkeypatch.setattr(cache, "max_bytes", SMALL_BUDGET)
    yield
    for cache in named_caches():
        cache.clear()


def test_every_cache_keeps_within_its_budget_over_fresh_checks(small_budgets):
    verifier = LocalVerifier()
    for i in range(10):
        check = soak_check(38, i)
        verifier.verify(check.answer, check.contexts)
    usage = {u.name: u for u in cache_usage()}
    assert all(u.bytes <= u.max_bytes for u in usage.values()), usage
    # the budgets were reached, so eviction ran: chunks, word sets and embeddings each passed half of theirs
    for name in ("halguard.text.contexts.chunk_source", "halguard.grounding.signals.scope._source_terms",
                 "halguard.grounding.embedding.LocalEmbedder.embeddings"):
        assert usage[name].bytes > SMALL_BUDGET // 2, usage[name]


@pytest.mark.skipif(not roles_available(), reason="spaCy's English pipeline is not installed")
def test_the_parser_keeps_no_word_of_the_texts_it_parsed():
    verifier = LocalVerifier(roles=True)
    for i in range(2):  # the pipeline's own first-use strings
        check = soak_check(39, i)
        verifier.verify(check.answer, check.contexts)
    strings = parse._nlp.vocab.strings  # noqa: SLF001
    before = len(strings)
    for i in range(2, 8):  # made-up names and numbers in every check
        check = soak_check(39, i)
        verifier.verify(check.answer, check.contexts)
        assert parse.parsed_frames(check.answer)  # parsed, and frames read out of the zone
    assert len(strings) == before


def test_a_cached_embedding_holds_only_its_own_row():
    verifier = LocalVerifier(roles=False)
    embedder = verifier.embedder
    texts = [f"Row {i} of a batch about {name}." for i, name in enumerate(("Kelvaro", "Mirestad", "Oskven", "Tal"))]
    embedder.encode(texts, batch_size=8)
    for text in texts:
        vec = embedder._cache.get(text)  # noqa: SLF001
        assert vec is not None and vec.base is None and vec.flags["OWNDATA"]
        assert vec.nbytes == vec.shape[0] * np.dtype(np.float32).itemsize


def test_measuring_an_entry_leaves_its_records_as_they_were():
    chunks = tuple(Chunk(i, i + 40, f"sentence {i} of a passage") for i in range(2000))
    # reading obj.__dict__ (CPython 3.11+) turns a record's values into a dict it keeps: 64 bytes a Chunk
    assert _retained(lambda: size_of(chunks)) < 2000 * 8


def test_a_cache_counts_what_its_entries_hold():
    cache: BytesLRU[str, str] = BytesLRU(64 * 2**20)

    def fill() -> None:
        for i in range(20_000):
            cache.set(f"passage {i:06d} about Kelvaro", f"value {i:06d}")

    held = _retained(fill)
    # keys, values, and the cache's own slot, tuple and int per entry: counted within a fifth of what is held
    assert 0.8 * held <= cache.bytes <= 1.25 * held, (cache.bytes, held)
