"""One stage of a local check, run so that whatever goes wrong inside it becomes an ``unverified`` verdict.

Bad input (:class:`~halguard.errors.InputTypeError`, :class:`~halguard.errors.InvalidInputError`) still raises: it
is the caller's to fix. An answer that cannot be checked as given (:class:`~halguard.grounding.job.Unverifiable`)
gets its own code, a blown time budget ``budget_exceeded``, and any other failure ``internal_error``: a guardrail
turns its own failures into ``unverified``, never into a raw exception or ``supported``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from halguard.errors import InputTypeError, InvalidInputError
from halguard.grounding.job import Unverifiable, restore_offsets
from halguard.schema import Verdict
from halguard.text.segment import BudgetExceeded

__all__ = ["contained"]


def contained(stage: Callable[..., Any], *args: Any, unverified: Callable[..., Verdict],
              time_budget_s: float | None) -> Any:
    """``stage(*args)``, or the ``unverified`` verdict (made by ``unverified(code, message, **fields)``) it ends in."""
    try:
        return stage(*args)
    except (InputTypeError, InvalidInputError):
        raise
    except Unverifiable as why:
        fields: dict[str, Any] = {"skipped": why.skipped} if why.skipped else {}
        if why.skipped_sources:
            fields["skipped_sources"] = why.skipped_sources
        return restore_offsets(unverified(why.code, why.message, **fields), why.original, {})
    except BudgetExceeded:
        return unverified(
            "budget_exceeded",
            f"the check did not finish within time_budget_s={time_budget_s} s; it was stopped, not "
            "shortened (raise the budget, or check fewer or shorter passages)",
        )
    except Exception as exc:  # noqa: BLE001 - a guardrail turns its own failures into "unverified"
        return unverified("internal_error", f"the check failed: {type(exc).__name__}: {str(exc)[:200]}")
