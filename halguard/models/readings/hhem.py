"""HHEM-2.1-open (``vectara/hallucination_evaluation_model``) without its remote code.

The hub model's own class (``HHEMv2ForSequenceClassification``, loaded with ``trust_remote_code``) wraps a
``transformers`` ``T5ForTokenClassification`` built from the config of its ``foundation`` (``google/flan-t5-base``)
and reads its prompt through that foundation's tokenizer. halguard builds the same T5 module from ``transformers``
itself, loads the published safetensors into it (their keys are the wrapper's ``t5.`` ones) and never imports the
model's Python files, which are not even downloaded. The reading (prompt, no truncation, class 1 of the first
position = consistent) is :class:`~halguard.models.readings.pair_inputs.PairInputs` ``("hhem")``.

A folder whose config is not HHEM-2 (``model_type`` ``HHEMv2``), weights that do not fit the foundation's T5, or a
foundation that is not here are refused at load, naming what is wrong.
"""

from __future__ import annotations

import os
from typing import Any

from halguard.errors import ModelLoadError, ModelNotAvailableError

__all__ = ["HHEM_MODEL_TYPE", "REFERENCE_MAX_PIECES", "WINDOW_PIECES", "load_hhem"]

HHEM_MODEL_TYPE = "HHEMv2"
# Pieces of a premise window in halguard's reading: flan-t5's tokenizer limit (HHEM was trained on flan-t5-base).
WINDOW_PIECES = 512
# The most pieces the reference reading gives one pass: HHEM reads its prompt untruncated, and a T5 encoder's
# attention grows with the square of the length (2,048 pieces: ~200 MB of attention scores per layer on CPU).
REFERENCE_MAX_PIECES = 2048
# The T5 wrapper's weight-name prefix in the published safetensors.
_PREFIX = "t5."
# T5 ties the encoder's embedding to the shared one: saved once.
_TIED = {"transformer.encoder.embed_tokens.weight"}


def _prompt(config: dict[str, Any]) -> str:
    from halguard.models.readings.pair_inputs import HHEM_PROMPT

    prompt = config.get("prompt")
    return prompt if isinstance(prompt, str) and "{text1}" in prompt and "{text2}" in prompt else HHEM_PROMPT


def load_hhem(name: str | os.PathLike[str], *, revision: str | None = None,
              foundation: str | os.PathLike[str] | None = None, device: str | None = None,
              batch_size: int | None = None, max_length: int | None = None, quiet: bool = True) -> Any:
    """The :class:`~halguard.models.entailment.EntailmentScorer` of HHEM-2.1-open (a hub id or folder).

    Args:
        name: ``vectara/hallucination_evaluation_model`` or a folder holding its config and safetensors.
        revision: A branch, tag or commit of the hub model.
        foundation: Where the T5 config and tokenizer come from (default: the config's ``foundation``,
            ``google/flan-t5-base``): a hub id or a folder.
        device, batch_size, max_length: As :class:`~halguard.models.entailment.EntailmentScorer`'s
            (``max_length`` default :data:`WINDOW_PIECES`).
        quiet: No progress bars or warnings while loading.

    Raises:
        ModelNotAvailableError: The model or its foundation is not here and cannot be fetched now.
        ModelLoadError: Not HHEM-2 (named), weights that do not fit the foundation's T5, no safetensors.
    """
    from halguard.models.entailment import EntailmentScorer
    from halguard.models.hub import check_folder_bounds, check_model_folder, resolve_model
    from halguard.models.labels import LabelMap
    from halguard.models.readings.pair_inputs import PairInputs

    text = os.fspath(name)
    folder = resolve_model(name, revision=revision, quiet=quiet)
    # Its config names remote code (auto_map); halguard runs none of it, so that is no reason to refuse here.
    config = check_model_folder(folder, text, trust_remote_code=True)
    if config.get("model_type") != HHEM_MODEL_TYPE:
        msg = (f"model {text} is not HHEM-2.1-open: its model_type is {config.get('model_type')!r}, not "
               f"{HHEM_MODEL_TYPE!r} (an NLI cross-encoder is nli:<model>, MiniCheck minicheck:<model>)")
        raise ModelLoadError(msg)
    base = foundation if foundation is not None else config.get("foundation")
    if not isinstance(base, (str, os.PathLike)) or not str(base).strip():
        msg = f"model {text}: its config names no foundation (the T5 it is built on); pass foundation="
        raise ModelLoadError(msg)
    try:
        base_folder = resolve_model(base, quiet=quiet)
    except ModelNotAvailableError as exc:
        msg = f"HHEM {text} is built on {base}, whose config and tokenizer it needs: {exc}"
        raise ModelNotAvailableError(msg) from exc
    check_folder_bounds(base_folder, os.fspath(base))
    model, tokenizer = _build(folder, base_folder, text, os.fspath(base), quiet)
    return EntailmentScorer(model, tokenizer, LabelMap(("unsupported", "supported")), name=text,
                            max_length=max_length or WINDOW_PIECES, batch_size=batch_size, device=device, int8=False,
                            inputs=PairInputs("hhem", prompt=_prompt(config)))


def _build(folder: Any, base_folder: Any, name: str, base: str, quiet: bool) -> tuple[Any, Any]:
    from halguard.models.hub import check_vocabulary, quiet_transformers

    try:
        import torch
        from safetensors.torch import load_file
        from transformers import AutoTokenizer, T5Config, T5ForTokenClassification
    except ImportError as exc:
        msg = "loading HHEM needs transformers, torch and safetensors: pip install 'halguard[local]'"
        raise ModelLoadError(msg) from exc
    weights = sorted(p for p in folder.iterdir() if p.name.endswith(".safetensors"))
    try:
        with quiet_transformers(quiet):
            config = T5Config.from_pretrained(str(base_folder), local_files_only=True)
            tokenizer = AutoTokenizer.from_pretrained(str(base_folder), local_files_only=True)
        state: dict[str, Any] = {}
        for path in weights:
            state.update(load_file(str(path)))
    except Exception as exc:  # noqa: BLE001 - whatever transformers or safetensors raise, named with the model
        msg = f"could not load HHEM {name} on foundation {base}: {type(exc).__name__}: {exc}"
        raise ModelLoadError(msg) from exc
    if not getattr(tokenizer, "is_fast", False):
        msg = f"HHEM {name}: the foundation {base}'s tokenizer is not a fast one (character offsets are needed)"
        raise ModelLoadError(msg)
    ours = {k[len(_PREFIX):]: v for k, v in state.items() if k.startswith(_PREFIX)}
    with torch.device("cpu"):
        model = T5ForTokenClassification(config)
    expected = set(model.state_dict())
    missing = expected - set(ours) - _TIED
    unexpected = set(ours) - expected
    shapes = [k for k in expected & set(ours) if tuple(ours[k].shape) != tuple(model.state_dict()[k].shape)]
    if missing or unexpected or shapes or len(ours) != len(state):
        what = (f"{len(missing)} weights missing (e.g. {sorted(missing)[:2]})" if missing else
                f"{len(shapes)} of another shape (e.g. {sorted(shapes)[:2]})" if shapes else
                f"{len(unexpected) + len(state) - len(ours)} it does not have")
        msg = (f"HHEM {name}: its weights do not fit a T5 token classifier built on {base}: {what}. Is the "
               "foundation the one it was trained on?")
        raise ModelLoadError(msg)
    model.load_state_dict({k: v.float() for k, v in ours.items()}, strict=False)
    check_vocabulary(model, tokenizer, name)  # as load_pretrained does for every other model
    model.eval()
    return model, tokenizer
