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

A row's identity (``row_id``) is the caller's id plus a digest of its content (:func:`row_identity`): ``1`` and
``"1"``, or one id given to two different rows, are two rows, and resume skips exactly the rows already written.
Reading never raises on a row: JSON nested deeper than :data:`~halguard.util.safejson.MAX_JSON_DEPTH`, a line over
:data:`~halguard.util.files.MAX_JSONL_LINE_BYTES`, text that is not valid Unicode or any failure while walking a row
is an :class:`InputError` with its file and line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from halguard.errors import InvalidInputError
from halguard.util.files import MAX_JSONL_LINE_BYTES, iter_lines_limited
from halguard.util.safejson import JSONTooDeep, loads

__all__ = ["MAPPABLE", "AuditRecord", "FieldMap", "InputError", "iter_jsonl", "record_from_row", "row_identity"]

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
# Hex digits of the content digest in a row's identity: 128 bits, so two different rows never share an identity.
_DIGEST_HEX = 32


@dataclass(frozen=True)
class AuditRecord:
    """One answer to audit, with where it came from. ``row_id`` is its identity (:func:`row_identity`), ``id`` the
    caller's id as text (None when the row has none)."""

    row_id: str
    file: str
    line: int
    answer: str
    contexts: list[tuple[str, str]]
    question: str | None = None
    model: str | None = None
    timestamp: str | None = None
    cluster: str | None = None
    id: str | None = None

    @property
    def sources(self) -> list[str]:
        return list(dict.fromkeys(i for i, _ in self.contexts))


@dataclass(frozen=True)
class InputError:
    """A row that could not be read: skipped into the errors file, never aborting the run. ``line`` is 0 when a
    whole file could not be read."""

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


def _plain_id(index: int, text: str) -> str:
    """The id of a passage given without one: its position and a hash of its text ("p0:3f2a9c1b7e"), so the same
    passage has one id across rows and different passages in first place are not one "p0" source."""
    return f"p{index}:{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"


def _passage(item: Any, index: int) -> tuple[str, str] | None:
    if isinstance(item, str):
        return _plain_id(index, item), item
    if isinstance(item, Mapping):
        node = item.get("node") if isinstance(item.get("node"), Mapping) else item  # LlamaIndex NodeWithScore
        text = next((node[k] for k in _TEXT_KEYS if isinstance(node.get(k), str)), None)
        if text is None:
            return None
        meta = node.get("metadata") if isinstance(node.get("metadata"), Mapping) else {}
        ident = next((node[k] for k in _ID_KEYS if isinstance(node.get(k), (str, int)) and node.get(k) != ""),
                     meta.get("source"))
        return (str(ident) if ident is not None else _plain_id(index, text)), text
    return None


def _text(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    msg = f"{name} must be text, got {type(value).__name__}"
    raise InvalidInputError(msg)


def record_from_row(row: Any, *, file: str, line: int, fields: FieldMap) -> AuditRecord | InputError:
    """One input row as a record, or the reason it cannot be one (never an exception: one row never stops a run)."""
    if not isinstance(row, Mapping):
        return InputError(file, line, f"a row must be a JSON object, got {type(row).__name__}")
    try:
        return _record(row, file=file, line=line, fields=fields)
    except InvalidInputError as exc:
        return InputError(file, line, str(exc))
    except Exception as exc:  # noqa: BLE001 - a row that cannot be walked is that row's error, not the run's
        return InputError(file, line, f"the row could not be read: {type(exc).__name__}: {str(exc)[:200]}")


def _record(row: Mapping[str, Any], *, file: str, line: int, fields: FieldMap) -> AuditRecord | InputError:
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
    raw_id = _first(row, "id", fields)
    given_id = _text(raw_id, "id") or None
    model = _text(_first(row, "model", fields), "model")
    timestamp = _text(_first(row, "timestamp", fields), "timestamp")
    cluster = _text(_first(row, "cluster", fields), "cluster")
    texts = [answer, question, given_id, model, timestamp, cluster, *(t for pair in contexts for t in pair)]
    if not all(_is_unicode(t) for t in texts):
        return InputError(file, line, "the row holds text that is not valid Unicode (a lone surrogate)")
    row_id = row_identity(raw_id if given_id else None, question=question, answer=answer, contexts=contexts,
                          model=model, timestamp=timestamp, cluster=cluster)
    return AuditRecord(row_id=row_id, file=file, line=line, answer=answer, contexts=contexts, question=question,
                       model=model, timestamp=timestamp, cluster=cluster, id=given_id)


def _is_unicode(text: str | None) -> bool:
    """Whether ``text`` can be written as UTF-8 (JSON's ``"\\ud800"`` escape gives a lone surrogate, which no
    Parquet file can hold: one such row once failed the whole run at the write)."""
    if text is None:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def row_identity(given_id: Any, *, question: str | None, answer: str, contexts: list[tuple[str, str]],
                 model: str | None = None, timestamp: str | None = None, cluster: str | None = None) -> str:
    """A row's identity: ``<id>#<digest>``, or ``sha256:<digest>`` for a row without an id.

    The digest is SHA-256 of the canonical JSON of the caller's id as given (so ``1`` and ``"1"`` differ) and every
    field the audit reads. The same row read again (a rerun, a repeated line) has the same identity and is skipped;
    an id reused for other content gets another identity, so neither row is dropped (the commit reports the
    collision, :meth:`~halguard.audit.store.AuditStore.commit`).
    """
    blob = json.dumps([given_id, question, answer, contexts, model, timestamp, cluster], ensure_ascii=True,
                      sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.sha256(blob.encode("ascii")).hexdigest()[:_DIGEST_HEX]
    return f"{_text(given_id, 'id')}#{digest}" if given_id is not None else f"sha256:{digest}"


def iter_jsonl(path: str | Path, *, fields: FieldMap, name: str | None = None,
               data: bytes | None = None) -> Iterator[AuditRecord | InputError]:
    """The records of a JSONL file (or of its bytes), line by line; a bad line is an :class:`InputError`.

    A file is streamed (a line over :data:`~halguard.util.files.MAX_JSONL_LINE_BYTES` is skipped unread); one that is
    not a regular file, or cannot be opened, is one :class:`InputError` at line 0.
    """
    label = name or str(path)
    if data is not None:  # lines end at b"\n" only, as when the file is streamed, so both engines number alike
        lines = data.split(b"\n")
        if lines and not lines[-1]:
            lines.pop()
        yield from _parse_lines(((i, raw if len(raw) <= MAX_JSONL_LINE_BYTES else None)
                                 for i, raw in enumerate(lines, 1)), label, fields)
        return
    try:
        yield from _parse_lines(iter_lines_limited(path, MAX_JSONL_LINE_BYTES, what="input"), label, fields)
    except (OSError, InvalidInputError) as exc:
        yield InputError(label, 0, f"cannot read the file: {str(exc)[:300]}")


def _parse_lines(lines: Iterable[tuple[int, bytes | None]], label: str,
                 fields: FieldMap) -> Iterator[AuditRecord | InputError]:
    for number, raw in lines:
        if raw is None:
            yield InputError(label, number, f"a line over {MAX_JSONL_LINE_BYTES:,} bytes; not read")
            continue
        if not raw.strip():
            continue
        try:
            row = loads(raw)
        except JSONTooDeep as exc:
            yield InputError(label, number, str(exc))
            continue
        except (ValueError, UnicodeDecodeError) as exc:
            yield InputError(label, number, f"not JSON: {str(exc)[:200]}")
            continue
        yield record_from_row(row, file=label, line=number, fields=fields)
