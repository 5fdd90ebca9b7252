"""Checks of constructor options: a wrong option raises :class:`~halguard.errors.InvalidInputError` naming it."""

from __future__ import annotations

import math
from typing import Any

from halguard.errors import InvalidInputError

__all__ = ["is_number", "require_bool", "require_fraction", "require_positive_int", "require_positive_number"]


def is_number(value: Any) -> bool:
    """A finite int or float (a bool is not a number here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def require_bool(name: str, value: Any) -> bool:
    """``value`` must be True or False (not 1, not "yes"); returns it."""
    if not isinstance(value, bool):
        msg = f"{name} must be True or False, got {value!r}"
        raise InvalidInputError(msg)
    return value


def require_fraction(name: str, value: Any) -> None:
    """``value`` must be a number (its range is checked by the caller, which knows the related options)."""
    if not is_number(value):
        msg = f"{name} must be a number from 0 to 1, got {value!r}"
        raise InvalidInputError(msg)


def require_positive_int(name: str, value: Any, *, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        msg = f"{name} must be a positive int, got {value!r}"
        raise InvalidInputError(msg)
    if value < minimum:
        msg = f"{name} must be at least {minimum}, got {value}"
        raise InvalidInputError(msg)


def require_positive_number(name: str, value: Any, *, allow_none: bool = False, unit: str = "") -> None:
    if value is None and allow_none:
        return
    if not is_number(value) or value <= 0:
        what = f"a positive number{' of ' + unit if unit else ''}{' or None' if allow_none else ''}"
        msg = f"{name} must be {what}, got {value!r}"
        raise InvalidInputError(msg)
