"""The one shape of an ``on_verdict`` callback, everywhere halguard takes one: ``on_verdict(verdict)``.

The run it belongs to is on the verdict (``verdict.request.id``: the LangChain run id, the LlamaIndex span id), so
one callable (``verdicts.append``, a logger, a metrics hook) fits every guard, handler and engine. A callable that
cannot be called with the verdict alone is refused where it is passed, not found out when the first verdict is
dropped in a log line.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from halguard.errors import InvalidInputError

__all__ = ["check_on_verdict"]


def check_on_verdict(on_verdict: Any, where: str) -> Callable[[Any], Any] | None:
    """``on_verdict`` if it can be called as ``on_verdict(verdict)`` (or None); else :class:`InvalidInputError`
    naming the expected signature. A callable whose signature Python cannot read (some builtins) is taken as is.

    Args:
        on_verdict: The callback, or None.
        where: Who takes it, for the message ("HalguardCallbackHandler").
    """
    if on_verdict is None:
        return None
    if not callable(on_verdict):
        msg = f"{where}: on_verdict must be a callable on_verdict(verdict), got {type(on_verdict).__name__}"
        raise InvalidInputError(msg)
    try:
        signature = inspect.signature(on_verdict)
    except (TypeError, ValueError):
        return on_verdict
    try:
        signature.bind(object())
    except TypeError:
        msg = (f"{where}: on_verdict must take one argument, the verdict: on_verdict(verdict) (the run id is "
               f"verdict.request.id); {getattr(on_verdict, '__name__', type(on_verdict).__name__)}{signature} "
               "cannot be called so")
        raise InvalidInputError(msg) from None
    return on_verdict
