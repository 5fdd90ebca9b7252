"""The claim checker's network: MiniLM read as a cross-encoder over (premise, claim), with two small heads.

The bundled all-MiniLM-L6-v2 encoder reads the premise and the claim together, so its attention can align the
claim's words with the evidence's (who did what to whom, which number goes with which thing): what comparing two
separate sentence embeddings cannot see. On top of its last layer:

- a claim head from the first token's state and the mean state of the claim's tokens: one logit of
  P(unsupported) (the first checker, ``classes=1``), or three logits over :data:`CLASSES` (supported /
  contradicted / missing from the evidence; P(unsupported) is 1 - P(supported));
- a span head: P(unsupported) of each claim token, which marks the words that make a claim unsupported.

Which encoder layers were trained is the weights' own business (``trained_layers`` in their manifest): the
first checker trained the top 3, the meaning model (``training/train_meaning.py``) all 6. What ships is those
layers' weights and the heads; the embeddings and any untrained layer are the bundled model's, unchanged.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["CLASSES", "MAX_PAIR_TOKENS", "TRAINED_LAYERS", "ClaimCheckerNetwork", "unsupported_risk"]

# The first checker's choice (kept for its weights): the top 3 of MiniLM's 6 layers, hand-set so that one epoch
# fit about 20 minutes on 2 CPU cores (docs/model-card.md, "What was not tried").
TRAINED_LAYERS = 3
MAX_PAIR_TOKENS = 192  # the premise is cut first (evidence.MAX_PREMISE_CHARS keeps most premises whole)
CLASSES = ("supported", "contradicted", "missing")


class ClaimCheckerNetwork(nn.Module):
    """MiniLM encoder plus the claim and span heads.

    Args:
        encoder: the bundled MiniLM (a ``transformers`` BERT model).
        classes: 1 (one P(unsupported) logit) or 3 (:data:`CLASSES`).
        trained_layers: how many of the encoder's top layers the weights replace.
    """

    def __init__(self, encoder: nn.Module, *, classes: int = 1, trained_layers: int = TRAINED_LAYERS) -> None:
        super().__init__()
        if classes not in (1, len(CLASSES)):
            msg = f"classes must be 1 or {len(CLASSES)}, not {classes}"
            raise ValueError(msg)
        self.encoder = encoder
        self.classes = classes
        self.trained_layers = trained_layers
        hidden = encoder.config.hidden_size
        self.claim_head = nn.Linear(2 * hidden, classes)
        self.span_head = nn.Linear(hidden, 1)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor,
                claim_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(claim logits [batch] or [batch, 3], token logits [batch, tokens]); ``claim_mask``: the claim's tokens."""
        states = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state
        weights = claim_mask.unsqueeze(-1).to(states.dtype)
        mean_claim = (states * weights).sum(1) / weights.sum(1).clamp(min=1.0)
        claim_logits = self.claim_head(torch.cat([states[:, 0], mean_claim], dim=-1))
        if self.classes == 1:
            claim_logits = claim_logits.squeeze(-1)
        token_logits = self.span_head(states).squeeze(-1)
        return claim_logits, token_logits

    def trained_parameters(self) -> dict[str, torch.Tensor]:
        """The weights training changes (and the package ships): the trained top layers and the heads."""
        layers = len(self.encoder.encoder.layer)
        keep = tuple(f"encoder.encoder.layer.{i}." for i in range(layers - self.trained_layers, layers))
        return {k: v for k, v in self.state_dict().items()
                if k.startswith(keep) or k.startswith(("claim_head.", "span_head."))}


def unsupported_risk(claim_logits: torch.Tensor) -> torch.Tensor:
    """P(unsupported) per row, from either head shape (1 - P(supported) for three classes)."""
    if claim_logits.dim() == 1:
        return torch.sigmoid(claim_logits)
    return 1.0 - torch.softmax(claim_logits, dim=-1)[..., 0]


def encode_pairs(tokenizer, premises: list[str], claims: list[str],
                 spans: list[list[tuple[int, int]] | None] | None = None, *,
                 max_length: int = MAX_PAIR_TOKENS) -> dict[str, torch.Tensor]:
    """Tokenized pairs with the claim mask, and (given ``spans``) the span head's token labels.

    ``spans[i]``: the claim's unsupported character spans ([] for a supported claim, None when unknown: those
    tokens are left out of the span loss, label -100). The premise is cut first when a pair is too long.
    """
    enc = tokenizer(premises, claims, truncation="longest_first", max_length=max_length, padding=True,
                    return_offsets_mapping=True, return_tensors="pt")
    claim_mask = torch.zeros_like(enc["input_ids"], dtype=torch.bool)
    labels = torch.full(enc["input_ids"].shape, -100, dtype=torch.float32)
    for i in range(len(claims)):
        ids = enc.sequence_ids(i)
        for t, seq in enumerate(ids):
            if seq != 1:
                continue
            claim_mask[i, t] = True
            if spans is not None and spans[i] is not None:
                a, b = enc["offset_mapping"][i, t].tolist()
                labels[i, t] = float(any(a < e and s < b for s, e in spans[i]))
    out = {k: enc[k] for k in ("input_ids", "attention_mask", "token_type_ids")}
    out["claim_mask"] = claim_mask
    out["offsets"] = enc["offset_mapping"]
    if spans is not None:
        out["token_labels"] = labels
    return out
