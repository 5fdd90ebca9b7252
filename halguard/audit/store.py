"""The audit's output folder: Parquet parts, the errors file and the summary, never half-written.

Layout of ``DIR``::

    answers/part-<run>-<n>.parquet   one row per answer (ANSWER_SCHEMA), ``row_id`` to join
    claims/part-<run>-<n>.parquet    one row per claim (CLAIM_SCHEMA), ``row_id`` + ``claim_index``
    errors.jsonl                     input rows that could not be read: file, line, message; and ids used by
                                     two different rows (kind "id_collision", with the other row's file and line)
    summary.json                     totals, rates per slice, cost
    report.html                      the report (halguard.audit.report)

Everything in it holds answers and evidence, so every file is created 0600 and every folder 0700 whatever the
umask (``DIR`` itself too when the run creates it); ``answers/`` and ``claims/`` made by an older version are
tightened to 0700. A symlink at ``DIR``, at a folder or file of it (``answers/``, a part, ``errors.jsonl``, ...) is
refused with :class:`~halguard.errors.UnsafePathError` before the run starts, never followed: a planted link must
not redirect what the audit writes or reads.

A run writes everything under ``DIR/.staging-<run>/`` first and moves finished files into place with
``os.replace`` (atomic on one file system) only once the run is done; a run that fails removes its staging folder
(:meth:`AuditStore.discard`), and one killed outright leaves it for the next run to remove, the earlier parts
untouched either way. Resume: rows whose ``row_id`` (the caller's id and a digest of the content,
:func:`~halguard.audit.records.row_identity`) is already in ``answers/`` are not checked again.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from halguard.audit.records import InputError
from halguard.errors import HalguardError, UnsafePathError
from halguard.util.files import MAX_JSONL_LINE_BYTES, chmod_private, iter_lines_limited, write_private
from halguard.util.safejson import loads

__all__ = ["AuditStore", "Committed", "answer_schema", "claim_schema", "raw_schema"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_COLLISION = "id_collision"
# What a folder holds that a run reads or replaces: each is refused when it is a symlink (a part file too).
_TABLES = ("answers", "claims")
_FILES = ("errors.jsonl", "summary.json", "report.html")


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
        ("row_id", pa.string()), ("id", pa.string()), ("file", pa.string()), ("line", pa.int64()),
        ("question", pa.string()),
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


def _refuse_link(path: Path) -> None:
    """Raise :class:`UnsafePathError` when ``path`` is a symlink (dangling or not)."""
    if path.is_symlink():
        msg = (f"refusing the unsafe path {path}: it is a symlink, and halguard audit never writes or reads through "
               "one (remove the link, or choose another --out)")
        raise UnsafePathError(msg)


def _refuse_linked_parents(path: Path) -> None:
    """Raise :class:`UnsafePathError` when a folder above ``path`` is a symlink (a link planted one level up
    redirects the audit as surely as one at ``--out``). The top-level folders a system links for its own layout
    (``/tmp`` and ``/var`` on macOS) are not the user's to plant: only parents two levels down or more are read."""
    for parent in path.parents:
        if len(parent.parts) <= 2 or str(parent) in ("", "."):
            continue
        if parent.is_symlink():
            msg = (f"refusing the unsafe path {path}: its folder {parent} is a symlink, and halguard audit never "
                   "writes or reads through one (use the real folder's path, or choose another --out)")
            raise UnsafePathError(msg)


def _private_folder(path: Path) -> None:
    """Create ``path`` with mode 0700 whatever the umask, or set 0700 on the folder an earlier run made.

    Raises:
        UnsafePathError: ``path`` is a symlink.
    """
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:  # a dangling link too: os.mkdir does not follow it
        _refuse_link(path)
    chmod_private(path, 0o700)  # the umask may have taken bits off; an older version's folder may be 0755


def _write_parquet(table: Any, path: Path) -> None:
    """A Parquet file created 0600 (pyarrow would create it 0666 minus the umask), never through a symlink."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as fh:
        _pa().parquet.write_table(table, fh)


@dataclass(frozen=True)
class Committed:
    """What :meth:`AuditStore.commit` did: the answers and claims this run wrote, the repeated rows it dropped (the
    same identity twice), the unreadable rows and the id collisions now in ``errors.jsonl`` (every run's), and the
    collisions this run found."""

    answers: int
    claims: int
    repeated: int
    unreadable: int
    collisions: int
    new_collisions: int


class AuditStore:
    """One audit output folder (see the module docstring)."""

    def __init__(self, out_dir: str | os.PathLike[str]) -> None:
        self.root = Path(out_dir)
        _refuse_link(self.root)
        if self.root.exists() and not self.root.is_dir():
            msg = f"--out {self.root} exists and is not a folder"
            raise HalguardError(msg)
        self.run_id = uuid.uuid4().hex[:12]
        self.staging = self.root / f".staging-{self.run_id}"
        self._parts = 0
        self._prior_ids: set[str] = set()  # the caller ids of the rows earlier runs wrote (done_ids)

    # -- before a run ----------------------------------------------------------------------------------------------

    def open(self) -> None:
        """Create the folder and this run's staging folder; remove the staging folders of runs that died.

        Raises:
            UnsafePathError: the folder, or a folder or file of it that a run reads or replaces, is a symlink.
        """
        _refuse_link(self.root)
        _refuse_linked_parents(self.root)
        if not self.root.exists():
            self.root.parent.mkdir(parents=True, exist_ok=True)
            _private_folder(self.root)
        self._refuse_links()  # now, before any row is checked
        for old in self.root.glob(".staging-*"):
            shutil.rmtree(old, ignore_errors=True)
        _private_folder(self.staging)
        _private_folder(self.staging / "raw")

    def discard(self) -> None:
        """Remove this run's staging folder (a run that failed); what earlier runs wrote stays."""
        shutil.rmtree(self.staging, ignore_errors=True)

    def done_ids(self) -> set[str]:
        """The ``row_id`` of every answer already written (a rerun skips them); their caller ids are kept for the
        commit, which reports an id reused with other content."""
        pa = _pa()
        done: set[str] = set()
        for part in self._part_files("answers"):
            table = pa.parquet.read_table(part, columns=["row_id", "id"], schema=answer_schema())
            done.update(table.column("row_id").to_pylist())
            self._prior_ids.update(i for i in table.column("id").to_pylist() if i is not None)
        return done

    # -- during a run ----------------------------------------------------------------------------------------------

    def write_raw(self, rows: Sequence[dict[str, Any]]) -> None:
        """One part of verified rows, claims still as JSON (the in-process engine; Ray writes its own)."""
        if not rows:
            return
        pa = _pa()
        table = pa.Table.from_pylist(list(rows), schema=raw_schema())
        _write_parquet(table, self.staging / "raw" / f"part-{self._parts:05d}.parquet")
        self._parts += 1

    # -- after a run -----------------------------------------------------------------------------------------------

    def commit(self, errors: Iterable[InputError]) -> Committed:
        """Split the raw parts into answers and claims, move them into place, merge the errors file.

        A row met again with the same identity (a repeated line; the Ray engine checks it twice) is written once,
        the first time. A caller id met with another identity, in this run or an earlier one, is a collision: both
        rows are kept, and the later one gets an ``id_collision`` entry in ``errors.jsonl`` naming the other's file
        and line.
        """
        self._refuse_links()  # again: nothing is moved into place beside a link put in during the run
        pa = _pa()
        answers_schema, claims_schema = answer_schema(), claim_schema()
        out = {"answers": self.staging / "answers", "claims": self.staging / "claims"}
        for folder in out.values():
            _private_folder(folder)
        n_answers = n_claims = repeated = 0
        seen: set[str] = set()
        first: dict[str, tuple[str, str, int]] = {}  # caller id -> (row_id, file, line) of its first row this run
        collisions: list[dict[str, Any]] = []
        earlier: dict[str, list[dict[str, Any]]] = {}  # caller id -> this run's rows that reuse an earlier run's id
        for k, part in enumerate(sorted((self.staging / "raw").rglob("*.parquet"))):
            table = pa.parquet.read_table(part)
            keep = []
            for row_id, caller, file, line in zip(*(table.column(c).to_pylist() for c in ("row_id", "id", "file",
                                                                                         "line"))):
                keep.append(row_id not in seen)
                if not keep[-1]:
                    continue
                seen.add(row_id)
                if caller is None:
                    continue
                here = {"file": file, "line": line, "id": caller, "row_id": row_id}
                other = first.setdefault(caller, (row_id, file, line))
                if other[0] != row_id:
                    collisions.append({**here, "other_row_id": other[0], "other_file": other[1],
                                       "other_line": other[2]})
                elif caller in self._prior_ids:
                    earlier.setdefault(caller, []).append(here)
            if not all(keep):
                repeated += keep.count(False)
                table = table.filter(pa.array(keep))
            if table.num_rows == 0:
                continue
            claims = []
            for row_id, blob in zip(table.column("row_id").to_pylist(), table.column("claims_json").to_pylist()):
                for i, claim in enumerate(json.loads(blob or "[]")):  # written by BatchVerifier, not user input
                    claims.append({"row_id": row_id, "claim_index": i, **claim})
            answers = table.select(answers_schema.names).cast(answers_schema)
            _write_parquet(answers, out["answers"] / f"part-{self.run_id}-{k:05d}.parquet")
            n_answers += answers.num_rows
            if claims:
                _write_parquet(pa.Table.from_pylist(claims, schema=claims_schema),
                               out["claims"] / f"part-{self.run_id}-{k:05d}.parquet")
                n_claims += len(claims)
        collisions += self._earlier_collisions(earlier)
        unreadable, n_collisions = self._merge_errors(errors, collisions)
        for name, folder in out.items():
            _private_folder(self.root / name)
            for f in sorted(folder.glob("*.parquet")):
                os.replace(f, self.root / name / f.name)
        shutil.rmtree(self.staging, ignore_errors=True)
        return Committed(n_answers, n_claims, repeated, unreadable, n_collisions, len(collisions))

    def _earlier_collisions(self, earlier: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """This run's rows whose caller id an earlier run wrote with other content, each with that earlier row."""
        if not earlier:
            return []
        before: dict[str, dict[str, Any]] = {}
        for r in self.read("answers", ["id", "row_id", "file", "line"], ids=list(earlier)).to_pylist():
            before.setdefault(r["id"], r)
        out = []
        for caller, rows in earlier.items():
            other = before.get(caller)
            for here in rows:
                if other is not None and other["row_id"] != here["row_id"]:
                    out.append({**here, "other_row_id": other["row_id"], "other_file": other["file"],
                                "other_line": other["line"]})
        return out

    def _merge_errors(self, errors: Iterable[InputError],
                      collisions: Iterable[dict[str, Any]]) -> tuple[int, int]:
        """Merge this run's unreadable rows and collisions into ``errors.jsonl``; returns how many of each it holds."""
        merged: dict[tuple[str, int], dict[str, Any]] = {}
        path = self.root / "errors.jsonl"
        _refuse_link(path)
        if path.exists():
            for _, line in iter_lines_limited(path, MAX_JSONL_LINE_BYTES, what="errors file"):
                try:  # this folder's own file: one entry a line (an overlong line comes as None: skipped)
                    e = loads(line)
                    merged[(e["file"], e["line"])] = e
                except (ValueError, KeyError, TypeError):
                    continue
        for e in errors:
            merged[(e.file, e.line)] = {"file": e.file, "line": e.line, "message": e.message}
        for c in collisions:
            message = (f"id {c['id']!r} is also used by {c['other_file']}:{c['other_line']} for other content; "
                       "both rows were checked and kept (row_id tells them apart)")
            merged[(c["file"], c["line"])] = {"file": c["file"], "line": c["line"], "kind": _COLLISION,
                                              "message": message, **{k: c[k] for k in (
                                                  "id", "row_id", "other_file", "other_line", "other_row_id")}}
        self.write_text("errors.jsonl", "".join(json.dumps(e) + "\n" for _, e in sorted(
            merged.items(), key=lambda item: (str(item[0][0]), _as_int(item[0][1])))))
        n_collisions = sum(1 for e in merged.values() if isinstance(e, dict) and e.get("kind") == _COLLISION)
        return len(merged) - n_collisions, n_collisions

    def _refuse_links(self) -> None:
        """Raise :class:`UnsafePathError` when a folder or file a run reads or replaces is a symlink."""
        for name in _FILES:
            _refuse_link(self.root / name)
        for table in _TABLES:
            self._part_files(table)

    def _part_files(self, table: str) -> list[Path]:
        """The Parquet parts of ``answers`` or ``claims``, in order.

        Raises:
            UnsafePathError: the table's folder or one of its parts is a symlink.
        """
        folder = self.root / table
        _refuse_link(folder)
        parts = sorted(folder.glob("*.parquet"))
        for part in parts:
            _refuse_link(part)
        return parts

    def write_text(self, name: str, text: str) -> Path:
        """Write a file of the folder atomically (a temporary name, then a rename), private to the user: the
        summary, the errors and the report quote the logged answers."""
        target = self.root / name
        write_private(target, text)
        return target

    def read(self, table: str, columns: Sequence[str] | None = None, *, row_ids: Sequence[str] | None = None,
             ids: Sequence[str] | None = None) -> Any:
        """All parts of ``answers`` or ``claims`` as one pyarrow Table: only ``columns`` and only the rows of
        ``row_ids`` (or of the caller ``ids``, answers only), if given (pushed down to the Parquet reader, so a
        report never loads every claim)."""
        pa = _pa()
        schema = answer_schema() if table == "answers" else claim_schema()
        parts = self._part_files(table)
        cols = list(columns) if columns else None
        if not parts:
            return schema.empty_table() if cols is None else schema.empty_table().select(cols)
        filters = None if row_ids is None else [("row_id", "in", list(row_ids))]
        if ids is not None:
            filters = [*(filters or []), ("id", "in", list(ids))]
        return pa.concat_tables([pa.parquet.read_table(p, columns=cols, filters=filters, schema=schema)
                                 for p in parts])


def _as_int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
