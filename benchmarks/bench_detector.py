"""Benchmark a halguard detector on labelled JSONL files: the same as ``halguard bench``.

    python benchmarks/bench_detector.py ../shared/data/ragtruth_dev.jsonl ../shared/data/halueval_qa_dev.jsonl \\
        ../shared/data/summedits_dev.jsonl [--detector local|naive] [--limit N] [--task QA] [--json-out F]

Prints response-level precision/recall/F1 at the detector's threshold, AUROC, balanced accuracy, best F1
(overall, per file and per task type), span F1, p50/p95 latency, throughput, model load time, peak RSS.
"""

import sys

from halguard.tools.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
