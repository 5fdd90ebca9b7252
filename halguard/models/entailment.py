"""(premise, claim) pairs scored by a sequence-classification entailment model: P(unsupported) per pair.

Any Hugging Face model whose classes say entailment / contradiction / neutral or supported / unsupported
(:mod:`.labels`) reads the premise as the first segment and the claim as the second, as NLI models are trained.
halguard's own claim checker runs through this same code (:mod:`halguard.grounding.meaning.hf_model`).

A pair longer than the model's window is never cut: the premise is read in overlapping windows and the claim is
supported when some window supports it (the lowest P(unsupported)); a claim too long for half the window is read in
overlapping parts too, and every part must be supported (the highest of the parts'). Pairs are run in batches
(``batch_size``; a model whose config asks for one pair per pass gets that), on ``device``, with torch's threads set
to ``num_threads`` for the run. Scores are cached per (premise, claim).
"""

from __future__ import annotations

import contextlib
import inspect
import os
import threading
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from halguard.errors import InvalidInputError
from halguard.models.labels import LabelMap, label_map
from halguard.models.readings.pair_inputs import PairInputs
from halguard.text.segment import check_deadline
from halguard.util.cache_budgets import MEANING_SCORES_BYTES
from halguard.util.memo import BytesLRU

__all__ = ["DEFAULT_BATCH_SIZE", "SPAN_TOKEN_THRESHOLD", "WINDOW_OVERLAP", "EntailmentScorer", "MeaningScore",
           "merge_spans", "runtime_of"]

# A span-head token at or above this P(unsupported) is part of a claim's unsupported span (even odds).
SPAN_TOKEN_THRESHOLD = 0.5
# Share of a premise window repeated in the next one: a sentence cut at one window's edge is whole in the next
# (hand-set: a quarter covers a 30-piece sentence in a 128-piece window, for a third more pairs than no overlap).
WINDOW_OVERLAP = 0.25
# Pairs per forward pass. On one CPU thread, 8 pairs of MiniLM size run about as fast per pair as 32, with less
# padding when a batch mixes short and long pairs (the same choice as LocalVerifier's embedding batch_size).
DEFAULT_BATCH_SIZE = 8
# The window when neither the caller nor the model's config names one (most NLI cross-encoders read 512 pieces).
DEFAULT_MAX_LENGTH = 512
_DEVICES = ("cpu", "cuda", "mps")
_OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert")


@dataclass(frozen=True)
class MeaningScore:
    """A model's reading of one claim: P(unsupported), and the claim's unsupported character spans (from a model
    that marks tokens, such as halguard's claim checker; empty otherwise)."""

    risk: float
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def supported_probability(self) -> float:
        return 1.0 - self.risk


@dataclass(frozen=True)
class _Unit:
    """One forward-pass row: a premise window against a claim part."""

    pair: int
    part: int
    premise: str
    claim: str
    claim_start: int  # offset of the claim part in the claim


def merge_spans(spans: Sequence[tuple[int, int]], gap: int = 1) -> tuple[tuple[int, int], ...]:
    """``spans`` sorted, with spans at most ``gap`` characters apart merged."""
    merged: list[list[int]] = []
    for a, b in sorted(spans):
        if merged and a - merged[-1][1] <= gap:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return tuple((a, b) for a, b in merged)


def check_device(device: Any) -> str | None:
    """``device`` as torch names it (``cpu``, ``cuda``, ``cuda:1``, ``mps``), or None for the CPU.

    Raises:
        InvalidInputError: Not a device name.
    """
    if device is None:
        return None
    name = str(device)
    if name.split(":")[0] not in _DEVICES:
        msg = f"device must be one of {', '.join(_DEVICES)} (cuda:N for one GPU), got {device!r}"
        raise InvalidInputError(msg)
    return name


class EntailmentScorer:
    """Scores (premise, claim) pairs with a sequence-classification model. Thread-safe: one forward pass at a
    time on the shared model, no per-call state on the object.

    Build it with :meth:`load` (a hub id or folder), or from a loaded model and tokenizer.

    Args:
        model: A transformers sequence-classification model (eval mode).
        tokenizer: Its fast tokenizer.
        labels: What its classes mean (:func:`~halguard.models.labels.label_map`).
        name: The model's name, for messages and ``Verdict.detector``.
        max_length: Pieces per pair (None: the config's ``halguard_runtime``, else the tokenizer's limit, at most
            the model's positions).
        batch_size: Pairs per forward pass (None: the config's ``halguard_runtime``, else
            :data:`DEFAULT_BATCH_SIZE`).
        device: ``cpu`` (default), ``cuda`` / ``cuda:N`` or ``mps``.
        int8: Run the linear layers in int8 on CPU (None: as the config's ``halguard_runtime`` says; off for other
            models).
        inputs: How a pair is fed to the model (:class:`~halguard.models.readings.pair_inputs.PairInputs`; default
            a cross-encoder's pair encoding).
    """

    _instances: weakref.WeakSet[EntailmentScorer] = weakref.WeakSet()

    def __init__(self, model: Any, tokenizer: Any, labels: LabelMap, *, name: str, max_length: int | None = None,
                 batch_size: int | None = None, device: str | None = None, int8: bool | None = None,
                 inputs: PairInputs | None = None) -> None:
        runtime = runtime_of(model.config)
        self.name = name
        self.pair_inputs = inputs if inputs is not None else PairInputs("cross-encoder")
        self.labels = labels
        self.device = check_device(device)
        self.batch_size = _positive("batch_size", batch_size if batch_size is not None
                                    else runtime.get("pairs_per_pass", DEFAULT_BATCH_SIZE))
        self.max_length = _positive("max_length", max_length if max_length is not None
                                    else runtime.get("max_length") or _model_window(model, tokenizer))
        self.tokenizer = tokenizer
        self._special = self.pair_inputs.overhead(tokenizer)
        if self.max_length - self._special < 8:
            msg = f"max_length={self.max_length} leaves no room for a premise and a claim (model {name})"
            raise InvalidInputError(msg)
        accepted = set(inspect.signature(model.forward).parameters)
        # token_type_ids only where the model reads them and has more than one type (RoBERTa's one type would fail
        # on the 1s of a pair's second segment; DeBERTa-v2 with none ignores them).
        self._inputs = tuple(k for k in ("input_ids", "attention_mask", "token_type_ids") if k in accepted
                             and (k != "token_type_ids" or (getattr(model.config, "type_vocab_size", 0) or 0) >= 2))
        use_int8 = bool(runtime.get("int8")) if int8 is None else bool(int8)
        if self.device is not None and self.device != "cpu":
            use_int8 = False  # dynamic int8 is a CPU kernel
            model = model.to(self.device)
        self.model = _int8(model) if use_int8 else model
        self.int8 = use_int8 and self.model is not model
        self._run_lock = threading.Lock()
        self._cache: BytesLRU[tuple[str, str], MeaningScore] = BytesLRU(
            MEANING_SCORES_BYTES, name=f"{__name__}.EntailmentScorer.scores")
        self.load_seconds = 0.0
        EntailmentScorer._instances.add(self)

    @classmethod
    def load(cls, name: str | os.PathLike[str], *, labels: Mapping[Any, str] | Sequence[str] | None = None,
             revision: str | None = None, trust_remote_code: bool = False, device: str | None = None,
             batch_size: int | None = None, max_length: int | None = None, int8: bool | None = None,
             quiet: bool = True) -> EntailmentScorer:
        """The scorer of the model ``name`` (a Hugging Face id or a folder), loaded now.

        Raises:
            ModelNotAvailableError: Not a folder, and not cached while offline (see :mod:`halguard.models.hub`).
            ModelLoadError: Not safetensors, remote code without ``trust_remote_code``, classes whose meaning cannot
                be read (pass ``labels=``), or transformers could not load it.
        """
        from halguard.models.hub import load_pretrained

        check_device(device)
        if not isinstance(trust_remote_code, bool):
            msg = f"trust_remote_code must be True or False, got {trust_remote_code!r}"
            raise InvalidInputError(msg)
        started = time.perf_counter()

        def auto():
            from transformers import AutoModelForSequenceClassification

            return AutoModelForSequenceClassification

        model, tokenizer, _ = load_pretrained(name, auto, revision=revision, trust_remote_code=trust_remote_code,
                                              quiet=quiet)
        text = os.fspath(name)
        lmap = label_map(getattr(model.config, "id2label", None), _num_outputs(model), name=text, override=labels)
        scorer = cls(model, tokenizer, lmap, name=text, max_length=max_length, batch_size=batch_size, device=device,
                     int8=int8)
        scorer.load_seconds = time.perf_counter() - started
        return scorer

    @property
    def family(self) -> str:
        """The detector name prefix of this model's family (``nli``, ``minicheck``, ``hhem``)."""
        return self.pair_inputs.prefix

    @classmethod
    def clear_shared_caches(cls) -> None:
        """Empty every scorer's score cache (the models stay loaded)."""
        for inst in list(cls._instances):
            inst._cache.clear()

    def warm_up(self) -> float:
        """Loaded at construction: returns the seconds that took."""
        return self.load_seconds

    def score(self, premises: Sequence[str], claims: Sequence[str], *, num_threads: int | None = 1,
              deadline: float | None = None) -> list[MeaningScore]:
        """One :class:`MeaningScore` per (premise, claim), reusing cached ones.

        ``deadline`` (``time.monotonic()``): checked between forward passes (raises
        :class:`~halguard.text.segment.BudgetExceeded`).
        """
        if len(premises) != len(claims):
            msg = f"got {len(premises)} premises but {len(claims)} claims"
            raise InvalidInputError(msg)
        out: list[MeaningScore | None] = [self._cache.get((p, c)) for p, c in zip(premises, claims)]
        todo = [i for i, hit in enumerate(out) if hit is None]
        if todo:
            fresh = self._score_pairs([premises[i] for i in todo], [claims[i] for i in todo], num_threads, deadline)
            for i, score in zip(todo, fresh):
                self._cache.set((premises[i], claims[i]), score)
                out[i] = score
        return out  # type: ignore[return-value]

    # -- the pairs' windows and the forward passes ---------------------------------------------------------------

    def _score_pairs(self, premises: list[str], claims: list[str], num_threads: int | None,
                     deadline: float | None) -> list[MeaningScore]:


        # Tokenizing is inside the lock too: a fast tokenizer's truncation setting is state on the shared object.
        with self.running(num_threads):
            units = [u for i, (p, c) in enumerate(zip(premises, claims)) for u in self._units(i, p, c)]
            risks: list[float] = [0.0] * len(units)
            spans: list[tuple[tuple[int, int], ...]] = [()] * len(units)
            for start in range(0, len(units), self.batch_size):
                check_deadline(deadline)
                batch = units[start:start + self.batch_size]
                batch_risks, batch_spans = self._forward(batch)
                risks[start:start + len(batch)] = batch_risks
                spans[start:start + len(batch)] = batch_spans
        # Per claim part: the best-supporting premise window; per claim: its least-supported part.
        best: dict[tuple[int, int], int] = {}
        for k, u in enumerate(units):
            key = (u.pair, u.part)
            if key not in best or risks[k] < risks[best[key]]:
                best[key] = k
        results = []
        for i in range(len(premises)):
            chosen = [k for (pair, _), k in best.items() if pair == i]
            risk = max(risks[k] for k in chosen)
            results.append(MeaningScore(risk=risk, spans=merge_spans([s for k in chosen for s in spans[k]])))
        return results

    def _units(self, pair: int, premise: str, claim: str) -> list[_Unit]:
        """The rows one pair is read in: itself when it fits the window, else premise windows x claim parts."""
        budget = self.max_length - self._special
        tok = self.tokenizer
        # verbose=False: a text longer than the window is expected here (it is what gets windowed), not a mistake.
        claim_offsets = tok(claim, add_special_tokens=False, return_offsets_mapping=True, verbose=False)[
            "offset_mapping"]
        premise_offsets = tok(premise, add_special_tokens=False, return_offsets_mapping=True, verbose=False)[
            "offset_mapping"]
        if len(claim_offsets) + len(premise_offsets) <= budget:
            return [_Unit(pair, 0, premise, claim, 0)]
        part_len = min(len(claim_offsets), budget // 2)
        parts = _windows(claim, claim_offsets, part_len) if claim_offsets else [(0, len(claim))]
        units = []
        for p, (a, b) in enumerate(parts):
            room = budget - min(len(claim_offsets), part_len)
            for s, e in _windows(premise, premise_offsets, room) if premise_offsets else [(0, len(premise))]:
                units.append(_Unit(pair, p, premise[s:e], claim[a:b], a))
        return units

    def support(self, premises: Sequence[str], claims: Sequence[str], *, truncate: bool = True) -> list[float]:
        """P(supported) of each (premise, claim) as one forward pass reads it (no windows: the caller sized the
        pairs, or wants the model's own truncation). Call it inside :meth:`running`."""
        enc = self.pair_inputs.encode(self.tokenizer, premises, claims, self.max_length, truncate=truncate)
        inputs = {k: enc[k] for k in self._inputs if k in enc}
        if self.device is not None:
            inputs = {k: v.to(self.device) for k, v in inputs.items()}
        return self.pair_inputs.support(self.model, inputs, self.labels).detach().cpu().tolist()

    @contextlib.contextmanager
    def running(self, num_threads: int | None = 1) -> Iterator[None]:
        """The context a forward pass runs in: this scorer's lock, ``num_threads`` torch threads, no autograd."""
        import torch

        from halguard.util.threads import torch_threads

        with self._run_lock, torch_threads(num_threads), torch.inference_mode():
            yield

    def _forward(self, batch: list[_Unit]) -> tuple[list[float], list[tuple[tuple[int, int], ...]]]:
        if not self.pair_inputs.paired:
            support = self.support([u.premise for u in batch], [u.claim for u in batch])
            return [1.0 - p for p in support], [()] * len(batch)
        # "longest_first" as in training; a window is sized to fit, so nothing is cut but the odd piece a
        # substring tokenizes into at its edge (which the overlap reads in the next window).
        enc = self.tokenizer([u.premise for u in batch], [u.claim for u in batch], truncation="longest_first",
                             max_length=self.max_length, padding=True, return_offsets_mapping=True,
                             return_tensors="pt")
        inputs = {k: enc[k] for k in self._inputs if k in enc}
        if self.device is not None:
            inputs = {k: v.to(self.device) for k, v in inputs.items()}
        output = self.model(**inputs)
        risks = self.labels.unsupported_risk(output.logits).detach().cpu().tolist()
        token_logits = getattr(output, "token_logits", None)
        if token_logits is None:
            return risks, [()] * len(batch)
        import torch

        token_risks = torch.sigmoid(token_logits.float()).detach().cpu()
        spans = []
        for i, u in enumerate(batch):
            marked = [(u.claim_start + a, u.claim_start + b)
                      for t, ((a, b), seq) in enumerate(zip(enc["offset_mapping"][i].tolist(), enc.sequence_ids(i)))
                      if seq == 1 and b > a and float(token_risks[i, t]) >= SPAN_TOKEN_THRESHOLD]
            spans.append(merge_spans(marked))
        return risks, spans


def _windows(text: str, offsets: Sequence[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """Character ranges of ``text`` covering its tokens (``offsets``) in windows of ``size`` tokens, overlapping by
    :data:`WINDOW_OVERLAP`; the first starts at 0 and the last ends at ``len(text)``."""
    size = max(1, size)
    step = max(1, int(size * (1 - WINDOW_OVERLAP)))
    out = []
    start = 0
    n = len(offsets)
    while True:
        end = min(start + size, n)
        a = 0 if start == 0 else offsets[start][0]
        b = len(text) if end == n else offsets[end - 1][1]
        out.append((a, b))
        if end == n:
            return out
        start += step


def runtime_of(config: Any) -> dict[str, Any]:
    """The ``halguard_runtime`` a model's config asks for (how its scores are meant to be made: int8, pairs per
    pass, window, and ``"scoring": "meaning"`` for halguard's own checker); empty for any other model."""
    runtime = getattr(config, "halguard_runtime", None)
    return dict(runtime) if isinstance(runtime, dict) else {}


def _positive(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        msg = f"{name} must be a positive int, got {value!r}"
        raise InvalidInputError(msg)
    return value


def _num_outputs(model: Any) -> int:
    return int(getattr(model.config, "num_labels", 0) or len(getattr(model.config, "id2label", {}) or {}) or 1)


def _model_window(model: Any, tokenizer: Any) -> int:
    """The pieces a pair may take: the tokenizer's limit, within the model's positions (some tokenizers report a
    huge sentinel)."""
    limits = [DEFAULT_MAX_LENGTH if not 0 < getattr(tokenizer, "model_max_length", 0) < 10**6
              else int(tokenizer.model_max_length)]
    positions = getattr(model.config, "max_position_embeddings", None)
    if isinstance(positions, int) and positions > 0:
        if getattr(model.config, "model_type", "") in _OFFSET_POSITIONS:  # positions start after the padding index
            positions -= (getattr(model.config, "pad_token_id", 0) or 0) + 1
        limits.append(positions)
    return max(16, min(limits))


def _int8(model: Any) -> Any:
    """``model`` with its linear layers in int8 (dynamic quantization), or as it is where torch cannot.

    benchmarks/bench_meaning_speed.py, one thread of the idle 2-core dev machine, 40 pairs of the adversarial set
    (premises of 400-700 characters): p50 31.4 ms int8 against 52.2 ms fp32 (0.60x) for the claim checker.
    """
    import warnings

    import torch

    try:
        with warnings.catch_warnings():  # the API is deprecated in favour of torchao, which is not a dependency
            warnings.simplefilter("ignore")
            return torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    except Exception:  # noqa: BLE001 - a torch without the eager quantizer: fp32 is slower, not wrong
        return model
