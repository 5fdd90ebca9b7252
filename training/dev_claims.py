"""The claims the meaning model reads on labelled files, and the data folder ``train_dev_folds.py`` trains on.

    python -m training.dev_claims capture ../shared/data/ragtruth_dev.jsonl .cache/training/cap_ragtruth.jsonl
    python -m training.dev_claims capture ../shared/data/summedits_dev.jsonl .cache/training/cap_summedits.jsonl
    python -m training.dev_claims capture benchmarks/adversarial/FILE.jsonl .cache/training/hand/FILE.jsonl
    python -m training.dev_claims pack .cache/training/cap_*.jsonl --hand .cache/training/hand/*.jsonl \
        --pairs .cache/training/meaning_pairs.jsonl --out .gpu \
        [--hand-train .cache/training/hand/DEV_FILE.jsonl ... --hand-sources benchmarks/adversarial/DEV_FILE.jsonl ...]

Both fine-tunes this made were measured and rejected (docs/model-card.md, "What did not work"); the scripts stay so
the figures can be reproduced.

``capture`` runs ``LocalVerifier(meaning=True)`` over a file with a stand-in checker and records, per claim the
model would read (:func:`halguard.grounding.measured_claim.read_meaning`: not a foreign-script claim, not a short
answer read with its question), the premise it is given and the claim text, exactly as the verifier builds them,
with the row's labels and its cross-validation group and fold (``halguard calibrate``'s, 5 folds).

``pack`` writes ``OUT/data`` (the claims with labels, a replay sample of the meaning pairs, the hand-written
files' pairs) and ``OUT/base`` (the bundled MiniLM's tokenizer, config and embedding table in fp16: the encoder
layers come from the shipped checker). Labels (:func:`label_of`):

- RAGTruth: a claim overlapping an annotated span is unsupported (``contradicted`` for a conflict label, else
  ``missing``), its token labels the span's characters; every other claim is supported.
- SummEdits (answer-level labels only): every claim of a faithful answer is supported; a hallucinated answer of
  one claim gives a ``contradicted`` claim (SummEdits edits change facts); a hallucinated answer of several claims
  is scored, never trained on (which of its claims is wrong is not known).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import random
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

REPLAY_SEED = 20261130
FOLDS = 5


@contextlib.contextmanager
def recording_meaning() -> Iterator[list[tuple]]:
    """While open, the verifier's meaning step records ``(start, end, own_text, premise, check_text)`` per claim it
    reads into the yielded list, and scores nothing (a neutral stand-in)."""
    import halguard.grounding.measured_claim as measured_claim
    from halguard.models.entailment import MeaningScore

    recorded: list[tuple] = []
    original = measured_claim.read_meaning

    class StandIn:
        last: tuple = ([], [])

        def score(self, premises, claims, **_):
            StandIn.last = (premises, claims)
            return [MeaningScore(0.5) for _ in claims]

    def read_meaning(job, claims, measured, checker, **kwargs):
        todo = [c for c, m in zip(claims, measured) if not m.foreign and len(m.idx) and not c.question_aware]
        original(job, claims, measured, StandIn(), **kwargs)
        if todo:
            for claim, premise, text in zip(todo, *StandIn.last):
                recorded.append((claim.start, claim.end, claim.text == claim.check_text, premise, text))

    measured_claim.read_meaning = read_meaning
    try:
        yield recorded
    finally:
        measured_claim.read_meaning = original


def capture(path: Path, out: Path) -> int:
    import torch

    from halguard import LocalVerifier
    from halguard.tools.calibrate import _fold, group_of

    torch.set_num_threads(1)
    name = path.stem.removesuffix("_dev")
    verifier = LocalVerifier(meaning=True, num_threads=1)
    count = 0
    with recording_meaning() as recorded, out.open("w", encoding="utf-8") as fh:
        for row in map(json.loads, path.open(encoding="utf-8")):
            recorded.clear()
            question = None if row.get("question_is_generic_instruction") else row.get("question")
            verifier.verify(row["answer"], row["context"], question=question)
            group = group_of(row)
            spans = [(lab["start"], lab["end"], lab.get("label_type", "")) for lab in row.get("labels") or []]
            for i, (start, end, own, premise, text) in enumerate(recorded):
                inside = [(max(a, start) - start, min(b, end) - start, kind) for a, b, kind in spans
                          if a < end and start < b]
                fh.write(json.dumps({
                    "file": name, "id": row["id"], "task": row.get("task_type"), "group": group,
                    "fold": _fold(group, FOLDS), "claim_index": i, "claims": len(recorded), "start": start,
                    "end": end, "premise": premise, "claim": text, "hallucinated": bool(row["hallucinated"]),
                    "inside": inside if own else None, "in_span": bool(inside),
                    "kind": row.get("group")}) + "\n")
                count += 1
    return count


def label_of(row: dict) -> tuple[str | None, list | None]:
    """``(label, unsupported character spans)`` of a captured claim (None: not trained on; spans None: unknown)."""
    if row["file"] == "ragtruth":
        if not row["in_span"]:
            return "supported", ([] if row["inside"] is not None else None)
        conflict = any("conflict" in kind.lower() for *_, kind in row["inside"] or [])
        spans = None if row["inside"] is None else [[a, b] for a, b, _ in row["inside"]]
        return ("contradicted" if conflict else "missing"), spans
    if not row["hallucinated"]:
        return "supported", []
    if row["claims"] == 1:
        return "contradicted", None
    return None, None


def key_of(row: dict) -> str:
    return f"{row['file']}|{row['id']}|{row['start']}|{row['end']}"


def _write_gz(path: Path, rows) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


# Kinds of hand-written fabrication that add what the context does not say (the rest say something else).
MISSING_KINDS = frozenset({"invented_clause", "scope_change", "invented_detail"})


def hand_training_rows(captures: list[Path], sources: list[Path]) -> list[dict]:
    """Labelled pairs of hand-written adversarial files (``sources``: the files, for each row's kind): a paraphrase's
    claims are supported; a fabrication of one claim is contradicted (or missing, :data:`MISSING_KINDS`); a
    fabrication of several claims is left out (which claim is wrong is not known)."""
    kinds = {(path.stem, row["id"]): row.get("kind") for path in sources
             for row in map(json.loads, path.open(encoding="utf-8"))}
    out = []
    for path in captures:
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        for row in rows:
            if row["hallucinated"] and row["claims"] != 1:
                continue
            kind = kinds.get((path.stem, row["id"]))
            label = ("missing" if kind in MISSING_KINDS else "contradicted") if row["hallucinated"] else "supported"
            out.append({"premise": row["premise"], "claim": row["claim"], "label": label,
                        "spans": None if row["hallucinated"] else [], "source": "hand"})
    return out


def pack(captures: list[Path], hand: list[Path], pairs: Path, out: Path, *, replay: int = 12000,
         hand_train: list[Path] = (), hand_sources: list[Path] = ()) -> None:
    from safetensors.torch import load_file, save_file

    from halguard.grounding.embedding import default_model_path

    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)
    claims = []
    for path in captures:
        for row in map(json.loads, path.open(encoding="utf-8")):
            label, spans = label_of(row)
            claims.append({"key": key_of(row), "fold": row["fold"], "premise": row["premise"], "claim": row["claim"],
                           "label": label, "spans": spans})
    _write_gz(data / "dev_claims.jsonl.gz", claims)
    rows = [json.loads(line) for line in pairs.open(encoding="utf-8")]
    train = [r for r in rows if r["split"] == "train"]
    random.Random(REPLAY_SEED).shuffle(train)
    keep = ("premise", "claim", "label", "spans", "source", "split")
    _write_gz(data / "replay.jsonl.gz", [{k: r[k] for k in keep} for r in
                                         train[:replay] + [r for r in rows if r["split"] == "validation"]])
    hand_rows = [{"key": key_of(r), "premise": r["premise"], "claim": r["claim"]}
                 for path in hand for r in map(json.loads, path.open(encoding="utf-8"))]
    _write_gz(data / "hand_pairs.jsonl.gz", hand_rows)
    if hand_train:
        _write_gz(data / "hand_train.jsonl.gz", hand_training_rows(list(hand_train), list(hand_sources)))
    base = out / "base"
    base.mkdir(parents=True, exist_ok=True)
    source = default_model_path()
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
        shutil.copy(source / name, base / name)
    tensors = load_file(str(source / "model.safetensors"))
    save_file({k: v.half().contiguous() for k, v in tensors.items() if "embeddings" in k},
              str(base / "model.safetensors"), metadata={"format": "pt"})
    print(f"{len(claims)} claims ({sum(c['label'] is not None for c in claims)} labelled), "
          f"{len(hand_rows)} hand-written pairs, replay {min(replay, len(train))}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    cap = sub.add_parser("capture")
    cap.add_argument("file", type=Path)
    cap.add_argument("out", type=Path)
    pk = sub.add_parser("pack")
    pk.add_argument("captures", type=Path, nargs="+")
    pk.add_argument("--hand", type=Path, nargs="*", default=[], help="captures of hand-written files")
    pk.add_argument("--pairs", type=Path, default=Path(".cache/training/meaning_pairs.jsonl"))
    pk.add_argument("--out", type=Path, default=Path(".gpu"))
    pk.add_argument("--hand-train", type=Path, nargs="*", default=[],
                    help="captures of hand-written files to train on (never the held-out ones)")
    pk.add_argument("--hand-sources", type=Path, nargs="*", default=[], help="those files themselves (their kinds)")
    args = parser.parse_args(argv)
    if args.step == "capture":
        print(capture(args.file, args.out), file=sys.stderr)
    else:
        pack(args.captures, args.hand, args.pairs, args.out, hand_train=args.hand_train,
             hand_sources=args.hand_sources)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
