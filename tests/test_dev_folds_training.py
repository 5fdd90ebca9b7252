"""The dev-claims fine-tune (``training/dev_claims.py``, ``training/train_dev_folds.py``): the pairs recorded are the
ones the verifier's meaning step reads, labels follow the files' annotations, and one fold and the full model train,
score and export on a tiny pack (CPU, a few steps)."""

from __future__ import annotations

import gzip
import json

import pytest

import halguard.grounding.measured_claim as measured_claim
from training import dev_claims, train_dev_folds

CONTEXT = ["Northwind Logistics acquired Palmera Freight in March 2019 for 7 million dollars. The deal added 300 "
           "trucks to its fleet.", "Palmera Freight was founded in Lisbon in 1998."]
ANSWER = "Northwind bought Palmera Freight in 2019. The deal added 900 trucks."


def test_recording_reads_the_meaning_steps_pairs_and_puts_the_step_back():
    from halguard import LocalVerifier

    original = measured_claim.read_meaning
    verifier = LocalVerifier(meaning=True, num_threads=1)
    with dev_claims.recording_meaning() as recorded:
        verifier.verify(ANSWER, CONTEXT)
    assert measured_claim.read_meaning is original
    assert [text for *_, text in recorded] == ["Northwind bought Palmera Freight in 2019.",
                                               "The deal added 900 trucks."]
    start, end, own, premise, _ = recorded[1]
    assert ANSWER[start:end] == "The deal added 900 trucks." and own
    assert "300 trucks" in premise


def _row(**kw):
    row = {"file": "ragtruth", "in_span": False, "inside": [], "hallucinated": False, "claims": 2}
    row.update(kw)
    return row


@pytest.mark.parametrize(("row", "expected"), [
    (_row(), ("supported", [])),
    (_row(inside=None), ("supported", None)),
    (_row(in_span=True, inside=[[4, 9, "Evident Conflict"]]), ("contradicted", [[4, 9]])),
    (_row(in_span=True, inside=[[4, 9, "Subtle Baseless Info"]]), ("missing", [[4, 9]])),
    (_row(file="summedits"), ("supported", [])),
    (_row(file="summedits", hallucinated=True, claims=1), ("contradicted", None)),
    (_row(file="summedits", hallucinated=True, claims=2), (None, None)),
])
def test_labels_follow_the_annotations(row, expected):
    assert dev_claims.label_of(row) == expected


def _write(path, rows):
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)


@pytest.fixture
def pack(tmp_path):
    captures = tmp_path / "cap.jsonl"
    claims = [{"file": "ragtruth", "id": f"r{i}", "task": "QA", "group": f"g{i}", "fold": i % 2, "claim_index": 0,
               "claims": 1, "start": 0, "end": 26, "premise": CONTEXT[0], "claim": text, "hallucinated": bad,
               "inside": [[15, 18, "Evident Conflict"]] if bad else [], "in_span": bad, "kind": None}
              for i, (text, bad) in enumerate([("The deal added 300 trucks.", False),
                                               ("The deal added 900 trucks.", True)] * 2)]
    captures.write_text("".join(json.dumps(c) + "\n" for c in claims))
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({"premise": CONTEXT[1], "claim": claim, "label": label, "spans": None,
                                         "source": "fever", "group": claim, "split": split}) + "\n"
                             for claim, label, split in [("Palmera was founded in 1998.", "supported", "train"),
                                                         ("Palmera was founded in 1999.", "contradicted", "train"),
                                                         ("It was founded in Lisbon.", "supported", "validation"),
                                                         ("It was founded in Porto.", "contradicted", "validation")]))
    dev_claims.pack([captures], [captures], pairs, tmp_path / "gpu", replay=2, hand_train=[captures])
    return tmp_path


def test_pack_writes_claims_replay_hand_pairs_and_an_embedding_only_base(pack):
    data = pack / "gpu" / "data"
    claims = [json.loads(line) for line in gzip.open(data / "dev_claims.jsonl.gz", "rt")]
    assert [c["label"] for c in claims] == ["supported", "contradicted"] * 2
    assert claims[1]["key"] == "ragtruth|r1|0|26" and claims[1]["spans"] == [[15, 18]]
    replay = [json.loads(line) for line in gzip.open(data / "replay.jsonl.gz", "rt")]
    assert sorted(r["split"] for r in replay) == ["train", "train", "validation", "validation"]
    from safetensors.torch import load_file

    tensors = load_file(str(pack / "gpu" / "base" / "model.safetensors"))
    assert tensors and all("embeddings" in k for k in tensors)
    assert {str(v.dtype) for v in tensors.values()} == {"torch.float16"}
    hand = [json.loads(line) for line in gzip.open(data / "hand_train.jsonl.gz", "rt")]
    assert [h["label"] for h in hand] == ["supported", "contradicted"] * 2


def test_one_fold_and_the_full_model_train_score_and_export(pack):
    from safetensors.torch import load_file

    out = pack / "out"
    common = ["--data", str(pack / "gpu" / "data"), "--base", str(pack / "gpu" / "base"), "--weights",
              str(train_dev_folds.Path(measured_claim.__file__).parent / "meaning" / "weights"), "--out", str(out),
              "--train-seconds", "30"]
    train_dev_folds.VARIANTS["T"] = {"epochs": 1, "encoder_lr": 1e-5, "head_lr": 1e-4, "replay": 2, "dev_repeat": 1,
                                     "hand_repeat": 1}
    try:
        assert train_dev_folds.main([*common, "--job", "T:0"]) == 0
        assert train_dev_folds.main([*common, "--job", "T:all"]) == 0
        assert train_dev_folds.main([*common, "--job", "S:base"]) == 0  # the shipped model, scored as it is
    finally:
        del train_dev_folds.VARIANTS["T"]
    fold = json.loads((out / "job_T_0.json").read_text())
    assert [k for k, _ in fold["scores"]] == ["ragtruth|r0|0|26", "ragtruth|r2|0|26"]  # fold 0 only
    assert all(0.0 <= x <= 1.0 for _, x in fold["scores"]) and fold["steps_done"] == 1
    assert fold["train_rows"] == 2 + 2 + 4  # the other fold's claims, the replay pairs, the hand-written pairs
    full = json.loads((out / "job_T_all.json").read_text())
    assert len(full["hand"]) == 4 and set(full["validation"]) == {"fever"}
    parts = [load_file(str(out / f"weights_T_{i}.safetensors")) for i in (0, 1)]
    assert not set(parts[0]) & set(parts[1])
    assert any(k.startswith("claim_head") for part in parts for k in part)
    baseline = json.loads((out / "job_S_base.json").read_text())
    assert len(baseline["scores"]) == 4 and len(baseline["hand"]) == 4 and baseline["steps_done"] == 0
    assert not list(out.glob("weights_S_*"))
