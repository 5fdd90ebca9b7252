"""Build the table of words for kinds of people, so that "people" in a claim is read as said by "residents".

    python -m training.wordnet_people [--cache .cache/training] [--out halguard/text/wordnet/people.tsv.gz]

A faithful answer says "480 people were evacuated" of "480 residents", "the 640 people enrolled" of "640
participants": the general word for the passage's kind of person. The word table (:mod:`training.wordnet_lexicon`)
reaches one level below a word, and WordNet puts "resident" nine levels below "person". This table lists every kind
of person WordNet 3.0 has below ``person.n.01`` (hyponyms, never instances, which are names: "Aaron"), each word
whose most frequent noun sense is that kind (so "head", "fan" and "model", which are first something else, are not),
plus the nouns of groups of people a passage counts ("staff", "crew", "team", "workforce"; hand-listed). One line,
key ``person``, its stems space-separated; the verifier reads it in :func:`halguard.text.wordnet.names_people`.
"""

from __future__ import annotations

from pathlib import Path

from halguard.text.lexical import STOPWORDS, stem
from training.wordnet_lexicon import _HYPONYM, _WordNet, run_builder

__all__ = ["GROUPS_OF_PEOPLE", "build"]

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "halguard" / "text" / "wordnet" / "people.tsv.gz"
# Groups of people a passage counts or names where an answer says "people" (hand-listed, 2026-12-01).
GROUPS_OF_PEOPLE = ("staff", "crew", "team", "workforce", "population", "public", "audience", "crowd", "community",
                    "household", "family", "attendee", "personnel", "commuter")


def build(folder: Path) -> dict[str, set[str]]:
    """``{"person": stems}``: the stems of the words for kinds and groups of people (see the module)."""
    wn = _WordNet(folder)
    person = wn.senses[("person", "noun")][0]
    kinds, level = set(), [person]
    while level:
        level = [t for s in level for sym, t, _, _ in wn.pointers[s] if sym == _HYPONYM[0] and t not in kinds]
        kinds |= set(level)
    words = {w for s in kinds for w in wn.words[s] if w.isalpha() and w not in STOPWORDS and wn.rank(w, s) == 0}
    words |= set(GROUPS_OF_PEOPLE)
    return {"person": {stem(f) for w in words for f in (w, w + "s")}}


def main(argv: list[str] | None = None) -> None:
    run_builder(argv, doc=__doc__, default_out=DEFAULT_OUT, build_table=build, counted=("keys", "stems"))


if __name__ == "__main__":
    main()
