"""What each output class of an entailment model means: supported, contradicted, or unsupported.

Read from the model's ``config.id2label`` ("ENTAILMENT", "contradiction", "neutral", "not_entailment",
"supported", ...: any order), or given by the caller for a model whose labels say nothing ("LABEL_0",
"LABEL_1"). A claim's P(unsupported) is 1 - P(supported): contradicted and neutral both leave the claim
unsupported by its evidence. A model with one output reads its sigmoid as P(its one label).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from halguard.errors import InvalidInputError, ModelLoadError

__all__ = ["ROLES", "LabelMap", "label_map"]

ROLES = ("supported", "contradicted", "unsupported")
# Label names seen on entailment and grounding models, folded (lower case, letters only), by what they mean for a
# claim. Anything else (LABEL_0, "positive") is not guessed: the caller says what it means.
_NAMES = {
    "supported": ("entailment", "entailed", "entails", "entail", "supported", "supports", "support", "consistent",
                  "faithful", "grounded", "factual", "attributable"),
    "contradicted": ("contradiction", "contradicted", "contradicts", "contradict", "refuted", "refutes"),
    "unsupported": ("neutral", "notentailment", "notentailed", "nonentailment", "unsupported", "notsupported",
                    "missing", "notenoughinfo", "nei", "inconsistent", "unfaithful", "hallucinated",
                    "hallucination", "notattributable", "unattributable"),
}
_ROLE_OF = {name: role for role, names in _NAMES.items() for name in names}


def _fold(label: Any) -> str:
    return re.sub(r"[^a-z]", "", str(label).lower())


def _role(label: Any) -> str | None:
    return _ROLE_OF.get(_fold(label))


@dataclass(frozen=True)
class LabelMap:
    """The role of each output class, in index order (``roles[i]`` is class ``i``'s)."""

    roles: tuple[str, ...]

    @property
    def supported(self) -> tuple[int, ...]:
        """The classes whose probability is P(supported)."""
        return tuple(i for i, r in enumerate(self.roles) if r == "supported")

    def unsupported_risk(self, logits: Any) -> Any:
        """P(unsupported) per row of ``logits`` (a torch tensor, [rows, classes])."""
        import torch

        if logits.shape[-1] == 1:
            p = torch.sigmoid(logits[..., 0].float())
            return 1.0 - p if self.roles[0] == "supported" else p
        probs = torch.softmax(logits.float(), dim=-1)
        return 1.0 - probs[..., list(self.supported)].sum(-1)


def label_map(id2label: Mapping[Any, Any] | None, num_labels: int, *, name: str,
              override: Mapping[Any, str] | Sequence[str] | None = None) -> LabelMap:
    """The :class:`LabelMap` of a model with ``num_labels`` outputs.

    Args:
        id2label: The model config's ``id2label``.
        num_labels: Its number of outputs.
        name: The model's name, for messages.
        override: What each class means, when the config does not say: a list of roles in class order, or a
            mapping from class index or label name to role (``"supported"``/``"entailment"``,
            ``"contradicted"``/``"contradiction"``, ``"unsupported"``/``"neutral"``). Classes it does not name keep
            their config label's meaning.

    Raises:
        ModelLoadError: A class whose meaning cannot be read (and no override names it), or no class that means
            supported (or none that does not, with two or more classes).
        InvalidInputError: A malformed override.
    """
    labels = {int(k): str(v) for k, v in (id2label or {}).items()}
    roles: list[str | None] = [_role(labels.get(i, f"LABEL_{i}")) for i in range(num_labels)]
    if override is not None:
        for index, role in _override(override, labels, num_labels, name).items():
            roles[index] = role
    unreadable = [f"{i}: {labels.get(i, f'LABEL_{i}')!r}" for i, r in enumerate(roles) if r is None]
    if unreadable:
        msg = (f"model {name}: cannot tell what its output classes mean ({', '.join(unreadable)}). Say it with "
               "labels=, e.g. labels=['unsupported', 'supported'] (class order) or "
               "labels={'LABEL_1': 'supported'}; roles: supported (entailment), contradicted (contradiction), "
               "unsupported (neutral)")
        raise ModelLoadError(msg)
    final = tuple(r for r in roles if r is not None)
    if "supported" not in final or (num_labels > 1 and set(final) == {"supported"}):
        msg = (f"model {name}: its classes {final} must include one that means supported (entailment) and, with "
               "two or more classes, one that does not; pass labels= to say which is which")
        raise ModelLoadError(msg)
    return LabelMap(final)


def _override(override: Mapping[Any, str] | Sequence[str], labels: dict[int, str], num_labels: int,
              name: str) -> dict[int, str]:
    if isinstance(override, str) or not isinstance(override, (Mapping, Sequence)):
        msg = f"labels must be a list of roles or a mapping, got {type(override).__name__}"
        raise InvalidInputError(msg)
    items = override.items() if isinstance(override, Mapping) else enumerate(override)
    by_label = {v.strip().lower(): k for k, v in labels.items()}
    out: dict[int, str] = {}
    for key, role_name in items:
        role = _role(role_name) if isinstance(role_name, str) else None
        if role is None:
            msg = f"labels: {role_name!r} is not a role (supported / entailment, contradicted, unsupported / neutral)"
            raise InvalidInputError(msg)
        if isinstance(key, int) and not isinstance(key, bool):
            index = key
        elif isinstance(key, str) and key.strip().lower() in by_label:
            index = by_label[key.strip().lower()]
        else:
            msg = f"labels: {key!r} is neither a class index nor one of model {name}'s labels {sorted(labels.values())}"
            raise InvalidInputError(msg)
        if not 0 <= index < num_labels:
            msg = f"labels: class {index} does not exist (model {name} has {num_labels})"
            raise InvalidInputError(msg)
        out[index] = role
    return out
