"""Claim pairs from the labelled development files, for stage 3 (in-domain) and its grouped cross-validation.

    python -m training.dev_pairs ../shared/data/{ragtruth_dev,halueval_qa_dev,summedits_dev}.jsonl \
        --out .cache/training/dev_pairs.jsonl

Each answer is split into claims as the verifier splits it (:func:`halguard.text.claims.extract_claims`), and each
claim gets its premise as in ``build_data`` (:class:`training.build_data.Passages`: the best chunks by shared rare
terms, joined in document order). Labels:

- RAGTruth: a claim overlapping an annotated span is unsupported, its token labels the span's characters; every
  other claim is supported (annotators marked every unsupported span of the answer).
- HaluEval QA and SummEdits (answer-level labels only): every claim of a supported answer is supported; a
  hallucinated answer of one claim gives an unsupported claim (no token labels); a hallucinated answer of several
  claims is left out (which of its claims is wrong is not known).

Every pair carries its row's cross-validation group (``halguard calibrate``'s :func:`group_of`) and the fold of
that group in :data:`FOLDS`-fold grouped cross-validation, so a model trained on some folds is only ever scored on
the others. HaluEval is subsampled (:data:`HALUEVAL_ROWS`, whole question pairs) so it does not drown the rest.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from halguard.text.claims import extract_claims
from halguard.tools.calibrate import _fold, group_of
from training.build_data import Passages

FOLDS = 2
HALUEVAL_ROWS = 1200  # of 4,000: whole pairs, the first ones in file order


def _texts(context) -> list[str]:
    return [c if isinstance(c, str) else json.dumps(c, ensure_ascii=False) for c in context]


def pairs_of(row: dict, source: str) -> list[dict]:
    question = None if row.get("question_is_generic_instruction") else row.get("question")
    claims = extract_claims(row["answer"], question).claims
    spans = [(lab["start"], lab["end"]) for lab in row.get("labels") or []]
    hallucinated = bool(row["hallucinated"])
    if source != "ragtruth" and hallucinated and len(claims) != 1:
        return []
    passages = Passages(_texts(row["context"]))
    group = group_of(row)
    out = []
    for claim in claims:
        premise = passages.premise(claim.check_text)
        if premise is None:
            continue
        if source == "ragtruth":
            inside = [(max(a, claim.start) - claim.start, min(b, claim.end) - claim.start)
                      for a, b in spans if a < claim.end and claim.start < b]
            label = 0 if inside else 1
            token_spans = inside if claim.check_text == claim.text else None
        else:
            label = 0 if hallucinated else 1
            token_spans = None
        out.append({"premise": premise, "claim": claim.check_text, "label": label, "kind": f"dev_{source}",
                    "source": source, "group": group, "fold": _fold(group, FOLDS),
                    "spans": [list(s) for s in token_spans] if token_spans else [],
                    "spans_known": label == 1 or token_spans is not None, "split": "train"})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=Path(".cache/training/dev_pairs.jsonl"))
    args = parser.parse_args(argv)
    pairs = []
    for path in args.files:
        source = path.stem.split("_")[0]
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        if source == "halueval":
            rows = rows[:HALUEVAL_ROWS]
        for row in rows:
            pairs.extend(pairs_of(row, source))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for p in pairs:
            fh.write(json.dumps(p, ensure_ascii=False) + "\n")
    for key, n in sorted(Counter((p["source"], p["label"], p["fold"]) for p in pairs).items()):
        print(*key, n, sep="\t")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
