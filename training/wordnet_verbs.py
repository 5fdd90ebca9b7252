"""Build the verb-relations table the role check uses to read one event said with another verb.

    python -m training.wordnet_verbs [--cache .cache/training] [--out halguard/text/wordnet/verbs.tsv.gz]

"Skylark Air flew 18.4m passengers in 2023" says what "Skylark Air carried 18.4 million passengers in 2023" says:
the same agent, patient and year, and a verb WordNet puts one level below the other ("fly": "transport by
aeroplane", a kind of "carry"). The word table (``related.tsv.gz``, :mod:`training.wordnet_lexicon`) keeps to words'
common senses and never licenses a more specific word, since a word alone does not say which sense is meant. Here
the frames say it: two verbs whose arguments are the same things are read in the sense that fits them, so a verb is
related to another where WordNet relates them in *any* sense, one step apart:

- the same synset ("retain" / "keep", "take" / "hold": "The machine takes 8 kg");
- one synset directly above the other (hypernym; "fly" / "carry", "challenge" / "appeal", "store" / "keep");
- the same verb group (WordNet's ``$`` pointer: senses its editors grouped as one).

Never antonyms, in any sense or through their synsets ("hire" / "fire", "acquit" / "convict", "win" / "lose"), and
never the light verbs ("be", "have", "do", "get", "make", "go"): above nearly everything, they relate nothing.
Siblings (two verbs under one parent, "walk" / "run", "direct" / "produce") are not related: that is what a verb
changed for another of its kind looks like. Keys and values are stems of lemmas (:func:`halguard.text.lexical.stem`
of a frame's predicate), one line per verb.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from halguard.text.lexical import stem
from training.wordnet_lexicon import _single_word, _WordNet, run_builder

__all__ = ["LIGHT_VERBS", "build"]

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "halguard" / "text" / "wordnet" / "verbs.tsv.gz"
# Verbs that head half of WordNet's verb hierarchy or stand for any event; never related to another verb.
LIGHT_VERBS = frozenset({"be", "have", "do", "get", "make", "go", "cause", "change", "act", "move", "use", "put",
                         "set", "give", "take_place", "happen", "occur"})
_HYPERNYM = ("@", "@i")
_VERB_GROUP = "$"
_ANTONYM = "!"


def _related(wn: _WordNet, lemma: str) -> tuple[set[str], set[str]]:
    """The verbs one step from ``lemma`` in any of its senses, and its antonyms (lexical and of its synsets)."""
    related: set[str] = set()
    antonyms: set[str] = set()
    for synset in wn.senses.get((lemma, "verb"), []):
        related |= set(wn.words[synset])
        index = wn.words[synset].index(lemma) + 1 if lemma in wn.words[synset] else -1
        for symbol, target, source_word, target_word in wn.pointers[synset]:
            if symbol in _HYPERNYM or symbol == _VERB_GROUP:
                related |= set(wn.words[target])
            elif symbol == _ANTONYM and source_word in (0, index):
                antonyms |= {wn.words[target][target_word - 1]} if target_word else set(wn.words[target])
    return related, antonyms


def build(folder: Path) -> dict[str, set[str]]:
    """verb stem -> the verb stems related to it (see the module docstring), symmetric."""
    wn = _WordNet(folder)
    related: dict[str, set[str]] = defaultdict(set)
    blocked: dict[str, set[str]] = defaultdict(set)
    for (lemma, pos), _ in wn.senses.items():
        if pos != "verb" or not _single_word(lemma) or lemma in LIGHT_VERBS:
            continue
        near, opposite = _related(wn, lemma)
        key = stem(lemma)
        related[key] |= {stem(w) for w in near if _single_word(w) and w not in LIGHT_VERBS}
        blocked[key] |= {stem(w) for w in opposite}
    # Symmetric: a verb relates the verbs directly below it as they relate it ("carry" / "fly").
    for key, stems in list(related.items()):
        for other in stems:
            related[other].add(key)
    light = {stem(w) for w in LIGHT_VERBS}
    for key, stems in related.items():
        stems -= blocked[key] | {s for s in stems if key in blocked.get(s, ())} | light | {key}
    return {k: v for k, v in related.items() if v and k not in light}


def main(argv: list[str] | None = None) -> None:
    run_builder(argv, doc=__doc__, default_out=DEFAULT_OUT, build_table=build, counted=("verbs", "relations"))


if __name__ == "__main__":
    main()
