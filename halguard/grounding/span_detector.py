"""SpanDetector (``spans:<model>``): a token-classification model marks the answer's unsupported words.

Span models such as LettuceDetect's read the context (and the question) as the first segment and the answer as the
second, and give each answer token P(hallucinated). halguard builds that input as the model card documents
(:data:`LAYOUTS`), turns the marked tokens into the verdict's spans with exact character offsets in the caller's
own answer (tokenizer offsets, Unicode included: the answer is never rewritten), gives each sentence of the answer
a status from the tokens in it, and applies its thresholds, calibration and the guards' policies as for any
detector.

Two readings (``reading=``):

- ``"evidence"`` (the default), halguard's: the passages are grouped whole into windows that fit beside the answer
  (a passage too long for a window alone is read in overlapping windows, each with its "passage i:" line), and a
  token is supported when some window supports it (its lowest P(hallucinated)); an answer too long for half the
  window is read in overlapping parts the same way. A fact stated in one passage is not flagged because another
  window lacks it.
- ``"reference"``: LettuceDetect 0.2.3's own ``predict(..., output_format="spans")``
  (:mod:`halguard.models.readings.lettucedetect`): its passage chunks, renumbered in each chunk, the highest
  probability over the chunks, the answer kept whole (an answer longer than the window is ``unverified``), its
  window of 4,096 pieces. Its spans (start, end, confidence) are the verdict's.

Both keep blank passages (numbered, as LettuceDetect numbers them), feed the model no token types (LettuceDetect
never does), keep whitespace inside a span's edge tokens as the authors do, and read byte-level tokens that share a
character range one by one.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from typing import Any, Literal

from halguard.errors import InvalidInputError, ModelLoadError
from halguard.grounding.embedding import DEFAULT_NUM_THREADS, torch_threads
from halguard.grounding.findings import deterministic_findings, overrule
from halguard.grounding.job import Unverifiable
from halguard.grounding.model_detector import ModelDetector
from halguard.grounding.profile import answer_profile
from halguard.grounding.verifier import DEFAULT_MAX_QUESTION_CHARS, DEFAULT_TIME_BUDGET_S
from halguard.models.entailment import check_device
from halguard.models.labels import _role
from halguard.schema import ClaimStatus, ClaimVerdict, UnsupportedSpan, Verdict
from halguard.models.readings import READINGS
from halguard.models.readings import lettucedetect as lettuce
from halguard.text.segment import check_deadline, split_sentences
from halguard.util.options import require_positive_int

__all__ = ["LAYOUTS", "SpanDetector"]

# The first segment as each model family was trained on it. "lettucedetect": LettuceDetect's prompts (its
# TransformerDetector: passages numbered "passage i: ...", a question-answering prompt with the question, a
# summary prompt without); "plain": the passages, then the question, one per paragraph.
LAYOUTS = ("lettucedetect", "plain")
# Answer tokens per forward pass when the model's config names no window (LettuceDetect's ModernBERT models read
# 4,096 pieces; a BERT-family model 512).
_DEFAULT_MAX_LENGTH = 512
DEFAULT_BATCH_SIZE = 4  # long sequences: a few per pass keeps padding and memory small
_MARK = "the span model marks this text as unsupported by the context"


class _NoRoom(Exception):  # noqa: N818 - internal signal, turned into an "unverified" verdict
    """The question (and the prompt around it) fills the model's window: no room left for the context."""


class SpanDetector(ModelDetector):
    """Unsupported spans of an answer from a Hugging Face token-classification model.

    Args:
        model: A hub id (``"KRLabsOrg/lettucedect-base-modernbert-en-v1"``) or a model folder.
        layout: How the context and question make the first segment (:data:`LAYOUTS`; default LettuceDetect's).
        reading: ``"evidence"`` (halguard's windows; default) or ``"reference"`` (LettuceDetect's own reading,
            exactly; the LettuceDetect layout only): see the module docstring.
        hallucinated_label: The class that means "not supported": an index or a label name. Default: read from
            ``id2label`` (a label such as ``hallucinated`` / ``unsupported``); with two classes named ``LABEL_0``
            and ``LABEL_1``, class 1, as LettuceDetect's models use it.
        revision: Branch, tag or commit of a hub model.
        trust_remote_code: Allow a model that runs its own Python code.
        device: ``cpu`` (default), ``cuda`` / ``cuda:N`` or ``mps``.
        batch_size: Windows per forward pass.
        max_length: Pieces per window (default: the tokenizer's limit, within the model's positions; with
            ``reading="reference"``, LettuceDetect's 4,096 within the model's positions).
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
                 reading: Literal["evidence", "reference"] = "evidence",
                 hallucinated_label: int | str | None = None, revision: str | None = None,
                 trust_remote_code: bool = False, device: str | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
                 max_length: int | None = None, threshold: float | None = None, weak_threshold: float | None = None,
                 calibration: str | os.PathLike[str] | Any | None = None,
                 num_threads: int | None = DEFAULT_NUM_THREADS,
                 time_budget_s: float | None = DEFAULT_TIME_BUDGET_S, max_answer_chars: int = 100_000,
                 max_context_chars: int = 1_000_000, max_question_chars: int = DEFAULT_MAX_QUESTION_CHARS,
                 quiet: bool = True) -> None:
        from halguard.models.entailment import _model_window
        from halguard.models.hub import load_pretrained

        if layout not in LAYOUTS:
            msg = f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}"
            raise InvalidInputError(msg)
        if reading not in READINGS or (reading == "reference" and layout != "lettucedetect"):
            msg = (f"reading must be one of {', '.join(READINGS)} (reference: LettuceDetect's own reading, with "
                   f"layout='lettucedetect'), got reading={reading!r} with layout={layout!r}")
            raise InvalidInputError(msg)
        require_positive_int("batch_size", batch_size)
        self._set_options(threshold=threshold, weak_threshold=weak_threshold, calibration=calibration,
                          num_threads=num_threads, time_budget_s=time_budget_s, max_answer_chars=max_answer_chars,
                          max_context_chars=max_context_chars, max_question_chars=max_question_chars)
        self.device = check_device(device)
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
        self.layout, self.reading = layout, reading
        self.batch_size = batch_size
        window = _model_window(model_obj, tokenizer)
        if max_length is None:
            max_length = min(lettuce.DEFAULT_MAX_LENGTH, window) if reading == "reference" else window
        self.max_length = max_length
        require_positive_int("max_length", self.max_length)
        self._special = tokenizer.num_special_tokens_to_add(pair=True)
        # No token types, whatever the family: LettuceDetect trains and reads its span models without them (a
        # BERT-family model given them matched 0 of 585 of its tokens).
        self._inputs = ("input_ids", "attention_mask")
        self._run_lock = threading.Lock()

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"spans:{self.model_name}"

    @classmethod
    def class_name(cls) -> str:
        return "SpanDetector"

    def _read(self, answer: str, sources: list, passages: list[str], question: str | None,
              deadline: float | None) -> Verdict:
        try:
            if self.reading == "reference":
                return self._reference_verdict(answer, passages, question, deadline)
            risks = self._token_risks(answer, passages, question, deadline)
        except _NoRoom as why:
            raise Unverifiable("question_too_long", str(why)) from why
        except lettuce.AnswerTooLong as why:
            msg = f"{why}; LettuceDetect's reading never splits an answer (reading='evidence' reads it in parts)"
            raise Unverifiable("answer_too_long", msg) from why
        verdict = self._verdict(answer, passages, question, sorted(risks.items()))
        if verdict.label != "supported":
            return verdict
        # A model's "supported" does not stand against the rules: a name or number the passages lack or state
        # otherwise is flagged whatever the span model marked (halguard.grounding.findings).
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        return overrule(verdict, deterministic_findings(answer, sources, question=question, time_budget_s=left),
                        step=self.name)

    # -- the model's reading ------------------------------------------------------------------------------------

    def _first_segment(self, passages: Sequence[str], question: str | None) -> str:
        if self.layout == "plain":
            context = "\n\n".join(passages)
            return context if question is None else f"{context}\n\n{question}"
        return lettuce.format_prompt(passages, question)

    def _count(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])

    def _run(self, inputs: dict[str, Any]) -> Any:
        """One forward pass: the logits of the model inputs ``inputs``."""
        if self.device is not None:
            inputs = {k: v.to(self.device) for k, v in inputs.items()}
        return self.model(**{k: inputs[k] for k in self._inputs if k in inputs}).logits.detach().cpu()

    def _reference_verdict(self, answer: str, passages: list[str], question: str | None,
                           deadline: float | None) -> Verdict:
        """The verdict of LettuceDetect's own reading (:mod:`halguard.models.readings.lettucedetect`)."""
        import torch

        with self._run_lock, torch_threads(self.num_threads), torch.inference_mode():
            reading = lettuce.read(self.tokenizer, self._run, passages, answer, question, max_length=self.max_length,
                                   hallucinated=self._hallucinated, before_each=lambda: check_deadline(deadline))
        tokens = [((s, e, k), p) for k, (s, e, p, _) in enumerate(reading.tokens)]
        spans = [(sp["start"] + reading.base, sp["end"] + reading.base, float(sp["confidence"]))
                 for sp in reading.spans]
        # Its tokens are marked at even odds (argmax): a threshold below that cannot add spans.
        return self._verdict(answer, passages, question, tokens, spans=spans, floor=0.5)

    def _token_risks(self, answer: str, passages: list[str], question: str | None,
                     deadline: float | None) -> dict[tuple[int, int, int], float]:
        """P(hallucinated) of each answer token, keyed by its character range in ``answer`` and its place among the
        tokens sharing that range (byte-level pieces of one character), lowest over the windows that read it."""
        import torch

        risks: dict[tuple[int, int, int], float] = {}
        # Tokenizing is inside the lock too: a fast tokenizer's truncation setting is state on the shared object.
        with self._run_lock, torch_threads(self.num_threads), torch.inference_mode():
            units = self._units(answer, passages, question)
            for start in range(0, len(units), self.batch_size):
                check_deadline(deadline)
                batch = units[start:start + self.batch_size]
                enc = self.tokenizer([u[0] for u in batch], [answer[a:b] for _, a, b in batch], truncation="only_first",
                                     max_length=self.max_length, padding=True, return_offsets_mapping=True,
                                     return_tensors="pt")
                probs = torch.softmax(self._run(dict(enc)).float(), dim=-1)[..., self._hallucinated]
                for i, (_, a, _) in enumerate(batch):
                    seen: dict[tuple[int, int], int] = {}
                    for t, ((s, e), seq) in enumerate(zip(enc["offset_mapping"][i].tolist(), enc.sequence_ids(i))):
                        if seq != 1 or e <= s:
                            continue
                        rank = seen.get((a + s, a + e), 0)
                        seen[(a + s, a + e)] = rank + 1
                        key = (a + s, a + e, rank)
                        risks[key] = min(float(probs[i, t]), risks.get(key, 1.0))
        return risks

    def _units(self, answer: str, passages: list[str], question: str | None) -> list[tuple[str, int, int]]:
        """``(first segment, answer start, answer end)`` rows: every answer part against every passage window."""
        from halguard.models.entailment import _windows

        budget = self.max_length - self._special
        answer_offsets = self.tokenizer(answer, add_special_tokens=False, return_offsets_mapping=True,
                                        verbose=False)["offset_mapping"]
        part_len = min(len(answer_offsets), budget // 2)
        room = budget - self._count(self._first_segment([""], question)) - part_len
        if room < 16:
            msg = f"the question leaves no room for context in the model's {self.max_length}-piece window"
            raise _NoRoom(msg)
        parts = _windows(answer, answer_offsets, part_len) if answer_offsets else [(0, len(answer))]
        return [(self._first_segment(group, question), a, b) for a, b in parts
                for group in self._passage_windows(passages, room)]

    def _passage_windows(self, passages: list[str], room: int) -> list[list[str]]:
        """The passages grouped whole into windows of ``room`` pieces, in order (LettuceDetect's grouping); a
        passage too long for a window alone is read in overlapping windows of its own, never cut."""
        from halguard.models.entailment import _windows

        items: list[str] = []
        sizes: list[int] = []
        frame = self._count(self._first_segment([""], None))
        for passage in passages:
            size = self._count(self._first_segment([passage], None)) - frame
            if size <= room:
                items.append(passage)
                sizes.append(size)
                continue
            offsets = self.tokenizer(passage, add_special_tokens=False, return_offsets_mapping=True,
                                     verbose=False)["offset_mapping"]
            for s, e in _windows(passage, offsets, max(1, room - 8)):
                items.append(passage[s:e])
                sizes.append(room)  # a whole window: it stands alone
        # Eight pieces between two passages: the next "passage i:" line and its newline.
        groups = lettuce.group_greedily(sizes, room, separator=8)
        return [[items[i] for i in group] for group in groups] or [[]]

    def _verdict(self, answer: str, passages: list[str], question: str | None,
                 tokens: list[tuple[tuple[int, int, int], float]], *,
                 spans: list[tuple[int, int, float]] | None = None, floor: float = 0.0) -> Verdict:
        """The verdict from the answer's tokens (in order) and, for the reference reading, the authors' spans."""
        sentences = split_sentences(answer) or [(0, len(answer))]
        profile = answer_profile(answer, passages, question=question, sentences=len(sentences))
        threshold, weak = self.operating_point(profile)
        threshold = max(threshold, floor)
        if spans is None:
            spans = [(s, e, max(r for (a, b, _), r in tokens if a < e and s < b)) for s, e in _runs(tokens, threshold)]
        else:  # the authors' spans; a higher threshold drops the weaker ones, as their min_confidence does
            spans = [sp for sp in spans if sp[2] >= threshold]
        found = [UnsupportedSpan(start=s, end=e, text=answer[s:e], confidence=round(c, 6), reason=_MARK)
                 for s, e, c in spans if e > s]
        claims = []
        for s, e in sentences:
            score = max((r for (a, b, _), r in tokens if a < e and s < b), default=0.0)
            marked = [sp for sp in found if sp.start < e and s < sp.end]
            status = (ClaimStatus.HALLUCINATION if marked else ClaimStatus.WEAK_SUPPORT if score >= weak
                      else ClaimStatus.SUPPORTED)
            claims.append(ClaimVerdict(text=answer[s:e], start=s, end=e, status=status, score=round(score, 6),
                                       reasons=[f"the span model marks {sp.text!r} as unsupported" for sp in marked]))
        score = max((r for _, r in tokens), default=0.0)
        hallucinated = bool(found)
        probability = (None if self.calibration is None
                       else self.calibration.for_profile(profile).probability(score))
        return Verdict(label="hallucinated" if hallucinated else "supported", hallucination_detected=hallucinated,
                       score=score, threshold=threshold, claims=claims, spans=found, detector=self.name,
                       profile=profile, probability=probability)


def _runs(tokens: list[tuple[tuple[int, int, int], float]], threshold: float) -> list[tuple[int, int]]:
    """Character ranges of the runs of consecutive tokens at or above ``threshold`` (tokens in answer order;
    overlapping ranges, from overlapping answer parts, join a run). A run keeps the whitespace its edge tokens
    carry, as LettuceDetect's spans do."""
    runs: list[list[int]] = []
    previous_flagged = False
    for (s, e, _), risk in tokens:
        if risk < threshold:
            previous_flagged = False
            continue
        if runs and (previous_flagged or s < runs[-1][1]):
            runs[-1][1] = max(runs[-1][1], e)
        else:
            runs.append([s, e])
        previous_flagged = True
    return [(s, e) for s, e in runs]


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
