"""Totals and per-slice rates of an audit folder, computed with Arrow (columnar, so millions of rows stay cheap)."""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_SLICE_VALUES", "SUMMARY_COLUMNS", "summarize", "time_series"]

MAX_SLICE_VALUES = 50  # per slice kind, the most frequent values are listed (a summary must stay readable)
_SLICES = ("model", "cluster", "profile", "file", "sources")
# The answer columns a summary reads (not the texts: a summary of millions of rows must not load every answer).
SUMMARY_COLUMNS = ("row_id", "label", "error_code", "timestamp", "worker_pid", "worker_rss_mb", *_SLICES)


def _rates(table: Any, key: str) -> list[dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.compute as pc

    column = table.column(key)
    hall = pc.equal(table.column("label"), "hallucinated")
    unv = pc.equal(table.column("label"), "unverified")
    if pa.types.is_list(column.type):  # a row counts once under each of its sources
        flat = pc.list_flatten(column)
        parents = pc.list_parent_indices(column)
        hall, unv, column = pc.take(hall, parents), pc.take(unv, parents), flat
    if len(column) == 0 or column.null_count == len(column):
        return []
    grouped = pa.table({"value": column, "hall": pc.cast(hall, pa.int64()), "unv": pc.cast(unv, pa.int64())})
    grouped = grouped.filter(pc.is_valid(grouped.column("value")))
    agg = grouped.group_by("value").aggregate([("hall", "sum"), ("unv", "sum"), ("hall", "count")])
    agg = agg.sort_by([("hall_count", "descending"), ("value", "ascending")]).slice(0, MAX_SLICE_VALUES)
    out = []
    for value, n, h, u in zip(*(agg.column(c).to_pylist() for c in ("value", "hall_count", "hall_sum", "unv_sum"))):
        checked = n - u
        out.append({"value": str(value), "answers": n, "hallucinated": h, "unverified": u,
                    "hallucination_rate": round(h / checked, 4) if checked else None})
    return out


def time_series(table: Any) -> list[dict[str, Any]]:
    """Per day (an ISO date at the start of ``timestamp``), answers and the hallucination rate."""
    import pyarrow as pa
    import pyarrow.compute as pc

    ts = table.column("timestamp")
    if ts.null_count == len(ts):
        return []
    day = pc.utf8_slice_codeunits(pc.fill_null(ts, ""), 0, 10)
    valid = pc.match_substring_regex(day, r"^\d{4}-\d{2}-\d{2}$")
    sub = pa.table({"timestamp": day, "label": table.column("label")}).filter(valid)
    return sorted(_rates(sub, "timestamp"), key=lambda r: r["value"])


def summarize(table: Any, *, errors: int, id_collisions: int = 0) -> dict[str, Any]:
    """The summary of an answers table (every run written to the folder so far); ``errors`` unreadable input rows and
    ``id_collisions`` rows whose id another row with other content used (both kept), from ``errors.jsonl``."""
    import pyarrow.compute as pc

    labels = table.column("label")
    n = table.num_rows
    counts = {k: int(pc.sum(pc.equal(labels, k)).as_py() or 0) for k in ("supported", "hallucinated", "unverified")}
    checked = counts["supported"] + counts["hallucinated"]
    codes = table.filter(pc.equal(labels, "unverified")).column("error_code")
    reasons = {}
    if len(codes):
        vc = pc.value_counts(pc.fill_null(codes, "unknown"))
        reasons = {d["values"]: d["counts"] for d in vc.to_pylist()}
    workers = {}
    if n:
        agg = table.group_by("worker_pid").aggregate([("worker_rss_mb", "max"), ("row_id", "count")])
        workers = {str(p): {"answers": c, "peak_rss_mb": r} for p, r, c in zip(
            *(agg.column(k).to_pylist() for k in ("worker_pid", "worker_rss_mb_max", "row_id_count")))}
    return {
        "answers": n, **counts, "unreadable_input_rows": errors, "id_collisions": id_collisions,
        "hallucination_rate": round(counts["hallucinated"] / checked, 4) if checked else None,
        "unverified_rate": round(counts["unverified"] / n, 4) if n else None,
        "unverified_reasons": reasons,
        "by": {key: _rates(table, key) for key in _SLICES},
        "by_day": time_series(table),
        "workers": workers,
    }
