"""The named detectors: what ``halguard bench``, ``halguard audit``, ``halguard check``, ``halguard calibrate`` and
:class:`halguard.audit.DetectorSpec` build from a name.

Besides the fixed names (:data:`DETECTORS`), a trained model is named by family prefix (:data:`MODEL_PREFIXES`),
``<family>:<hub id or folder>``:

- ``nli:`` an entailment cross-encoder, ``hhem:`` HHEM-2.1-open, ``minicheck:`` a MiniCheck model: with
  ``reading="evidence"`` (the default) each reads halguard's claims against their evidence
  (:class:`~halguard.grounding.entailment_detector.EntailmentDetector`), with ``reading="reference"`` the whole
  answer against the whole context as the family's authors do
  (:class:`~halguard.grounding.reference_detector.ReferenceDetector`);
- ``spans:`` a token-classification span model such as LettuceDetect's
  (:class:`~halguard.grounding.span_detector.SpanDetector`; ``reading="reference"`` is LettuceDetect's own).

A hub id may end in ``@<revision>`` to pin a branch, tag or commit (``nli:owner/model@3f2a1c0``). Options by name
(:data:`MODEL_OPTIONS`; the CLI's ``--detector-option key=value``) are checked by :func:`check_detector_options`
before anything loads.

One registry in the core, so the tools and the audit engine depend on it and not on each other (they once imported
each other's modules for it). Importing this module loads no model and no provider: :func:`make_detector` imports
what a name needs when it is called.
"""

from __future__ import annotations

from typing import Any

from halguard.detector import Detector
from halguard.errors import InvalidInputError

__all__ = ["DETECTORS", "MODEL_OPTIONS", "MODEL_PREFIXES", "check_detector_name", "check_detector_options",
           "make_detector", "parse_detector_option"]

DETECTORS = ("local", "local-meaning", "naive", "llm-judge", "pas2", "budget")
MODEL_PREFIXES = ("nli:", "spans:", "hhem:", "minicheck:")
# The options each family takes by name (the rest of each detector's keyword arguments are Python-only).
_COMMON_OPTIONS = ("reading", "revision", "max_length", "batch_size", "threshold", "time_budget_s", "num_threads")
MODEL_OPTIONS = {
    "nli": (*_COMMON_OPTIONS, "labels", "trust_remote_code", "int8"),
    "spans": (*_COMMON_OPTIONS, "labels", "trust_remote_code", "layout"),
    "hhem": (*_COMMON_OPTIONS, "foundation"),
    "minicheck": _COMMON_OPTIONS,
}

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
    msg = (f"unknown detector {name!r}: choose one of {', '.join(DETECTORS)}, or nli:<model>, spans:<model>, "
           "hhem:<model>, minicheck:<model> (a Hugging Face id or a folder)")
    raise InvalidInputError(msg)


def parse_detector_option(text: str) -> tuple[str, Any]:
    """``key=value`` (the CLI's ``--detector-option``) as ``(key, value)``: the value read as JSON where it is JSON
    (``512``, ``true``, ``["unsupported", "supported"]``), else as the string it is.

    Raises:
        InvalidInputError: No ``=``, or no key.
    """
    import json

    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        msg = f"a detector option is key=value (e.g. reading=reference), got {text!r}"
        raise InvalidInputError(msg)
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


def check_detector_options(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` when the detector ``name`` takes each of them; checked without loading anything.

    Raises:
        InvalidInputError: An option the detector does not take (naming those it does), a ``reading`` that is not
            ``evidence`` or ``reference``, ``trust_remote_code`` that is not a bool, or a revision given twice.
    """
    from halguard.models.readings import READINGS

    check_detector_name(name)
    if not options:
        return {}
    family = name.partition(":")[0] if name.startswith(MODEL_PREFIXES) else None
    allowed = MODEL_OPTIONS.get(family or "", ())
    unknown = sorted(k for k in options if k not in allowed)
    if unknown:
        takes = f"it takes {', '.join(allowed)}" if allowed else "it takes none by name"
        msg = f"detector {name!r} has no option {', '.join(map(repr, unknown))}: {takes}"
        raise InvalidInputError(msg)
    if "reading" in options and options["reading"] not in READINGS:
        msg = f"reading must be one of {', '.join(READINGS)}, got {options['reading']!r}"
        raise InvalidInputError(msg)
    if "trust_remote_code" in options and not isinstance(options["trust_remote_code"], bool):
        msg = f"trust_remote_code must be true or false, got {options['trust_remote_code']!r}"
        raise InvalidInputError(msg)
    if "revision" in options and _model_and_revision(name.partition(":")[2])[1] is not None:
        msg = f"{name!r} pins a revision with @ already; drop the revision option or the @"
        raise InvalidInputError(msg)
    return dict(options)


def _model_and_revision(spec: str) -> tuple[str, str | None]:
    """``owner/model@rev`` -> (``owner/model``, ``rev``); a folder (even one with an ``@``) is taken whole."""
    import os

    if "@" not in spec or os.path.exists(os.path.expanduser(spec)):
        return spec, None
    model, _, revision = spec.rpartition("@")
    return (model, revision) if model and revision else (spec, None)


def make_detector(name: str, threshold: float | None = None, *, llm_url: str | None = None,
                  llm_model: str | None = None, calibration: str | None = None,
                  device: str | None = None, **options: Any) -> Detector:
    """The detector called ``name``.

    ``local`` is the default LocalVerifier (rules and embeddings); ``local-meaning`` the local verifier with its
    claim checker too (``LocalVerifier(meaning=True)``); ``naive`` the similarity baseline. ``llm-judge`` (a
    prompted grounding judge), ``pas2`` (paraphrase sampling) and ``budget`` (evidence budgets after the local
    verifier) call the OpenAI-compatible server at ``llm_url`` (model ``llm_model``). ``nli:``, ``hhem:``,
    ``minicheck:`` and ``spans:`` models are loaded now (see the module docstring), on ``device``, with
    ``options`` by name (:data:`MODEL_OPTIONS`: ``reading``, ``labels``, ``revision``, ``max_length``,
    ``trust_remote_code``, ...).

    ``calibration``: a file from ``halguard calibrate`` for the local and model detectors (None: each one's
    default).

    Raises:
        InvalidInputError: an LLM detector without ``llm_url``, an unknown ``name`` or an option it does not take
            (also a ``ValueError``).
        ModelNotAvailableError: a model that is not here and cannot be fetched now (offline): named, with the
            command that fetches it.
        ModelLoadError: a model that cannot be loaded (not safetensors, remote code, unreadable labels).
    """
    options = check_detector_options(name, options)
    if name.startswith(MODEL_PREFIXES):
        if threshold is not None:
            options["threshold"] = threshold
        return _model_detector(name, calibration, device, options)
    if name == "naive":
        from halguard.grounding.naive import NaiveSimilarity

        return NaiveSimilarity()
    if name in _LLM_REPLY_TOKENS:
        return _llm_detector(name, threshold, llm_url, llm_model)
    from halguard.grounding.verifier import LocalVerifier

    # threshold None: each answer shape's own.
    return LocalVerifier(threshold=threshold, meaning=name == "local-meaning",
                         **({"calibration": calibration} if calibration is not None else {}))


def _model_detector(name: str, calibration: str | None, device: str | None, options: dict[str, Any]) -> Detector:
    import time

    prefix, _, spec = name.partition(":")
    model, revision = _model_and_revision(spec)
    options.setdefault("revision", revision)
    reading = options.pop("reading", "evidence")
    if prefix == "spans":
        from halguard.grounding.span_detector import SpanDetector

        if "labels" in options:  # a span model's one label that means "not supported"
            options["hallucinated_label"] = options.pop("labels")
        return SpanDetector(model, device=device, calibration=calibration, reading=reading, **options)
    started = time.perf_counter()
    detector_options = {k: options.pop(k) for k in ("threshold", "time_budget_s", "num_threads") if k in options}
    if prefix == "hhem":
        from halguard.models.readings.hhem import REFERENCE_MAX_PIECES, load_hhem

        if reading == "reference":
            options.setdefault("max_length", REFERENCE_MAX_PIECES)
        scorer = load_hhem(model, device=device, **options)
    elif prefix == "minicheck":
        from halguard.models.readings.minicheck import load_minicheck

        scorer = load_minicheck(model, device=device, **options)
    else:
        from halguard.models.entailment import EntailmentScorer

        scorer = EntailmentScorer.load(model, device=device, **options)
    scorer.load_seconds = time.perf_counter() - started
    if reading == "reference":
        from halguard.grounding.reference_detector import ReferenceDetector

        return ReferenceDetector(scorer, calibration=calibration, **detector_options)
    from halguard.grounding.entailment_detector import EntailmentDetector

    return EntailmentDetector(scorer, calibration=calibration if calibration is not None else "default",
                              **detector_options)


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
