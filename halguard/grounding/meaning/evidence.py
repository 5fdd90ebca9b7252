"""The evidence text a claim is read against: its best chunks, joined in document order.

The model reads one premise per claim. Chunks are taken in rank order while the premise stays within
``max_chars``; overlapping chunks of one source (windows share a sentence) are merged, so no sentence is read
twice, and the pieces are joined in document order, as a reader would see them. Training (``training/``) and
the verifier build premises with this one function, so the model is trained on what it is later shown.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MAX_PREMISE_CHARS", "join_evidence"]

# About 150 word pieces: with a claim of up to 40, the pair fits the 192-piece window the model is run with.
MAX_PREMISE_CHARS = 700


def join_evidence(ranked: Sequence[tuple[int, int, int]], texts: Sequence[str], *,
                  max_chars: int = MAX_PREMISE_CHARS) -> str:
    """The premise for ranked chunks ``(source_index, start, end)`` (best first) of the sources ``texts``.

    The best chunk is always kept (cut to ``max_chars``); later ones only while the total fits.
    """
    chosen: list[tuple[int, int, int]] = []
    total = 0
    for source, start, end in ranked:
        size = end - start
        if chosen and total + size > max_chars:
            continue
        chosen.append((source, start, min(end, start + max_chars) if not chosen else end))
        total += size
    merged: list[list[int]] = []
    for source, start, end in sorted(chosen):
        if merged and merged[-1][0] == source and start <= merged[-1][2]:
            merged[-1][2] = max(merged[-1][2], end)
        else:
            merged.append([source, start, end])
    return " ".join(texts[source][start:end].strip() for source, start, end in merged)
