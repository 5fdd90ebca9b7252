"""What taking echoes out of tool outputs costs real retrieval (issue 38): an agent that searches with the user's
question word for word, over the dev files' passages.

    HF_HUB_OFFLINE=1 python benchmarks/bench_echo_retrieval.py [../shared/data/ragtruth_dev.jsonl ...] [--threads 1]

Each row's question is recorded as the model's tool-call arguments (``ModelWords.add({"query": question})``) and
every passage is read as ``ModelWords.strip`` leaves it, as ``HalguardMiddleware`` reads a search tool's output.
For the rows where a passage changed, the default ``LocalVerifier`` checks the answer against the passages as given
and as stripped: labels that moved, and the AUROC of both on those rows. HaluEval's questions are written from its
passages' own sentences, the worst case for this rule; RAGTruth's are users' questions. One torch thread.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_FILES = [ROOT.parent / "shared" / "data" / n for n in ("ragtruth_dev.jsonl", "halueval_qa_dev.jsonl")]


def _auroc(labels: list[int], scores: list[float]) -> float | None:
    from sklearn.metrics import roc_auc_score

    return round(float(roc_auc_score(labels, scores)), 3) if len(set(labels)) == 2 else None


def measure(path: Path, verifier) -> dict:
    from halguard.text.echo import ModelWords

    rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    rows = [r for r in rows if r.get("question")]
    changed, removed, total = [], 0, 0
    for row in rows:
        written = ModelWords()
        written.add({"query": row["question"]})
        stripped = [written.strip(p) for p in row["context"]]
        total += sum(len(p) for p in row["context"])
        removed += sum(len(p) - len(s) for p, s in zip(row["context"], stripped))
        if stripped != row["context"]:
            changed.append((row, stripped))
    moved = {"supported -> hallucinated (faithful)": 0, "supported -> hallucinated (hallucinated)": 0,
             "hallucinated -> supported": 0, "-> unverified": 0}
    labels, given, read = [], [], []
    for row, stripped in changed:
        before = verifier.verify(row["answer"], row["context"], question=row["question"])
        after = verifier.verify(row["answer"], stripped, question=row["question"])
        labels.append(int(bool(row["hallucinated"])))
        given.append(0.5 if before.score is None else before.score)
        read.append(0.5 if after.score is None else after.score)
        if after.label == "unverified" and before.label != "unverified":
            moved["-> unverified"] += 1
        elif before.label == "supported" and after.label == "hallucinated":
            kind = "hallucinated" if row["hallucinated"] else "faithful"
            moved[f"supported -> hallucinated ({kind})"] += 1
        elif before.label == "hallucinated" and after.label == "supported":
            moved["hallucinated -> supported"] += 1
    return {"file": path.name, "rows": len(rows), "rows_with_a_passage_changed": len(changed),
            "faithful_rows_changed": labels.count(0), "share_of_passage_text_removed": round(removed / total, 5),
            "labels_moved": moved, "auroc_as_given": _auroc(labels, given) if changed else None,
            "auroc_as_stripped": _auroc(labels, read) if changed else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT_FILES)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    from halguard import LocalVerifier

    verifier = LocalVerifier()
    for path in args.files:
        print(json.dumps(measure(path, verifier), indent=2))


if __name__ == "__main__":
    main()
