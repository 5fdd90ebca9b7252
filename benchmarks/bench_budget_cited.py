"""The evidence budget on a small cited set built from RAGTruth QA dev rows, claim by claim, next to the local verifier.

    python benchmarks/bench_budget_cited.py --data ../shared/data/ragtruth_dev.jsonl --llm-url URL \
        [--llm-model NAME] [--per-class 8] [--miscite 4] [--skip 0] [--out report.json]

RAGTruth answers carry no bracket citations, so the set is built: the passages become spans ``P0..Pn``; each
sentence of the answer cites the passage its best local evidence is in (``[Pk]`` before its final punctuation).
A sentence is labelled hallucinated when it overlaps a labelled span. The set takes ``--per-class`` hallucinated
and as many clean answers (QA rows after the first ``--skip``, at most 10 sentences each). A mis-cited variant
takes the first ``--miscite`` clean answers and makes every sentence cite a passage other than its best one:
strict entailment against the cited passage should then flag claims the answer got right.

Reported: per-claim AUROC of ``budget_gap.min`` (the budget) and of the local verifier's claim risk, the budget's
flag rule's precision/recall, the mis-cited flag rate against the correctly cited one, and calls and seconds per
answer (median). Torch threads: 1 (the local verifier's encoder); the LLM server runs as it was started.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch

from halguard.budget import detect_hallucination
from halguard.grounding.verifier import LocalVerifier
from halguard.tools.metrics import auroc, binary_metrics

MAX_SENTENCES = 10


def _overlaps(start: int, end: int, labels: list[dict]) -> bool:
    return any(lab["start"] < end and start < lab["end"] for lab in labels)


def cite(answer: str, claims, passage_of) -> tuple[str, list[tuple[int, int, int, int]]]:
    """The answer with ``[Pk]`` before each claim's final punctuation (``passage_of(claim)`` gives k, or None),
    and the map (cited start, cited end, original start, original end) of each claim."""
    out, cursor, shift, spans = [], 0, 0, []
    for c in sorted(claims, key=lambda c: c.start):
        end = c.end
        while end > c.start and answer[end - 1] in ".!?\"')":
            end -= 1
        out.append(answer[cursor:end])
        k = passage_of(c)
        marker = f" [P{k}]" if k is not None else ""
        out.append(marker)
        spans.append((c.start + shift, c.end + shift + len(marker), c.start, c.end))
        shift += len(marker)
        cursor = end
    out.append(answer[cursor:])
    return "".join(out), spans


def _original(detail: dict, spans) -> tuple[int, int] | None:
    mid = (detail["start"] + detail["end"]) // 2
    return next(((o0, o1) for c0, c1, o0, o1 in spans if c0 <= mid < c1), None)


def select(rows: list[dict], per_class: int, skip: int, local: LocalVerifier) -> list[tuple[dict, object]]:
    qa = [r for r in rows if r["task_type"] == "QA"][skip:]
    chosen, counts = [], {True: 0, False: 0}
    for r in qa:
        if counts[r["hallucinated"]] >= per_class:
            continue
        verdict = local.verify(r["answer"], r["context"], question=r["question"])
        if not 0 < len(verdict.claims) <= MAX_SENTENCES:
            continue
        chosen.append((r, verdict))
        counts[r["hallucinated"]] += 1
    return chosen


def run(args: argparse.Namespace) -> dict:
    import openai

    from halguard.llm.providers import OpenAIChat

    torch.set_num_threads(1)
    with open(args.data, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    local = LocalVerifier()
    chat = OpenAIChat(openai.OpenAI(base_url=args.llm_url, api_key="unused"), args.llm_model, timeout=300,
                      max_retries=1, max_tokens=3)
    chosen = select(rows, args.per_class, args.skip, local)
    claims_out, answers_out = [], []
    miscite_left = args.miscite
    for r, verdict in chosen:
        ids = [f"P{i}" for i in range(len(r["context"]))]
        spans = [{"sid": sid, "text": text} for sid, text in zip(ids, r["context"])]

        def best(c, n=len(ids)):  # plain-string contexts are numbered "0", "1", ... by the local verifier
            source = c.evidence[0].source_id if c.evidence else None
            return int(source) if source is not None and source.isdigit() and int(source) < n else None

        def other(c, n=len(ids)):  # a passage other than the best one: a wrong citation
            return (best(c) + 1) % n if best(c) is not None else None

        variants = [("cited", best)]
        if not r["hallucinated"] and miscite_left > 0 and len(ids) > 1:
            miscite_left -= 1
            variants.append(("miscited", other))
        for variant, passage_of in variants:
            text, cmap = cite(r["answer"], verdict.claims, passage_of)
            t0 = time.perf_counter()
            report = detect_hallucination(text, spans, verifier=chat, timeout_s=900, max_concurrency=1)
            seconds = time.perf_counter() - t0
            answers_out.append({"id": r["id"], "variant": variant, "calls": report["summary"]["llm_calls"],
                                "seconds": round(seconds, 2), "flagged": report["flagged"],
                                "hallucinated": r["hallucinated"], "claims": len(report["details"])})
            for d in report["details"]:
                orig = _original(d, cmap)
                if orig is None or not d["scored"]:
                    continue
                local_claim = next((c for c in verdict.claims if (c.start, c.end) == orig), None)
                claims_out.append({"id": r["id"], "variant": variant, "claim": d["claim"],
                                   "hallucinated": _overlaps(*orig, r["labels"]), "flagged": d["flagged"],
                                   "gap_min": d["budget_gap"]["min"], "post_min": d["post_yes"]["min"],
                                   "prior_max": d["prior_yes"]["max"],
                                   "local_risk": local_claim.score if local_claim else None,
                                   "local_flagged": bool(local_claim and local_claim.status.is_flagged)})
            if not args.quiet:
                print(json.dumps(answers_out[-1]), flush=True)
    return summarise(claims_out, answers_out, chat.name)


def summarise(claims: list[dict], answers: list[dict], model: str) -> dict:
    cited = [c for c in claims if c["variant"] == "cited"]
    labels = [c["hallucinated"] for c in cited]
    out = {"model": model, "answers": len([a for a in answers if a["variant"] == "cited"]),
           "claims": len(cited), "hallucinated_claims": sum(labels),
           "budget_auroc": auroc(labels, [c["gap_min"] for c in cited]),
           "budget_post_auroc": auroc(labels, [1 - c["post_min"] for c in cited]),
           "budget_flag": binary_metrics(labels, [c["flagged"] for c in cited]),
           "local_auroc": auroc(labels, [c["local_risk"] for c in cited]),
           "local_flag": binary_metrics(labels, [c["local_flagged"] for c in cited]),
           "calls_per_answer_median": statistics.median(a["calls"] for a in answers if a["variant"] == "cited"),
           "seconds_per_answer_median": statistics.median(a["seconds"] for a in answers if a["variant"] == "cited")}
    mis = [c for c in claims if c["variant"] == "miscited" and not c["hallucinated"]]
    mis_ids = {c["id"] for c in mis}
    same = [c for c in cited if c["id"] in mis_ids and not c["hallucinated"]]
    if mis:
        out["miscited_clean_claims"] = len(mis)
        out["miscited_flag_rate"] = sum(c["flagged"] for c in mis) / len(mis)
        out["same_claims_cited_flag_rate"] = sum(c["flagged"] for c in same) / max(1, len(same))
    out["per_claim"] = claims
    out["per_answer"] = answers
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True)
    p.add_argument("--llm-url", required=True)
    p.add_argument("--llm-model", default="local")
    p.add_argument("--per-class", type=int, default=8)
    p.add_argument("--miscite", type=int, default=4)
    p.add_argument("--skip", type=int, default=0, help="skip the first N QA rows")
    p.add_argument("--out")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args()
    report = run(args)
    text = json.dumps(report, indent=1)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    print(json.dumps({k: v for k, v in report.items() if k not in ("per_claim", "per_answer")}, indent=1))


if __name__ == "__main__":
    main()
