"""Logged RAG traffic as audit records: the input shapes ``halguard audit`` reads and how their fields map.

Every input row becomes an :class:`AuditRecord` (question, passages, answer and the fields reports slice by) or an
:class:`InputError` naming the file and line; a bad row never stops a run. Shapes recognised without a mapping, in
this order:

- the development-data schema: ``{id, question, context: [passages], answer, ...}``;
- halguard's LangChain callback log (``HalguardCallbackHandler(jsonl_path=...)``): ``{run_id, question, answer,
  contexts: [{id, text}], verdict}``;
- a LlamaIndex response as JSON: ``{query | query_str, response, source_nodes: [{node: {id_, text, metadata},
  score}]}``;
- flat tables (Parquet or JSONL): ``question`` / ``query`` / ``input``, ``answer`` / ``response`` / ``output``,
  ``contexts`` / ``context`` / ``passages`` / ``documents``.

Anything else takes a :class:`FieldMap` (``--map question=inputs.question answer=outputs.answer
contexts=outputs.context[].page_content``): dotted paths, with ``[]`` to take a field of every item of a list. A
passage is a string or an object with ``text`` / ``page_content`` / ``content`` (and ``id`` / ``id_`` /
``source`` / ``metadata.source``). Slices: ``model``, ``timestamp``, ``cluster`` (a question cluster), and the
passages' ids as ``sources``; each has default field names and can be mapped too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from halguard.errors import InvalidInputError

__all__ = ["MAPPABLE", "AuditRecord", "FieldMap", "InputError", "iter_jsonl", "record_from_row"]

MAPPABLE = ("id", "question", "answer", "contexts", "model", "timestamp", "cluster")
_DEFAULTS: dict[str, tuple[str, ...]] = {
    "id": ("id", "run_id", "row_id", "request_id"),
    "question": ("question", "query", "query_str", "input", "prompt"),
    "answer": ("answer", "response", "output", "result"),
    "contexts": ("context", "contexts", "passages", "documents", "source_nodes", "retrieved"),
    "model": ("model", "model_name", "llm"),
    "timestamp": ("timestamp", "time", "created_at", "ts", "date"),
    "cluster": ("cluster", "question_cluster", "topic"),
}
_TEXT_KEYS = ("text", "page_content", "content")
_ID_KEYS = ("id", "id_", "source", "doc_id", "node_id")
# Bounds on one row: a logged row can be anything, and one row must not stall or swamp a worker.
MAX_PASSAGES = 1_000
MAX_PATH_DEPTH = 12


@dataclass(frozen=True)
class AuditRecord:
    """One answer to audit, with where it came from."""

    row_id: str
    file: str
    line: int
    answer: str
    contexts: list[tuple[str, str]]
    question: str | None = None
    model: str | None = None
    timestamp: str | None = None
    cluster: str | None = None

    @property
    def sources(self) -> list[str]:
        return list(dict.fromkeys(i for i, _ in self.contexts))


@dataclass(frozen=True)
class InputError:
    """A row that could not be read: skipped into the errors file, never aborting the run."""

    file: str
    line: int
    message: str


@dataclass(frozen=True)
class FieldMap:
    """Where each field of a record is (``name=dotted.path``; ``[]`` maps over a list)."""

    paths: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, items: Sequence[str] | None) -> FieldMap:
        """From ``["question=inputs.q", "answer=outputs.text", ...]``.

        Raises:
            InvalidInputError: an item is not ``name=path`` or names a field that cannot be mapped.
        """
        paths: dict[str, str] = {}
        for item in items or ():
            name, sep, path = item.partition("=")
            name, path = name.strip(), path.strip()
            if not sep or not path:
                msg = f"--map takes name=path, got {item!r}"
                raise InvalidInputError(msg)
            if name not in MAPPABLE:
                msg = f"--map {name}: not a field that can be mapped (one of {', '.join(MAPPABLE)})"
                raise InvalidInputError(msg)
            if path.count(".") >= MAX_PATH_DEPTH:
                msg = f"--map {name}: path deeper than {MAX_PATH_DEPTH} levels"
                raise InvalidInputError(msg)
            paths[name] = path
        return cls(paths)


def _get(value: Any, path: str) -> Any:
    """The value at a dotted path; ``key[]`` maps the rest of the path over the list at ``key``."""
    parts = path.split(".")
    for i, part in enumerate(parts):
        many = part.endswith("[]")
        key = part[:-2] if many else part
        if key:
            if not isinstance(value, Mapping) or key not in value:
                return None
            value = value[key]
        if many:
            if not isinstance(value, list):
                return None
            rest = ".".join(parts[i + 1 :])
            return [(_get(v, rest) if rest else v) for v in value[:MAX_PASSAGES]]
    return value


def _first(row: Mapping[str, Any], name: str, fields: FieldMap) -> Any:
    if name in fields.paths:
        return _get(row, fields.paths[name])
    return next((row[k] for k in _DEFAULTS[name] if k in row and row[k] is not None), None)


def _passage(item: Any, index: int) -> tuple[str, str] | None:
    if isinstance(item, str):
        return f"p{index}", item
    if isinstance(item, Mapping):
        node = item.get("node") if isinstance(item.get("node"), Mapping) else item  # LlamaIndex NodeWithScore
        text = next((node[k] for k in _TEXT_KEYS if isinstance(node.get(k), str)), None)
        if text is None:
            return None
        meta = node.get("metadata") if isinstance(node.get("metadata"), Mapping) else {}
        ident = next((node[k] for k in _ID_KEYS if isinstance(node.get(k), (str, int)) and node.get(k) != ""),
                     meta.get("source"))
        return (str(ident) if ident is not None else f"p{index}"), text
    return None


def _text(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    msg = f"{name} must be text, got {type(value).__name__}"
    raise InvalidInputError(msg)


def record_from_row(row: Any, *, file: str, line: int, fields: FieldMap) -> AuditRecord | InputError:
    """One input row as a record, or the reason it cannot be one."""
    if not isinstance(row, Mapping):
        return InputError(file, line, f"a row must be a JSON object, got {type(row).__name__}")
    try:
        answer = _first(row, "answer", fields)
        if not isinstance(answer, str):
            what = "missing" if answer is None else f"not text ({type(answer).__name__})"
            return InputError(file, line, f"answer is {what}")
        raw = _first(row, "contexts", fields)
        if isinstance(raw, str):
            raw = [raw]
        if raw is None:
            return InputError(file, line, "contexts are missing (no context/contexts/passages/source_nodes field)")
        if not isinstance(raw, list):
            return InputError(file, line, f"contexts must be a list of passages, got {type(raw).__name__}")
        contexts = []
        for i, item in enumerate(raw[:MAX_PASSAGES]):
            passage = _passage(item, i)
            if passage is None:
                return InputError(file, line, f"passage {i} is neither text nor an object with a text field")
            contexts.append(passage)
        question = _text(_first(row, "question", fields), "question")
        given_id = _text(_first(row, "id", fields), "id")
        row_id = given_id if given_id else content_id(question, answer, contexts)
        return AuditRecord(row_id=row_id, file=file, line=line, answer=answer, contexts=contexts, question=question,
                           model=_text(_first(row, "model", fields), "model"),
                           timestamp=_text(_first(row, "timestamp", fields), "timestamp"),
                           cluster=_text(_first(row, "cluster", fields), "cluster"))
    except InvalidInputError as exc:
        return InputError(file, line, str(exc))


def content_id(question: str | None, answer: str, contexts: list[tuple[str, str]]) -> str:
    """A stable id for a row without one: the same question, answer and passages give the same id (resume)."""
    digest = hashlib.sha256(json.dumps([question, answer, contexts], ensure_ascii=False).encode("utf-8"))
    return "sha256:" + digest.hexdigest()[:32]


def iter_jsonl(path: str | Path, *, fields: FieldMap, name: str | None = None,
               data: bytes | None = None) -> Iterator[AuditRecord | InputError]:
    """The records of a JSONL file (or of its bytes), line by line; a bad line is an :class:`InputError`."""
    label = name or str(path)
    if data is not None:
        yield from _parse_lines(data.splitlines(), label, fields)
        return
    with Path(path).open("rb") as fh:
        yield from _parse_lines(fh, label, fields)


def _parse_lines(lines: Iterable[bytes], label: str, fields: FieldMap) -> Iterator[AuditRecord | InputError]:
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            yield InputError(label, number, f"not JSON: {str(exc)[:200]}")
            continue
        yield record_from_row(row, file=label, line=number, fields=fields)
