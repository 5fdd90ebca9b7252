"""Does a grounding checker judge meaning rather than words? The hand-written adversarial set, per kind.

    HF_HUB_OFFLINE=1 python benchmarks/bench_adversarial.py [--threads 1] [--json-out F]
        [--detector-factory module:callable] [--path benchmarks/adversarial/adversarial_dev.jsonl]

``benchmarks/adversarial/adversarial_dev.jsonl`` (README beside it) holds grounded answers that say what the
context says in other words (group ``paraphrase``: synonyms, number and date formats, reordering, voice,
compression, safe generalisation) and unsupported answers that reuse the context's own words (group
``fabrication``: swapped roles, entities or values, borrowed or changed numbers, units, dates, negation,
antonyms, invented clauses and causes, widened scope). For each kind the script counts the verdicts
(supported / flagged = "hallucinated" / unverified); the totals are the two error rates: paraphrases flagged and
fabrications supported. Rows are checked one by one, in file order, with their question, as ``halguard bench``
checks them (the same file also runs under ``halguard bench`` for AUROC and F1).

The default detector is ``halguard.LocalVerifier(num_threads=N)``; ``--detector-factory pkg.mod:make`` calls
``make()`` for another :class:`halguard.Detector` (anything with ``verify(answer, contexts, question=...)``
returning a verdict with ``label`` and ``score``). ``--threads N`` sets ``torch.set_num_threads(N)`` (default 1)
and the LocalVerifier's ``num_threads``. The model load is done before the rows and is not timed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path(__file__).resolve().parent / "adversarial" / "adversarial_dev.jsonl"

GROUPS = ("paraphrase", "fabrication")
PARAPHRASE_KINDS = ("synonym", "number_format", "date_format", "reorder", "voice", "compress",
                    "hypernym_or_inference")
FABRICATION_KINDS = ("role_swap", "entity_swap", "number_elsewhere", "number_changed", "unit_change", "date_change",
                     "negation", "antonym", "invented_clause", "causal_link", "scope", "swapped_values")
KINDS = {"paraphrase": PARAPHRASE_KINDS, "fabrication": FABRICATION_KINDS}
LABELS = ("supported", "hallucinated", "unverified")


def load_rows(path: str | Path = DEFAULT_PATH) -> list[dict[str, Any]]:
    """The set's rows, in file order (one JSON object a line; blank lines skipped)."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                msg = f"{path}:{number}: not JSON: {exc}"
                raise ValueError(msg) from exc
    return rows


def run(detector: Any, rows: Iterable[dict[str, Any]], *, progress: bool = False) -> list[dict[str, Any]]:
    """Check every row with ``detector``; one result per row: id, kind, group, label, score (plus the verdict's
    error codes and the row's latency in ms)."""
    rows = list(rows)
    results = []
    for i, row in enumerate(rows, 1):
        question = None if row.get("question_is_generic_instruction") else row.get("question")
        t0 = time.perf_counter()
        verdict = detector.verify(row["answer"], row["context"], question=question)
        ms = (time.perf_counter() - t0) * 1000
        results.append({
            "id": row.get("id"), "kind": row.get("kind"), "group": row.get("group"),
            "label": verdict.label, "score": verdict.score,
            "errors": [e.code for e in getattr(verdict, "errors", []) or []],
            "latency_ms": round(ms, 1),
        })
        if progress:
            print(f"\r  {i}/{len(rows)} rows", end="" if i < len(rows) else "\n", file=sys.stderr)
    return results


def _counts(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"rows": len(results)}
    for label in LABELS:
        out[label] = sum(r["label"] == label for r in results)
    scores = [r["score"] for r in results if r.get("score") is not None]
    out["mean_score"] = round(sum(scores) / len(scores), 4) if scores else None
    return out


def summarize(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts per kind and per group (rows, supported, hallucinated, unverified, mean score) and the two error
    rates: ``paraphrases_flagged`` (grounded answers labelled hallucinated) and ``fabrications_supported``
    (unsupported answers labelled supported), each ``{"n", "of", "rate"}``. Kinds come in the set's order, then any
    other kind found in the results."""
    by_group: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        by_group.setdefault(r["group"], []).append(r)
    groups = [g for g in GROUPS if g in by_group] + sorted(set(by_group) - set(GROUPS))
    kinds: dict[str, Any] = {}
    for group in groups:
        members = by_group[group]
        seen = {r["kind"] for r in members}
        order = [k for k in KINDS.get(group, ()) if k in seen] + sorted(seen - set(KINDS.get(group, ())))
        for kind in order:
            kinds[kind] = {"group": group, **_counts([r for r in members if r["kind"] == kind])}

    def rate(group: str, label: str) -> dict[str, Any]:
        members = by_group.get(group, [])
        n = sum(r["label"] == label for r in members)
        return {"n": n, "of": len(members), "rate": round(n / len(members), 4) if members else None}

    right = sum(r["label"] == "supported" for r in by_group.get("paraphrase", [])) + sum(
        r["label"] == "hallucinated" for r in by_group.get("fabrication", []))
    return {
        "rows": len(results),
        "kinds": kinds,
        "groups": {g: _counts(by_group[g]) for g in groups},
        "paraphrases_flagged": rate("paraphrase", "hallucinated"),
        "fabrications_supported": rate("fabrication", "supported"),
        "correct": {"n": right, "of": len(results), "rate": round(right / len(results), 4) if results else None},
    }


def _pct(part: dict[str, Any]) -> str:
    return f"{part['n']}/{part['of']} ({100 * part['rate']:.1f}%)" if part["of"] else "0/0 (-)"


def format_summary(summary: dict[str, Any]) -> str:
    """The per-kind table (markdown) and the group totals."""
    lines = ["| group | kind | rows | supported | flagged | unverified | mean score |",
             "|---|---|---|---|---|---|---|"]
    for kind, c in summary["kinds"].items():
        mean = "-" if c["mean_score"] is None else f"{c['mean_score']:.3f}"
        lines.append(f"| {c['group']} | {kind} | {c['rows']} | {c['supported']} | {c['hallucinated']} | "
                     f"{c['unverified']} | {mean} |")
    for group, c in summary["groups"].items():
        mean = "-" if c["mean_score"] is None else f"{c['mean_score']:.3f}"
        lines.append(f"| **{group}** | all | {c['rows']} | {c['supported']} | {c['hallucinated']} | "
                     f"{c['unverified']} | {mean} |")
    lines += ["",
              f"paraphrases flagged: {_pct(summary['paraphrases_flagged'])}",
              f"fabrications supported: {_pct(summary['fabrications_supported'])}",
              f"correct (paraphrase supported, fabrication flagged): {_pct(summary['correct'])}"]
    return "\n".join(lines)


def load_factory(spec: str) -> Callable[[], Any]:
    """``"package.module:callable"`` -> the callable (called with no arguments to make the detector)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        msg = f"--detector-factory takes module:callable, got {spec!r}"
        raise ValueError(msg)
    target: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        target = getattr(target, part)
    if not callable(target):
        msg = f"{spec} is not callable"
        raise ValueError(msg)
    return target


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--path", default=str(DEFAULT_PATH), help="the set (default: %(default)s)")
    ap.add_argument("--json-out", default=None, help="write the summary and the per-row results here")
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads(N) (default 1)")
    ap.add_argument("--detector-factory", default=None,
                    help="module:callable making the detector (default: halguard.LocalVerifier(num_threads=N))")
    ap.add_argument("--rules-only", action="store_true",
                    help="the local verifier without its claim checker: LocalVerifier(meaning=False)")
    ap.add_argument("--quiet", action="store_true", help="no progress line")
    args = ap.parse_args(argv)
    if args.threads < 1:
        ap.error("--threads must be at least 1")

    import torch

    torch.set_num_threads(args.threads)
    if args.detector_factory:
        detector = load_factory(args.detector_factory)()
        name = args.detector_factory
    else:
        from halguard import LocalVerifier

        detector = LocalVerifier(num_threads=args.threads, meaning=not args.rules_only)
        name = f"LocalVerifier(num_threads={args.threads}, meaning={not args.rules_only})"
    load_s = detector.warm_up() if hasattr(detector, "warm_up") else None

    rows = load_rows(args.path)
    t0 = time.perf_counter()
    results = run(detector, rows, progress=not args.quiet)
    wall = time.perf_counter() - t0
    summary = summarize(results)

    print(f"adversarial set: {args.path} ({len(rows)} rows)")
    print(f"detector: {name}; torch threads: {torch.get_num_threads()} (--threads {args.threads})"
          + (f"; model load {load_s:.1f} s (not timed)" if isinstance(load_s, (int, float)) else ""))
    print(f"checked in {wall:.1f} s ({1000 * wall / max(1, len(rows)):.0f} ms per row)\n")
    print(format_summary(summary))
    if args.json_out:
        report = {"detector": name, "threads": args.threads, "path": str(args.path), "wall_s": round(wall, 2),
                  "summary": summary, "results": results}
        Path(args.json_out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
