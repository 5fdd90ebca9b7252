"""Which texts the local checks can read: Latin script, and text rather than binary data.

The local model (all-MiniLM-L6-v2) and the word rules are English-only, so the verifier declines answers in other
scripts (``unverified``) and the paraphrase parser drops rewordings that switched script.
"""

from __future__ import annotations

import unicodedata

__all__ = ["is_mostly_latin", "looks_binary"]

# Basic Latin up to the end of Latin Extended-B: the letters English (and its loanwords) is written in.
_LATIN_END = 0x250
# Only the start of a long text is looked at: a script or binary test needs a sample, not a megabyte.
_SAMPLE_CHARS = 20_000
# More than this share of control characters in the sample is binary data, not text.
_BINARY_CONTROL_SHARE = 0.05


def is_mostly_latin(text: str, *, min_letters: int = 1) -> bool:
    """Whether at least half the letters of ``text`` are Latin; True when it has fewer than ``min_letters``."""
    letters = [ch for ch in text[:_SAMPLE_CHARS] if ch.isalpha()]
    if len(letters) < min_letters:
        return True
    latin = sum(1 for ch in letters if ord(ch) < _LATIN_END)
    return latin >= 0.5 * len(letters)


def looks_binary(text: str) -> bool:
    """Whether ``text`` holds NUL bytes or more than 5% control characters (outside line breaks and tabs)."""
    sample = text[:_SAMPLE_CHARS]
    if "\x00" in sample:
        return True
    control = sum(1 for ch in sample if unicodedata.category(ch) in ("Cc", "Cs", "Co") and ch not in "\n\r\t")
    return control > _BINARY_CONTROL_SHARE * len(sample)
