"""Build the meaning model's training pairs from the human-labelled sets in ``../shared/data/meaning``.

    python -m training.meaning_data --data ../shared/data/meaning --out .cache/training/meaning_pairs.jsonl

Each line: ``{premise, claim, label, spans, source, group, split}``. ``label`` is one of :data:`LABELS`:
``supported``, ``contradicted`` (the evidence says otherwise) or ``missing`` (the evidence does not say it).
``spans``: the claim's unsupported character spans ([] for a supported claim, None when unknown).

Every file is checked against the SHA-256 in the set's ``MANIFEST.json`` first. The sets and how they are read
(licenses and counts in docs/model-card.md):

- PAWS-Wiki: paraphrase -> supported, else missing (the same words with other roles; each direction at random).
- Counterfactually-augmented SNLI: entailment / contradiction / neutral (-> missing); its dev file is validation.
- Breaking NLI: one word replaced; its labels as they are.
- FEVER-Symmetric: SUPPORTS / REFUTES against the evidence sentence.
- WiCE: claims against their cited sentences; the token file's unsupported tokens become spans.
- BEGIN and the FaithDial audit: dialogue replies against their knowledge (generic replies left out).

Generated, on the evidence sentences of those sets (never on the dev files, so every dev figure stays out of
sample): FactCC-style contrast edits (:mod:`training.contrast`: names and numbers swapped or borrowed, negation,
antonyms, dates; and edits that keep the meaning) and HANS-style templates (:mod:`training.role_templates`).

Validation is grouped: a group (the sentence pairs were made from) is all train or all validation.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import re
from collections import Counter
from pathlib import Path

from training import contrast
from training.role_templates import template_pairs
from training.sources import require_sha256

__all__ = ["LABELS", "build", "read_sets"]

LABELS = ("supported", "contradicted", "missing")
SEED = 20261126
VALIDATION_SHARE = 0.1  # of each set's groups
# Generated pairs, sized against the human-labelled ~31k so that they teach binding without drowning the rest.
CONTRAST_SENTENCES = 6000
TEMPLATE_PAIRS = 6000
# A share of sentence-pair rows get an unrelated sentence beside the premise, so that the model also reads
# premises of several sentences (the verifier's evidence is 1-3 chunks), not only one matched sentence.
DISTRACTOR_SHARE = 0.3

_FEVER = {"SUPPORTS": "supported", "REFUTES": "contradicted", "NOT ENOUGH INFO": "missing"}
_NLI = {"entailment": "supported", "contradiction": "contradicted", "neutral": "missing"}
_DETOKENIZE = [(re.compile(r" -LRB- "), " ("), (re.compile(r" -RRB-"), ")"), (re.compile(r" -LSB- "), " ["),
               (re.compile(r" -RSB-"), "]"), (re.compile(r" ([,.;:!?%)])"), r"\1"), (re.compile(r"\( "), "("),
               (re.compile(r" 's\b"), "'s"), (re.compile(r"`` | ''"), '"'), (re.compile(r" -- "), " - ")]


def detokenize(text: str) -> str:
    """PTB-tokenized text (FEVER, PAWS) as people write it: "Walker (born 1964) is American."."""
    text = f" {text.strip()} "
    for pattern, repl in _DETOKENIZE:
        text = pattern.sub(repl, text)
    return " ".join(text.split())


def _row(premise: str, claim: str, label: str, source: str, group: str, spans=None) -> dict:
    if label == "supported":
        spans = []
    return {"premise": premise.strip(), "claim": claim.strip(), "label": label, "spans": spans, "source": source,
            "group": f"{source}:{group}"}


def _manifest(data: Path) -> dict[str, str]:
    return {entry["file"]: entry["sha256"] for entry in json.loads((data / "MANIFEST.json").read_text("utf-8"))}


def _open(data: Path, name: str, digests: dict[str, str]) -> Path:
    path = data / name
    require_sha256(path, digests[name])
    return path


def _bag(text: str) -> str:
    return " ".join(sorted(re.findall(r"\w+", text.lower())))


def paws(data: Path, digests, rng: random.Random) -> list[dict]:
    rows = []
    with _open(data, "paws-wiki/dev.tsv", digests).open(encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4:
                continue
            _, a, b, label = parts
            a, b = detokenize(a), detokenize(b)
            if rng.random() < 0.5:
                a, b = b, a
            # PAWS pairs are made by swapping words of one sentence: the same bag of words is one group.
            rows.append(_row(a, b, "supported" if label == "1" else "missing", "paws", _bag(a)))
    return rows


def cad_snli(data: Path, digests) -> list[dict]:
    rows = []
    for name, split in (("cad-snli/train.tsv", "train"), ("cad-snli/dev.tsv", "validation")):
        with _open(data, name, digests).open(encoding="utf-8") as fh:
            for rec in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
                label = _NLI.get(rec["gold_label"])
                if label:
                    # The original pair and its edits share premise or hypothesis: group by the original pair's
                    # hypothesis stem is not recorded, so the group is the premise's bag of content words.
                    row = _row(rec["sentence1"], rec["sentence2"], label, "cad-snli", _bag(rec["sentence1"])[:60])
                    row["split"] = split
                    rows.append(row)
    return rows


def breaking_nli(data: Path, digests) -> list[dict]:
    rows = []
    with _open(data, "breaking-nli/dataset.jsonl", digests).open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            label = _NLI.get(rec["gold_label"])
            if label:
                rows.append(_row(rec["sentence1"], rec["sentence2"], label, "breaking-nli", rec["sentence1"]))
    return rows


def fever_symmetric(data: Path, digests) -> list[dict]:
    rows = []
    for name in ("fever-symmetric/v0.1_full.jsonl", "fever-symmetric/v0.1_generated.jsonl",
                 "fever-symmetric/v0.2_dev.jsonl"):
        with _open(data, name, digests).open(encoding="utf-8") as fh:
            for line in fh:
                rec = json.loads(line)
                label = _FEVER.get(rec.get("label") or rec.get("gold_label"))
                evidence = rec.get("evidence_sentence") or rec.get("evidence")
                if not label or not evidence:
                    continue
                # A generated pair's id is its original's id plus 7 digits: one group per original claim.
                ident = str(rec["id"])
                group = ident[:-7] if name.endswith("generated.jsonl") and len(ident) > 7 else ident
                rows.append(_row(detokenize(evidence), detokenize(rec["claim"]), label, "fever", group))
    return rows


def _token_spans(claim: str, tokens: list[str], flags: list[bool]) -> list[tuple[int, int]] | None:
    spans, at = [], 0
    for token, flag in zip(tokens, flags):
        found = claim.find(token, at)
        if found < 0:
            return None
        at = found + len(token)
        if flag:
            if spans and found - spans[-1][1] <= 1:
                spans[-1] = (spans[-1][0], at)
            else:
                spans.append((found, at))
    return spans


def wice(data: Path, digests) -> list[dict]:
    rows = []
    for name in ("wice/claim_dev.jsonl", "wice/tokens_train.jsonl", "wice/tokens_dev.jsonl"):
        with _open(data, name, digests).open(encoding="utf-8") as fh:
            for line in fh:
                rec = json.loads(line)
                label = {"supported": "supported", "partially_supported": "missing",
                         "not_supported": "missing"}[rec["label"]]
                ids = sorted({i for group in rec.get("supporting_sentences") or [] for i in group})
                evidence = rec["evidence"]
                premise = " ".join(evidence[i] for i in ids if i < len(evidence))
                if not premise:  # not supported: the page's sentences that share the most words with the claim
                    words = set(re.findall(r"\w+", rec["claim"].lower()))
                    best = sorted(range(len(evidence)), key=lambda i: -len(words & set(
                        re.findall(r"\w+", evidence[i].lower()))))[:3]
                    premise = " ".join(evidence[i] for i in sorted(best))
                spans = None
                if "non_supported_spans" in rec and label != "supported":
                    spans = _token_spans(rec["claim"], rec["claim_tokens"], rec["non_supported_spans"]) or None
                rows.append(_row(premise[:1500], rec["claim"], label, "wice", rec["claim"], spans))
    return rows


def dialogue(data: Path, digests) -> list[dict]:
    rows = []
    for name in ("begin/wow_dev.tsv", "begin/cmu_dev.tsv", "begin/tc_dev.tsv"):
        with _open(data, name, digests).open(encoding="utf-8") as fh:
            for rec in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
                label = {"Fully attributable": "supported", "Not fully attributable": "missing"}.get(
                    rec.get("begin_label", ""))
                if label:
                    rows.append(_row(rec["knowledge"], rec["response"], label, "begin", rec["knowledge"]))
    for name in ("faithdial-audit/gold_wow.csv", "faithdial-audit/gold_cmu.csv", "faithdial-audit/gold_topical.csv"):
        with _open(data, name, digests).open(encoding="utf-8") as fh:
            for rec in csv.DictReader(fh):
                tag = rec.get("BEGIN", "")
                label = "supported" if tag == "Entailment" else "missing" if "Hallucination" in tag else None
                if label:
                    rows.append(_row(rec["evidence"], rec["response"], label, "faithdial", rec["evidence"]))
    return rows


def read_sets(data: Path, rng: random.Random) -> list[dict]:
    """Every human-labelled pair of the meaning sets."""
    digests = _manifest(data)
    return (paws(data, digests, rng) + cad_snli(data, digests) + breaking_nli(data, digests)
            + fever_symmetric(data, digests) + wice(data, digests) + dialogue(data, digests))


def contrast_pairs(rows: list[dict], rng: random.Random, limit: int = CONTRAST_SENTENCES) -> list[dict]:
    """FactCC-style edits of the sets' evidence sentences (the premise is the sentence, in its group)."""
    sentences = list({r["premise"]: r["group"] for r in rows if r["source"] in ("fever", "wice", "paws", "begin")
                      and 40 <= len(r["premise"]) <= 400}.items())
    rng.shuffle(sentences)
    out = []
    unsupported = list(contrast.UNSUPPORTED_EDITS.items())
    supported = list(contrast.SUPPORTED_EDITS.items())
    for sentence, group in sentences:
        if len(out) >= 2 * limit:
            break
        doc = contrast.doc_info(" ".join(s for s, _ in rng.sample(sentences, 3)) + " " + sentence)
        for table, keep in ((unsupported, False), (supported, True)):
            rng.shuffle(table)
            for kind, edit in table:
                made = edit(sentence, doc, rng)
                if made is None or made.text == sentence:
                    continue
                label = "supported" if keep else ("missing" if kind in ("scope",) else "contradicted")
                row = _row(sentence, made.text, label, "contrast", group, made.spans if not keep else [])
                row["kind"] = kind
                out.append(row)
                break
    return out


def join_groups(rows: list[dict]) -> None:
    """Merge groups that share a sentence (as premise or claim, in any set): PAWS and FEVER reuse a sentence in
    pairs of other groups, and a contrast edit shares its source's sentence; a sentence seen in training must
    not come back in validation. Each row's ``group`` becomes its component's first group."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:  # path compression, iteratively (no recursion on long chains)
            parent[x], x = root, parent[x]
        return root

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    def key(text: str) -> str:
        return "text:" + " ".join(re.findall(r"\w+", text.lower()))

    for row in rows:
        if row.get("split") is None:  # a set's own validation file keeps its split (CAD-SNLI's dev)
            union(row["group"], key(row["premise"]))
            union(row["group"], key(row["claim"]))
    for row in rows:
        if row.get("split") is None:
            row["group"] = find(row["group"])


def _split(group: str) -> str:
    digest = int(hashlib.sha256(group.encode("utf-8")).hexdigest()[:8], 16)
    return "validation" if digest % 1000 < VALIDATION_SHARE * 1000 else "train"


def _with_distractors(rows: list[dict], rng: random.Random) -> None:
    pool = [r["premise"] for r in rows if r["source"] in ("fever", "paws", "breaking-nli") and len(r["premise"]) < 300]
    for row in rows:
        if row["source"] in ("wice", "begin", "faithdial") or rng.random() >= DISTRACTOR_SHARE:
            continue
        other = rng.choice(pool)
        if other == row["premise"]:
            continue
        row["premise"] = f"{other} {row['premise']}" if rng.random() < 0.5 else f"{row['premise']} {other}"


def build(data: Path) -> list[dict]:
    """All pairs, seeded: the same files give the same rows in the same order."""
    rng = random.Random(SEED)
    rows = read_sets(data, rng)
    rows += contrast_pairs(rows, rng)
    rows += template_pairs(rng, TEMPLATE_PAIRS)
    join_groups(rows)
    for row in rows:
        row["split"] = row.get("split") or _split(row["group"])
    # Validation rows keep their premise as labelled; distractors only go into training rows.
    _with_distractors([r for r in rows if r["split"] == "train"], rng)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/meaning"))
    parser.add_argument("--out", type=Path, default=Path(".cache/training/meaning_pairs.jsonl"))
    args = parser.parse_args(argv)
    rows = build(args.data)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts = Counter((r["source"], r["split"], r["label"]) for r in rows)
    for key in sorted(counts):
        print(*key, counts[key], sep="\t")
    print("total", len(rows), sep="\t")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
