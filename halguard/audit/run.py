"""``halguard audit``: verify logged answers in bulk, in-process or on Ray Data, into Parquet and a report.

:func:`audit` reads the inputs (:mod:`halguard.audit.records`), skips the rows an earlier run already wrote
(resume), verifies the rest with one detector per process (:class:`~halguard.audit.verify.BatchVerifier`), and
commits the parts, the errors file, ``summary.json`` and ``report.html`` into the output folder
(:mod:`halguard.audit.store`). Two engines run the same verifier:

- ``local`` (default): a plain loop in this process, with a progress line; no Ray needed;
- ``ray``: Ray Data. ``read_binary_files`` / ``read_parquet`` → ``flat_map`` (parse, skip done rows) →
  ``map_batches`` with :class:`RayVerifier`, a callable class holding one detector per actor (the model loads once
  per actor) → ``write_parquet``. Local mode on this machine by default; ``address`` joins a cluster. A crashed
  actor is restarted and its batch retried by Ray (``max_restarts`` / ``max_task_retries``), so no row is lost.

Both engines read rows with :mod:`halguard.audit.records` (the same identity, the same errors). A run that fails for
any reason removes its staging folder before the error reaches the caller; earlier results stay as they were.
"""

from __future__ import annotations

import json
import logging
import math
import os
import stat
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from halguard.audit.records import AuditRecord, FieldMap, InputError, iter_jsonl, record_from_row
from halguard.audit.store import AuditStore
from halguard.audit.verify import BatchVerifier, DetectorSpec
from halguard.errors import HalguardError, InvalidInputError
from halguard.util.files import files_in, require_regular_file

__all__ = ["DEFAULT_BATCH_SIZE", "AuditResult", "audit", "iter_records"]

# Rows per verify_batch call: big enough to share encodings across answers, small enough that a retried Ray task
# redoes little work. Rows per Parquet part of the in-process engine: a few MB each.
DEFAULT_BATCH_SIZE = 32
_ROWS_PER_PART = 2_000
# A crashed Ray actor is restarted this many times, and a task on it retried as often, before the run fails.
_RAY_RETRIES = 3
_JSONL = (".jsonl", ".json", ".ndjson")


@dataclass(frozen=True)
class AuditResult:
    """What a run did. ``summary`` covers every run written to the folder so far."""

    out_dir: Path
    engine: str
    checked: int
    skipped_done: int
    duplicates: int
    input_errors: int
    claims: int
    seconds: float
    summary: dict[str, Any]
    id_collisions: int = 0
    files: tuple[Path, ...] = ()  # the input files read, in order (a folder's, found recursively)

    @property
    def rows_per_second(self) -> float | None:
        return round(self.checked / self.seconds, 2) if self.seconds > 0 else None


def expand_inputs(paths: Sequence[Path]) -> list[Path]:
    """The input files: a file as it is; a folder's ``.jsonl``/``.json``/``.ndjson``/``.parquet`` files, found
    recursively, in a stable (sorted) order, links not followed (a folder that holds none is an error, naming it).

    Raises:
        InvalidInputError: a folder with no input file in it.
    """
    out: list[Path] = []
    for path in paths:
        if not path.is_dir():
            out.append(path)
            continue
        found = files_in(path, (*_JSONL, ".parquet"))
        if not found:
            msg = f"{path}: a folder with no .jsonl, .json, .ndjson or .parquet file in it"
            raise InvalidInputError(msg)
        out.extend(found)
    return out


def _kind(path: Path) -> str:
    if path.is_dir() or path.suffix == ".parquet":
        return "parquet"
    if path.suffix in _JSONL:
        return "jsonl"
    msg = f"{path}: not a JSONL (.jsonl/.json/.ndjson) or Parquet (.parquet, or a folder of them) input"
    raise InvalidInputError(msg)


def _check_input(path: Path) -> None:
    """A file the caller named must be an input kind and a regular file: a FIFO or a device is refused unread,
    without blocking (a FIFO named ``log.jsonl`` with no writer would hang the run). A folder's files are not
    checked here: each unreadable one is its own input error (:func:`iter_records`)."""
    _kind(path)
    try:
        require_regular_file(path, what="input")
    except OSError as exc:
        msg = f"cannot read input {path}: {exc}"
        raise InvalidInputError(msg) from exc


def iter_records(paths: Sequence[Path], fields: FieldMap) -> Iterator[AuditRecord | InputError]:
    """Every row of every input, in order (Parquet rows are numbered from 1 within their file).

    A Parquet file that is not a regular file, or that cannot be read from some row on, is an
    :class:`InputError` (its line is the first row not read) and the run goes on with the next file.
    """
    for path in paths:
        if _kind(path) == "jsonl":
            yield from iter_jsonl(path, fields=fields)
            continue
        files = sorted(path.rglob("*.parquet")) if path.is_dir() else [path]
        for f in files:
            yield from _parquet_rows(f, fields)


def _parquet_rows(path: Path, fields: FieldMap) -> Iterator[AuditRecord | InputError]:
    import pyarrow.parquet as pq

    number = 0
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO among the parts would block the reader
            yield InputError(str(path), 0, "not a regular file; not read")
            return
        for batch in pq.ParquetFile(path).iter_batches(batch_size=1024):
            for row in batch.to_pylist():
                number += 1
                yield record_from_row(row, file=str(path), line=number, fields=fields)
    except Exception as exc:  # noqa: BLE001 - a corrupt file is that file's error, not the run's
        yield InputError(str(path), number + 1, f"cannot read Parquet from here on: {type(exc).__name__}: "
                                                f"{str(exc)[:200]}")


def audit(
    inputs: Sequence[str | Path],
    out_dir: str | Path,
    *,
    detector: str | Callable[[], Any] = "local",
    engine: str = "local",
    fields: FieldMap | None = None,
    address: str | None = None,
    num_actors: int | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    threshold: float | None = None,
    llm_url: str | None = None,
    llm_model: str | None = None,
    llm_concurrency: int = 4,
    report: bool = True,
    progress: bool = True,
    detector_options: dict[str, Any] | None = None,
) -> AuditResult:
    """Verify every row of ``inputs`` into ``out_dir`` (see the module docstring). ``detector_options``: the named
    detector's options (:func:`halguard.detectors.make_detector`).

    Raises:
        InvalidInputError: an input is missing or of an unknown kind, or an option is out of range.
        HalguardError: an optional dependency is missing (``halguard[audit]``, ``halguard[ray]``).
    """
    paths = [Path(p) for p in inputs]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        msg = f"no such input: {', '.join(missing)}"
        raise InvalidInputError(msg)
    for p in paths:
        if not p.is_dir():
            _check_input(p)
    paths = expand_inputs(paths)
    if engine not in ("local", "ray"):
        msg = f"engine must be 'local' or 'ray', got {engine!r}"
        raise InvalidInputError(msg)
    if batch_size < 1 or (num_actors is not None and num_actors < 1):
        msg = "batch_size and num_actors must be at least 1"
        raise InvalidInputError(msg)
    spec = DetectorSpec(detector, threshold=threshold, llm_url=llm_url, llm_model=llm_model,
                        llm_concurrency=llm_concurrency, options=detector_options)
    fields = fields or FieldMap()
    store = AuditStore(out_dir)
    store.open()
    try:
        return _audit(store, paths, fields, spec, engine=engine, address=address, num_actors=num_actors,
                      batch_size=batch_size, report=report, progress=progress)
    except BaseException:
        store.discard()  # whatever failed (an interrupt too), no staging folder is left behind
        raise


def _audit(store: AuditStore, paths: Sequence[Path], fields: FieldMap, spec: DetectorSpec, *, engine: str,
           address: str | None, num_actors: int | None, batch_size: int, report: bool,
           progress: bool) -> AuditResult:
    done = store.done_ids()
    start = time.perf_counter()
    run = _run_local if engine == "local" else _run_ray
    counts = run(paths, fields, spec, store, done, batch_size=batch_size, address=address,
                 num_actors=num_actors, progress=progress)
    errors = counts.pop("errors")
    if not counts["read"]:
        msg = (f"read no rows from {', '.join(str(p) for p in paths)}: nothing was checked "
               f"({len(errors)} unreadable rows; see the files' format in docs/audit.md)")
        raise InvalidInputError(msg)
    committed = store.commit(errors)
    counts["duplicates"] += committed.repeated
    seconds = time.perf_counter() - start
    from halguard.audit.summary import SUMMARY_COLUMNS, summarize

    summary = summarize(store.read("answers", SUMMARY_COLUMNS), errors=committed.unreadable,
                        id_collisions=committed.collisions)
    summary["last_run"] = {"engine": engine, "checked": committed.answers, "claims": committed.claims,
                           "seconds": round(seconds, 2), "skipped_done": counts["skipped_done"],
                           "duplicates": counts["duplicates"], "input_errors": len(errors),
                           "id_collisions": committed.new_collisions,
                           "rows_per_second": round(committed.answers / seconds, 2) if seconds > 0 else None,
                           "detector": spec.name if isinstance(spec.name, str) else "custom",
                           "batch_size": batch_size, "num_actors": num_actors}
    store.write_text("summary.json", json.dumps(summary, indent=1) + "\n")
    if report:
        from halguard.audit.report import render_report

        store.write_text("report.html", render_report(store, summary))
    return AuditResult(out_dir=store.root, engine=engine, checked=committed.answers, files=tuple(paths),
                       skipped_done=counts["skipped_done"], duplicates=counts["duplicates"], input_errors=len(errors),
                       claims=committed.claims, seconds=round(seconds, 3), summary=summary,
                       id_collisions=committed.new_collisions)


# -- the in-process engine ----------------------------------------------------------------------------------------


def _run_local(paths: Sequence[Path], fields: FieldMap, spec: DetectorSpec, store: AuditStore, done: set[str], *,
               batch_size: int, progress: bool, **_: Any) -> dict[str, Any]:
    verifier = BatchVerifier(spec)
    errors: list[InputError] = []
    seen: set[str] = set()
    skipped = duplicates = checked = 0
    batch: list[AuditRecord] = []
    part: list[dict[str, Any]] = []
    t0 = time.perf_counter()

    def flush_batch() -> None:
        nonlocal checked
        if batch:
            part.extend(verifier(batch))
            checked += len(batch)
            batch.clear()
            if progress:
                rate = checked / max(time.perf_counter() - t0, 1e-9)
                print(f"\r  {checked} answers checked ({rate:.1f}/s)", end="", file=sys.stderr, flush=True)
        if len(part) >= _ROWS_PER_PART:
            store.write_raw(part)
            part.clear()

    for item in iter_records(paths, fields):
        if isinstance(item, InputError):
            errors.append(item)
            continue
        if item.row_id in done:
            skipped += 1
            continue
        if item.row_id in seen:
            duplicates += 1
            continue
        seen.add(item.row_id)
        batch.append(item)
        if len(batch) >= batch_size:
            flush_batch()
    flush_batch()
    store.write_raw(part)
    if progress:
        print(file=sys.stderr)
    return {"errors": errors, "skipped_done": skipped, "duplicates": duplicates,
            "read": checked + skipped + duplicates}


# -- the Ray Data engine ------------------------------------------------------------------------------------------


def _record_to_row(record: AuditRecord) -> dict[str, Any]:
    return {"record": json.dumps(asdict(record)), "error": None, "skipped": False}


def _error_row(error: InputError) -> dict[str, Any]:
    return {"record": None, "error": json.dumps(asdict(error)), "skipped": False}


_SKIPPED = {"record": None, "error": None, "skipped": True}  # a row an earlier run wrote: counted, not checked


def _row_to_record(row: dict[str, Any]) -> AuditRecord:
    data = json.loads(row["record"])
    data["contexts"] = [tuple(c) for c in data["contexts"]]
    return AuditRecord(**data)


class RayVerifier:
    """The callable class Ray Data runs in each actor: one detector per actor, batches of parsed rows in, answer
    rows out (as an Arrow table with the fixed schema, so blocks from different actors always agree).

    The detector spec is a class attribute of a subclass made per run (:func:`_verifier_class`), not a constructor
    argument: Ray keeps constructor arguments in the object store, where a restarted actor may no longer find them.
    """

    spec: DetectorSpec

    def __init__(self) -> None:
        self.verifier = BatchVerifier(self.spec)

    def __call__(self, batch: dict[str, Any]) -> Any:
        import pyarrow as pa

        from halguard.audit.store import raw_schema

        records = [_row_to_record({"record": r}) for r in batch.column("record").to_pylist()]
        return pa.Table.from_pylist(self.verifier(records), schema=raw_schema())


def _verifier_class(spec: DetectorSpec) -> type[RayVerifier]:
    return type("RayVerifier", (RayVerifier,), {"spec": spec})


def _parse_file(fields: FieldMap, done: Any) -> Callable[[dict[str, Any]], list[dict[str, Any]]]:
    def parse(item: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for rec in iter_jsonl(item["path"], fields=fields, data=item["bytes"]):
            if isinstance(rec, InputError):
                out.append(_error_row(rec))
            else:
                out.append(_SKIPPED if rec.row_id in done else _record_to_row(rec))
        return out

    return parse


def _parse_table_row(fields: FieldMap, done: Any) -> Callable[[dict[str, Any]], list[dict[str, Any]]]:
    def parse(row: dict[str, Any]) -> list[dict[str, Any]]:
        path = row.pop("path", "parquet")
        rec = record_from_row(row, file=str(path), line=0, fields=fields)
        if isinstance(rec, InputError):
            return [_error_row(rec)]
        return [_SKIPPED if rec.row_id in done else _record_to_row(rec)]

    return parse


def _run_ray(paths: Sequence[Path], fields: FieldMap, spec: DetectorSpec, store: AuditStore, done: set[str], *,
             batch_size: int, address: str | None, num_actors: int | None, progress: bool,
             **_: Any) -> dict[str, Any]:
    try:
        import ray
        import ray.data
    except ImportError as exc:
        msg = 'the ray engine needs Ray Data: pip install "halguard[ray]"'
        raise HalguardError(msg) from exc
    started_here = not ray.is_initialized()
    if started_here:
        if not progress:  # Ray's own C++ log lines (actor notices) go to stderr unless told otherwise at start
            os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                 configure_logging=True)
    quiet = [] if progress else [logging.getLogger(n) for n in ("ray", "ray.data")]
    levels = [q.level for q in quiet]
    for q in quiet:
        q.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            if not progress:
                warnings.simplefilter("ignore")
            return _ray_pipeline(ray, paths, fields, spec, store, done, batch_size=batch_size,
                                 num_actors=num_actors, progress=progress)
    finally:
        for q, level in zip(quiet, levels):
            q.setLevel(level)
        if started_here:
            ray.shutdown()


def _ray_pipeline(ray: Any, paths: Sequence[Path], fields: FieldMap, spec: DetectorSpec, store: AuditStore,
                  done: set[str], *, batch_size: int, num_actors: int | None, progress: bool) -> dict[str, Any]:
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = progress
    context.print_on_execution_start = False
    done_ref = ray.put(done)  # one copy in the object store, shared by every parse task
    jsonl = [str(p) for p in paths if _kind(p) == "jsonl"]
    tables = [str(p) for p in paths if _kind(p) == "parquet"]
    parts = []
    if jsonl:
        parts.append(ray.data.read_binary_files(jsonl, include_paths=True)
                     .flat_map(_RemoteParse(_parse_file, fields, done_ref)))
    if tables:
        parts.append(ray.data.read_parquet(tables, include_paths=True)
                     .flat_map(_RemoteParse(_parse_table_row, fields, done_ref)))
    parsed = parts[0] if len(parts) == 1 else parts[0].union(*parts[1:])
    parsed = parsed.materialize()  # parsed once: the errors and the rows to check both read it
    errors = [InputError(**json.loads(r["error"])) for r in
              parsed.filter(lambda r: r["error"] is not None).select_columns(["error"]).take_all()]
    skipped = parsed.filter(lambda r: bool(r["skipped"])).count()
    todo = parsed.filter(lambda r: r["record"] is not None).select_columns(["record"])
    # A row id seen twice in this run is checked twice here (finding it needs a shuffle) and written once:
    # the commit keeps the first (AuditStore.commit).
    n_todo = todo.count()
    if n_todo:
        actors = num_actors or max(1, int(ray.cluster_resources().get("CPU", 1)))
        # Enough blocks to keep every actor busy, few enough that per-block overhead stays small. Materialized
        # before the actors start: an actor pool holding every CPU starves any task streaming beside it (the
        # repartition, the write), and the run hangs (seen with 2 actors on 2 cores).
        blocks = min(math.ceil(n_todo / batch_size), max(4 * actors, math.ceil(n_todo / _ROWS_PER_PART)))
        todo = todo.repartition(blocks).materialize()
        verified = todo.map_batches(
            _verifier_class(spec), batch_size=batch_size, compute=ray.data.ActorPoolStrategy(size=actors),
            num_cpus=1, batch_format="pyarrow",
            # Bounded: Ray Data's default is to restart and retry forever, and a row that kills its process
            # every time would then never end the run.
            # (extra actor options: Ray 2.60 warns they are deprecated from 2.64; pyproject pins ray below it)
            max_restarts=_RAY_RETRIES, max_task_retries=_RAY_RETRIES)
        verified.materialize().write_parquet(str(store.staging / "raw"))
    return {"errors": errors, "skipped_done": skipped, "duplicates": 0, "read": n_todo + skipped}


class _RemoteParse:
    """A picklable flat_map function that fetches the done-ids set from the object store once per process."""

    def __init__(self, factory: Callable[..., Any], fields: FieldMap, done_ref: Any) -> None:
        self.factory, self.fields, self.done_ref = factory, fields, done_ref
        self._fn: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None

    def __call__(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        if self._fn is None:
            import ray

            self._fn = self.factory(self.fields, ray.get(self.done_ref))
        return self._fn(item)
