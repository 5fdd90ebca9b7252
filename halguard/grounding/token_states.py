"""One forward pass, two readings: a text's sentence embedding and its word pieces' contextual states.

The verifier embeds every claim and evidence chunk, and later aligns a claim's novel words with the words of its best
chunks by their contextual states (:mod:`halguard.grounding.signals.paraphrase`). Both readings come out of the same
forward pass of the model, so :meth:`~halguard.grounding.embedding.LocalEmbedder.encode` keeps the pieces' states of
the texts it embeds, for a while (a byte-bounded cache:
:data:`halguard.util.cache_budgets.TOKEN_STATES_BYTES`), and
:meth:`~halguard.grounding.embedding.LocalEmbedder.word_states` pools a text's words from them instead of running the
model over the text again. The second pass was 39 ms of the 150 ms p50 of a RAGTruth QA answer on one thread (issue
45, 2026-11-29); a text whose states were evicted meanwhile is read by a pass of its own, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["TokenStates", "embed_keeping_states"]


@dataclass(frozen=True)
class TokenStates:
    """A text's word pieces as the model read them: their character spans in the text (a special token's is empty)
    and their last-layer states, one row each."""

    offsets: np.ndarray  # (pieces, 2) int32
    states: np.ndarray  # (pieces, dim) float32


def embed_keeping_states(model: Any, texts: Sequence[str], *, batch_size: int, max_length: int
                         ) -> tuple[np.ndarray, list[TokenStates | None]]:
    """Unit-normalised sentence embeddings of ``texts`` (rows in order), batched as ``model.encode`` batches them
    (longest first), with each text's token states.

    A text's states are kept only where the pieces the model read are the pieces its tokenizer's offsets describe
    (the same ids): else None, and its words are read by a pass of their own when asked for. One batch's states are
    held at a time, so a long list of texts costs no more memory than a batch.

    Args:
        model: A loaded ``sentence_transformers.SentenceTransformer``.
        texts: The texts.
        batch_size: Texts per forward pass.
        max_length: The model's window in word pieces (longer texts are read up to it, as the model reads them).
    """
    import torch

    order = np.argsort([-len(t) for t in texts])  # sentence-transformers' own order: similar lengths share a batch
    vectors: list[Any] = [None] * len(texts)
    kept: list[TokenStates | None] = [None] * len(texts)
    for first in range(0, len(texts), batch_size):
        batch = [int(i) for i in order[first:first + batch_size]]
        outputs = model.encode([texts[i] for i in batch], batch_size=batch_size, output_value=None,
                               convert_to_numpy=False, show_progress_bar=False)
        embedded = torch.stack([o["sentence_embedding"].detach() for o in outputs]).float()
        rows = torch.nn.functional.normalize(embedded, p=2, dim=1).cpu().numpy()
        pieces = _pieces([texts[i] for i in batch], model, max_length)
        for k, i in enumerate(batch):
            vectors[i] = rows[k].copy()  # its own array: a row of the batch would keep the batch alive in a cache
            kept[i] = _states_of(outputs[k], pieces[k]) if pieces is not None else None
    if not texts:
        return np.zeros((0, 0), dtype=np.float32), []
    return np.vstack(vectors).astype(np.float32, copy=False), kept


def _pieces(texts: list[str], model: Any, max_length: int) -> list[tuple[list[int], list[Any]]] | None:
    """Each text's piece ids and character offsets by the model's tokenizer, or None where it gives no offsets (a
    slow tokenizer)."""
    try:
        enc = model.tokenizer(texts, truncation=True, max_length=max_length, return_offsets_mapping=True,
                              verbose=False)
    except (NotImplementedError, TypeError, ValueError):
        return None
    return list(zip(enc["input_ids"], enc["offset_mapping"]))


def _states_of(output: dict[str, Any], pieces: tuple[list[int], list[Any]]) -> TokenStates | None:
    """One text's token states from its model output, where the ids the model read are ``pieces``' ids."""
    tokens, mask, ids = output.get("token_embeddings"), output.get("attention_mask"), output.get("input_ids")
    if tokens is None or mask is None or ids is None:
        return None
    read = int(mask.sum())
    piece_ids, offsets = pieces
    if ids[:read].tolist() != list(piece_ids):  # another tokenization (a prompt, left padding): not these offsets
        return None
    return TokenStates(np.asarray(offsets, dtype=np.int32).reshape(-1, 2),
                       tokens[:read].detach().float().cpu().numpy().copy())
