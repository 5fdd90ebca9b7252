"""Fresh RAG-like checks for memory soaks, generated from a seed: every call makes contexts never seen before.

Each check is a few passages (three to five, 150-400 words each) about made-up companies, people and towns, and a
two-to-five-sentence answer that restates facts of one passage. Half the answers are grounded; in the other half
one sentence has a changed number or a name swapped for one the context does not have. Names are built from
syllables and numbers drawn at random, so every check brings words no earlier check had (as a retriever over a
large corpus does); the common words come from a fixed vocabulary, so the text stays ordinary English.

Used by ``benchmarks/bench_memory_soak.py`` and ``tests/test_memory_bounds.py``. Deterministic: the same seed and
index give the same check on every machine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["SoakCheck", "soak_check"]

_ONSETS = ("b", "br", "c", "cl", "d", "dr", "f", "g", "gr", "h", "k", "l", "m", "n", "p", "pr", "r", "s", "st", "t",
           "tr", "v", "w", "z", "th", "sh")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "io", "ou")
_CODAS = ("", "n", "r", "l", "s", "th", "nd", "rk", "m", "x", "v")
_COMPANY_KINDS = ("Systems", "Freight", "Analytics", "Foods", "Energy", "Pharma", "Mining", "Textiles", "Bank",
                  "Robotics", "Airlines", "Media")
_PRODUCTS = ("battery", "vaccine", "sensor", "tractor", "satellite", "turbine", "software platform", "payment app",
             "wind farm", "water filter", "electric bus", "grain silo")
_ROLES = ("chief executive", "finance director", "head of research", "founder", "chair", "operations manager")
_CITY_KINDS = ("a port town", "a mountain city", "a river town", "an industrial city", "a coastal village")
_REGIONS = ("north", "south", "east", "west", "central")
_ADJECTIVES = ("steady", "sharp", "modest", "unexpected", "record", "gradual", "strong", "weak")
_VERBS_GREW = ("rose", "grew", "increased", "climbed")
_VERBS_FELL = ("fell", "declined", "dropped", "shrank")
_FILLER = (
    "Analysts said the figures matched what the market had expected.",
    "The board met twice that year to review the plan.",
    "Local newspapers covered the announcement in detail.",
    "Several suppliers were affected by the change.",
    "The decision was criticised by some shareholders.",
    "A spokesperson declined to comment further.",
    "Employees were informed at a meeting in the main office.",
    "The report was published on the company website.",
    "Regulators reviewed the filing without objection.",
    "The move was part of a longer strategy.",
)


@dataclass(frozen=True)
class SoakCheck:
    """One check: the answer, its contexts, and whether a fact of the answer was changed."""

    answer: str
    contexts: list[str]
    changed: bool


def _name(rng: random.Random, syllables: int) -> str:
    word = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables))
    return word.capitalize()


@dataclass
class _Facts:
    company: str
    person: str
    town: str
    role: str
    product: str
    founded: int
    staff: int
    revenue: int
    growth: int
    year: int
    region: str


def _facts(rng: random.Random) -> _Facts:
    return _Facts(
        company=f"{_name(rng, 2)} {rng.choice(_COMPANY_KINDS)}", person=f"{_name(rng, 2)} {_name(rng, 3)}",
        town=_name(rng, rng.choice((2, 3))), role=rng.choice(_ROLES), product=rng.choice(_PRODUCTS),
        founded=rng.randint(1950, 2012), staff=rng.randint(40, 90_000), revenue=rng.randint(2, 950),
        growth=rng.randint(2, 60), year=rng.randint(2013, 2024), region=rng.choice(_REGIONS))


def _passage_sentences(f: _Facts, rng: random.Random) -> list[str]:
    verb = rng.choice(_VERBS_GREW if f.growth % 2 else _VERBS_FELL)
    core = [
        f"{f.company} was founded in {f.founded} in {f.town}, {rng.choice(_CITY_KINDS)} in the {f.region} of the "
        f"country.",
        f"By {f.year} the company employed {f.staff:,} people across {rng.randint(2, 40)} sites.",
        f"{f.person} has served as {f.role} of {f.company} since {f.year - rng.randint(1, 9)}.",
        f"In {f.year}, revenue {verb} by {f.growth} percent to {f.revenue} million dollars, a "
        f"{rng.choice(_ADJECTIVES)} change after two flat years.",
        f"The company's best-known product is a {f.product} designed at its {f.town} laboratory.",
        f"{f.person} told reporters that the {f.product} would reach {rng.randint(3, 30)} new markets by "
        f"{f.year + rng.randint(1, 5)}.",
        f"Its largest customer, {_name(rng, 2)} {rng.choice(_COMPANY_KINDS)}, accounts for about "
        f"{rng.randint(5, 45)} percent of sales.",
    ]
    filler = rng.sample(_FILLER, rng.randint(3, 8))
    sentences = core + filler
    rng.shuffle(sentences)
    return sentences


def _answer_sentences(f: _Facts) -> list[str]:
    return [
        f"{f.company} was founded in {f.founded}.",
        f"Its headquarters are in {f.town}.",
        f"{f.person} is the company's {f.role}.",
        f"Revenue reached {f.revenue} million dollars in {f.year}.",
        f"The company had {f.staff:,} employees in {f.year}.",
    ]


def _changed(sentence_index: int, f: _Facts, rng: random.Random) -> _Facts:
    """``f`` with the fact behind answer sentence ``sentence_index`` changed (a number, or a fresh name)."""
    changes = {
        0: {"founded": f.founded + rng.choice((-7, -3, 2, 5))},
        1: {"town": _name(rng, 3)},
        2: {"person": f"{_name(rng, 2)} {f.person.split()[-1]}"},
        3: {"revenue": f.revenue + rng.randint(3, 40)},
        4: {"staff": f.staff * 2 + rng.randint(1, 9)},
    }
    return _Facts(**{**f.__dict__, **changes[sentence_index]})


def soak_check(seed: int, index: int) -> SoakCheck:
    """The ``index``-th check of the run seeded with ``seed``: new names and numbers, half with a changed fact."""
    rng = random.Random(f"{seed}:{index}")
    topics = [_facts(rng) for _ in range(rng.randint(3, 5))]
    contexts = []
    for facts in topics:
        sentences, words = _passage_sentences(facts, rng), rng.randint(150, 400)
        while sum(len(s.split()) for s in sentences) < words:
            sentences += _passage_sentences(facts, rng)[:4]
        contexts.append(" ".join(sentences))
    about = topics[0]
    picked = sorted(rng.sample(range(5), rng.randint(2, 5)))
    changed = index % 2 == 1
    told = _changed(rng.choice(picked), about, rng) if changed else about
    answer = " ".join(_answer_sentences(told)[i] for i in picked)
    rng.shuffle(contexts)
    return SoakCheck(answer=answer, contexts=contexts, changed=changed)
