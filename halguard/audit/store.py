"""The audit's output folder: Parquet parts, the errors file and the summary, never half-written.

Layout of ``DIR``::

    answers/part-<run>-<n>.parquet   one row per answer (ANSWER_SCHEMA), ``row_id`` to join
    claims/part-<run>-<n>.parquet    one row per claim (CLAIM_SCHEMA), ``row_id`` + ``claim_index``
    errors.jsonl                     input rows that could not be read: file, line, message
    summary.json                     totals, rates per slice, cost
    report.html                      the report (halguard.audit.report)

A run writes everything under ``DIR/.staging-<run>/`` first and moves finished files into place with
``os.replace`` (atomic on one file system) only once the run is done; a run that dies leaves the earlier parts
untouched and its staging folder behind, which the next run removes. Resume: rows whose ``row_id`` is already in
``answers/`` are not checked again.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from halguard.audit.records import InputError
from halguard.errors import HalguardError
from halguard.util.files import write_private

__all__ = ["AuditStore", "answer_schema", "claim_schema", "raw_schema"]


def _pa() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet  # loads the parquet module onto pa
    except ImportError as exc:
        msg = 'halguard audit writes Parquet: pip install "halguard[audit]"'
        raise HalguardError(msg) from exc
    return pa


@lru_cache(maxsize=1)
def _schemas() -> tuple[Any, Any, Any]:
    pa = _pa()
    answer_fields = [
        ("row_id", pa.string()), ("file", pa.string()), ("line", pa.int64()), ("question", pa.string()),
        ("answer", pa.string()), ("sources", pa.list_(pa.string())), ("model", pa.string()),
        ("timestamp", pa.string()), ("cluster", pa.string()), ("label", pa.string()), ("score", pa.float64()),
        ("probability", pa.float64()), ("profile", pa.string()), ("threshold", pa.float64()),
        ("error_code", pa.string()), ("error_message", pa.string()), ("claims_total", pa.int64()),
        ("claims_flagged", pa.int64()), ("spans_json", pa.string()), ("detector", pa.string()),
        ("latency_ms", pa.float64()), ("worker_pid", pa.int64()), ("worker_rss_mb", pa.float64()),
    ]
    answers = pa.schema(answer_fields)
    raw = pa.schema([*answer_fields, ("claims_json", pa.string())])
    claims = pa.schema([
        ("row_id", pa.string()), ("claim_index", pa.int64()), ("text", pa.string()), ("start", pa.int64()),
        ("end", pa.int64()), ("status", pa.string()), ("score", pa.float64()), ("evidence_source", pa.string()),
        ("evidence_text", pa.string()), ("evidence_similarity", pa.float64()), ("reasons", pa.list_(pa.string())),
    ])
    return answers, raw, claims


# The schemas need pyarrow, an optional dependency: they are built on first use.
def answer_schema() -> Any:
    """One row per answer (``answers/``)."""
    return _schemas()[0]


def raw_schema() -> Any:
    """What a verifier process writes: an answer row plus its claims as JSON (split at commit)."""
    return _schemas()[1]


def claim_schema() -> Any:
    """One row per claim (``claims/``)."""
    return _schemas()[2]


class AuditStore:
    """One audit output folder (see the module docstring)."""

    def __init__(self, out_dir: str | os.PathLike[str]) -> None:
        self.root = Path(out_dir)
        if self.root.exists() and not self.root.is_dir():
            msg = f"--out {self.root} exists and is not a folder"
            raise HalguardError(msg)
        self.run_id = uuid.uuid4().hex[:12]
        self.staging = self.root / f".staging-{self.run_id}"
        self._parts = 0

    # -- before a run ----------------------------------------------------------------------------------------------

    def open(self) -> None:
        """Create the folder and this run's staging folder; remove the staging folders of runs that died."""
        self.root.mkdir(parents=True, exist_ok=True)
        for old in self.root.glob(".staging-*"):
            shutil.rmtree(old, ignore_errors=True)
        (self.staging / "raw").mkdir(parents=True)

    def done_ids(self) -> set[str]:
        """The ``row_id`` of every answer already written (a rerun skips them)."""
        pa = _pa()
        done: set[str] = set()
        for part in sorted((self.root / "answers").glob("*.parquet")):
            table = pa.parquet.read_table(part, columns=["row_id"])
            done.update(table.column("row_id").to_pylist())
        return done

    # -- during a run ----------------------------------------------------------------------------------------------

    def write_raw(self, rows: Sequence[dict[str, Any]]) -> None:
        """One part of verified rows, claims still as JSON (the in-process engine; Ray writes its own)."""
        if not rows:
            return
        pa = _pa()
        table = pa.Table.from_pylist(list(rows), schema=raw_schema())
        pa.parquet.write_table(table, self.staging / "raw" / f"part-{self._parts:05d}.parquet")
        self._parts += 1

    # -- after a run -----------------------------------------------------------------------------------------------

    def commit(self, errors: Iterable[InputError]) -> tuple[int, int, int, int]:
        """Split the raw parts into answers and claims, move them into place, merge the errors file.

        A ``row_id`` met again (the Ray engine checks a repeated row twice) is written once, the first time.
        Returns the answers and claims written by this run, the repeated rows dropped, and the unreadable input rows
        now in ``errors.jsonl`` (every run's).
        """
        pa = _pa()
        answers_schema, claims_schema = answer_schema(), claim_schema()
        out = {"answers": self.staging / "answers", "claims": self.staging / "claims"}
        for folder in out.values():
            folder.mkdir(exist_ok=True)
        n_answers = n_claims = repeated = 0
        seen: set[str] = set()
        for k, part in enumerate(sorted((self.staging / "raw").rglob("*.parquet"))):
            table = pa.parquet.read_table(part)
            ids = table.column("row_id").to_pylist()
            keep = []
            for row_id in ids:
                keep.append(row_id not in seen)
                seen.add(row_id)
            if not all(keep):
                repeated += keep.count(False)
                table = table.filter(pa.array(keep))
            if table.num_rows == 0:
                continue
            claims = []
            for row_id, blob in zip(table.column("row_id").to_pylist(), table.column("claims_json").to_pylist()):
                for i, claim in enumerate(json.loads(blob or "[]")):
                    claims.append({"row_id": row_id, "claim_index": i, **claim})
            answers = table.select(answers_schema.names).cast(answers_schema)
            pa.parquet.write_table(answers, out["answers"] / f"part-{self.run_id}-{k:05d}.parquet")
            n_answers += answers.num_rows
            if claims:
                pa.parquet.write_table(pa.Table.from_pylist(claims, schema=claims_schema),
                                       out["claims"] / f"part-{self.run_id}-{k:05d}.parquet")
                n_claims += len(claims)
        unreadable = self._merge_errors(errors)
        for name, folder in out.items():
            (self.root / name).mkdir(exist_ok=True)
            for f in sorted(folder.glob("*.parquet")):
                os.replace(f, self.root / name / f.name)
        shutil.rmtree(self.staging, ignore_errors=True)
        return n_answers, n_claims, repeated, unreadable

    def _merge_errors(self, errors: Iterable[InputError]) -> int:
        merged: dict[tuple[str, int], dict[str, Any]] = {}
        path = self.root / "errors.jsonl"
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    e = json.loads(line)
                    merged[(e["file"], e["line"])] = e
                except (ValueError, KeyError, TypeError):
                    continue
        for e in errors:
            merged[(e.file, e.line)] = {"file": e.file, "line": e.line, "message": e.message}
        self.write_text("errors.jsonl", "".join(json.dumps(e) + "\n" for _, e in sorted(merged.items())))
        return len(merged)

    def write_text(self, name: str, text: str) -> Path:
        """Write a file of the folder atomically (a temporary name, then a rename), private to the user: the
        summary, the errors and the report quote the logged answers."""
        target = self.root / name
        write_private(target, text)
        return target

    def read(self, table: str, columns: Sequence[str] | None = None, *, row_ids: Sequence[str] | None = None) -> Any:
        """All parts of ``answers`` or ``claims`` as one pyarrow Table: only ``columns`` and only the rows of
        ``row_ids``, if given (both pushed down to the Parquet reader, so a report never loads every claim)."""
        pa = _pa()
        schema = answer_schema() if table == "answers" else claim_schema()
        parts = sorted((self.root / table).glob("*.parquet"))
        cols = list(columns) if columns else None
        if not parts:
            return schema.empty_table() if cols is None else schema.empty_table().select(cols)
        filters = None if row_ids is None else [("row_id", "in", list(row_ids))]
        return pa.concat_tables([pa.parquet.read_table(p, columns=cols, filters=filters, schema=schema)
                                 for p in parts])
