"""ModelDetector: what every detector that runs one third-party model over a whole answer shares (the span models,
:mod:`.span_detector`, and the authors' readings of classifiers, :mod:`.reference_detector`).

Its options (threshold, calibration, threads, time budget, input limits) are checked at construction; a check reads
the caller's input, turns anything that cannot be checked into ``unverified`` with its reason code (empty answer, no
context, input over a limit, the time budget, the model failing), and leaves the model's reading to the subclass's
``_read``.
"""

from __future__ import annotations

import os
import time
from typing import Any

from halguard.detector import Detector
from halguard.errors import InputTypeError, InvalidInputError
from halguard.grounding.calibration import Calibration
from halguard.grounding.job import Unverifiable, check_context_length, check_text_lengths, read_inputs
from halguard.grounding.scoring import DEFAULT_THRESHOLD, DEFAULT_WEAK_THRESHOLD
from halguard.schema import Verdict
from halguard.text.contexts import normalize_contexts
from halguard.text.segment import BudgetExceeded
from halguard.util.options import require_positive_int, require_positive_number

__all__ = ["ModelDetector"]


class ModelDetector(Detector):
    """A detector whose model reads the whole answer; subclasses implement ``_read`` and ``name``."""

    calibration: Calibration | None
    load_seconds: float = 0.0

    def _set_options(self, *, threshold: float | None, weak_threshold: float | None,
                     calibration: str | os.PathLike[str] | Any | None, num_threads: int | None,
                     time_budget_s: float | None, max_answer_chars: int, max_context_chars: int,
                     max_question_chars: int) -> None:
        """Check and keep the options every model detector takes.

        Raises:
            InvalidInputError: A threshold outside [0, 1], a limit that is not a positive int, a bad time budget.
        """
        from halguard.grounding.verifier_options import load_calibration

        for label, value in (("threshold", threshold), ("weak_threshold", weak_threshold)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not 0.0 <= value <= 1.0):
                msg = f"{label} must be a number from 0 to 1, got {value!r}"
                raise InvalidInputError(msg)
        for label, value in (("max_answer_chars", max_answer_chars), ("max_context_chars", max_context_chars),
                             ("max_question_chars", max_question_chars)):
            require_positive_int(label, value)
        if num_threads is not None:
            require_positive_int("num_threads", num_threads)
        require_positive_number("time_budget_s", time_budget_s, allow_none=True, unit="seconds")
        self.calibration = None if calibration is None else load_calibration(calibration, meaning=False)
        self._fixed_threshold, self._fixed_weak = threshold, weak_threshold
        self.threshold = threshold if threshold is not None else DEFAULT_THRESHOLD
        self.num_threads, self.time_budget_s = num_threads, time_budget_s
        self.max_answer_chars, self.max_context_chars = max_answer_chars, max_context_chars
        self.max_question_chars = max_question_chars

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
        # The passages as given, blank ones included: the authors' code numbers and joins them that way.
        passages = [s.text for s in normalize_contexts(contexts)] if sources else []
        verdict = self._check(answer, sources, passages, question)
        verdict.latency_ms = round((time.perf_counter() - started) * 1000, 3)
        return verdict

    def _check(self, answer: str, sources: list, passages: list[str], question: str | None) -> Verdict:
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
            return self._read(answer, sources, passages, question, deadline)
        except Unverifiable as exc:
            return self._unverified(exc.code, exc.message)
        except BudgetExceeded:
            return self._unverified("budget_exceeded", f"the check did not finish within time_budget_s="
                                    f"{self.time_budget_s} s; it was stopped, not shortened")
        except (InputTypeError, InvalidInputError):
            raise
        except Exception as exc:  # noqa: BLE001 - a guardrail turns its own failures into "unverified"
            return self._unverified("internal_error", f"the model failed: {type(exc).__name__}: {exc}")

    def _read(self, answer: str, sources: list, passages: list[str], question: str | None,
              deadline: float | None) -> Verdict:
        """The model's verdict (inputs checked). Raises :class:`~halguard.grounding.job.Unverifiable` for input
        it cannot read, :class:`~halguard.text.segment.BudgetExceeded` past ``deadline``."""
        raise NotImplementedError
