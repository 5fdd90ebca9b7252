"""The meaning model's training pipeline: the sets read as labelled pairs, the templates, and a trainer that
checkpoints, resumes to the same weights, and exports weights the claim checker loads.

Everything runs on tiny files made here (no ../shared): each set's file in its own format, with a MANIFEST of their
SHA-256 as the real folder has.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from training import meaning_data
from training.role_templates import template_pairs

PAWS = ("1\tNorthwind acquired Palmera Freight in 2019 .\tPalmera Freight acquired Northwind in 2019 .\t0\n"
        "2\tThe river flows north past the old mill .\tPast the old mill , the river flows north .\t1\n")
CAD = ("sentence1\tsentence2\tgold_label\n"
       "A man rides a red bike.\tA man rides a bike.\tentailment\n"
       "A man rides a red bike.\tA man rides a car.\tcontradiction\n"
       "A man rides a red bike.\tA man rides to work.\tneutral\n")
CAD_DEV = ("sentence1\tsentence2\tgold_label\n"
           "The boy kicks the ball.\tA boy plays soccer.\tentailment\n"
           "The boy kicks the ball.\tA boy plays cricket.\tcontradiction\n")
BNLI = json.dumps({"sentence1": "Two dogs run in the park.", "sentence2": "Two cats run in the park.",
                   "gold_label": "contradiction"}) + "\n"
FEVER = json.dumps({"id": "111897", "label": "REFUTES", "claim": "Telemundo is an English-language network .",
                    "evidence_sentence": "Telemundo -LRB- teleˈmundo -RRB- is an American Spanish-language "
                                         "network owned by Comcast ."}) + "\n"
FEVER_GENERATED = json.dumps({"id": "1118970000002", "label": "SUPPORTS",
                              "claim": "Telemundo is a Spanish-language network .",
                              "evidence_sentence": "Telemundo is an American Spanish-language network ."}) + "\n"
FEVER_V2 = json.dumps({"id": "54253", "claim": "Daggering is death metal .", "evidence": "It is dancehall music .",
                       "label": "REFUTES"}) + "\n"
WICE_CLAIMS = json.dumps({"label": "supported", "supporting_sentences": [[1]], "claim": "Media Play News covers home "
                          "entertainment.", "evidence": ["Skip to content", "Media Play News covers home "
                                                         "entertainment."]}) + "\n"
WICE_TOKENS = json.dumps({"label": "partially_supported", "supporting_sentences": [[0]],
                          "claim": "The audience consists of Australian ex-pats.",
                          "claim_tokens": ["The", "audience", "consists", "of", "Australian", "ex", "-", "pats", "."],
                          "non_supported_spans": [False, False, False, False, True, False, False, False, False],
                          "evidence": ["The audience consists of ex-pats."]}) + "\n"
BEGIN = ("model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label\n"
         "t5\twow\tCrayola began with chalk.\thi\tCrayola began with chalk.\tFully attributable\n"
         "t5\twow\tCrayola began with chalk.\thi\tCrayola began with paint.\tNot fully attributable\n"
         "t5\twow\tCrayola began with chalk.\thi\tI love art!\tGeneric\n")
FAITHDIAL = ("evidence,history,response,BEGIN,VRM\n"
             '"Lawyers apply legal theory.","hi","Lawyers apply legal theory.",Entailment,Edification\n'
             '"Lawyers apply legal theory.","hi","Lawyers earn a lot.",Hallucination,Disclosure\n')


@pytest.fixture
def meaning_dir(tmp_path):
    files = {"paws-wiki/dev.tsv": PAWS, "cad-snli/train.tsv": CAD, "cad-snli/dev.tsv": CAD_DEV,
             "breaking-nli/dataset.jsonl": BNLI, "fever-symmetric/v0.1_full.jsonl": FEVER,
             "fever-symmetric/v0.1_generated.jsonl": FEVER_GENERATED, "fever-symmetric/v0.2_dev.jsonl": FEVER_V2,
             "wice/claim_dev.jsonl": WICE_CLAIMS, "wice/tokens_train.jsonl": WICE_TOKENS,
             "wice/tokens_dev.jsonl": WICE_TOKENS, "begin/wow_dev.tsv": BEGIN, "begin/cmu_dev.tsv": BEGIN,
             "begin/tc_dev.tsv": BEGIN, "faithdial-audit/gold_wow.csv": FAITHDIAL,
             "faithdial-audit/gold_cmu.csv": FAITHDIAL, "faithdial-audit/gold_topical.csv": FAITHDIAL}
    manifest = []
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        manifest.append({"file": name, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()})
    (tmp_path / "MANIFEST.json").write_text(json.dumps(manifest), encoding="utf-8")
    return tmp_path


def test_each_set_is_read_with_its_labels(meaning_dir):
    rows = meaning_data.read_sets(meaning_dir, random.Random(0))
    by = {(r["source"], r["claim"]): r for r in rows}
    swapped = next(r for r in rows if r["source"] == "paws" and "acquired" in r["claim"])
    assert swapped["label"] == "missing"  # same words, other roles: not a paraphrase
    assert {r["label"] for r in rows if r["source"] == "cad-snli"} == {"supported", "contradicted", "missing"}
    assert by[("breaking-nli", "Two cats run in the park.")]["label"] == "contradicted"
    fever = [r for r in rows if r["source"] == "fever"]
    assert "(teleˈmundo)" in fever[0]["premise"] and " ." not in fever[0]["claim"]  # PTB tokens undone
    assert fever[0]["group"] == fever[1]["group"]  # a generated FEVER pair goes with its original
    wice = next(r for r in rows if r["source"] == "wice" and r["label"] == "missing")
    a, b = wice["spans"][0]
    assert wice["claim"][a:b] == "Australian"
    begin = [r["label"] for r in rows if r["source"] == "begin"]
    assert begin.count("supported") == 3 and begin.count("missing") == 3  # generic replies left out
    assert all(r["spans"] == [] for r in rows if r["label"] == "supported")


def test_a_changed_file_stops_the_build(meaning_dir):
    (meaning_dir / "paws-wiki" / "dev.tsv").write_text(PAWS + PAWS, encoding="utf-8")
    with pytest.raises(RuntimeError, match="SHA-256"):
        meaning_data.read_sets(meaning_dir, random.Random(0))


def test_build_is_seeded_and_splits_by_group(meaning_dir, monkeypatch):
    monkeypatch.setattr(meaning_data, "TEMPLATE_PAIRS", 200)
    first, second = meaning_data.build(meaning_dir), meaning_data.build(meaning_dir)
    assert first == second
    splits: dict[str, set] = {}
    for row in first:
        splits.setdefault(row["group"], set()).add(row["split"])
    assert all(len(s) == 1 for s in splits.values())  # a group is all train or all validation
    assert {r["split"] for r in first if r["source"] == "cad-snli"} == {"train", "validation"}
    # A sentence of the training part never comes back in validation (PAWS and FEVER reuse sentences).
    seen = {t for r in first if r["split"] == "train" for t in (r["claim"], r["premise"])}
    assert not [r for r in first if r["split"] == "validation" and r["claim"] in seen]


def test_templates_bind_roles_and_numbers():
    rows = template_pairs(random.Random(3), 400)
    swaps = [r for r in rows if r["kind"] == "roles" and r["label"] == "contradicted"]
    assert swaps and all(r["spans"] for r in swaps)
    for row in swaps:
        # Only word order changes: the claim's names are all in the premise.
        for a, b in row["spans"]:
            assert row["claim"][a:b] in row["premise"]
    symmetric = [r for r in rows if r["kind"] == "symmetric"]
    assert symmetric and all(r["label"] == "supported" for r in symmetric)
    numbers = [r for r in rows if r["kind"] == "numbers" and r["label"] == "contradicted"]
    assert all(r["claim"][r["spans"][0][0]:r["spans"][0][1]] in r["premise"] for r in numbers)


def _tiny_rows():
    rng = random.Random(5)
    rows = template_pairs(rng, 48)
    for i, row in enumerate(rows):
        row["split"] = "validation" if i % 6 == 0 else "train"
    return rows


@pytest.mark.slow
def test_training_resumes_to_the_same_weights_and_the_checker_loads_them(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    from halguard.grounding.meaning import ClaimChecker
    from training import train_meaning

    monkeypatch.setattr(train_meaning, "BATCH_SIZE", 8)
    monkeypatch.setattr(train_meaning, "EVAL_EVERY", 3)
    monkeypatch.setattr(train_meaning, "CHECKPOINT_EVERY", 2)
    rows = _tiny_rows()
    whole = train_meaning.train(rows, tmp_path / "whole", epochs=1, threads=1, log=lambda m: None)
    train_meaning.train(rows, tmp_path / "parts", epochs=1, threads=1, max_steps=3, log=lambda m: None)
    state = torch.load(tmp_path / "parts" / "state.pt", weights_only=False)
    assert state["step"] == 3
    parts = train_meaning.train(rows, tmp_path / "parts", epochs=1, threads=1, log=lambda m: None)
    assert parts.step == whole.step
    a, b = whole.network.trained_parameters(), parts.network.trained_parameters()
    assert set(a) == set(b) and any(k.startswith("encoder.encoder.layer.0.") for k in a)  # every layer trained
    assert all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)

    manifest = train_meaning.export(tmp_path / "whole", tmp_path / "weights", rows)
    assert manifest["classes"] == ["supported", "contradicted", "missing"] and manifest["trained_layers"] == 6
    checker = ClaimChecker(tmp_path / "weights")
    [score] = checker.score(["Anna Silva hired Boris Brandt."], ["Boris Brandt hired Anna Silva."], num_threads=1)
    assert 0.0 <= score.risk <= 1.0


def test_grouped_out_of_fold_scores_each_row_with_a_choice_made_without_its_group():
    import numpy as np

    from halguard.tools.calibrate import _fold
    from training.fit_combination import FOLDS, grouped_out_of_fold

    rows = [{"group": f"g{i // 3}", "value": float(i)} for i in range(60)]
    oof, chosen = grouped_out_of_fold(rows, lambda train: {r["group"] for r in train},
                                      lambda part, seen: np.array([float(r["group"] in seen) for r in part]))
    assert len(chosen) == FOLDS
    assert oof.tolist() == [0.0] * len(rows)  # no row's own group was among those its choice was made on
    assert all(_fold(r["group"], FOLDS) == k or r["group"] in chosen[k] for k in range(FOLDS) for r in rows)
