"""How each family's classifier is fed one (premise, hypothesis) pair, and which output is support.

- ``cross-encoder`` (``nli:``): the tokenizer's pair encoding (premise first), its token types where the model
  reads them, classes by the label map (:mod:`halguard.models.labels`); sentence-transformers' ``CrossEncoder``;
- ``minicheck`` (RoBERTa / DeBERTa classifiers): one string, ``premise + eos + claim`` (``<s>doc</s>claim</s>`` for
  RoBERTa), truncated to the window, softmax class 1 = supported;
- ``minicheck-t5`` (MiniCheck-Flan-T5): ``"predict: " + premise + eos + claim``, one decoder step from token 0, the
  logits of vocabulary ids 3 (unsupported) and 209 (supported), softmaxed;
- ``hhem`` (HHEM-2.1-open): its prompt ("<pad> Determine if the hypothesis is true given the premise? ...")
  through the flan-t5 tokenizer, no truncation, the first position's two logits, softmax class 1 = consistent.

The single-string families' layouts are the authors' (MiniCheck's ``Inferencer.batch_tokenize`` and
``batch_inference``; HHEM's ``HHEMv2ForSequenceClassification.predict``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["FAMILIES", "HHEM_PROMPT", "MINICHECK_T5_LABEL_IDS", "PairInputs"]

FAMILIES = ("cross-encoder", "minicheck", "minicheck-t5", "hhem")
_PREFIXES = {"cross-encoder": "nli", "minicheck": "minicheck", "minicheck-t5": "minicheck", "hhem": "hhem"}
# HHEM-2.1-open's config.prompt (its {text1} is the premise, {text2} the hypothesis).
HHEM_PROMPT = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"
# MiniCheck-Flan-T5's two label tokens in the T5 vocabulary: (no support, support).
MINICHECK_T5_LABEL_IDS = (3, 209)
_MINICHECK_T5_PREFIX = "predict: "


@dataclass(frozen=True)
class PairInputs:
    """One family's input layout (:data:`FAMILIES`).

    Attributes:
        family: The family.
        separator: MiniCheck's: the tokenizer's end-of-sequence token between premise and claim.
        prompt: HHEM's: the prompt with ``{text1}`` and ``{text2}``.
    """

    family: str
    separator: str = ""
    prompt: str = HHEM_PROMPT

    @property
    def prefix(self) -> str:
        """The detector name prefix this family goes by (``nli``, ``minicheck``, ``hhem``)."""
        return _PREFIXES[self.family]

    @property
    def paired(self) -> bool:
        """Whether the tokenizer is given (premise, claim) pairs (else one string per pair)."""
        return self.family == "cross-encoder"

    def text(self, premise: str, claim: str) -> str:
        """The one string a single-string family reads."""
        if self.family == "hhem":
            return self.prompt.format(text1=premise, text2=claim)
        prefix = _MINICHECK_T5_PREFIX if self.family == "minicheck-t5" else ""
        return f"{prefix}{premise}{self.separator}{claim}"

    def overhead(self, tokenizer: Any) -> int:
        """Pieces a pair adds besides its premise and claim (special tokens, separator, prompt)."""
        if self.paired:
            return int(tokenizer.num_special_tokens_to_add(pair=True))
        return len(tokenizer(self.text("", ""), add_special_tokens=True, verbose=False)["input_ids"])

    def encode(self, tokenizer: Any, premises: Sequence[str], claims: Sequence[str], max_length: int | None,
               *, truncate: bool = True) -> Any:
        """The batch's model inputs (torch tensors, padded)."""
        if self.paired:
            return tokenizer(list(premises), list(claims), truncation="longest_first" if truncate else False,
                             max_length=max_length if truncate else None, padding=True, return_tensors="pt")
        # HHEM reads its prompt untruncated (its predict passes no truncation); the caller bounds the length.
        cut = truncate and self.family != "hhem"
        return tokenizer([self.text(p, c) for p, c in zip(premises, claims)], truncation=cut,
                         max_length=max_length if cut else None, padding=True, return_tensors="pt", verbose=False)

    def support(self, model: Any, inputs: dict[str, Any], labels: Any = None) -> Any:
        """P(supported) per row (a torch tensor)."""
        import torch

        if self.family == "minicheck-t5":
            rows = inputs["input_ids"].shape[0]
            start = torch.zeros((rows, 1), dtype=torch.long, device=inputs["input_ids"].device)
            logits = model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"],
                           decoder_input_ids=start).logits[:, 0, :]
            return torch.softmax(logits[:, list(MINICHECK_T5_LABEL_IDS)].float(), dim=-1)[:, 1]
        logits = model(**inputs).logits
        if self.family == "hhem":
            return torch.softmax(logits[:, 0, :].float(), dim=-1)[:, 1]
        if self.family == "minicheck":
            return torch.softmax(logits.float(), dim=-1)[:, 1]
        return 1.0 - labels.unsupported_risk(logits)
