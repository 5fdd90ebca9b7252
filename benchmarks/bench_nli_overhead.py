"""What ``nli:`` costs next to the built-in claim checker: a 10 KB context and a 5-claim answer, one torch thread.

    HF_HUB_OFFLINE=1 python benchmarks/bench_nli_overhead.py [--repeats 7] [--json-out FILE]

Detectors, each warmed up, then checked ``--repeats`` times with every cache emptied before each check (the
embeddings and the claim scores: each check does all its work):

- ``built-in``: ``LocalVerifier(meaning=True)``, halguard's shipped checker (int8, one pair per pass);
- ``nli:<export>``: the same checker exported (``export_claim_checker``) and loaded by path through the generic
  loader; its scores must equal the built-in's (checked here too);
- ``nli:<minilm-size fp32>``: a sequence-classification BERT of MiniLM's size (6 layers, 384 wide, MiniLM's
  tokenizer; random weights: the cost does not depend on them), as a third-party model runs by default (fp32,
  8 pairs per pass);
- the same model with ``int8=True``.

Medians and ratios against ``built-in`` of the same run. The issue's target: an ``nli:`` model of MiniLM size
within 1.3x of the built-in checker's time (the claims, the evidence search and the windows are shared, not
redone).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONTEXT_CHARS = 10_000


def inputs() -> tuple[list[str], str]:
    """About 10 KB of passages (the dev examples' contexts, in file order) and a 5-claim answer drawn from them,
    one number changed."""
    passages, total = [], 0
    with open(ROOT / "tests" / "data" / "dev_examples.jsonl", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    for row in rows * 4:
        for text in row["context"]:
            if total >= CONTEXT_CHARS:
                break
            if text not in passages:
                passages.append(text)
                total += len(text)
    from halguard.text.segment import split_sentences

    sentences = [p[s:e] for p in passages for s, e in split_sentences(p)
                 if 40 <= e - s <= 200 and p[e - 1] == "." and p[s].isupper()][:5]
    answer = " ".join(sentences)
    for digit in "0123456789":  # one changed number: a claim the checker must catch
        if digit in answer:
            answer = answer.replace(digit, str((int(digit) + 3) % 10), 1)
            break
    return passages, answer


def minilm_size_model(folder: Path) -> Path:
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from halguard.grounding.embedding import default_model_path

    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    config = BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                        intermediate_size=1536, max_position_embeddings=512, id2label=labels,
                        label2id={v: k for k, v in labels.items()})
    BertForSequenceClassification(config).eval().save_pretrained(folder, safe_serialization=True)
    AutoTokenizer.from_pretrained(str(default_model_path())).save_pretrained(folder)
    return folder


def timed(detectors: dict, passages: list[str], answer: str, repeats: int) -> tuple[dict, dict]:
    """Per detector: the check times (ms) and its last verdict. Round-robin over the detectors, after one untimed
    check each, so the process-wide text memos (sentence scopes, role frames) are as warm for one as for another."""
    from halguard.grounding.embedding import LocalEmbedder
    from halguard.grounding.meaning import ClaimChecker

    for det in detectors.values():
        det.warm_up()
        det.verify(answer, passages)
    times: dict[str, list[float]] = {name: [] for name in detectors}
    verdicts = {}
    for _ in range(repeats):
        for name, det in detectors.items():
            LocalEmbedder.clear_shared_caches()
            ClaimChecker.clear_shared_caches()  # and every entailment scorer's
            started = time.perf_counter()
            verdicts[name] = det.verify(answer, passages)
            times[name].append((time.perf_counter() - started) * 1000)
    return times, verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json-out", default=None)
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    from halguard import LocalVerifier
    from halguard.grounding.entailment_detector import EntailmentDetector
    from halguard.grounding.meaning import export_claim_checker

    passages, answer = inputs()
    tmp = Path(tempfile.mkdtemp(prefix="bench-nli-"))
    export = export_claim_checker(tmp / "checker")
    minilm = minilm_size_model(tmp / "minilm-size")
    detectors = {
        "built-in (LocalVerifier(meaning=True))": LocalVerifier(meaning=True, num_threads=1),
        "nli:<exported checker>": EntailmentDetector(export, num_threads=1),
        "nli:<MiniLM-size model, fp32>": EntailmentDetector(minilm, num_threads=1),
        "nli:<MiniLM-size model, int8=True>": EntailmentDetector(minilm, num_threads=1, int8=True),
    }
    times, verdicts = timed(detectors, passages, answer, args.repeats)
    results = {name: {"median_ms": round(statistics.median(t), 1), "min_ms": round(min(t), 1)}
               for name, t in times.items()}
    base = results["built-in (LocalVerifier(meaning=True))"]["median_ms"]
    for r in results.values():
        r["ratio_to_built_in"] = round(r["median_ms"] / base, 3)
    names = list(detectors)
    same = (verdicts[names[0]].model_dump(exclude={"latency_ms", "detector", "usage"})
            == verdicts[names[1]].model_dump(exclude={"latency_ms", "detector", "usage"}))
    claims = len(verdicts[names[0]].claims)
    report = {"context_chars": sum(len(p) for p in passages), "passages": len(passages), "claims": claims,
              "repeats": args.repeats, "torch_threads": 1, "exported_checker_identical": same, "results": results}
    print(f"context {report['context_chars']} characters in {len(passages)} passages, {claims} claims, "
          f"{args.repeats} checks each, one thread, caches emptied before each check")
    print("| detector | median ms | ratio to built-in |\n|---|---:|---:|")
    for name, r in results.items():
        print(f"| {name} | {r['median_ms']} | {r['ratio_to_built_in']} |")
    print(f"exported checker's verdict identical to the built-in's: {same}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
