"""Build the claim-checking model's training pairs: ``(premise, claim, label, spans)``, one JSON line each.

    python -m training.build_data --out .cache/training/pairs.jsonl

Sources (licenses and counts in docs/model-card.md):

- HaluEval summarization (MIT): CNN/DailyMail articles with reference summaries. Each reference sentence, read
  against its best chunks of the article, is a *supported* abstractive claim; one contrast edit of it
  (:mod:`training.contrast`) an *unsupported* one. Article sentences give more pairs: a meaning-keeping edit
  (supported), a meaning-changing one, an invented causal link or clause, and the sentence read against the
  article with its own passage removed (no evidence: unsupported).
- HaluEval dialogue (MIT): knowledge and a right or a hallucinated response.

The evidence is chosen as the verifier chooses it, by shared rare terms (a lexical rank, as the candidate pass
does, instead of the embedding search, so building needs no model), and joined by
:func:`halguard.grounding.meaning.evidence.join_evidence`. Everything is seeded: the same files give the same
pairs, in the same order. No development file (../shared/data) is read: every dev figure stays out of sample.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections import Counter
from pathlib import Path

from halguard.grounding.candidates import key_terms
from halguard.grounding.meaning.evidence import join_evidence
from halguard.text.contexts import chunk_source
from halguard.text.segment import split_sentences
from training import contrast
from training.sources import fetch_halueval, read_jsonl

SEED = 20261123
# How much of each source is used: sized so that one epoch trains in about 15 minutes on 2 CPU cores.
SUMMARY_DOCS = 1600
SUMMARY_SENTENCES_PER_DOC = 2
ARTICLE_SENTENCES_PER_DOC = 2
DIALOGUE_ROWS = 1200
TOP_CHUNKS = 3
VALIDATION_SHARE = 0.05  # of the articles (and dialogues), grouped: a group's pairs are all train or all validation


class Passages:
    """Sources made ready to pick a claim's premise from, as the verifier's candidate pass ranks chunks: by the
    inverse document frequency of the terms a chunk shares with the claim (ties to the earlier chunk)."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.chunks = [(i, ch) for i, text in enumerate(texts)
                       for ch in chunk_source(text, sentences_per_chunk=2, max_chars=600)]
        self.terms = [key_terms(ch.text) for _, ch in self.chunks]
        df = Counter(t for ts in self.terms for t in ts)
        n = len(self.chunks)
        self.idf = {t: math.log(1 + n / c) for t, c in df.items()}

    def premise(self, claim: str, exclude=()) -> str | None:
        """The claim's premise from its best :data:`TOP_CHUNKS` chunks, or None when no chunk shares a term with it.

        ``exclude``: character spans of the first source whose chunks are left out (a sentence's own passage)."""
        terms = key_terms(claim)
        scored = []
        for i, (source, ch) in enumerate(self.chunks):
            if source == 0 and any(ch.start < e and s < ch.end for s, e in exclude):
                continue
            # fsum is exact, so the score does not depend on the set's (hash-seeded) iteration order: the same
            # files give the same premises in every process.
            score = math.fsum(self.idf[t] for t in terms & self.terms[i])
            if score > 0:
                scored.append((-score, i))
        if not scored:
            return None
        scored.sort()
        ranked = [(self.chunks[i][0], self.chunks[i][1].start, self.chunks[i][1].end) for _, i in scored[:TOP_CHUNKS]]
        return join_evidence(ranked, self.texts)


class Article(Passages):
    """One article: its passages, the sentences to edit, and the names and numbers an edit may borrow."""

    def __init__(self, text: str) -> None:
        super().__init__([text])
        self.text = text
        self.sentences = [(s, e) for s, e in split_sentences(text) if 8 <= len(text[s:e].split()) <= 45]
        self.doc = contrast.doc_info(text)


def _pair(premise, claim, label, kind, source, group, spans=()) -> dict:
    return {"premise": premise, "claim": claim, "label": label, "kind": kind, "source": source, "group": group,
            "spans": [list(s) for s in spans]}


def _first_edit(edits: dict, sentence: str, article: Article, rng: random.Random) -> contrast.Edit | None:
    """The first of ``edits``, in a seeded random order, that applies to the sentence and changes it."""
    kinds = list(edits)
    rng.shuffle(kinds)
    for kind in kinds:
        edit = edits[kind](sentence, article.doc, rng)
        if edit is not None and edit.text != sentence:
            return edit
    return None


def _unsupported_edit(sentence: str, article: Article, rng: random.Random) -> contrast.Edit | None:
    return _first_edit(contrast.UNSUPPORTED_EDITS, sentence, article, rng)


def _supported_edit(sentence: str, article: Article, rng: random.Random) -> contrast.Edit:
    return _first_edit(contrast.SUPPORTED_EDITS, sentence, article, rng) or contrast.Edit(sentence, [], "copy")


def _overlap(a: str, b: str) -> float:
    ta, tb = key_terms(a), key_terms(b)
    return len(ta & tb) / max(1, len(ta))


def summary_pairs(rows: list[dict], rng: random.Random) -> list[dict]:
    out: list[dict] = []
    for n, row in enumerate(rows):
        article = Article(row["document"])
        group = f"sum-{n}"
        summary = row["right_summary"]
        spans = split_sentences(summary)
        for s, e in rng.sample(spans, min(len(spans), SUMMARY_SENTENCES_PER_DOC)):
            claim = summary[s:e]
            premise = article.premise(claim)
            if premise is None:
                continue
            out.append(_pair(premise, claim, 1, "summary", "halueval_summarization", group))
            if rng.random() < 0.5:
                edit = _unsupported_edit(claim, article, rng)
                if edit is not None:
                    out.append(_pair(article.premise(edit.text) or premise, edit.text, 0, edit.kind,
                                     "halueval_summarization", group, edit.spans))
        picked = rng.sample(article.sentences, min(len(article.sentences), ARTICLE_SENTENCES_PER_DOC))
        for s, e in picked:
            sentence = article.text[s:e]
            kept = _supported_edit(sentence, article, rng) if rng.random() < 0.85 else contrast.Edit(sentence, [], "copy")
            premise = article.premise(kept.text)
            if premise is not None:
                out.append(_pair(premise, kept.text, 1, kept.kind, "halueval_summarization_article", group))
            roll = rng.random()
            if roll < 0.6:
                edit = _unsupported_edit(sentence, article, rng)
            elif roll < 0.72:
                others = [article.text[a:b] for a, b in article.sentences if (a, b) != (s, e)]
                edit = contrast.causal_link(sentence, rng.choice(others), rng) if others else None
            elif roll < 0.84:
                other_doc = rows[rng.randrange(len(rows))]["document"]
                candidates = [other_doc[a:b] for a, b in split_sentences(other_doc)[:12] if 6 <= len(other_doc[a:b].split()) <= 20]
                edit = contrast.invented_clause(sentence, rng.choice(candidates), rng) if candidates else None
            else:
                # No evidence: the article without the sentence's own passage, nor any sentence that repeats it.
                exclude = [(a, b) for a, b in split_sentences(article.text) if _overlap(sentence, article.text[a:b]) > 0.5]
                premise = article.premise(sentence, exclude=exclude)
                if premise is not None:
                    out.append(_pair(premise, sentence, 0, "no_evidence", "halueval_summarization_article", group,
                                     [(0, len(sentence))]))
                continue
            if edit is not None and edit.text != sentence:
                premise = article.premise(edit.text)
                if premise is not None:
                    out.append(_pair(premise, edit.text, 0, edit.kind, "halueval_summarization_article", group,
                                     edit.spans))
    return out


def dialogue_pairs(rows: list[dict]) -> list[dict]:
    out = []
    for n, row in enumerate(rows):
        premise = row["knowledge"][:1400]
        group = f"dia-{n}"
        out.append(_pair(premise, row["right_response"], 1, "dialogue", "halueval_dialogue", group))
        # The hallucinated response has no spans: its token labels are left out of the span loss.
        out.append(_pair(premise, row["hallucinated_response"], 0, "dialogue", "halueval_dialogue", group, []))
    return out


def build(cache: Path, rng: random.Random) -> list[dict]:
    files = fetch_halueval(cache)
    summaries = read_jsonl(files["dataset_halueval_summarization.jsonl"])
    dialogues = read_jsonl(files["dataset_halueval_dialogue.jsonl"])
    rng.shuffle(summaries)
    rng.shuffle(dialogues)
    pairs = summary_pairs(summaries[:SUMMARY_DOCS], rng) + dialogue_pairs(dialogues[:DIALOGUE_ROWS])
    groups = sorted({p["group"] for p in pairs})
    validation = set(random.Random(SEED + 1).sample(groups, int(len(groups) * VALIDATION_SHARE)))
    for p in pairs:
        p["split"] = "validation" if p["group"] in validation else "train"
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(".cache/training/pairs.jsonl"))
    parser.add_argument("--cache", type=Path, default=Path(".cache/training"))
    args = parser.parse_args(argv)
    pairs = build(args.cache, random.Random(SEED))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for p in pairs:
            fh.write(json.dumps(p, ensure_ascii=False) + "\n")
    counts = Counter((p["source"], p["kind"], p["label"]) for p in pairs)
    for key, c in sorted(counts.items()):
        print(*key, c, sep="\t")
    print("total", len(pairs), "supported", sum(p["label"] for p in pairs), sep="\t")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
