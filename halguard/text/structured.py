"""Structured answers (pydantic models, dataclasses, dicts, lists) as text the verifier can check.

A structured output has no sentences, so it is written as one ``field: value`` line per leaf value: the line
break makes each field its own claim, the field name tells the embedding what the value is about ("height:
330 metres"), and a changed number or name is still caught in the value. The verdict keeps this text in
``Verdict.checked_text``; claim and span offsets refer to it.
"""

from __future__ import annotations

import dataclasses
import re
import reprlib
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["field_names", "is_structured", "question_with_fields", "render_structured"]

_MAX_DEPTH = 8  # deeper values are written shallowly, so a cyclic or absurdly nested object cannot recurse
# Built-in containers below _MAX_DEPTH are written one level deep ("[[...]]"); builtins.repr would recurse through
# all of a 5,000-deep list (RecursionError), and so would a model's own __repr__, which is why other objects there
# are written as their type name only.
_SHALLOW = reprlib.Repr()
_SHALLOW.maxlevel = 1
_SHALLOW.maxstring = _SHALLOW.maxother = 200
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def is_structured(value: Any) -> bool:
    """Whether ``value`` is a structured answer (not text): a pydantic model, a dataclass, a mapping or a list."""
    if isinstance(value, (str, bytes)):
        return False
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return True
    return hasattr(value, "model_dump") or isinstance(value, (Mapping, list, tuple))


def _plain(value: Any, depth: int) -> Any:
    """Models and dataclasses as dicts, recursively (depth-bounded)."""
    if depth > _MAX_DEPTH:
        return _shallow(value)
    if hasattr(value, "model_dump") and not isinstance(value, type):
        try:
            value = value.model_dump()
        except Exception:  # noqa: BLE001 - an odd model (or one nested past the stack) is written shallowly
            return _shallow(value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    return value


def _shallow(value: Any) -> Any:
    """A value nested past ``_MAX_DEPTH``: scalars as they are, containers one level deep, objects by type."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return _SHALLOW.repr(value)
    return f"<{type(value).__name__}>"


def _field_name(key: str) -> str:
    """``founded_year`` / ``foundedYear`` -> ``founded year``."""
    return " ".join(_CAMEL.sub(" ", key).replace("_", " ").replace("-", " ").split())


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return " ".join(str(value).split())


def _lines(value: Any, prefix: str, out: list[str]) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = _field_name(key)
            _lines(item, f"{prefix} {name}".strip(), out)
    elif isinstance(value, Sequence) and not isinstance(value, str):
        if all(not isinstance(v, (Mapping, Sequence)) or isinstance(v, str) for v in value):
            items = [_scalar(v) for v in value if v is not None and v is not False and _scalar(v)]
            if items:
                out.append(f"{prefix}: {', '.join(items)}" if prefix else ", ".join(items))
        else:
            for item in value:
                _lines(item, prefix, out)
    elif value is not None and value is not False and _scalar(value):
        out.append(f"{prefix}: {_scalar(value)}" if prefix else _scalar(value))


def render_structured(value: Any) -> str:
    """One ``field: value`` line per leaf value of a structured answer.

    Example:
        ``Landmark(name="Eiffel Tower", height_m=330, designers=["Koechlin", "Nouguier"])`` becomes::

            name: Eiffel Tower
            height m: 330
            designers: Koechlin, Nouguier

    Empty, None and false fields are left out (they state nothing a passage could support); true reads "yes";
    nesting joins field names ("address city: Paris").
    """
    out: list[str] = []
    _lines(_plain(value, 0), "", out)
    return "\n".join(out)


def field_names(value: Any) -> list[str]:
    """The field names of a structured answer, as words (``height_m`` -> ``height m``), outermost first.

    A structured output's schema is part of what was asked, so the guards check its lines together with these
    names, the way a short answer is checked together with its question: "height m: 330" is then judged on
    "330", not on whether the context happens to contain the words "height" and "m".
    """
    names: list[str] = []

    def walk(item: Any) -> None:
        if isinstance(item, Mapping):
            for key, sub in item.items():
                names.append(_field_name(key))
                walk(sub)
        elif isinstance(item, (list, tuple)):
            for sub in item:
                walk(sub)

    walk(_plain(value, 0))
    return list(dict.fromkeys(names))


def question_with_fields(question: str | None, value: Any) -> str:
    """The question a structured answer is checked with: the question plus its schema's field names."""
    fields = "; ".join(field_names(value))
    return f"{question or ''}\n(answer fields: {fields})".strip() if fields else (question or "")
