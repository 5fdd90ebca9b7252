"""Plain generation against active generation (validate and repair while generating) on dev questions whose
contexts are known, with a real model behind an OpenAI-compatible server.

    python benchmarks/bench_active.py --llm-url URL [--llm-model NAME] [--halueval N] [--ragtruth N] [--out F]

Each question is answered twice from the same prompt: plainly (one call) and by :class:`halguard.ActiveGenerator`
(whose first generation is the plain answer itself, served from a shared response cache, so both start from the
same text). Both answers are judged by the local verifier against the question's passages; the report gives the
hallucination rate of each, what the active loop did (validated, repaired, dropped sentences), its extra calls
and seconds per answer (medians), and every answer pair for reading by hand. The questions are the first
``--halueval`` distinct HaluEval QA dev questions and the first ``--ragtruth`` RAGTruth QA dev questions.
Torch threads: 1 (the local verifier's encoder).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch

from halguard import ActiveGenerator, LocalVerifier, ResponseCache
from halguard.active.evidence import EvidencePool
from halguard.active.prompts import answer_messages
from halguard.active.settings import DEFAULT_ACTIVE_SETTINGS
from halguard.text.contexts import normalize_contexts

MAX_TOKENS = 200


def questions(path_halueval: str, path_ragtruth: str, n_halueval: int, n_ragtruth: int) -> list[dict]:
    out, seen = [], set()
    with open(path_halueval, encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if r["pair_id"] in seen or len(out) >= n_halueval:
                continue
            seen.add(r["pair_id"])
            out.append({"id": r["pair_id"], "set": "halueval", "question": r["question"], "context": r["context"]})
    taken = 0
    with open(path_ragtruth, encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if r["task_type"] != "QA" or taken >= n_ragtruth or r["question"] in seen:
                continue
            seen.add(r["question"])
            taken += 1
            out.append({"id": r["id"], "set": "ragtruth", "question": r["question"], "context": r["context"]})
    return out


def run(args: argparse.Namespace) -> dict:
    import openai

    from halguard import OpenAIChat

    torch.set_num_threads(1)
    chat = OpenAIChat(openai.OpenAI(base_url=args.llm_url, api_key="unused"), args.llm_model, timeout=300,
                      max_retries=1, max_tokens=MAX_TOKENS)
    local = LocalVerifier()
    rows = []
    for q in questions(args.halueval_data, args.ragtruth_data, args.halueval, args.ragtruth):
        cache = ResponseCache()  # per question: the active run's first generation is the plain answer
        pool = EvidencePool()
        pool.add(normalize_contexts(q["context"]))
        # Exactly the active generator's first prompt, so its first generation is this answer (from the cache).
        messages = answer_messages(q["question"], pool.context(DEFAULT_ACTIVE_SETTINGS.evidence_chars * 2))
        t0 = time.perf_counter()
        plain = chat.chat(messages, top_logprobs=1, cache=cache).text.strip()
        plain_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        result = ActiveGenerator(chat, cache=cache).generate(q["question"], q["context"])
        active_s = time.perf_counter() - t0
        before = local.verify(plain, q["context"], question=q["question"])
        decisions = [s.decision for s in result.trace.sentences]
        rows.append({
            "id": q["id"], "set": q["set"], "question": q["question"], "plain": plain, "active": result.answer,
            "plain_label": before.label, "plain_risk": before.score,
            "active_label": result.verdict.label, "active_risk": result.verdict.score,
            "decisions": decisions, "extra_calls": result.trace.extra_calls, "logprobs": result.trace.logprobs,
            "budget_exhausted": result.trace.budget_exhausted,
            "plain_seconds": round(plain_s, 2), "active_extra_seconds": round(active_s, 2),
        })
        if not args.quiet:
            print(json.dumps({k: rows[-1][k] for k in ("id", "plain_label", "active_label", "decisions",
                                                       "extra_calls", "active_extra_seconds")}), flush=True)
    return summarise(rows, chat.name)


def _rate(rows: list[dict], key: str) -> float:
    return round(sum(r[key] == "hallucinated" for r in rows) / max(len(rows), 1), 3)


def summarise(rows: list[dict], model: str) -> dict:
    out: dict = {"model": model, "torch_threads": 1}
    for name in ("halueval", "ragtruth", "all"):
        part = [r for r in rows if name == "all" or r["set"] == name]
        if not part:
            continue
        decisions = [d for r in part for d in r["decisions"]]
        out[name] = {
            "answers": len(part),
            "plain_hallucinated": _rate(part, "plain_label"),
            "active_hallucinated": _rate(part, "active_label"),
            "changed_answers": sum(r["plain"] != r["active"] for r in part),
            "sentences": {d: decisions.count(d) for d in sorted(set(decisions))},
            "extra_calls_median": statistics.median(r["extra_calls"] for r in part),
            "plain_seconds_median": statistics.median(r["plain_seconds"] for r in part),
            "active_extra_seconds_median": statistics.median(r["active_extra_seconds"] for r in part),
        }
    out["rows"] = rows
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--llm-url", required=True)
    p.add_argument("--llm-model", default="local")
    p.add_argument("--halueval-data", default="../shared/data/halueval_qa_dev.jsonl")
    p.add_argument("--ragtruth-data", default="../shared/data/ragtruth_dev.jsonl")
    p.add_argument("--halueval", type=int, default=20)
    p.add_argument("--ragtruth", type=int, default=10)
    p.add_argument("--out")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args()
    report = run(args)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=1)
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=1))


if __name__ == "__main__":
    main()
