"""JSON from untrusted text, without recursion on its nesting.

Python's ``json`` parser recurses once per nesting level: ``"[" * 100_000`` raises ``RecursionError`` (not a
``ValueError``), and a deep enough document can take the interpreter's stack with it in code that walks the
result recursively. Every place that parses text a user, a retriever or a model gave (answers, passages, judge
replies, audit rows, calibration files) goes through :func:`loads`, which measures the nesting first in one linear
pass, refuses anything deeper than ``max_depth`` with a :class:`JSONTooDeep` (a ``ValueError``), and only then
parses.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "JSONTooDeep", "json_depth", "loads"]

# Deeper than any record, reply or calibration file halguard reads (the deepest dev-file record is 4 levels), far
# below the interpreter's recursion limit (1,000), so code that walks a parsed value recursively is safe too.
MAX_JSON_DEPTH = 64
_STRUCTURE = re.compile(r'\\.|["\[\]{}]', re.DOTALL)


class JSONTooDeep(ValueError):
    """The text nests arrays and objects deeper than allowed; it was not parsed."""


def json_depth(text: str, *, stop_at: int | None = None) -> int:
    """The deepest nesting of ``[``/``{`` in ``text`` outside JSON strings (one linear pass, no recursion).

    Stops counting once ``stop_at`` is passed (the caller only needs to know it is too deep).
    """
    depth = deepest = 0
    in_string = False
    # Only quotes, brackets and escapes matter; the scanner visits those and skips everything else in C.
    for token in _STRUCTURE.finditer(text):
        ch = token.group()
        if ch[0] == "\\":
            continue  # an escape (only meaningful inside a string; a stray one outside is json's to reject)
        if ch == '"':
            in_string = not in_string
        elif in_string:
            continue
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop_at is not None and deepest > stop_at:
                    return deepest
        else:
            depth = max(depth - 1, 0)
    return deepest


def loads(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` for untrusted text: nesting deeper than ``max_depth`` raises :class:`JSONTooDeep`.

    Raises:
        JSONTooDeep: the text nests deeper than ``max_depth`` (a ``ValueError``).
        ValueError: the text is not JSON (``json.JSONDecodeError``, as from ``json.loads``).
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    if json_depth(text, stop_at=max_depth) > max_depth:
        msg = f"JSON nested deeper than {max_depth} levels; not parsed"
        raise JSONTooDeep(msg)
    try:
        return json.loads(text)
    except RecursionError as exc:  # belt and braces: the scan above should make this unreachable
        msg = "JSON nested too deeply to parse"
        raise JSONTooDeep(msg) from exc
