"""Sentence segmentation with exact character offsets.

pysbd handles abbreviations ("Dr.", "U.S."), decimals ("3.5") and initials; we add line breaks as hard
boundaries (lists, headings) and recover each sentence's offsets in the original string, so every claim
and every evidence chunk can point back at the exact characters it came from.
"""

from __future__ import annotations

import re
import threading

from halguard.errors import ModelLoadError

__all__ = ["split_sentences"]

_local = threading.local()
_BLOCK = re.compile(r"[^\n]+")
# pysbd gets slow on very long lines; beyond this we pre-split on sentence punctuation first.
_MAX_BLOCK = 20_000
_ROUGH = re.compile(r"[^.!?]+(?:[.!?]+\s+|[.!?]*$)")


def _segmenter():
    seg = getattr(_local, "segmenter", None)
    if seg is None:
        try:
            import pysbd
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            msg = "sentence splitting needs pysbd: pip install 'halguard[local]'"
            raise ModelLoadError(msg) from exc
        # pysbd keeps per-call state on the segmenter, so each thread gets its own.
        seg = pysbd.Segmenter(language="en", clean=False)
        _local.segmenter = seg
    return seg


def _split_block(text: str, base: int, out: list[tuple[int, int]]) -> None:
    if len(text) > _MAX_BLOCK:
        for m in _ROUGH.finditer(text):
            if m.group().strip():
                _split_block(m.group(), base + m.start(), out)
        return
    cursor = 0
    for piece in _segmenter().segment(text):
        stripped = piece.strip()
        if not stripped:
            continue
        pos = text.find(stripped, cursor)
        if pos < 0:  # pysbd altered the text: keep the rest as one sentence rather than guess
            rest = text[cursor:].strip()
            if rest:
                pos = text.find(rest, cursor)
                out.append((base + pos, base + pos + len(rest)))
            return
        out.append((base + pos, base + pos + len(stripped)))
        cursor = pos + len(stripped)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Return ``(start, end)`` spans of the sentences of ``text``; ``text[start:end]`` is stripped."""
    out: list[tuple[int, int]] = []
    for block in _BLOCK.finditer(text):
        if block.group().strip():
            _split_block(block.group(), block.start(), out)
    return out
