"""halguard's claim checker as a Hugging Face model: the class the generic loader builds it with, and its export.

The shipped claim checker (:mod:`halguard.grounding.meaning`) is the bundled MiniLM with trained top layers and two
heads. Here it is a transformers ``PreTrainedModel`` registered under the model type ``halguard-claim-checker`` (a
class halguard ships, so loading it needs no ``trust_remote_code``):
:func:`~halguard.grounding.meaning.checker.export_claim_checker` writes it as an ordinary model folder
(``config.json``, ``model.safetensors``, the tokenizer), and ``nli:<that folder>`` loads it through the same code as
any entailment model, with the same scores as ``LocalVerifier(meaning=True)``.

Its classes are :data:`~halguard.grounding.meaning.network.CLASSES` (supported, contradicted, missing), so the label
map reads them like any model's; its ``halguard_runtime`` config entry says how its scores were calibrated (int8 on
CPU, one pair per forward pass, 192-token pairs), and the loader follows it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import torch
from huggingface_hub.dataclasses import strict
from transformers import AutoConfig, AutoModelForSequenceClassification, BertConfig, BertModel, PreTrainedModel
from transformers.modeling_outputs import SequenceClassifierOutput

from halguard.grounding.meaning.network import CLASSES, MAX_PAIR_TOKENS, TRAINED_LAYERS, ClaimCheckerNetwork
from halguard.models.entailment import runtime_of

__all__ = ["MODEL_TYPE", "ClaimCheckerConfig", "ClaimCheckerForSequenceClassification", "ClaimCheckerOutput",
           "build_claim_checker", "runtime_of"]

MODEL_TYPE = "halguard-claim-checker"
# The base model's settings the checker's config copies (the architecture; not its labels or names).
_BERT_FIELDS = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
                "hidden_act", "hidden_dropout_prob", "attention_probs_dropout_prob", "max_position_embeddings",
                "type_vocab_size", "initializer_range", "layer_norm_eps", "pad_token_id")
# How the shipped checker runs (halguard/grounding/meaning/checker.py _int8): int8 linear layers on CPU and one pair
# per forward pass (dynamic int8 scales over the whole batch, padding included), pairs of at most 192 pieces. The
# combination weights and the calibration were fitted on scores made this way; "scoring": "meaning" says it is
# halguard's checker, combined with the rules by MEANING_WEIGHTS and calibrated by the shipped meaning calibration.
CHECKER_RUNTIME = {"int8": True, "pairs_per_pass": 1, "max_length": MAX_PAIR_TOKENS, "scoring": "meaning"}


@strict
class ClaimCheckerConfig(BertConfig):
    """A BERT (MiniLM) config plus the heads' shape: ``claim_classes`` (1 or 3), ``trained_layers``, and
    ``halguard_runtime`` (how the scores are meant to be made: see :data:`CHECKER_RUNTIME`)."""

    model_type = MODEL_TYPE

    claim_classes: int = len(CLASSES)
    trained_layers: int = TRAINED_LAYERS
    halguard_runtime: dict | None = None


@dataclass
class ClaimCheckerOutput(SequenceClassifierOutput):
    """The claim logits (``logits``, [batch, classes]) and the span head's per-token logits (``token_logits``)."""

    token_logits: torch.Tensor | None = None


class ClaimCheckerForSequenceClassification(PreTrainedModel):
    """:class:`~halguard.grounding.meaning.network.ClaimCheckerNetwork` behind the sequence-classification
    interface: (premise, claim) pairs in, class logits out. The claim's tokens are the second segment's
    (``token_type_ids == 1``) less its closing separator."""

    config_class = ClaimCheckerConfig
    base_model_prefix = "network"
    # BERT's attention kernels: the shipped checker was fitted and calibrated on MiniLM loaded with "sdpa"
    # (transformers' default for BERT); eager attention differs in the last bits, which int8 scales amplify.
    _supports_sdpa = True
    _supports_flash_attn = False

    def __init__(self, config: ClaimCheckerConfig) -> None:
        super().__init__(config)
        self.network = ClaimCheckerNetwork(BertModel(config), classes=config.claim_classes,
                                           trained_layers=config.trained_layers)
        self.post_init()

    def _init_weights(self, module: torch.nn.Module) -> None:  # every weight is loaded; init as BERT does
        if isinstance(module, torch.nn.Linear):
            module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)
            if module.bias is not None:
                module.bias.data.zero_()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                token_type_ids: torch.Tensor | None = None, **_: Any) -> ClaimCheckerOutput:
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        if token_type_ids is None:
            msg = "the claim checker needs token_type_ids (which tokens are the claim's)"
            raise ValueError(msg)
        # The closing [SEP] of each row is its last attended position (pairs are padded on the right).
        last = attention_mask.sum(1, keepdim=True) - 1
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        claim_mask = (token_type_ids == 1) & attention_mask.bool() & (positions != last)
        claim_logits, token_logits = self.network(input_ids, attention_mask, token_type_ids, claim_mask)
        if claim_logits.dim() == 1:
            claim_logits = claim_logits.unsqueeze(-1)
        return ClaimCheckerOutput(logits=claim_logits, token_logits=token_logits)


def build_claim_checker(base_path: str | os.PathLike[str], manifest: dict[str, Any],
                        tensors: dict[str, torch.Tensor]) -> ClaimCheckerForSequenceClassification:
    """The checker from the bundled MiniLM at ``base_path`` and the shipped trained ``tensors`` (keys of
    :meth:`ClaimCheckerNetwork.trained_parameters`), in fp32, eval mode."""
    from transformers import AutoModel

    encoder = AutoModel.from_pretrained(str(base_path), local_files_only=True)
    classes = len(manifest.get("classes") or ()) or 1  # the first checker's manifest names no classes
    labels = manifest.get("classes") or ["unsupported"]  # one logit: sigmoid = P(unsupported)
    base = encoder.config.to_dict()
    config = ClaimCheckerConfig(**{k: base[k] for k in _BERT_FIELDS if k in base},
                                claim_classes=classes,
                                trained_layers=int(manifest.get("trained_layers", TRAINED_LAYERS)),
                                halguard_runtime=CHECKER_RUNTIME,
                                id2label=dict(enumerate(labels)), label2id={v: i for i, v in enumerate(labels)})
    config.architectures = ["ClaimCheckerForSequenceClassification"]
    model = ClaimCheckerForSequenceClassification(config)
    expected = set(model.network.trained_parameters())
    if set(tensors) != expected:
        msg = "the shipped weights hold other tensors than this halguard's network expects"
        raise ValueError(msg)
    model.network.encoder.load_state_dict(encoder.state_dict())
    model.network.load_state_dict({k: v.to(torch.float32) for k, v in tensors.items()}, strict=False)
    model.eval()
    return model


AutoConfig.register(MODEL_TYPE, ClaimCheckerConfig)
AutoModelForSequenceClassification.register(ClaimCheckerConfig, ClaimCheckerForSequenceClassification)
