"""The detector interface every halguard checker implements (local, LLM judges, paraphrase sampling)."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from halguard.errors import InvalidInputError
from halguard.schema import Verdict

__all__ = ["Detector", "check_batch_args"]


class Detector(ABC):
    """Checks an answer against retrieved contexts and returns a :class:`~halguard.schema.Verdict`.

    Subclasses implement :meth:`verify`; :meth:`averify` runs it in a worker thread by default (the local
    check is CPU-bound), and LLM-backed detectors override it with native async calls.
    """

    name: str = "detector"
    """What made the verdict, as written into ``Verdict.detector``."""
    threshold: float = 0.5
    """Risk at or above which an answer is flagged; written into ``Verdict.threshold`` (also for unverified)."""

    def warm_up(self) -> float:
        """Load what the first check would load (models, indexes); returns the seconds it took (0: nothing)."""
        return 0.0

    def prepare(self, contexts: Any, *, question: str | None = None) -> None:
        """Do now what a check against ``contexts`` would do first, before the answer exists (a stream checked
        sentence by sentence calls it when the documents are known). Default: nothing."""

    @abstractmethod
    def verify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        """Check ``answer`` against ``contexts`` (strings, (id, text) pairs or Sources)."""

    async def averify(self, answer: str, contexts: Any, *, question: str | None = None) -> Verdict:
        """Async twin of :meth:`verify`."""
        return await asyncio.to_thread(self.verify, answer, contexts, question=question)

    def verify_batch(
        self,
        answers: Sequence[str],
        contexts: Sequence[Any],
        *,
        questions: Sequence[str | None] | None = None,
    ) -> list[Verdict]:
        """Check many answers; the default runs :meth:`verify` one by one."""
        qs = check_batch_args(answers, contexts, questions)
        return [self.verify(a, c, question=q) for a, c, q in zip(answers, contexts, qs)]

    async def averify_batch(
        self,
        answers: Sequence[str],
        contexts: Sequence[Any],
        *,
        questions: Sequence[str | None] | None = None,
    ) -> list[Verdict]:
        """Async twin of :meth:`verify_batch`."""
        return await asyncio.to_thread(self.verify_batch, answers, contexts, questions=questions)


def check_batch_args(answers: Sequence[Any], contexts: Sequence[Any],
                     questions: Sequence[str | None] | None) -> list[str | None]:
    """The questions of a batch, one per answer (None when none were given).

    Raises:
        InvalidInputError: ``answers``, ``contexts`` and ``questions`` have different lengths.
    """
    if len(answers) != len(contexts):
        msg = f"got {len(answers)} answers but {len(contexts)} context lists"
        raise InvalidInputError(msg)
    if questions is None:
        return [None] * len(answers)
    if len(questions) != len(answers):
        msg = f"got {len(answers)} answers but {len(questions)} questions"
        raise InvalidInputError(msg)
    return list(questions)
