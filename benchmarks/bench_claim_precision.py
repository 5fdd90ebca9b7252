"""How often each finding kind of the local verifier is right, claim by claim (issue 44).

    python benchmarks/bench_claim_precision.py ../shared/data/ragtruth_dev.jsonl \\
        [../shared/data/halueval_qa_dev.jsonl ../shared/data/summedits_dev.jsonl] [--limit N] [--json-out F]

A guard is judged by what it blocks, so every kind of finding is measured where it fires:

- **claim level**, on span-labelled rows (RAGTruth): a claim is *hallucinated* when a labelled span overlaps it,
  else *faithful*. Per finding kind (a claim's :class:`~halguard.schema.ClaimSignals` holding it, whether it
  blocked or not): claims with it that are faithful / hallucinated, and its precision (hallucinated share). Then the
  claims flagged (CONTRADICTION or HALLUCINATION): precision, faithful claims flagged, hallucinated claims caught;
  and CONTRADICTION alone (the status that blocks whatever the threshold).
- **claim level on one-claim answers**, on files labelled per answer (HaluEval, SummEdits): an answer of one claim is
  that claim, so its label is the claim's.
- **answer level**, on every file: per kind, faithful / hallucinated answers with it, and faithful answers flagged.
- **pooled**: the claim-level counts of every file added up, the figure :data:`halguard.grounding.scoring.
  FINDING_PRECISION` records.

A kind may block (CONTRADICTION, the floor, exemption from the many-claims correction) only where its claim-level
precision is at least :data:`halguard.grounding.scoring.BLOCKING_PRECISION` here (docs/how-it-works.md, "Which
findings block"). Nothing in the findings is fitted on these rows (they are rules), so the figures are not
in-sample fits; the answer thresholds come from the shipped calibration, whose out-of-fold figures are in
docs/evaluation.md. One torch thread, the default LocalVerifier.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import Counter

KINDS = ("missing_entities", "missing_numbers", "changed_numbers", "changed_number_in_copy", "name_swapped",
         "negation_mismatch", "antonym_flips", "record_conflicts", "record_unknowns", "hours_conflicts",
         "choice_conflicts", "role_conflicts", "moved_numbers", "arithmetic_errors", "novel_terms")


def kinds_of(signals) -> set[str]:
    """The finding kinds a claim's reported signals hold."""
    if signals is None:
        return set()
    return set(signals.findings) | ({"novel_terms"} if signals.novel_terms else set())


def overlaps(start: int, end: int, labels: list[dict]) -> bool:
    return any(lab["start"] < end and start < lab["end"] for lab in labels)


def _row_claims(verdict, row: dict) -> list[tuple[bool, str, set[str]]]:
    """(hallucinated, status, kinds) per claim of the verdict."""
    return [(overlaps(c.start, c.end, row["labels"]), c.status.value, kinds_of(c.signals)) for c in verdict.claims]


def run(path: str, verifier, limit: int | None, examples=None) -> dict:
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    rows = rows[:limit] if limit else rows
    spans = any(r.get("labels") for r in rows)
    claim_kinds = {k: Counter() for k in KINDS}
    claims = Counter()  # (hallucinated, status)
    answer_kinds = {k: Counter() for k in KINDS}
    single_kinds = {k: Counter() for k in KINDS}  # files without spans: one-claim answers, by the answer's label
    answers = Counter()  # (hallucinated, flagged)
    flagged_by_task = Counter()
    times = []
    for r in rows:
        t0 = time.perf_counter()
        v = verifier.verify(r["answer"], r["context"], question=r.get("question"))
        times.append((time.perf_counter() - t0) * 1000)
        hall = bool(r["hallucinated"])
        flagged = v.label == "hallucinated"
        answers[(hall, flagged)] += 1
        flagged_by_task[(r.get("task_type"), hall, flagged)] += 1
        seen: set[str] = set()
        single = not spans and len(v.claims) == 1  # a one-claim answer: its label is its claim's
        for c, (c_hall, status, ks) in zip(v.claims, _row_claims(v, r)):
            seen |= ks
            if single:
                for k in ks:
                    single_kinds[k][hall] += 1
            if examples is not None and ks and spans:
                examples.write(json.dumps({"id": r["id"], "task": r.get("task_type"), "hallucinated": c_hall,
                                           "status": status, "kinds": sorted(ks), "claim": c.text,
                                           "reasons": c.reasons[1:]}) + "\n")
            if spans:
                claims[(c_hall, status)] += 1
                for k in ks:
                    claim_kinds[k][c_hall] += 1
        for k in seen:
            answer_kinds[k][hall] += 1

    def prec(c: Counter) -> float | None:
        n = c[True] + c[False]
        return round(c[True] / n, 3) if n else None

    out: dict = {"file": os.path.basename(path), "rows": len(rows),
                 "median_ms": round(statistics.median(times), 1) if times else None}
    faithful_answers = answers[(False, True)] + answers[(False, False)]
    out["faithful_answers_flagged"] = round(answers[(False, True)] / max(faithful_answers, 1), 4)
    out["hallucinated_answers_flagged"] = round(
        answers[(True, True)] / max(answers[(True, True)] + answers[(True, False)], 1), 4)
    out["answer_kinds"] = {k: {"faithful": c[False], "hallucinated": c[True], "precision": prec(c)}
                           for k, c in answer_kinds.items() if c}
    tasks = sorted({t for t, _, _ in flagged_by_task})
    out["faithful_answers_flagged_by_task"] = {
        t: round(flagged_by_task[(t, False, True)] / max(flagged_by_task[(t, False, True)]
                                                         + flagged_by_task[(t, False, False)], 1), 4)
        for t in tasks}
    if not spans:
        out["claim_kinds"] = {k: {"faithful": c[False], "hallucinated": c[True], "precision": prec(c)}
                              for k, c in single_kinds.items() if c}
        out["claim_level"] = "one-claim answers, labelled by the answer"
    if spans:
        out["claim_level"] = "every claim, labelled by the spans"
        flagged_statuses = ("CONTRADICTION", "HALLUCINATION")
        tp = sum(n for (h, s), n in claims.items() if h and s in flagged_statuses)
        fp = sum(n for (h, s), n in claims.items() if not h and s in flagged_statuses)
        pos = sum(n for (h, _), n in claims.items() if h)
        neg = sum(n for (h, _), n in claims.items() if not h)
        ctp = claims[(True, "CONTRADICTION")]
        cfp = claims[(False, "CONTRADICTION")]
        out["claims"] = {"faithful": neg, "hallucinated": pos,
                         "flagged_precision": round(tp / max(tp + fp, 1), 3),
                         "faithful_flagged": round(fp / max(neg, 1), 4),
                         "hallucinated_caught": round(tp / max(pos, 1), 4),
                         "contradiction": {"faithful": cfp, "hallucinated": ctp,
                                           "precision": round(ctp / max(ctp + cfp, 1), 3)}}
        out["claim_kinds"] = {k: {"faithful": c[False], "hallucinated": c[True], "precision": prec(c)}
                              for k, c in claim_kinds.items() if c}
    return out


def table(result: dict) -> str:
    lines = [f"### {result['file']} ({result['rows']} answers)", "",
             "| finding kind | faithful claims | hallucinated claims | claim precision | faithful answers | "
             "hallucinated answers | answer precision |", "|---|---|---|---|---|---|---|"]
    ck, ak = result.get("claim_kinds", {}), result["answer_kinds"]
    for k in KINDS:
        c, a = ck.get(k), ak.get(k)
        if not c and not a:
            continue
        c = c or {"faithful": "-", "hallucinated": "-", "precision": "-"}
        a = a or {"faithful": 0, "hallucinated": 0, "precision": "-"}
        lines.append(f"| {k} | {c['faithful']} | {c['hallucinated']} | {c['precision']} | {a['faithful']} | "
                     f"{a['hallucinated']} | {a['precision']} |")
    lines.append("")
    lines.append(f"faithful answers flagged {result['faithful_answers_flagged']}, hallucinated answers flagged "
                 f"{result['hallucinated_answers_flagged']}, by task {result['faithful_answers_flagged_by_task']}")
    if "claims" in result:
        cl = result["claims"]
        lines.append(f"claims: {cl['faithful']} faithful, {cl['hallucinated']} hallucinated; flagged precision "
                     f"{cl['flagged_precision']}, faithful flagged {cl['faithful_flagged']}, hallucinated caught "
                     f"{cl['hallucinated_caught']}; CONTRADICTION {cl['contradiction']}")
    lines.append(f"median {result['median_ms']} ms per answer")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--json-out", default=None)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--examples", default=None, help="write each claim with a finding to this JSONL file")
    parser.add_argument("--meaning", action="store_true", help="LocalVerifier(meaning=True): with the claim checker")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    from halguard import LocalVerifier

    verifier = LocalVerifier(meaning=args.meaning)
    verifier.warm_up()
    results = []
    examples = open(args.examples, "w", encoding="utf-8") if args.examples else None  # noqa: SIM115
    for path in args.files:
        result = run(path, verifier, args.limit, examples)
        results.append(result)
        print(table(result), flush=True)
        print()
    if examples is not None:
        examples.close()
    if len(results) > 1:
        pooled: dict[str, Counter] = {}
        for result in results:
            for k, c in result.get("claim_kinds", {}).items():
                pooled.setdefault(k, Counter())
                pooled[k][False] += c["faithful"]
                pooled[k][True] += c["hallucinated"]
        print("### pooled claim level (every file)\n")
        print("| finding kind | faithful claims | hallucinated claims | claim precision |\n|---|---|---|---|")
        for k in KINDS:
            if k in pooled:
                n = pooled[k][False] + pooled[k][True]
                print(f"| {k} | {pooled[k][False]} | {pooled[k][True]} | {round(pooled[k][True] / n, 3)} |")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
