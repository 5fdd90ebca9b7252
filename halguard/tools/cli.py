"""The ``halguard`` command line.

``halguard check`` verifies one answer and exits 0 (supported), 1 (hallucinated) or 2 (unverified, bad input,
or an error inside halguard: never 1, which would read as a verdict), so it can gate a shell pipeline.
``halguard bench`` measures a detector on labelled JSONL; ``halguard calibrate`` fits per-shape thresholds and
probabilities on labelled JSONL (``LocalVerifier(calibration=...)``).

Input is read bounded, from regular files only (:mod:`halguard.util.files`): a FIFO, a device or a folder named as
an input is refused without blocking, ``--answer -`` reads at most what an answer the verifier checks can take,
and context files at most what the context can; data files are streamed line by line. Each refusal exits 2 with a
one-line message.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from halguard.errors import HalguardError, InputTooLargeError, InvalidInputError
from halguard.grounding.calibration import BUDGETED_SHAPES, DEFAULT_FALSE_ALARM_BUDGET
from halguard.tools.detector_args import DETECTOR_HELP as _DETECTOR_HELP
from halguard.tools.detector_args import add_option_argument
from halguard.tools.detector_args import detector_name as _detector_name
from halguard.tools.detector_args import options as _options
from halguard.util.files import files_in, read_bytes_limited, read_stream_limited, require_regular_file

__all__ = ["main"]

EXIT_SUPPORTED, EXIT_HALLUCINATED, EXIT_UNVERIFIED = 0, 1, 2
# UTF-8 takes at most 4 bytes per character, so more than 4 x the verifier's character limit (LocalVerifier's
# max_answer_chars, max_context_chars) cannot hold a text it would check: such input is refused before (a file,
# from its size) or as soon as (stdin) that many bytes arrive, never read whole.
UTF8_MAX_BYTES_PER_CHAR = 4
# Read limits for a detector that states none (an LLM judge): LocalVerifier's defaults.
_DEFAULT_MAX_ANSWER_CHARS, _DEFAULT_MAX_CONTEXT_CHARS = 100_000, 1_000_000


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse exits 2 on bad usage, which is our "bad input" code too
        self.print_usage(sys.stderr)
        self.exit(EXIT_UNVERIFIED, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="halguard", description="Hallucination checks for RAG answers.")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (_add_check, _add_bench, _add_audit, _add_calibrate):
        add(sub)
    return parser


def _add_check(sub: argparse._SubParsersAction) -> None:
    """``halguard check``: one answer against its contexts."""
    check = sub.add_parser("check", help="check one answer against its contexts, or rows of answers")
    check.add_argument("rows", nargs="?", default=None,
                       help="rows to check instead of --answer: a JSONL file (or a .json file holding one object or "
                            "a list), - for JSONL on stdin, or one JSON object; the row schema of bench and audit "
                            "(answer, context/contexts, question)")
    check.add_argument("--answer", default=None, help="the answer text, or - to read it from stdin")
    check.add_argument("--question", help="the question the answer responds to")
    check.add_argument("--context", action="append", default=[], help="a retrieved passage (repeatable)")
    check.add_argument("--context-file", action="append", default=[], help="a file holding one passage (repeatable)")
    check.add_argument("--format", choices=("json", "jsonl", "table"), default="json",
                       help="json: the verdict (rows: a list of {id, verdict}); jsonl: one line per row; table")
    check.add_argument("--threshold", type=float, default=None,
                       help="risk threshold for every answer shape (default: the calibration's per-shape one)")
    check.add_argument("--calibration", default=None, help="a calibration JSON from 'halguard calibrate'")
    check.add_argument("--detector", type=_detector_name, default="local", help=f"the detector: {_DETECTOR_HELP}")
    add_option_argument(check)
    check.add_argument("--device", default=None, help="cpu, cuda or mps for an nli: or spans: model")


def _add_bench(sub: argparse._SubParsersAction) -> None:
    """``halguard bench``: detectors over labelled JSONL files."""
    bench = sub.add_parser("bench", help="run a detector over labelled JSONL files and report the figures")
    bench.add_argument("files", nargs="+", help="JSONL files in the development-data schema")
    bench.add_argument("--detector", type=_detector_name, default="local", metavar="NAME",
                       help=f"{_DETECTOR_HELP}. local-meaning: the local verifier with its claim checker too "
                            "(LocalVerifier(meaning=True)); llm-judge: a prompted grounding judge; pas2: paraphrase sampling with the model "
                            "as paraphraser, answerer and judge; budget: the evidence budget after the local "
                            "verifier; these three on an OpenAI-compatible server (--llm-url)")
    add_option_argument(bench)
    bench.add_argument("--compare", action="append", type=_detector_name, default=None, metavar="NAME",
                       help="also run this detector over the same rows, after the --detector one, with the same "
                            "--llm-url, --llm-model and --threshold; the report adds a side-by-side table "
                            f"(repeatable; {_DETECTOR_HELP})")
    bench.add_argument("--llm-url", default=None, help="OpenAI-compatible base URL for the LLM detectors")
    bench.add_argument("--llm-model", default=None, help="model name on that server")
    bench.add_argument("--limit", type=int, default=None, help="first N rows of each file (after --task)")
    bench.add_argument("--task", default=None, help="only rows of this task_type (QA, Summary, Data2txt)")
    bench.add_argument("--threshold", type=float, default=None,
                       help="risk threshold for every detector run (default: each one's own)")
    bench.add_argument("--json-out", default=None, help="write the report as JSON here")
    bench.add_argument("--md-out", default=None, help="write the report as Markdown here")
    bench.add_argument("--jsonl-out", default=None,
                       help="write the --detector one's per-row predictions here (error analysis)")
    bench.add_argument("--compare-jsonl-out", default=None, metavar="PATH",
                       help="write the --compare detectors' per-row predictions here, each row with a 'detector' "
                            "field (the key of the report's 'compared')")
    bench.add_argument("--quiet", action="store_true", help="no progress bar")
    bench.add_argument("--plot", default=None, metavar="DIR",
                       help="write ROC, precision-recall and reliability curves as PNGs here (needs matplotlib)")


def _add_audit(sub: argparse._SubParsersAction) -> None:
    """``halguard audit``: logged answers in bulk."""
    aud = sub.add_parser("audit", help="verify logged answers in bulk into Parquet, a summary and an HTML report")
    aud.add_argument("inputs", nargs="+", help="JSONL files (dev schema, halguard callback logs, LlamaIndex "
                     "responses, or any shape with --map) or Parquet files / folders")
    aud.add_argument("--out", required=True, help="output folder (rerunning over it skips rows already done)")
    aud.add_argument("--map", nargs="+", default=[], metavar="FIELD=PATH",
                     help="where a field is in the rows: id, question, answer, contexts, model, timestamp, cluster "
                          "(dotted paths; [] maps over a list, e.g. contexts=outputs.docs[].page_content)")
    aud.add_argument("--detector", type=_detector_name, default="local", metavar="NAME", help=_DETECTOR_HELP)
    add_option_argument(aud)
    aud.add_argument("--engine", choices=("local", "ray"), default="local",
                     help="local: this process; ray: Ray Data (pip install \"halguard[ray]\")")
    aud.add_argument("--address", default=None, help="Ray cluster address (default: start Ray on this machine)")
    aud.add_argument("--num-actors", type=int, default=None, help="Ray actors, one detector each (default: CPUs)")
    aud.add_argument("--batch-size", type=int, default=32, help="answers per verify batch")
    aud.add_argument("--threshold", type=float, default=None, help="risk threshold for every answer shape")
    aud.add_argument("--llm-url", default=None, help="OpenAI-compatible base URL for the LLM detectors")
    aud.add_argument("--llm-model", default=None, help="model name on that server")
    aud.add_argument("--llm-concurrency", type=int, default=4, help="LLM calls in flight per process")
    aud.add_argument("--quiet", action="store_true", help="no progress line")


def _add_calibrate(sub: argparse._SubParsersAction) -> None:
    """``halguard calibrate``: per-shape thresholds and probabilities."""
    cal = sub.add_parser("calibrate", help="fit per-shape thresholds and probabilities on labelled JSONL rows")
    cal.add_argument("files", nargs="+", help="JSONL files in the development-data schema (answer, context, "
                     "hallucinated; question and group optional)")
    cal.add_argument("--out", required=True, help="write the calibration JSON here (LocalVerifier(calibration=...))")
    cal.add_argument("--detector", type=_detector_name, default="local", metavar="NAME",
                     help=f"the detector whose scores are calibrated: {_DETECTOR_HELP} (the LLM detectors are "
                          "calibrated from a 'halguard bench --jsonl-out' file: --predictions)")
    add_option_argument(cal)
    cal.add_argument("--folds", type=int, default=5, help="grouped cross-validation folds for the reported figures")
    cal.add_argument("--limit", type=int, default=None, help="first N rows of each file")
    cal.add_argument("--base", default=None,
                     help="calibration whose entries a shape with too few rows keeps: 'default' (the shipped one; "
                          "the default for --detector local), 'none' (the default for any other detector: the "
                          "shipped thresholds are the local verifier's), or a calibration JSON file")
    cal.add_argument("--predictions", default=None,
                     help="reuse the scores of a 'halguard bench --jsonl-out' file instead of scoring the rows")
    cal.add_argument("--min-threshold", type=float, default=None,
                     help="the lowest threshold a shape may get (default 0.5, the risk model's even odds)")
    cal.add_argument("--false-alarm-budget", type=float, default=None, metavar="SHARE",
                     help="per shape, the F1-best threshold among those flagging at most this share of the faithful "
                          "answers (e.g. 0.1; 1: the plain F1-best threshold): a cap on false alarms. Default: as "
                          f"the shipped calibration, {DEFAULT_FALSE_ALARM_BUDGET} for the shapes "
                          f"{', '.join(BUDGETED_SHAPES)}, none for the others")
    cal.add_argument("--md-out", default=None, help="also write the figures as Markdown here")
    cal.add_argument("--quiet", action="store_true", help="no progress bar")


def _text(data: bytes) -> str:
    """UTF-8 with universal newlines, as a text-mode ``open`` or ``sys.stdin`` reads it."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _read_answer(value: str, max_chars: int) -> str:
    """``--answer``: the text itself, or stdin for ``-``, at most ``max_chars`` characters' worth of UTF-8."""
    if value != "-":
        return value
    limit = UTF8_MAX_BYTES_PER_CHAR * max_chars
    buffer = getattr(sys.stdin, "buffer", None)
    try:
        if buffer is None:  # a text stream without bytes (a caller's io.StringIO): bounded in characters
            text = sys.stdin.read(max_chars + 1)
            if len(text) > max_chars:
                msg = f"stdin holds more than {max_chars:,} characters"
                raise InputTooLargeError(msg)
            return text
        return _text(read_stream_limited(buffer, limit))
    except (InvalidInputError, UnicodeDecodeError) as exc:
        msg = f"--answer -: {exc} (an answer is checked up to {max_chars:,} characters, max_answer_chars)"
        raise HalguardError(msg) from exc


def _read_contexts(paths: Sequence[str], max_chars: int) -> list[tuple[str, str]]:
    """``--context-file``s: regular files only, at most ``max_chars`` characters' worth of UTF-8 in all."""
    budget = UTF8_MAX_BYTES_PER_CHAR * max_chars
    contexts = []
    for path in paths:
        try:
            data = read_bytes_limited(path, budget, what="context file")
            contexts.append((path, _text(data)))
        except (OSError, UnicodeDecodeError) as exc:
            msg = f"cannot read context file {path}: {exc}"
            raise HalguardError(msg) from exc
        except InputTooLargeError as exc:  # over what is left of the budget
            msg = (f"{exc} (context files are read up to {UTF8_MAX_BYTES_PER_CHAR * max_chars:,} bytes together: "
                   f"the context is checked up to {max_chars:,} characters, max_context_chars)")
            raise HalguardError(msg) from exc
        except InvalidInputError as exc:  # not a regular file (the message names it)
            raise HalguardError(str(exc)) from exc
        budget -= len(data)
    return contexts


def _require_files(paths: Sequence[str]) -> list[Path]:
    """Data files (bench, calibrate): each must be a regular file, checked without reading or blocking; a folder
    stands for its ``.jsonl``/``.json``/``.ndjson`` files, found recursively in a stable order (none: an error)."""
    expanded: list[str] = []
    for path in paths:
        if Path(path).is_dir() and not Path(path).is_symlink():
            found = [str(f) for f in files_in(path, (".jsonl", ".json", ".ndjson"))]
            if not found:
                msg = f"{path}: a folder with no .jsonl, .json or .ndjson file in it"
                raise HalguardError(msg)
            expanded.extend(found)
        else:
            expanded.append(path)
    paths = expanded
    for path in paths:
        try:
            require_regular_file(path, what="input")
        except FileNotFoundError as exc:
            msg = f"no such file: {path}"
            raise HalguardError(msg) from exc
        except OSError as exc:
            msg = f"cannot read {path}: {exc}"
            raise HalguardError(msg) from exc
        except InvalidInputError as exc:  # not a regular file (the message names it)
            raise HalguardError(str(exc)) from exc
    return [Path(p) for p in paths]


def _check(args: argparse.Namespace) -> int:
    from halguard.detectors import make_detector
    from halguard.tools.render import format_verdict

    if (args.rows is None) == (args.answer is None):
        msg = "give either --answer (one answer) or rows (a JSONL file, - for stdin, or a JSON object), not both"
        raise HalguardError(msg)
    if args.rows is not None and (args.context or args.context_file or args.question):
        msg = "rows carry their own question and contexts: --question, --context and --context-file go with --answer"
        raise HalguardError(msg)
    # the weak threshold follows the threshold; a missing model fails here, before any input is read
    verifier = make_detector(args.detector, args.threshold, calibration=args.calibration, device=args.device,
                             **_options(args))
    if args.rows is not None:
        return _check_rows(args, verifier)
    answer = _read_answer(args.answer, getattr(verifier, "max_answer_chars", _DEFAULT_MAX_ANSWER_CHARS))
    contexts = [(f"context-{i}", text) for i, text in enumerate(args.context)]
    contexts += _read_contexts(args.context_file, getattr(verifier, "max_context_chars", _DEFAULT_MAX_CONTEXT_CHARS))
    verifier.warm_up()  # so the reported latency is the check's, not the model load's
    verdict = verifier.verify(answer, contexts, question=args.question)
    if args.format == "json":
        print(verdict.model_dump_json(indent=2))
    elif args.format == "jsonl":
        print(verdict.model_dump_json())
    else:
        print(format_verdict(verdict))
    return _exit_code([verdict.label])


def _exit_code(labels: Sequence[str]) -> int:
    """1 when any answer was flagged, else 2 when any could not be checked, else 0."""
    if "hallucinated" in labels:
        return EXIT_HALLUCINATED
    return EXIT_UNVERIFIED if "unverified" in labels else EXIT_SUPPORTED


# Rows read by `check` at most (stdin or one JSON file read whole): a one-off command, not an audit.
_CHECK_ROWS_BYTES = 64 * 2**20


def _check_rows(args: argparse.Namespace, verifier: Any) -> int:
    """``halguard check ROWS``: one verdict per row, in order; an unreadable row is an error naming its line."""
    import json

    from halguard.audit.records import InputError
    from halguard.tools.render import format_verdict

    source = args.rows
    if source == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        data = read_stream_limited(buffer, _CHECK_ROWS_BYTES) if buffer is not None else sys.stdin.read(
            _CHECK_ROWS_BYTES + 1).encode("utf-8")
        records = _rows_of(data, "<stdin>")
    elif source.lstrip().startswith("{"):
        records = _rows_of(source.encode("utf-8"), "<argument>")
    else:  # a file, or a folder's files in order (as bench reads it)
        records = [r for path in _require_files([source])
                   for r in _rows_of(read_bytes_limited(path, _CHECK_ROWS_BYTES, what="rows"), str(path))]
    bad = [r for r in records if isinstance(r, InputError)]
    if bad:
        msg = f"{bad[0].file}:{bad[0].line}: {bad[0].message}" + (f" (and {len(bad) - 1} more)" if len(bad) > 1
                                                                  else "")
        raise HalguardError(msg)
    if not records:
        msg = f"read no rows from {source}"
        raise HalguardError(msg)
    verifier.warm_up()
    results = []
    for record in records:
        verdict = verifier.verify(record.answer, record.contexts, question=record.question)
        results.append((record.id if record.id is not None else str(record.line), verdict))
    if args.format == "json":
        print(json.dumps([{"id": i, "verdict": v.model_dump(mode="json")} for i, v in results], indent=2))
    elif args.format == "jsonl":
        for i, v in results:
            print(json.dumps({"id": i, "verdict": v.model_dump(mode="json")}))
    else:
        for i, v in results:
            print(f"== {i}")
            print(format_verdict(v))
    return _exit_code([v.label for _, v in results])


def _rows_of(data: bytes, label: str) -> list[Any]:
    """The rows of ``data`` as audit records (or the :class:`~halguard.audit.records.InputError` of a row that
    cannot be one): one JSON object or a list of them (a .json file, an argument), else JSONL."""
    from halguard.audit.records import FieldMap, iter_jsonl, record_from_row
    from halguard.util.safejson import loads

    fields = FieldMap()
    try:
        whole = loads(data)
    except ValueError:
        whole = None
    if isinstance(whole, dict):
        whole = [whole]
    if isinstance(whole, list):
        return [record_from_row(row, file=label, line=number, fields=fields) for number, row in enumerate(whole, 1)]
    return list(iter_jsonl(label, fields=fields, name=label, data=data))


def _bench(args: argparse.Namespace) -> int:
    import json

    from halguard.tools.bench import bench, to_markdown

    if args.compare_jsonl_out and not args.compare:  # said before the run, not after it
        msg = "--compare-jsonl-out needs at least one --compare detector"
        raise HalguardError(msg)
    compared_preds: dict[str, list] = {}
    report, preds = bench(_require_files(args.files), detector=args.detector, limit=args.limit,
                          task=args.task, threshold=args.threshold, progress=not args.quiet, llm_url=args.llm_url,
                          llm_model=args.llm_model, compare=args.compare or (), compared_preds=compared_preds,
                          detector_options=_options(args))
    markdown = to_markdown(report)
    print(markdown)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=2), encoding="utf-8")
    if args.md_out:
        Path(args.md_out).write_text(markdown, encoding="utf-8")
    if args.jsonl_out:
        with open(args.jsonl_out, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(p) + "\n" for p in preds)
    if args.compare_jsonl_out:
        with open(args.compare_jsonl_out, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps({"detector": name, **p}) + "\n"
                          for name, rows in compared_preds.items() for p in rows)
    if args.plot:
        from halguard.tools.plots import write_plots

        for path in write_plots(preds, args.plot):
            print(f"wrote {path}", file=sys.stderr)
    return 0


def _audit(args: argparse.Namespace) -> int:
    from halguard.audit import FieldMap, audit

    result = audit(args.inputs, args.out, detector=args.detector, engine=args.engine, fields=FieldMap.parse(args.map),
                   address=args.address, num_actors=args.num_actors, batch_size=args.batch_size,
                   threshold=args.threshold, llm_url=args.llm_url, llm_model=args.llm_model,
                   llm_concurrency=args.llm_concurrency, progress=not args.quiet, detector_options=_options(args))
    s = result.summary
    shown = ", ".join(str(f) for f in result.files[:5]) + (f" and {len(result.files) - 5} more"
                                                          if len(result.files) > 5 else "")
    print(f"read {len(result.files)} input file{'s' if len(result.files) != 1 else ''}: {shown}")
    rate = "-" if s["hallucination_rate"] is None else f"{100 * s['hallucination_rate']:.1f}%"
    print(f"checked {result.checked} answers in {result.seconds:.1f} s ({result.rows_per_second}/s, {args.engine}); "
          f"{result.skipped_done} already done, {result.duplicates} repeated, {result.input_errors} unreadable rows"
          + (f", {result.id_collisions} ids reused for other content (both rows kept; see errors.jsonl)"
             if result.id_collisions else ""))
    print(f"{result.out_dir}: {s['answers']} answers, {s['hallucinated']} hallucinated ({rate} of those checked), "
          f"{s['unverified']} unverified; report: {result.out_dir / 'report.html'}")
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from halguard.grounding.calibration import DEFAULT_FALSE_ALARM_BUDGETS, THRESHOLD_FLOOR, Calibration
    from halguard.tools.calibrate import calibrate_files, to_markdown

    files = _require_files(args.files)
    _require_files([args.predictions] if args.predictions else [])
    if args.folds < 2:
        msg = f"--folds must be at least 2, got {args.folds}"
        raise HalguardError(msg)
    floor = THRESHOLD_FLOOR if args.min_threshold is None else args.min_threshold
    if not 0.0 <= floor <= 1.0:
        msg = f"--min-threshold must be within [0, 1], got {floor}"
        raise HalguardError(msg)
    budget = args.false_alarm_budget
    if budget is not None and not 0.0 <= budget <= 1.0:
        msg = f"--false-alarm-budget must be within [0, 1], got {budget}"
        raise HalguardError(msg)
    budgets = DEFAULT_FALSE_ALARM_BUDGETS if budget is None else budget
    base_name = args.base if args.base is not None else ("default" if args.detector == "local" else "none")
    base = {"default": Calibration.default, "none": lambda: None}.get(base_name, lambda: Calibration.load(base_name))()
    calibration, report = calibrate_files(files, folds=args.folds, limit=args.limit,
                                          predictions=Path(args.predictions) if args.predictions else None,
                                          base=base, floor=floor, progress=not args.quiet, detector=args.detector,
                                          false_alarm_budget=budgets, detector_options=_options(args))
    calibration.save(args.out)
    markdown = to_markdown(calibration, report)
    print(markdown)
    if args.md_out:
        Path(args.md_out).write_text(markdown, encoding="utf-8")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    args = _parser().parse_args(argv)
    try:
        command = {"audit": _audit, "bench": _bench, "calibrate": _calibrate, "check": _check}[args.command]
        return command(args)
    except HalguardError as exc:
        print(f"halguard: error: {exc}", file=sys.stderr)
        return EXIT_UNVERIFIED
    except Exception as exc:  # noqa: BLE001 - a crash is not a verdict: 2, never 1 ("hallucinated")
        print(f"halguard: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_UNVERIFIED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
