"""Fine-tune the meaning model on the development files' claims, in grouped folds, on a GPU.

    python training/train_dev_folds.py --data .gpu/data --base .gpu/base \
        --weights halguard/grounding/meaning/weights --out OUT [--variants A,B] [--parallel 12]

Standalone on purpose (torch, transformers, safetensors and numpy only; the network is read from
``halguard/grounding/meaning/network.py`` by path), so it runs on a lent GPU machine without halguard's
dependencies. ``--base`` is the bundled all-MiniLM-L6-v2's tokenizer, config and embedding table (fp16; every
encoder layer is replaced by the shipped claim checker's, so only the embeddings are read from it).

Data (``--data``, built here by ``training/dev_claims.py``):

- ``dev_claims.jsonl.gz``: every claim the verifier's meaning step reads on ``ragtruth_dev`` and
  ``summedits_dev``, with the premise it is read against, its label (``null``: not trained on: a claim of a
  hallucinated many-claim SummEdits answer, which of its claims is wrong is not known) and its grouped fold
  (``halguard calibrate``'s groups, 5 folds).
- ``replay.jsonl.gz``: a seeded sample of the meaning pairs' train split (``training/meaning_data.py``), trained
  on beside the claims so the model keeps what it learnt there, and their validation split (forgetting is
  measured on it).

Each variant (:data:`VARIANTS`) trains six models from the shipped claim checker: one per fold, without that
fold's claims, scoring the fold (the out-of-fold risks ``oof.jsonl.gz``), and one on every claim (its weights
written to ``OUT`` in fp16, split in two files under 16 MiB, and its risks on the hand-written files' pairs in
``hand.jsonl.gz`` when given). ``report.json``: per model, the validation AUROC per meaning set and the time.
``--baseline 1`` also scores every claim and hand-written pair with the shipped model as it is (job ``S``), for a
same-run comparison.

Neither run's models ship: docs/model-card.md, "What did not work", has the figures and why.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import math
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository's training package
from training.batching import length_sorted_batches  # noqa: E402

SEED = 20261130
FOLDS = 5
BATCH_SIZE = 32
WARMUP_SHARE = 0.06
WEIGHT_DECAY = 0.01
SPAN_LOSS_WEIGHT = 0.5
# Two variants, chosen before any run (no search on the out-of-fold figures beyond picking one of these two):
# gentle (the shipped model moved a little toward RAG claims, most replay) and strong (more epochs, a higher rate).
# A second run (H, G) adds the hand-written adversarial files kept for development (``hand_train.jsonl.gz``:
# paraphrases supported, fabrications not), with and without the dev claims; the held-out files stay out.
VARIANTS = {
    "A": {"epochs": 2, "encoder_lr": 3e-5, "head_lr": 3e-4, "replay": 12000, "dev_repeat": 2},
    "B": {"epochs": 4, "encoder_lr": 5e-5, "head_lr": 5e-4, "replay": 6000, "dev_repeat": 1},
    "H": {"epochs": 3, "encoder_lr": 4e-5, "head_lr": 4e-4, "replay": 8000, "dev_repeat": 1, "hand_repeat": 3},
    "G": {"epochs": 3, "encoder_lr": 4e-5, "head_lr": 4e-4, "replay": 8000, "dev_repeat": 0, "hand_repeat": 3},
}
# The baseline job ("S"): the shipped model scored as it is, no step trained.
_SCORE_ONLY = {"epochs": 0, "encoder_lr": 0.0, "head_lr": 0.0, "replay": 0, "dev_repeat": 0}
CLASSES = ("supported", "contradicted", "missing")


def _network_module(repo: Path):
    spec = importlib.util.spec_from_file_location("claim_network", repo / "halguard/grounding/meaning/network.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def build(repo: Path, base: Path, weights: Path, device: str):
    from safetensors.torch import load_file
    from transformers import AutoModel, AutoTokenizer

    net_mod = _network_module(repo)
    tokenizer = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
    encoder = AutoModel.from_pretrained(str(base), local_files_only=True).float()  # the table ships in fp16
    network = net_mod.ClaimCheckerNetwork(encoder, classes=3, trained_layers=len(encoder.encoder.layer))
    manifest = json.loads((weights / "manifest.json").read_text())
    trained = load_file(str(weights / manifest["weights"]))
    missing = set(network.trained_parameters()) - set(trained)
    if missing:
        msg = f"the shipped weights lack {sorted(missing)[:3]}"
        raise ValueError(msg)
    network.load_state_dict({k: v.float() for k, v in trained.items()}, strict=False)
    trained_names = set(network.trained_parameters())
    for name, param in network.named_parameters():
        param.requires_grad = name in trained_names
    return net_mod, network.to(device), tokenizer


def batches_of(rows: list[dict], rng: random.Random) -> list[list[dict]]:
    return length_sorted_batches(rows, rng, batch_size=BATCH_SIZE, window_batches=50)


@torch.inference_mode()
def predict(net_mod, network, tokenizer, rows: list[dict], device: str) -> np.ndarray:
    network.eval()
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]["premise"]) + len(rows[i]["claim"]))
    risk = np.zeros(len(rows), dtype=np.float64)
    for i in range(0, len(order), 128):
        idx = order[i:i + 128]
        enc = net_mod.encode_pairs(tokenizer, [rows[j]["premise"] for j in idx], [rows[j]["claim"] for j in idx])
        enc = {k: v.to(device) for k, v in enc.items()}
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=device == "cuda"):
            logits, _ = network(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"], enc["claim_mask"])
        risk[idx] = 1.0 - torch.softmax(logits.float(), dim=-1)[:, 0].cpu().numpy()
    network.train()
    return risk


def auroc(labels: list[bool], scores: list[float]) -> float:
    """The rank statistic, ties averaged (halguard.tools.metrics.auroc; this script does not import halguard)."""
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    if not pos or not neg:
        return float("nan")
    ranks = np.argsort(np.argsort(np.array(pos + neg), kind="mergesort"), kind="mergesort") + 1.0
    values = np.array(pos + neg)
    for v in np.unique(values):
        same = values == v
        if same.sum() > 1:
            ranks[same] = ranks[same].mean()
    return float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def train_one(args, variant: str, fold: int | None) -> dict:
    """Train one model (``fold``: leave that fold out; None: every claim) and score what it is scored on."""
    settings = VARIANTS.get(variant, _SCORE_ONLY)
    seed = SEED + (fold if fold is not None else 9) + 100 * ord(variant)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.set_num_threads(1)
    net_mod, network, tokenizer = build(args.repo, args.base, args.weights, device)
    claims = _read(args.data / "dev_claims.jsonl.gz")
    replay = _read(args.data / "replay.jsonl.gz")
    rng = random.Random(seed)
    train_claims = [r for r in claims if r["label"] is not None and (fold is None or r["fold"] != fold)]
    replay_train = [r for r in replay if r["split"] == "train"]
    rng.shuffle(replay_train)
    rows = train_claims * settings["dev_repeat"] + replay_train[:settings["replay"]]
    if settings.get("hand_repeat"):
        rows += _read(args.data / "hand_train.jsonl.gz") * settings["hand_repeat"]
    if args.max_rows:
        rows = rows[:args.max_rows]
    trainable = [(n, p) for n, p in network.named_parameters() if p.requires_grad]
    heads = [p for n, p in trainable if n.startswith(("claim_head", "span_head"))]
    layers = [p for n, p in trainable if not n.startswith(("claim_head", "span_head"))]
    optimizer = torch.optim.AdamW([{"params": layers, "lr": settings["encoder_lr"]},
                                   {"params": heads, "lr": settings["head_lr"]}], weight_decay=WEIGHT_DECAY)
    steps_per_epoch = math.ceil(len(rows) / BATCH_SIZE)
    total = settings["epochs"] * steps_per_epoch
    warmup = max(1, int(total * WARMUP_SHARE))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / max(1, total - warmup))))
    started = time.perf_counter()
    network.train()
    losses = []
    stopped_early = False
    for epoch in range(settings["epochs"]):
        if stopped_early:
            break
        for batch in batches_of(rows, rng):
            if time.perf_counter() - started > args.train_seconds:  # a bounded run: score what there is
                stopped_early = True
                break
            spans = [None if r.get("spans") is None else [tuple(s) for s in r["spans"]] for r in batch]
            enc = net_mod.encode_pairs(tokenizer, [r["premise"] for r in batch], [r["claim"] for r in batch], spans)
            enc = {k: v.to(device) for k, v in enc.items()}
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=device == "cuda"):
                logits, token_logits = network(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"],
                                               enc["claim_mask"])
            target = torch.tensor([CLASSES.index(r["label"]) for r in batch], device=device)
            loss = nn.functional.cross_entropy(logits.float(), target)
            known = enc["token_labels"] >= 0
            if known.any():
                loss = loss + SPAN_LOSS_WEIGHT * nn.functional.binary_cross_entropy_with_logits(
                    token_logits.float()[known], enc["token_labels"][known])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(layers + heads, 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(loss.item())
    seconds = time.perf_counter() - started
    result = {"variant": variant, "fold": fold, "train_rows": len(rows), "steps": total,
              "steps_done": len(losses), "stopped_early": stopped_early,
              "seconds": round(seconds, 1), "last_loss": round(float(np.mean(losses[-50:])), 4) if losses else None}
    validation = [r for r in replay if r["split"] == "validation"]
    risk = predict(net_mod, network, tokenizer, validation, device)
    result["validation"] = {
        src: round(auroc([validation[i]["label"] != "supported" for i in idx], [risk[i] for i in idx]), 4)
        for src in sorted({r["source"] for r in validation})
        for idx in [[i for i, r in enumerate(validation) if r["source"] == src]]}

    def keyed_risks(rows: list[dict]) -> list[list]:
        risks = predict(net_mod, network, tokenizer, rows, device)
        return [[r["key"], round(float(x), 5)] for r, x in zip(rows, risks)]

    hand_path = args.data / "hand_pairs.jsonl.gz"
    if fold is not None:  # out of fold: the fold's claims
        result["scores"] = keyed_risks([r for r in claims if r["fold"] == fold])
        return result
    if variant == "S":  # the shipped model as it is: every claim, for the same-run baseline
        result["scores"] = keyed_risks(claims)
    if hand_path.is_file():
        result["hand"] = keyed_risks(_read(hand_path))
    if variant != "S":
        from safetensors.torch import save_file
        params = {k: v.detach().to("cpu", torch.float16).contiguous() for k, v in network.trained_parameters().items()}
        names = sorted(params)
        half = [names[: len(names) // 2], names[len(names) // 2:]]
        for part, keys in enumerate(half):
            save_file({k: params[k] for k in keys}, str(args.out / f"weights_{variant}_{part}.safetensors"),
                      metadata={"format": "pt"})
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--weights", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--variants", default="A,B")
    parser.add_argument("--job", default=None, help="VARIANT:FOLD (FOLD 'all'): one model, its result to --out")
    parser.add_argument("--parallel", type=int, default=12)
    parser.add_argument("--baseline", type=int, choices=(0, 1), default=1, help="score the shipped model too")
    parser.add_argument("--max-rows", type=int, default=0, help="a smoke test: train on this many rows only")
    parser.add_argument("--folds", type=int, default=FOLDS, help="a smoke test: fewer folds")
    parser.add_argument("--train-seconds", type=float, default=300.0, help="each model's training time cap")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.job:
        variant, fold = args.job.split(":")
        result = train_one(args, variant, None if fold in ("all", "base") else int(fold))
        (args.out / f"job_{variant}_{fold}.json").write_text(json.dumps(result))
        return 0
    import subprocess

    folds = [*map(str, range(args.folds)), "all"]
    jobs = ["S:base"] * args.baseline + [f"{v}:{f}" for v in args.variants.split(",") for f in folds]
    started = time.perf_counter()
    running: list[tuple[str, subprocess.Popen]] = []
    failed = []
    base_cmd = [sys.executable, __file__, "--data", str(args.data), "--base", str(args.base), "--weights",
                str(args.weights), "--out", str(args.out), "--repo", str(args.repo), "--max-rows", str(args.max_rows),
                "--train-seconds", str(args.train_seconds)]
    pending = list(jobs)
    while pending or running:
        while pending and len(running) < args.parallel:
            job = pending.pop(0)
            log = open(args.out / f"log_{job.replace(':', '_')}.txt", "w")
            running.append((job, subprocess.Popen([*base_cmd, "--job", job], stdout=log, stderr=subprocess.STDOUT)))
        time.sleep(1)
        for job, proc in running[:]:
            if proc.poll() is not None:
                running.remove((job, proc))
                print(f"{job} exit {proc.returncode} at {time.perf_counter() - started:.0f}s", flush=True)
                if proc.returncode:
                    failed.append(job)
    oof, hand, report = [], [], []
    for job in jobs:
        path = args.out / f"job_{job.replace(':', '_')}.json"
        if not path.is_file():
            continue
        result = json.loads(path.read_text())
        variant = result["variant"]
        oof.extend({"variant": variant, "key": k, "risk": x} for k, x in result.pop("scores", []))
        hand.extend({"variant": variant, "key": k, "risk": x} for k, x in result.pop("hand", []))
        report.append(result)
        path.unlink()
    for name, rows in (("oof", oof), ("hand", hand)):
        with gzip.open(args.out / f"{name}.jsonl.gz", "wt", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in rows)
    logs = {p.name: p.read_text()[-3000:] for p in sorted(args.out.glob("log_*.txt"))}
    for p in args.out.glob("log_*.txt"):
        p.unlink()
    summary = {"seconds": round(time.perf_counter() - started, 1), "failed": failed, "models": report,
               "logs_of_failed": {k: v for k, v in logs.items() if any(j.replace(':', '_') in k for j in failed)}}
    (args.out / "report.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: summary[k] for k in ("seconds", "failed")}), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
