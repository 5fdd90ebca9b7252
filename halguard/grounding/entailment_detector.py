"""EntailmentDetector (``nli:<model>``, ``hhem:<model>``, ``minicheck:<model>``): halguard's check with an
entailment-style model reading the claims (each family fed as its authors feed it:
:mod:`halguard.models.readings.pair_inputs`).

halguard does what it always does (claims, the evidence search, the deterministic findings, spans, calibration,
the guards' policies); the model named by the caller reads each claim against its best evidence windows, as
halguard's own claim checker does in ``LocalVerifier(meaning=True)`` (:func:`~halguard.grounding.measured_claim.
read_meaning`): the same premises, the same windowing of long evidence, the same batching.

A claim's risk is the model's P(unsupported) (:data:`~halguard.grounding.scoring.ENTAILMENT_WEIGHTS`); a claim
with a deterministic finding (a changed number, a swapped name) keeps at least the rules' risk, and claims the
model does not read (question-aware short answers, foreign scripts) are the rules'. Without a calibration the
threshold is 0.5 for every answer shape; ``halguard calibrate --detector nli:<model>`` fits per-shape thresholds
and probabilities. halguard's own exported checker (its config says so) keeps its combination with the rules and
its shipped calibration, so ``nli:<its export>`` gives the verdicts ``LocalVerifier(meaning=True)`` gives.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from halguard.grounding.calibration import Calibration
from halguard.grounding.embedding import DEFAULT_NUM_THREADS
from halguard.grounding.scoring import ENTAILMENT_WEIGHTS, MEANING_WEIGHTS, ScoringWeights
from halguard.grounding.verifier import LocalVerifier
from halguard.models.entailment import EntailmentScorer, runtime_of

__all__ = ["EntailmentDetector"]


class EntailmentDetector(LocalVerifier):
    """halguard's grounding check with a Hugging Face entailment model reading each claim.

    Args:
        model: A hub id (``"cross-encoder/nli-deberta-v3-small"``), a model folder, or a loaded
            :class:`~halguard.models.entailment.EntailmentScorer`.
        labels: What the model's classes mean, when its ``id2label`` says nothing (``LABEL_0``...): a list of roles
            in class order (``["unsupported", "supported"]``) or a mapping from class index or label to role
            (roles: ``supported``/``entailment``, ``contradicted``/``contradiction``, ``unsupported``/``neutral``).
        revision: Branch, tag or commit of a hub model (pin it: a model's default branch can change).
        trust_remote_code: Allow a model that runs its own Python code (its config has ``auto_map``).
        device: ``cpu`` (default), ``cuda`` / ``cuda:N`` or ``mps`` for the entailment model.
        batch_size: (premise, claim) pairs per forward pass (default 8, or what the model's config asks).
        max_length: Pieces per pair (default: the tokenizer's limit); longer evidence is read in windows.
        int8: Run the model's linear layers in int8 on CPU (default: only where its config asks, as halguard's
            own checker does).
        quiet: No progress bars or transformers warnings while loading.
        weights: The scoring weights (default :data:`~halguard.grounding.scoring.ENTAILMENT_WEIGHTS`).
        calibration: ``"default"`` (none for a third-party model: threshold 0.5; halguard's checker's own for its
            export), a file from ``halguard calibrate --detector nli:...``, a mapping, a Calibration, or None.
        num_threads: torch threads while this detector runs its models (default 1).
        **options: Any other :class:`~halguard.grounding.verifier.LocalVerifier` option (``threshold``,
            ``top_k``, ``time_budget_s``, ``max_context_chars``, ...).

    Raises:
        ModelNotAvailableError: The model is neither a folder nor cached and cannot be fetched now (offline): at
            construction, naming the model and the command that fetches it.
        ModelLoadError: Not safetensors, remote code without ``trust_remote_code``, classes whose meaning cannot be
            read, or transformers could not load it.
    """

    def __init__(self, model: str | os.PathLike[str] | EntailmentScorer, *,
                 labels: Mapping[Any, str] | Sequence[str] | None = None, revision: str | None = None,
                 trust_remote_code: bool = False, device: str | None = None, batch_size: int | None = None,
                 max_length: int | None = None, int8: bool | None = None, quiet: bool = True,
                 weights: ScoringWeights | None = None,
                 calibration: str | os.PathLike[str] | Mapping[str, Any] | Calibration | None = "default",
                 num_threads: int | None = DEFAULT_NUM_THREADS, **options: Any) -> None:
        if "meaning" in options:
            msg = "EntailmentDetector reads every claim with its model: it takes no meaning= option"
            raise TypeError(msg)
        if isinstance(model, EntailmentScorer):
            scorer = model
        else:
            scorer = EntailmentScorer.load(model, labels=labels, revision=revision,
                                           trust_remote_code=trust_remote_code, device=device,
                                           batch_size=batch_size, max_length=max_length, int8=int8, quiet=quiet)
        ours = runtime_of(scorer.model.config).get("scoring") == "meaning"  # halguard's own checker, exported
        if weights is None:
            weights = MEANING_WEIGHTS if ours else ENTAILMENT_WEIGHTS
        if isinstance(calibration, str) and calibration == "default":
            calibration = Calibration.default(meaning=True) if ours else None
        super().__init__(weights=weights, calibration=calibration, num_threads=num_threads, meaning=False, **options)
        self.claim_checker = scorer  # type: ignore[assignment] - the scorer has the checker's interface
        self.model_name = scorer.name

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"{self.claim_checker.family}:{self.model_name}"
