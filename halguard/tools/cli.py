"""The ``halguard`` command line.

``halguard check`` verifies one answer and exits 0 (supported), 1 (hallucinated) or 2 (unverified, bad input,
or an error inside halguard: never 1, which would read as a verdict), so it can gate a shell pipeline.
``halguard bench`` measures a detector on labelled JSONL.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from halguard.errors import HalguardError

__all__ = ["main"]

EXIT_SUPPORTED, EXIT_HALLUCINATED, EXIT_UNVERIFIED = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse exits 2 on bad usage, which is our "bad input" code too
        self.print_usage(sys.stderr)
        self.exit(EXIT_UNVERIFIED, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="halguard", description="Hallucination checks for RAG answers.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="check one answer against its contexts")
    check.add_argument("--answer", required=True, help="the answer text, or - to read it from stdin")
    check.add_argument("--question", help="the question the answer responds to")
    check.add_argument("--context", action="append", default=[], help="a retrieved passage (repeatable)")
    check.add_argument("--context-file", action="append", default=[], help="a file holding one passage (repeatable)")
    check.add_argument("--format", choices=("json", "table"), default="json")
    check.add_argument("--threshold", type=float, default=None, help="risk threshold (default 0.5)")
    bench = sub.add_parser("bench", help="run a detector over labelled JSONL files and report the figures")
    bench.add_argument("files", nargs="+", help="JSONL files in the development-data schema")
    bench.add_argument("--detector", choices=("local", "naive", "llm-judge", "pas2", "budget"), default="local",
                       help="llm-judge: a prompted grounding judge; pas2: paraphrase sampling with the model as "
                            "paraphraser, answerer and judge; budget: the evidence budget after the local verifier; all on an "
                            "OpenAI-compatible server (--llm-url)")
    bench.add_argument("--llm-url", default=None, help="OpenAI-compatible base URL for the LLM detectors")
    bench.add_argument("--llm-model", default=None, help="model name on that server")
    bench.add_argument("--limit", type=int, default=None, help="first N rows of each file (after --task)")
    bench.add_argument("--task", default=None, help="only rows of this task_type (QA, Summary, Data2txt)")
    bench.add_argument("--threshold", type=float, default=None, help="risk threshold for the local detector")
    bench.add_argument("--json-out", default=None, help="write the report as JSON here")
    bench.add_argument("--md-out", default=None, help="write the report as Markdown here")
    bench.add_argument("--jsonl-out", default=None, help="write per-row predictions here (error analysis)")
    bench.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _read_file(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        msg = f"cannot read context file {path}: {exc}"
        raise HalguardError(msg) from exc


def _check(args: argparse.Namespace) -> int:
    from halguard.grounding.scoring import weak_threshold_for
    from halguard.grounding.verifier import LocalVerifier
    from halguard.tools.render import format_verdict

    answer = sys.stdin.read() if args.answer == "-" else args.answer
    contexts = [(f"context-{i}", text) for i, text in enumerate(args.context)]
    contexts += [(path, _read_file(path)) for path in args.context_file]
    options = ({} if args.threshold is None
               else {"threshold": args.threshold, "weak_threshold": weak_threshold_for(args.threshold)})
    verifier = LocalVerifier(**options)
    verifier.warm_up()  # so the reported latency is the check's, not the model load's
    verdict = verifier.verify(answer, contexts, question=args.question)
    if args.format == "json":
        print(verdict.model_dump_json(indent=2))
    else:
        print(format_verdict(verdict))
    if verdict.label == "supported":
        return EXIT_SUPPORTED
    return EXIT_HALLUCINATED if verdict.label == "hallucinated" else EXIT_UNVERIFIED


def _bench(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from halguard.tools.bench import bench, to_markdown

    missing = [f for f in args.files if not Path(f).is_file()]
    if missing:
        msg = f"no such file: {', '.join(missing)}"
        raise HalguardError(msg)
    report, preds = bench([Path(f) for f in args.files], detector=args.detector, limit=args.limit,
                          task=args.task, threshold=args.threshold, progress=not args.quiet, llm_url=args.llm_url,
                          llm_model=args.llm_model)
    markdown = to_markdown(report)
    print(markdown)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=2), encoding="utf-8")
    if args.md_out:
        Path(args.md_out).write_text(markdown, encoding="utf-8")
    if args.jsonl_out:
        with open(args.jsonl_out, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(p) + "\n" for p in preds)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    args = _parser().parse_args(argv)
    try:
        return _bench(args) if args.command == "bench" else _check(args)
    except HalguardError as exc:
        print(f"halguard: error: {exc}", file=sys.stderr)
        return EXIT_UNVERIFIED
    except Exception as exc:  # noqa: BLE001 - a crash is not a verdict: 2, never 1 ("hallucinated")
        print(f"halguard: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_UNVERIFIED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
