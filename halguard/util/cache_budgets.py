"""How much each of halguard's caches may hold, in one place (docs/guarantees.md, "Memory", lists them).

Every cache that outlives a check is bounded by the bytes it holds (:class:`halguard.util.memo.BytesLRU`), since a
one-megabyte passage is a megabyte of key; the stem memo, whose keys are single words, by its count. The fill
rates quoted are from ``benchmarks/bench_memory_soak.py`` (fresh contexts of three to five 150-400-word passages,
two-to-five-sentence answers, the role check on): what one check of never-seen text adds to each cache, so what
each budget holds is "the last N checks' contexts".

All the budgets together, at the defaults: 728 MiB of counted bytes (plus the stem memo's ~40 MiB and one
ResponseCache's 64 MiB per cache a caller makes), reached only by a process that has seen several thousand
distinct contexts.
"""

from __future__ import annotations

__all__ = [
    "CHUNKS_BYTES",
    "DERIVED_SENTENCES_BYTES",
    "EMBEDDINGS_BYTES",
    "EMBEDDING_WINDOWS_BYTES",
    "MEANING_SCORES_BYTES",
    "MENTION_FEATURES_BYTES",
    "PASSAGE_POSTS_BYTES",
    "RECORD_FIELDS_BYTES",
    "RESPONSE_CACHE_BYTES",
    "RESPONSE_CACHE_ENTRIES",
    "ROLE_FRAMES_BYTES",
    "SOURCE_NUMBERS_BYTES",
    "SOURCE_QUANTITIES_BYTES",
    "SOURCE_SENTENCES_BYTES",
    "SOURCE_TERMS_BYTES",
    "STEM_MEMO_MAX_WORD_CHARS",
    "STEM_MEMO_WORDS",
    "TOKEN_STATES_BYTES",
    "WORD_STATES_BYTES",
    "WORD_STRINGS_BYTES",
]

MIB = 2**20

# Embeddings (and their texts) per LocalEmbedder (``cache_bytes`` overrides it): ~150,000 sentences of a typical
# RAG context, a few thousand distinct contexts; the soak adds ~48 KiB a check (the candidate pass embeds only the
# chunks it ranks best), so it holds the last ~5,400 checks' evidence. The largest budget: a context a process
# sees again (a popular document) is not embedded again, which is most of a repeat check's time.
EMBEDDINGS_BYTES = 256 * MIB
# Contextual word states (384 floats a word) of the claims and evidence sentences whose words are aligned
# (halguard.grounding.signals.paraphrase): ~1.5 KiB a word, so a 20-word sentence costs ~31 KiB; the last ~1,000
# sentences aligned.
WORD_STATES_BYTES = 32 * MIB
# The word pieces' states (384 floats a piece) of the texts an embedder embedded last (halguard.grounding.token_states),
# for the alignment of the same check's novel words without a second forward pass: ~1.5 KiB a piece, so the claims
# and chunks of a RAGTruth QA check on a context never seen take 553 KiB (median of 40; at most 2.6 MiB): the last
# ~30 such checks' texts (a text evicted before its words are aligned is read by a pass of its own, as before).
TOKEN_STATES_BYTES = 16 * MIB
# Token windows of texts longer than the model's window (per LocalEmbedder): only over-long chunks are tokenized
# ahead, so it fills slowly (the soak's chunks never need it).
EMBEDDING_WINDOWS_BYTES = 16 * MIB
# Chunks of the sources (halguard.text.contexts.chunk_source): ~78 KiB a check in the soak, the last ~840 checks.
CHUNKS_BYTES = 64 * MIB
# Per-source stem sets, numbers and normalised word strings (halguard.grounding.signals.scope): ~54, 14 and
# 17 KiB a check in the soak, so the last ~1,200, ~1,200 and ~3,800 checks' sources.
SOURCE_TERMS_BYTES = 64 * MIB
SOURCE_NUMBERS_BYTES = 16 * MIB
# Per-source readings (halguard.grounding.signals.scope): quantities (a number with its unit, bound and the words
# around it), the numbers movements start from, percentage changes, phrasal verbs and counts (a number and what it
# counts), counted every level down: 3.3 times the key's bytes on RAGTruth's passages (2.4 on a crafted passage of
# 60,000 numbers), so 48 MiB holds what 16 MiB of one-level counting did before the counts (2026-11-28).
SOURCE_QUANTITIES_BYTES = 48 * MIB
WORD_STRINGS_BYTES = 64 * MIB
# Per-source sentences with two numbers or more, with their stems and quantities (halguard.text.derived: a claim's
# number computed from two of them), counted every level down; read only for a claim number no passage writes.
DERIVED_SENTENCES_BYTES = 16 * MIB
# Per-source sentences with their stems, of each source's first 20,000 characters (halguard.grounding.signals.
# closest: the sentence a part of a fused claim copies), counted every level down; read only for a claim that fuses
# statements ("..., and ..."), about five times a source's bytes (its text, and a set of stems a sentence).
SOURCE_SENTENCES_BYTES = 16 * MIB
# Fields a JSON record marks absent (halguard.grounding.signals.records), per record source only: a record can
# be megabytes.
RECORD_FIELDS_BYTES = 32 * MIB
# The role check's frames per parsed text (halguard.grounding.roles.parse), counted every level down: ~77 KiB a
# check in the soak, the last ~400 checks' parses (a parse costs ~20 ms a 1,000-character text).
ROLE_FRAMES_BYTES = 32 * MIB
# The meaning model's scores per (evidence, claim) pair: small values, keyed by the pair's texts.
MEANING_SCORES_BYTES = 8 * MIB
# ResponseCache (LLM replies) in memory, per cache: its defaults (``max_bytes``, ``max_entries``).
RESPONSE_CACHE_BYTES = 64 * MIB
RESPONSE_CACHE_ENTRIES = 10_000
# The stem memo (halguard.text.lexical.stem): counted in words, each at most 40 characters (longer ones are
# stemmed without being remembered). Full, it holds ~29 MiB of entries plus its keys (~40 MiB with the words;
# tracemalloc, 200,000 words of 4-12 letters); the soak adds ~50 new words a check (its names and numbers), so it
# is full after ~4,000 checks.
STEM_MEMO_WORDS = 200_000
STEM_MEMO_MAX_WORD_CHARS = 40
# Per-source mention features (halguard.text.mentions: initialisms, capitalised words, places, squashed words): about
# twice a source's word string, read only for a name the stems did not find.
MENTION_FEATURES_BYTES = 32 * MIB
# Per-source posts said of names and capitalised words (halguard.grounding.signals.titles), of each source's first
# 20,000 characters: a few KiB a passage, read only for a claim that gives someone a post; two caches of this size.
PASSAGE_POSTS_BYTES = 4 * MIB
