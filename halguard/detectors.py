"""The named detectors: what ``halguard bench``, ``halguard audit`` and :class:`halguard.audit.DetectorSpec` build
from a name.

One registry in the core, so the tools and the audit engine depend on it and not on each other (they once imported
each other's modules for it). Importing this module loads no model and no provider: :func:`make_detector` imports
what a name needs when it is called.
"""

from __future__ import annotations

from halguard.detector import Detector
from halguard.errors import InvalidInputError

__all__ = ["DETECTORS", "make_detector"]

DETECTORS = ("local", "local-meaning", "naive", "llm-judge", "pas2", "budget")

# Reply caps of the LLM detectors: the judges read one verdict line, "VERDICT <nonce> yes" (the keyword, 8 hex
# characters that GPT-style tokenizers cut into 3-8 tokens, the word: at most ~12; 24 leaves room for a leading
# space or markup); PAS2's model writes rewordings and answers.
_LLM_REPLY_TOKENS = {"llm-judge": 24, "budget": 24, "pas2": 300}


def make_detector(name: str, threshold: float | None = None, *, llm_url: str | None = None,
                  llm_model: str | None = None) -> Detector:
    """The detector called ``name``.

    ``local`` is the default LocalVerifier (rules and embeddings); ``local-meaning`` the local verifier with its
    claim checker too (``LocalVerifier(meaning=True)``); ``naive`` the similarity baseline. ``llm-judge`` (a
    prompted grounding judge), ``pas2`` (paraphrase sampling) and ``budget`` (evidence budgets after the local
    verifier) call the OpenAI-compatible server at ``llm_url`` (model ``llm_model``).

    Raises:
        InvalidInputError: an LLM detector without ``llm_url``.
        ValueError: an unknown ``name``.
    """
    if name == "naive":
        from halguard.grounding.naive import NaiveSimilarity

        return NaiveSimilarity()
    if name in _LLM_REPLY_TOKENS:
        return _llm_detector(name, threshold, llm_url, llm_model)
    if name in ("local", "local-meaning"):
        from halguard.grounding.verifier import LocalVerifier

        # threshold None: each answer shape's own.
        return LocalVerifier(threshold=threshold, meaning=name == "local-meaning")
    msg = f"unknown detector {name!r}: choose one of {', '.join(DETECTORS)}"
    raise ValueError(msg)


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
