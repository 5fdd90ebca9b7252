"""Batches of (premise, claim) rows sorted by length within windows, so padding stays small and the order is seeded.

Standalone (no halguard import): ``train_dev_folds.py`` runs on a lent GPU machine without halguard's dependencies.
"""

from __future__ import annotations

import random

__all__ = ["length_sorted_batches"]


def length_sorted_batches(rows: list[dict], rng: random.Random, *, batch_size: int,
                          window_batches: int) -> list[list[dict]]:
    """``rows`` shuffled by ``rng``, sorted by premise and claim length within windows of ``window_batches``
    batches, cut into batches of ``batch_size``, and the batches shuffled."""
    order = rows[:]
    rng.shuffle(order)
    window = batch_size * window_batches
    batches = []
    for i in range(0, len(order), window):
        part = sorted(order[i:i + window], key=lambda r: len(r["premise"]) + len(r["claim"]))
        batches.extend(part[j:j + batch_size] for j in range(0, len(part), batch_size))
    rng.shuffle(batches)
    return batches
