"""SpanDetector (``spans:<model>``): a token-classification model marks the answer's unsupported words.

Span models such as LettuceDetect's read the context (and the question) as the first segment and the answer as the
second, and give each answer token P(hallucinated). halguard builds that input as the model card documents
(:data:`LAYOUTS`), turns the marked tokens into the verdict's spans with exact character offsets in the caller's
own answer (tokenizer offsets, Unicode included: the answer is never rewritten), gives each sentence of the answer
a status from the tokens in it, and applies its thresholds, calibration and the guards' policies as for any
detector.

A context longer than the model's window is read in overlapping windows, never cut: a token is supported when some
window supports it (its lowest P(hallucinated)). An answer too long for half the window is read in overlapping
parts the same way.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from typing import Any, Literal

from halguard.detector import Detector
from halguard.errors import InputTypeError, InvalidInputError, ModelLoadError
from halguard.grounding.calibration import Calibration
from halguard.grounding.embedding import DEFAULT_NUM_THREADS, torch_threads
from halguard.grounding.findings import deterministic_findings, overrule
from halguard.grounding.job import Unverifiable, check_context_length, check_text_lengths, read_inputs
from halguard.grounding.profile import answer_profile
from halguard.grounding.scoring import DEFAULT_THRESHOLD, DEFAULT_WEAK_THRESHOLD
from halguard.grounding.verifier import DEFAULT_MAX_QUESTION_CHARS, DEFAULT_TIME_BUDGET_S
from halguard.models.entailment import check_device
from halguard.models.labels import _role
from halguard.schema import ClaimStatus, ClaimVerdict, UnsupportedSpan, Verdict
from halguard.text.segment import BudgetExceeded, check_deadline, split_sentences
from halguard.util.options import require_positive_int, require_positive_number

__all__ = ["LAYOUTS", "SpanDetector"]

# The first segment as each model family was trained on it. "lettucedetect": LettuceDetect's prompts (its
# TransformerDetector: passages numbered "passage i: ...", a question-answering prompt with the question, a
# summary prompt without); "plain": the passages, then the question, one per paragraph.
LAYOUTS = ("lettucedetect", "plain")
_QA_PROMPT = ("Briefly answer the following question:\n{question}\nBear in mind that your response should be strictly "
              "based on the following {count} passages:\n{context}\nIn case the passages do not contain the "
              "necessary information to answer the question, please reply with: \"Unable to answer based on given "
              "passages.\"\noutput:")
_SUMMARY_PROMPT = "Summarize the following text:\n{context}\noutput:"
# Answer tokens per forward pass when the model's config names no window (LettuceDetect's ModernBERT models read
# 4,096 pieces; a BERT-family model 512).
_DEFAULT_MAX_LENGTH = 512
DEFAULT_BATCH_SIZE = 4  # long sequences: a few per pass keeps padding and memory small
_MARK = "the span model marks this text as unsupported by the context"


class _NoRoom(Exception):  # noqa: N818 - internal signal, turned into an "unverified" verdict
    """The question (and the prompt around it) fills the model's window: no room left for the context."""


class SpanDetector(Detector):
    """Unsupported spans of an answer from a Hugging Face token-classification model.

    Args:
        model: A hub id (``"KRLabsOrg/lettucedect-base-modernbert-en-v1"``) or a model folder.
        layout: How the context and question make the first segment (:data:`LAYOUTS`; default LettuceDetect's).
        hallucinated_label: The class that means "not supported": an index or a label name. Default: read from
            ``id2label`` (a label such as ``hallucinated`` / ``unsupported``); with two classes named ``LABEL_0``
            and ``LABEL_1``, class 1, as LettuceDetect's models use it.
        revision: Branch, tag or commit of a hub model.
        trust_remote_code: Allow a model that runs its own Python code.
        device: ``cpu`` (default), ``cuda`` / ``cuda:N`` or ``mps``.
        batch_size: Windows per forward pass.
        max_length: Pieces per window (default: the tokenizer's limit, within the model's positions).
        threshold: Token (and so answer) risk at or above which text is flagged. Default None: the calibration's
            for the answer's shape, or 0.5.
        weak_threshold: Risk from which an unflagged sentence is WEAK_SUPPORT (default: the calibration's, or 0.4).
        calibration: A file from ``halguard calibrate --detector spans:...``, a mapping, a Calibration, or None.
        num_threads: torch threads while the model runs (default 1; None: torch's setting).
        time_budget_s: Seconds one check may take (checked between forward passes); past it: ``unverified``.
        max_answer_chars, max_context_chars, max_question_chars: Larger inputs get an ``unverified`` verdict,
            never a partial check.
        quiet: No progress bars or transformers warnings while loading.
    """

    def __init__(self, model: str | os.PathLike[str], *, layout: Literal["lettucedetect", "plain"] = "lettucedetect",
                 hallucinated_label: int | str | None = None, revision: str | None = None,
                 trust_remote_code: bool = False, device: str | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
                 max_length: int | None = None, threshold: float | None = None, weak_threshold: float | None = None,
                 calibration: str | os.PathLike[str] | Any | None = None,
                 num_threads: int | None = DEFAULT_NUM_THREADS,
                 time_budget_s: float | None = DEFAULT_TIME_BUDGET_S, max_answer_chars: int = 100_000,
                 max_context_chars: int = 1_000_000, max_question_chars: int = DEFAULT_MAX_QUESTION_CHARS,
                 quiet: bool = True) -> None:
        from halguard.grounding.verifier_options import load_calibration
        from halguard.models.entailment import _model_window
        from halguard.models.hub import load_pretrained

        if layout not in LAYOUTS:
            msg = f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}"
            raise InvalidInputError(msg)
        for name, value in (("threshold", threshold), ("weak_threshold", weak_threshold)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not 0.0 <= value <= 1.0):
                msg = f"{name} must be a number from 0 to 1, got {value!r}"
                raise InvalidInputError(msg)
        require_positive_int("batch_size", batch_size)
        for name, value in (("max_answer_chars", max_answer_chars), ("max_context_chars", max_context_chars),
                            ("max_question_chars", max_question_chars)):
            require_positive_int(name, value)
        if num_threads is not None:
            require_positive_int("num_threads", num_threads)
        require_positive_number("time_budget_s", time_budget_s, allow_none=True, unit="seconds")
        self.device = check_device(device)
        self.calibration: Calibration | None = (None if calibration is None
                                                else load_calibration(calibration, meaning=False))
        started = time.perf_counter()

        def auto():
            from transformers import AutoModelForTokenClassification

            return AutoModelForTokenClassification

        model_obj, tokenizer, _ = load_pretrained(model, auto, revision=revision, trust_remote_code=trust_remote_code,
                                                  quiet=quiet)
        self.model_name = os.fspath(model)
        self._hallucinated = _hallucinated_class(model_obj.config, hallucinated_label, self.model_name)
        if self.device is not None and self.device != "cpu":
            model_obj = model_obj.to(self.device)
        self.model, self.tokenizer = model_obj, tokenizer
        self.load_seconds = time.perf_counter() - started
        self.layout = layout
        self.batch_size = batch_size
        self.max_length = max_length if max_length is not None else _model_window(model_obj, tokenizer)
        require_positive_int("max_length", self.max_length)
        self._special = tokenizer.num_special_tokens_to_add(pair=True)
        self._fixed_threshold, self._fixed_weak = threshold, weak_threshold
        self.threshold = threshold if threshold is not None else DEFAULT_THRESHOLD
        self.num_threads = num_threads
        self.time_budget_s = time_budget_s
        self.max_answer_chars, self.max_context_chars = max_answer_chars, max_context_chars
        self.max_question_chars = max_question_chars
        import inspect

        accepted = set(inspect.signature(model_obj.forward).parameters)
        self._inputs = tuple(k for k in ("input_ids", "attention_mask", "token_type_ids") if k in accepted
                             and (k != "token_type_ids" or (getattr(model_obj.config, "type_vocab_size", 0) or 0) >= 2))
        self._run_lock = threading.Lock()

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"spans:{self.model_name}"

    def warm_up(self) -> float:
        """Loaded at construction: returns the seconds that took."""
        return self.load_seconds

    def operating_point(self, profile: str | None) -> tuple[float, float]:
        """``(threshold, weak_threshold)`` for an answer of this shape (explicit ones win over the calibration)."""
        if self.calibration is None:
            threshold, weak = DEFAULT_THRESHOLD, DEFAULT_WEAK_THRESHOLD
        else:
            entry = self.calibration.for_profile(profile)
            threshold, weak = entry.threshold, entry.weak_threshold
        if self._fixed_threshold is not None:
            threshold = self._fixed_threshold
            weak = min(DEFAULT_WEAK_THRESHOLD, threshold) if self._fixed_weak is None else weak
        if self._fixed_weak is not None:
            weak = self._fixed_weak
        return threshold, min(weak, threshold)

    def _unverified(self, code: str, message: str) -> Verdict:
        return Verdict.unverified(code, message, detector=self.name, threshold=self.threshold)

    def verify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        """Check ``answer`` against ``contexts``: bad types raise, anything that cannot be checked is ``unverified``.

        Raises:
            InputTypeError: The answer is not a str, the question not a str or None, or a context has a bad type.
        """
        started = time.perf_counter()
        sources = read_inputs(answer, contexts, question)
        verdict = self._check(answer, sources, question, started)
        verdict.latency_ms = round((time.perf_counter() - started) * 1000, 3)
        return verdict

    def _check(self, answer: str, sources: list, question: str | None, started: float) -> Verdict:
        if not answer.strip():
            return self._unverified("empty_answer", "the answer is empty; there is nothing to check")
        try:
            check_text_lengths(answer, question, max_answer_chars=self.max_answer_chars,
                               max_question_chars=self.max_question_chars)
            if not sources:
                return self._unverified("no_context", "no retrieved context to check the answer against")
            check_context_length(sources, max_context_chars=self.max_context_chars)
        except Unverifiable as exc:
            return self._unverified(exc.code, exc.message)
        deadline = None if self.time_budget_s is None else time.monotonic() + self.time_budget_s
        try:
            risks = self._token_risks(answer, [s.text for s in sources], question, deadline)
        except _NoRoom as why:
            return self._unverified("question_too_long", str(why))
        except BudgetExceeded:
            return self._unverified("budget_exceeded", f"the check did not finish within time_budget_s="
                                    f"{self.time_budget_s} s; it was stopped, not shortened")
        except (InputTypeError, InvalidInputError):
            raise
        except Exception as exc:  # noqa: BLE001 - a guardrail turns its own failures into "unverified"
            return self._unverified("internal_error", f"the span model failed: {type(exc).__name__}: {exc}")
        verdict = self._verdict(answer, [s.text for s in sources], question, risks)
        if verdict.label != "supported":
            return verdict
        # A model's "supported" does not stand against the rules: a name or number the passages lack or state
        # otherwise is flagged whatever the span model marked (halguard.grounding.findings).
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        return overrule(verdict, deterministic_findings(answer, sources, question=question, time_budget_s=left),
                        step=self.name)

    # -- the model's reading ------------------------------------------------------------------------------------

    def _first_segment(self, context: str, count: int, question: str | None) -> str:
        if self.layout == "plain":
            return context if question is None else f"{context}\n\n{question}"
        if question is None:
            return _SUMMARY_PROMPT.format(context=context)
        return _QA_PROMPT.format(question=question, count=count, context=context)

    def _context_text(self, passages: Sequence[str]) -> str:
        if self.layout == "plain":
            return "\n\n".join(passages)
        return "\n".join(f"passage {i + 1}: {p}" for i, p in enumerate(passages))

    def _token_risks(self, answer: str, passages: list[str], question: str | None,
                     deadline: float | None) -> dict[tuple[int, int], float]:
        """P(hallucinated) of each answer token, keyed by its character range in ``answer`` (lowest over the
        windows that read it)."""
        import torch

        risks: dict[tuple[int, int], float] = {}
        # Tokenizing is inside the lock too: a fast tokenizer's truncation setting is state on the shared object.
        with self._run_lock, torch_threads(self.num_threads), torch.inference_mode():
            units = self._units(answer, passages, question)
            for start in range(0, len(units), self.batch_size):
                check_deadline(deadline)
                batch = units[start:start + self.batch_size]
                enc = self.tokenizer([u[0] for u in batch], [answer[a:b] for _, a, b in batch], truncation="only_first",
                                     max_length=self.max_length, padding=True, return_offsets_mapping=True,
                                     return_tensors="pt")
                inputs = {k: enc[k] for k in self._inputs if k in enc}
                if self.device is not None:
                    inputs = {k: v.to(self.device) for k, v in inputs.items()}
                probs = torch.softmax(self.model(**inputs).logits.float(), dim=-1)[..., self._hallucinated].cpu()
                for i, (_, a, _) in enumerate(batch):
                    for t, ((s, e), seq) in enumerate(zip(enc["offset_mapping"][i].tolist(), enc.sequence_ids(i))):
                        if seq != 1 or e <= s:
                            continue
                        key = (a + s, a + e)
                        risk = float(probs[i, t])
                        risks[key] = min(risk, risks.get(key, 1.0))
        return risks

    def _units(self, answer: str, passages: list[str], question: str | None) -> list[tuple[str, int, int]]:
        """``(first segment, answer start, answer end)`` rows: every answer part against every context window."""
        from halguard.models.entailment import _windows

        tok = self.tokenizer
        budget = self.max_length - self._special
        context = self._context_text(passages)
        frame = len(tok(self._first_segment("", len(passages), question), add_special_tokens=False,
                        verbose=False)["input_ids"])
        answer_offsets = tok(answer, add_special_tokens=False, return_offsets_mapping=True,
                             verbose=False)["offset_mapping"]
        part_len = min(len(answer_offsets), budget // 2)
        room = budget - frame - part_len
        if room < 16:
            msg = f"the question leaves no room for context in the model's {self.max_length}-piece window"
            raise _NoRoom(msg)
        parts = _windows(answer, answer_offsets, part_len) if answer_offsets else [(0, len(answer))]
        context_offsets = tok(context, add_special_tokens=False, return_offsets_mapping=True,
                             verbose=False)["offset_mapping"]
        windows = (_windows(context, context_offsets, room) if len(context_offsets) > room else [(0, len(context))])
        units = [(self._first_segment(context[cs:ce], len(passages), question), a, b)
                 for a, b in parts for cs, ce in windows]
        return units

    def _verdict(self, answer: str, passages: list[str], question: str | None,
                 risks: dict[tuple[int, int], float]) -> Verdict:
        sentences = split_sentences(answer) or [(0, len(answer))]
        profile = answer_profile(answer, passages, question=question, sentences=len(sentences))
        threshold, weak = self.operating_point(profile)
        tokens = sorted(risks.items())
        spans = []
        for s, e in _runs(tokens, threshold):
            s, e = _strip(answer, s, e)
            if e > s:
                confidence = max(r for (a, b), r in tokens if a < e and s < b)
                spans.append(UnsupportedSpan(start=s, end=e, text=answer[s:e], confidence=round(confidence, 6),
                                             reason=_MARK))
        claims = []
        for s, e in sentences:
            inside = [r for (a, b), r in tokens if a < e and s < b]
            score = max(inside, default=0.0)
            status = (ClaimStatus.HALLUCINATION if score >= threshold
                      else ClaimStatus.WEAK_SUPPORT if score >= weak else ClaimStatus.SUPPORTED)
            marked = [sp.text for sp in spans if sp.start < e and s < sp.end]
            claims.append(ClaimVerdict(text=answer[s:e], start=s, end=e, status=status, score=round(score, 6),
                                       reasons=[f"the span model marks {t!r} as unsupported" for t in marked]))
        score = max((r for _, r in tokens), default=0.0)
        hallucinated = score >= threshold
        probability = (None if self.calibration is None
                       else self.calibration.for_profile(profile).probability(score))
        return Verdict(label="hallucinated" if hallucinated else "supported", hallucination_detected=hallucinated,
                       score=score, threshold=threshold, claims=claims, spans=spans, detector=self.name,
                       profile=profile, probability=probability)


def _runs(tokens: list[tuple[tuple[int, int], float]], threshold: float) -> list[tuple[int, int]]:
    """Character ranges of the runs of consecutive tokens at or above ``threshold`` (tokens in answer order;
    overlapping ranges, from overlapping answer parts, join a run)."""
    runs: list[list[int]] = []
    previous_flagged = False
    for (s, e), risk in tokens:
        if risk < threshold:
            previous_flagged = False
            continue
        if runs and (previous_flagged or s < runs[-1][1]):
            runs[-1][1] = max(runs[-1][1], e)
        else:
            runs.append([s, e])
        previous_flagged = True
    return [(s, e) for s, e in runs]


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _hallucinated_class(config: Any, given: int | str | None, name: str) -> int:
    """The output class that means "not supported" (see :class:`SpanDetector`'s ``hallucinated_label``)."""
    labels = {int(k): str(v) for k, v in (getattr(config, "id2label", None) or {}).items()}
    count = int(getattr(config, "num_labels", 0) or len(labels))
    if given is not None:
        if isinstance(given, int) and not isinstance(given, bool) and 0 <= given < count:
            return given
        for index, label in labels.items():
            if isinstance(given, str) and label.strip().lower() == given.strip().lower():
                return index
        msg = f"hallucinated_label={given!r} is not a class of model {name} (classes: {labels or count})"
        raise InvalidInputError(msg)
    marked = [i for i, label in labels.items() if _role(label) in ("unsupported", "contradicted")]
    if len(marked) == 1:
        return marked[0]
    if count == 2 and all(labels.get(i, f"LABEL_{i}").upper() == f"LABEL_{i}" for i in range(2)):
        return 1  # LettuceDetect's convention: 0 supported, 1 hallucinated
    msg = (f"model {name}: cannot tell which of its classes {labels or count} marks unsupported tokens; pass "
           "hallucinated_label= (an index or a label)")
    raise ModelLoadError(msg)
