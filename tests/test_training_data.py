"""The claim checker's training data builders (training/): contrast edits and dev pairs, without any model."""

from __future__ import annotations

import random

from training import contrast
from training.dev_pairs import pairs_of

SENTENCE = "Northwind Logistics acquired Palmera Freight in March 2019 for 7 million dollars."
DOC = contrast.doc_info(SENTENCE + " Orion Labs was founded in 2004 and employs 1,200 people.")


def _applied(edit: contrast.Edit) -> list[str]:
    return [edit.text[a:b] for a, b in edit.spans]


def test_unsupported_edits_change_the_sentence_and_mark_what_changed():
    rng = random.Random(0)
    for name, make in contrast.UNSUPPORTED_EDITS.items():
        edit = make(SENTENCE, DOC, rng)
        if edit is None:
            continue
        assert edit.text != SENTENCE, name
        assert edit.spans and all(0 <= a < b <= len(edit.text) for a, b in edit.spans), name


def test_role_swap_keeps_the_words_and_swaps_the_names():
    edit = contrast.swap_roles("In 1066 William defeated Harold.", DOC, random.Random(0))
    assert edit.text == "In 1066 Harold defeated William."
    assert _applied(edit) == ["Harold", "William"]


def test_borrowed_names_and_numbers_come_from_the_same_document():
    edit = contrast.borrow_entity(SENTENCE, DOC, random.Random(1))
    assert _applied(edit)[0] in DOC.entities and _applied(edit)[0] not in SENTENCE


def test_negation_is_added_or_removed():
    added = contrast.negate("The plant was closed in 2010.", DOC, random.Random(0))
    assert "not" in added.text or "n't" in added.text
    removed = contrast.negate("The plant was not closed in 2010.", DOC, random.Random(0))
    assert removed.text == "The plant was closed in 2010."


def test_supported_edits_keep_the_facts_and_mark_nothing():
    rng = random.Random(0)
    assert contrast.number_words("They hired 7 engineers.", DOC, rng).text == "They hired seven engineers."
    assert contrast.date_format("It opened on March 4, 2019.", DOC, rng).text != "It opened on March 4, 2019."
    moved = contrast.move_leading_phrase("In 2015, the firm opened a depot.", DOC, rng)
    assert moved.text == "The firm opened a depot in 2015."
    for make in contrast.SUPPORTED_EDITS.values():
        edit = make(SENTENCE, DOC, rng)
        assert edit is None or edit.spans == []


def test_dev_pairs_label_ragtruth_claims_by_their_spans_and_keep_the_group():
    answer = "Northwind bought Palmera in 2019. It paid 9 million dollars."
    start = answer.index("It paid")
    row = {"id": "r1", "source_id": "s1", "task_type": "QA", "question": "Who bought Palmera?",
           "context": [SENTENCE], "answer": answer, "hallucinated": True,
           "labels": [{"start": start + 8, "end": start + 17, "text": "9 million"}]}
    pairs = pairs_of(row, "ragtruth")
    assert [p["label"] for p in pairs] == [1, 0]
    assert pairs[1]["claim"][slice(*pairs[1]["spans"][0])] == "9 million"
    assert {p["group"] for p in pairs} == {"source_id:s1"} and {p["fold"] for p in pairs} <= {0, 1}


def test_dev_pairs_skip_a_hallucinated_answer_of_several_claims_without_spans():
    row = {"id": "h1", "pair_id": "p1", "question": "Q?", "context": [SENTENCE], "hallucinated": True,
           "answer": "Northwind bought Palmera. It paid 9 million dollars.", "labels": []}
    assert pairs_of(row, "summedits") == []
    row["answer"] = "Northwind paid 9 million dollars."
    (pair,) = pairs_of(row, "summedits")
    assert pair["label"] == 0 and pair["spans_known"] is False


def test_premises_do_not_depend_on_the_hash_seed():
    """Chunk scores are summed exactly, so set iteration order (hash-seeded per process) picks no other premise."""
    import json
    import os
    import subprocess
    import sys

    code = ("from training.build_data import Passages; import json; "
            "texts = ['Alpha beta gamma delta. Beta gamma epsilon zeta. Gamma delta eta theta. Delta alpha iota.', "
            "'Kappa beta lambda gamma. Alpha delta mu nu.']; "
            "print(json.dumps([Passages(texts).premise(c) for c in "
            "['alpha beta gamma delta', 'gamma delta alpha', 'beta lambda mu']]))")
    outputs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                             cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))).stdout
        outputs.add(out)
        assert all(json.loads(out))
    assert len(outputs) == 1
