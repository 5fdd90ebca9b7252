"""Trained detectors by name: Hugging Face models loaded the way users expect, behind halguard's checks.

- :mod:`.hub`: a model id or folder made into a checked local folder (cache, ``HF_HUB_OFFLINE``, ``revision``,
  safetensors only, remote code only when asked) and the model loaded from it;
- :mod:`.labels`: what each output class of an entailment model means (from its ``id2label``, or given);
- :mod:`.entailment`: (premise, claim) pairs scored by any sequence-classification entailment model, long
  premises windowed;
- :mod:`.readings`: the field's detectors (HHEM-2.1-open, MiniCheck, LettuceDetect) fed and read as their authors'
  code does;
(halguard's own claim checker as a Hugging Face model, and its export, are in
:mod:`halguard.grounding.meaning.hf_model`: the grounding layer builds on this one.)

Importing this package loads neither torch nor transformers.
"""

from halguard.models.hub import ModelNotAvailableError, resolve_model

__all__ = ["ModelNotAvailableError", "resolve_model"]
