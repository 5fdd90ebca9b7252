"""ONNX Runtime (fp32 and int8 dynamic quantisation) against torch for the bundled MiniLM: speed and agreement.

    python benchmarks/bench_onnx.py [--data ../shared/data/ragtruth_dev.jsonl] [--texts 400] [--threads 1 2]

The model is exported once from the bundled weights (``torch.onnx.export``, no hub) into a temporary folder and
quantised with ``onnxruntime.quantization.quantize_dynamic``; tokenisation is the model's own fast tokenizer,
pooling and normalisation as sentence-transformers does them (mean over the attention mask, then L2). The texts are
sentences and two-sentence windows of RAGTruth passages (the verifier's evidence chunks), encoded in batches of 8
(the verifier's batch size). Reported per thread count: milliseconds per text (median of 3 runs) and the ratio to
torch in the same run, and the cosine similarity of each backend's vectors to torch's (minimum and mean).
Needs ``onnx`` and ``onnxruntime`` (not halguard dependencies).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from halguard.grounding.embedding import LocalEmbedder, default_model_path
from halguard.text.contexts import chunk_source

BATCH = 8


def texts_from(path: str, n: int) -> list[str]:
    out: list[str] = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            for passage in json.loads(line)["context"]:
                out.extend(ch.text for ch in chunk_source(passage))
                if len(out) >= n:
                    return list(dict.fromkeys(out))[:n]
    return out


def export(model, tokenizer, folder: Path) -> tuple[Path, Path]:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    class Hidden(torch.nn.Module):  # keyword arguments: the positional order of forward() changes between versions
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    fp32, int8 = folder / "model.onnx", folder / "model-int8.onnx"
    sample = tokenizer(["a sample sentence", "another"], padding=True, return_tensors="pt")
    with torch.no_grad():
        torch.onnx.export(Hidden(model), (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]), str(fp32),
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["last_hidden_state"], opset_version=17, dynamo=False,
                          dynamic_axes={k: {0: "batch", 1: "seq"} for k in
                                        ("input_ids", "attention_mask", "token_type_ids", "last_hidden_state")})
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
    return fp32, int8


def ort_encode(session, tokenizer, texts: list[str], max_len: int) -> np.ndarray:
    out = []
    for i in range(0, len(texts), BATCH):
        enc = tokenizer(texts[i:i + BATCH], padding=True, truncation=True, max_length=max_len, return_tensors="np")
        hidden = session.run(None, {"input_ids": enc["input_ids"].astype(np.int64),
                                    "attention_mask": enc["attention_mask"].astype(np.int64),
                                    "token_type_ids": enc["token_type_ids"].astype(np.int64)})[0]
        mask = enc["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)
        out.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
    return np.vstack(out)


def timed(fn, repeats: int = 3) -> tuple[float, np.ndarray]:
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    import onnxruntime as ort

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data/ragtruth_dev.jsonl")
    ap.add_argument("--texts", type=int, default=400)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--out")
    args = ap.parse_args()
    texts = texts_from(args.data, args.texts)
    embedder = LocalEmbedder(default_model_path(), cache_bytes=1)  # a 1-byte cache: every encode computes
    st = embedder.model
    transformer, tokenizer = st[0].auto_model.eval(), st.tokenizer
    max_len = embedder.max_seq_length
    report = {"texts": len(texts), "batch": BATCH, "rows": []}
    with tempfile.TemporaryDirectory() as tmp:
        fp32, int8 = export(transformer, tokenizer, Path(tmp))
        for threads in args.threads:
            seconds, reference = timed(lambda t=threads: embedder.encode(texts, batch_size=BATCH, num_threads=t)[0])
            row = {"threads": threads, "torch_ms_per_text": round(seconds * 1000 / len(texts), 3)}
            for name, path in (("onnx_fp32", fp32), ("onnx_int8", int8)):
                options = ort.SessionOptions()
                options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
                session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
                secs, vecs = timed(lambda s=session: ort_encode(s, tokenizer, texts, max_len))
                cos = (vecs * reference).sum(1)
                row[name] = {"ms_per_text": round(secs * 1000 / len(texts), 3), "ratio_to_torch": round(secs / seconds, 3),
                             "cosine_min": round(float(cos.min()), 5), "cosine_mean": round(float(cos.mean()), 6)}
            report["rows"].append(row)
            print(json.dumps(row), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
