"""The named detectors: what ``halguard bench``, ``halguard audit``, ``halguard check``, ``halguard calibrate`` and
:class:`halguard.audit.DetectorSpec` build from a name.

Besides the fixed names (:data:`DETECTORS`), a trained model is named by prefix (:data:`MODEL_PREFIXES`):
``nli:<hub id or folder>`` (an entailment model reading halguard's claims,
:class:`~halguard.grounding.entailment_detector.EntailmentDetector`) and ``spans:<hub id or folder>`` (a
token-classification span model, :class:`~halguard.grounding.span_detector.SpanDetector`). A hub id may end in
``@<revision>`` to pin a branch, tag or commit (``nli:owner/model@3f2a1c0``).

One registry in the core, so the tools and the audit engine depend on it and not on each other (they once imported
each other's modules for it). Importing this module loads no model and no provider: :func:`make_detector` imports
what a name needs when it is called.
"""

from __future__ import annotations

from halguard.detector import Detector
from halguard.errors import InvalidInputError

__all__ = ["DETECTORS", "MODEL_PREFIXES", "check_detector_name", "make_detector"]

DETECTORS = ("local", "local-meaning", "naive", "llm-judge", "pas2", "budget")
MODEL_PREFIXES = ("nli:", "spans:")

# Reply caps of the LLM detectors: the judges read one verdict line, "VERDICT <nonce> yes" (the keyword, 8 hex
# characters that GPT-style tokenizers cut into 3-8 tokens, the word: at most ~12; 24 leaves room for a leading
# space or markup); PAS2's model writes rewordings and answers.
_LLM_REPLY_TOKENS = {"llm-judge": 24, "budget": 24, "pas2": 300}


def check_detector_name(name: object) -> str:
    """``name`` when it names a detector (a fixed name, or a model prefix followed by a model); checked without
    loading anything.

    Raises:
        InvalidInputError: Anything else (also a ``ValueError``).
    """
    if isinstance(name, str):
        if name in DETECTORS:
            return name
        prefix = next((p for p in MODEL_PREFIXES if name.startswith(p)), None)
        if prefix is not None and name[len(prefix):].strip():
            return name
    msg = (f"unknown detector {name!r}: choose one of {', '.join(DETECTORS)}, or nli:<model> / spans:<model> "
           "(a Hugging Face id or a folder)")
    raise InvalidInputError(msg)


def _model_and_revision(spec: str) -> tuple[str, str | None]:
    """``owner/model@rev`` -> (``owner/model``, ``rev``); a folder (even one with an ``@``) is taken whole."""
    import os

    if "@" not in spec or os.path.exists(os.path.expanduser(spec)):
        return spec, None
    model, _, revision = spec.rpartition("@")
    return (model, revision) if model and revision else (spec, None)


def make_detector(name: str, threshold: float | None = None, *, llm_url: str | None = None,
                  llm_model: str | None = None, calibration: str | None = None,
                  device: str | None = None) -> Detector:
    """The detector called ``name``.

    ``local`` is the default LocalVerifier (rules and embeddings); ``local-meaning`` the local verifier with its
    claim checker too (``LocalVerifier(meaning=True)``); ``naive`` the similarity baseline. ``llm-judge`` (a
    prompted grounding judge), ``pas2`` (paraphrase sampling) and ``budget`` (evidence budgets after the local
    verifier) call the OpenAI-compatible server at ``llm_url`` (model ``llm_model``). ``nli:<model>`` and
    ``spans:<model>`` load a Hugging Face model now (see the module docstring), on ``device``.

    ``calibration``: a file from ``halguard calibrate`` for the local and model detectors (None: each one's
    default).

    Raises:
        InvalidInputError: an LLM detector without ``llm_url``, or an unknown ``name`` (also a ``ValueError``).
        ModelNotAvailableError: a model that is not here and cannot be fetched now (offline): named, with the
            command that fetches it.
        ModelLoadError: a model that cannot be loaded (not safetensors, remote code, unreadable labels).
    """
    check_detector_name(name)
    if name.startswith(MODEL_PREFIXES):
        prefix, _, spec = name.partition(":")
        model, revision = _model_and_revision(spec)
        if prefix == "nli":
            from halguard.grounding.entailment_detector import EntailmentDetector

            return EntailmentDetector(model, revision=revision, device=device, threshold=threshold,
                                      calibration=calibration if calibration is not None else "default")
        from halguard.grounding.span_detector import SpanDetector

        return SpanDetector(model, revision=revision, device=device, threshold=threshold, calibration=calibration)
    if name == "naive":
        from halguard.grounding.naive import NaiveSimilarity

        return NaiveSimilarity()
    if name in _LLM_REPLY_TOKENS:
        return _llm_detector(name, threshold, llm_url, llm_model)
    from halguard.grounding.verifier import LocalVerifier

    # threshold None: each answer shape's own.
    return LocalVerifier(threshold=threshold, meaning=name == "local-meaning",
                         **({"calibration": calibration} if calibration is not None else {}))


def _llm_detector(name: str, threshold: float | None, llm_url: str | None, llm_model: str | None) -> Detector:
    if not llm_url:
        msg = f"--detector {name} needs --llm-url (an OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1)"
        raise InvalidInputError(msg)
    import openai

    from halguard.budget import BudgetVerifier
    from halguard.grounding.scoring import DEFAULT_THRESHOLD
    from halguard.grounding.verifier import LocalVerifier
    from halguard.llm.providers import OpenAIChat
    from halguard.llm_judge import GroundingJudge, SamplingDetector

    chat = OpenAIChat(openai.OpenAI(base_url=llm_url, api_key="unused"), llm_model or "local", timeout=300,
                      max_retries=1, max_tokens=_LLM_REPLY_TOKENS[name])
    limit = DEFAULT_THRESHOLD if threshold is None else threshold
    if name == "budget":  # the local verifier first; uncited claims cite their best evidence's source
        return BudgetVerifier(chat, cascade=LocalVerifier(), cite_by_evidence=True, timeout_s=600, threshold=limit)
    if name == "pas2":
        return SamplingDetector(chat, threshold=limit)
    return GroundingJudge(chat, threshold=limit)
