"""HANS-style template pairs that only word order and attachment can tell apart: who did what to whom.

Each pair's claim uses the premise's words (or a paraphrase of them): active and passive voice, a nominalisation,
a relative clause or a symmetric verb keep the meaning (supported); roles exchanged, a predicate moved to another
argument, or a number or year attached to another thing change it (contradicted), and a claim built from a
sub-sequence of the premise that it does not state is missing. Names, verbs and numbers are invented for this
script (general English, written by hand), so nothing is taken from an evaluation set.
"""

from __future__ import annotations

import random

__all__ = ["template_pairs"]

_FIRST = ["Anna", "Boris", "Chen", "Dalia", "Emeka", "Farah", "Goran", "Hiro", "Ines", "Jonas", "Kofi", "Lena",
          "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tamar", "Umar", "Vera", "Wen", "Yusuf"]
_LAST = ["Abbott", "Brandt", "Castillo", "Duarte", "Ekwueme", "Fischer", "Gallo", "Haddad", "Ivanova", "Jensen",
         "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quist", "Rahman", "Silva", "Tanaka"]
_ORG_A = ["Northwind", "Palmera", "Bluecrest", "Orion", "Kestrel", "Harbor", "Silverline", "Aster", "Granite",
          "Meridian", "Copperleaf", "Tidewater", "Redwood", "Lumen", "Vantage", "Ironbridge"]
_ORG_B = ["Freight", "Labs", "Holdings", "Energy", "Foods", "Motors", "Media", "Pharma", "Systems", "Bank"]
_PLACES = ["Lisbon", "Osaka", "Nairobi", "Quito", "Tallinn", "Perth", "Leeds", "Tunis", "Hanoi", "Bergen"]
# (present, past, participle, agent noun phrase for "X's <noun> of Y" or None)
_VERBS = [("acquire", "acquired", "acquired", "acquisition"), ("defeat", "defeated", "defeated", "defeat"),
          ("hire", "hired", "hired", "hiring"), ("sue", "sued", "sued", None), ("pay", "paid", "paid", "payment"),
          ("praise", "praised", "praised", None), ("criticise", "criticised", "criticised", "criticism"),
          ("replace", "replaced", "replaced", "replacement"), ("interview", "interviewed", "interviewed", None),
          ("train", "trained", "trained", "training"), ("invite", "invited", "invited", "invitation"),
          ("follow", "followed", "followed", None), ("beat", "beat", "beaten", None),
          ("succeed", "succeeded", "succeeded", None), ("fund", "funded", "funded", "funding"),
          ("supply", "supplied", "supplied", None), ("overtake", "overtook", "overtaken", None),
          ("recruit", "recruited", "recruited", "recruitment"), ("rescue", "rescued", "rescued", "rescue"),
          ("advise", "advised", "advised", None), ("outsell", "outsold", "outsold", None)]
_SYMMETRIC = [("met", "met with"), ("married", "was married to"), ("played against", "faced"),
              ("merged with", "combined with"), ("collaborated with", "worked together with"),
              ("drew with", "tied with")]
_METRICS = [("revenue", "rose", "fell"), ("profit", "grew", "shrank"), ("headcount", "increased", "decreased"),
            ("exports", "climbed", "dropped")]
_SIDE_EFFECTS = ["nausea", "headache", "dizziness", "fatigue", "insomnia", "rash"]


def _person(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def _org(rng: random.Random) -> str:
    return f"{rng.choice(_ORG_A)} {rng.choice(_ORG_B)}"


def _two(rng: random.Random) -> tuple[str, str]:
    make = rng.choice([_person, _org])
    a = make(rng)
    b = make(rng)
    while b == a or b.split()[0] == a.split()[0]:
        b = make(rng)
    return a, b


def _spans(claim: str, *words: str) -> list[tuple[int, int]]:
    out = []
    for word in words:
        at = claim.find(word)
        if at >= 0:
            out.append((at, at + len(word)))
    return sorted(out)


_DESCRIPTIONS = ["a regional trucking company", "a family-owned business", "its largest rival", "a start-up founded in 2015",
                 "the local champion", "a former partner"]
_VERB_SYNONYMS = {"acquired": "bought", "defeated": "beat", "hired": "recruited", "criticised": "condemned",
                  "funded": "financed", "rescued": "saved", "praised": "commended", "replaced": "succeeded"}


def _role_premise(rng: random.Random, a: str, b: str, past: str, part: str, year: int) -> str:
    """A sentence stating that ``a`` did ``past`` to ``b``, in one of several structures, sometimes with a
    neighbouring sentence that names neither."""
    day = rng.choice(["Monday", "Tuesday", "Friday"])
    core = rng.choice([
        f"{a} {past} {b} in {year}.", f"In {year}, {a} {past} {b}.", f"{b} was {part} by {a} in {year}.",
        f"{a}, based in {rng.choice(_PLACES)}, {past} {b} in {year}.",
        f"{a} announced on {day} that it had {part} {b}, {rng.choice(_DESCRIPTIONS)}.",
        f"After months of talks, {b} was {part} by {a}.",
        f"{a} said it {past} {b} for {rng.randint(2, 900)} million euros.",
        f"It was {a} that {past} {b}, according to the report.",
    ])
    if rng.random() < 0.4:
        other = f"The weather in {rng.choice(_PLACES)} was mild that week."
        core = f"{other} {core}" if rng.random() < 0.5 else f"{core} {other}"
    return core


def _roles(rng: random.Random) -> list[tuple[str, str, str, list | None]]:
    a, b = _two(rng)
    _, past, part, noun = rng.choice(_VERBS)
    year = rng.randint(1950, 2024)
    premise = _role_premise(rng, a, b, past, part, year)
    said = _VERB_SYNONYMS.get(past, past) if rng.random() < 0.3 else past
    keep = [f"{a} {said} {b}.", f"{b} was {part} by {a}.", f"It was {a} that {said} {b}."]
    if noun:
        keep.append(f"{a}'s {noun} of {b} was reported.")
    change = [(f"{b} {said} {a}.", [b, a]), (f"{a} was {part} by {b}.", [a, b]),
              (f"It was {b} that {said} {a}.", [b, a])]
    if noun:
        change.append((f"{b}'s {noun} of {a} was reported.", [b, a]))
    claim = rng.choice(keep)
    swapped, words = rng.choice(change)
    return [(premise, claim, "supported", []), (premise, swapped, "contradicted", _spans(swapped, *words))]


def _symmetric(rng: random.Random) -> list[tuple[str, str, str, list | None]]:
    a, b = _two(rng)
    verb, other = rng.choice(_SYMMETRIC)
    premise = f"{a} {verb} {b} in {rng.randint(1950, 2024)}."
    return [(premise, rng.choice([f"{b} {verb} {a}.", f"{a} {other} {b}."]), "supported", [])]


def _moved_predicate(rng: random.Random) -> list[tuple[str, str, str, list | None]]:
    a, b = _two(rng)
    c = _person(rng) if rng.random() < 0.5 else _org(rng)
    (_, p1, _, _), (_, p2, _, _) = rng.sample(_VERBS, 2)
    premise = f"{a} {p1} {b}, and {c} {p2} {a}."
    good = rng.choice([f"{a} {p1} {b}.", f"{c} {p2} {a}."])
    claim, words = rng.choice([(f"{c} {p1} {b}.", [c]), (f"{a} {p2} {c}.", [a, c]), (f"{b} {p2} {a}.", [b]),
                               (f"{b} {p1} {a}.", [b, a])])
    return [(premise, good, "supported", []), (premise, claim, "contradicted", _spans(claim, *words))]


def _said_of(rng: random.Random, thing: str, number: str) -> str:
    return rng.choice([f"{thing.capitalize()} was reported by {number} of patients.",
                       f"{number} of patients reported {thing}.",
                       f"In the trial, {thing} affected {number} of patients."])


def _numbers(rng: random.Random) -> list[tuple[str, str, str, list | None]]:
    org = _org(rng)
    (m1, up1, _), (m2, _, down2) = rng.sample(_METRICS, 2)
    x, y = rng.sample(range(2, 40), 2)
    premise = f"At {org}, {m1} {up1} {x}% while {m2} {down2} {y}%."
    good = rng.choice([f"{org}'s {m1} {up1} {x}%.", f"{org}'s {m2} {down2} {y}%."])
    bad = rng.choice([f"{org}'s {m1} {up1} {y}%.", f"{org}'s {m2} {down2} {x}%."])
    number = bad.split()[-1].rstrip(".")
    pairs = [(premise, good, "supported", []), (premise, bad, "contradicted", _spans(bad, number))]
    e1, e2 = rng.sample(_SIDE_EFFECTS, 2)
    p, q = rng.sample(range(3, 30), 2)
    premise = f"In the trial, {p}% of patients reported {e1} and {q}% reported {e2}."
    thing, right, wrong = rng.choice([(e1, p, q), (e2, q, p)])
    pairs.append((premise, _said_of(rng, thing, f"{right}%"), "supported", []))
    swapped = _said_of(rng, thing, f"{wrong}%")
    pairs.append((premise, swapped, "contradicted", _spans(swapped, f"{wrong}%")))
    return pairs


def _years(rng: random.Random) -> list[tuple[str, str, str, list | None]]:
    a, b = rng.sample(_ORG_A, 2)
    y1, y2 = rng.sample(range(1850, 2020), 2)
    kind = rng.choice(["tower", "bridge", "library", "museum", "station"])
    premise = f"The {a} {kind} opened in {y1}, and the {b} {kind} followed in {y2}."
    name, right, wrong = rng.choice([(a, y1, y2), (b, y2, y1)])
    bad = f"The {name} {kind} opened in {wrong}."
    return [(premise, f"The {name} {kind} opened in {right}.", "supported", []),
            (premise, bad, "contradicted", _spans(bad, str(wrong)))]


def _subsequence(rng: random.Random) -> list[tuple[str, str, str, list | None]]:
    a, b = _person(rng), _person(rng)
    _, past, _, _ = rng.choice(_VERBS)
    role = rng.choice(["lawyer", "doctor", "manager", "senator", "coach"])
    premise = f"The {role} who advised {a} {past} {b}."
    claim = f"{a} {past} {b}."
    return [(premise, claim, "missing", _spans(claim, a)), (premise, f"The {role} {past} {b}.", "supported", [])]


_MAKERS = [_roles, _roles, _roles, _symmetric, _moved_predicate, _numbers, _years, _subsequence]


def template_pairs(rng: random.Random, limit: int) -> list[dict]:
    """About ``limit`` template rows (a premise's pairs share one group, so they are split together)."""
    out: list[dict] = []
    index = 0
    while len(out) < limit:
        maker = _MAKERS[index % len(_MAKERS)]
        index += 1
        for premise, claim, label, spans in maker(rng):
            out.append({"premise": premise, "claim": claim, "label": label, "spans": spans, "source": "templates",
                        "group": f"templates:{index}", "kind": maker.__name__.lstrip("_")})
    return out
