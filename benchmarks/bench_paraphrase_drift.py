"""How many of a real model's rewordings survive the drift check, and whether halguard's usage counts match the server's.

    python benchmarks/bench_paraphrase_drift.py --llm-url URL [--model NAME] [--n 50] [--out drift.jsonl]

Questions: the first ``n/2`` distinct HaluEval QA questions and the first ``n/2`` RAGTruth QA questions of the
dev data (``--data``). For each, :class:`~halguard.ParaphraseConsistency` asks the model for 3 rewordings
(and once more when some drift), exactly as a check does; the answers are not sampled. Usage: every HTTP response
the OpenAI client receives is read by an httpx hook (the server's own ``usage`` fields and the request count) and
compared with halguard's meter. Prints the share kept, the drop reasons, calls and tokens, and writes every
rewording with its fate to ``--out`` for hand checking. Single-threaded; torch threads: 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import openai
import torch

from halguard import OpenAIChat, ParaphraseConsistency
from halguard.llm.providers import UsageMeter

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def questions(data: Path, n: int) -> list[str]:
    out: list[str] = []
    for name, task in (("halueval_qa_dev.jsonl", None), ("ragtruth_dev.jsonl", "QA")):
        picked = []
        with (data / name).open(encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                q = (row.get("question") or "").strip()
                if (task is None or row.get("task_type") == task) and q and q not in picked and q not in out:
                    picked.append(q)
                if len(picked) == n // 2:
                    break
        out += picked
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm-url", required=True)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=Path("paraphrase_drift.jsonl"))
    args = parser.parse_args()
    torch.set_num_threads(1)

    server = Counter()

    def count(response: httpx.Response) -> None:
        response.read()
        usage = response.json().get("usage") or {}
        server["requests"] += 1
        server["prompt_tokens"] += usage.get("prompt_tokens", 0)
        server["completion_tokens"] += usage.get("completion_tokens", 0)

    client = openai.OpenAI(base_url=args.llm_url, api_key="unused",
                           http_client=httpx.Client(event_hooks={"response": [count]}, timeout=120))
    chat = OpenAIChat(client, args.model, timeout=120, max_retries=0)
    checker = ParaphraseConsistency(paraphraser=chat, judge="local", n_paraphrases=3)
    meter = UsageMeter()
    kept_total = dropped_total = from_model = 0
    reasons: Counter[str] = Counter()
    t0 = time.perf_counter()
    with args.out.open("w", encoding="utf-8") as out:
        for i, q in enumerate(questions(args.data, args.n), 1):
            made = checker._paraphrase(q, meter)  # the paraphrase stage of a check, alone  # noqa: SLF001
            model_kept = made.from_model[:3]
            kept_total += len(model_kept)
            dropped_total += len(made.dropped)
            from_model += made.source == "model"
            reasons.update(d.reason.split(" (")[0].split(" '")[0] for d in made.dropped)
            out.write(json.dumps({"question": q, "source": made.source, "kept": model_kept,
                                  "dropped": [d.model_dump() for d in made.dropped]}, ensure_ascii=False) + "\n")
            out.flush()
            print(f"{i:3d} kept {len(model_kept)} dropped {len(made.dropped)} {made.source}", file=sys.stderr)
    seen = kept_total + dropped_total
    print(f"questions: {args.n}; rewordings judged: {seen}; kept {kept_total} ({kept_total / max(seen, 1):.0%}), "
          f"dropped {dropped_total}; all 3 from the model: {from_model}/{args.n}")
    print("drop reasons:", dict(reasons.most_common()))
    print(f"calls: halguard {meter.calls} / server {server['requests']}; prompt tokens {meter.input_tokens} / "
          f"{server['prompt_tokens']}; completion tokens {meter.output_tokens} / {server['completion_tokens']}")
    print(f"wall {time.perf_counter() - t0:.0f} s ({(time.perf_counter() - t0) / args.n:.1f} s per question)")


if __name__ == "__main__":
    main()
