"""A claim's verb said with a related verb of the same participants (halguard.grounding.roles.verbs): "flew" for
"carried" passes; a verb changed for another of its kind, an opposite, or the same verb with other participants
stays a novel word."""

from __future__ import annotations

import pytest

from halguard import LocalVerifier
from halguard.grounding.roles.parse import parsed_frames
from halguard.grounding.roles.verbs import verbs_said
from halguard.text.lexical import stem
from halguard.text.wordnet import related_verbs


def _said(claim: str, evidence: str) -> list[tuple[str, str]]:
    return [(claim[s:e], word) for s, e, word in verbs_said(parsed_frames(claim), parsed_frames(evidence))]


@pytest.mark.parametrize(("a", "b"), [("fly", "carry"), ("retain", "keep"), ("take", "hold"),
                                      ("challenge", "appeal"), ("store", "keep"), ("beat", "defeat")])
def test_verbs_one_step_apart_in_wordnet_are_related_both_ways(a, b):
    assert stem(b) in related_verbs(stem(a))
    assert stem(a) in related_verbs(stem(b))


@pytest.mark.parametrize(("a", "b"), [("hire", "fire"), ("win", "lose"), ("acquit", "convict"), ("rise", "fall"),
                                      ("open", "close"), ("buy", "sell"), ("walk", "run"), ("direct", "produce"),
                                      ("join", "leave"), ("survive", "die"), ("increase", "decrease")])
def test_opposites_and_siblings_are_not_related(a, b):
    assert stem(b) not in related_verbs(stem(a))


def test_light_verbs_relate_nothing():
    assert related_verbs("be") == frozenset()
    assert stem("have") not in related_verbs(stem("own"))


def test_a_related_verb_of_the_same_participants_says_the_claim_verb():
    assert _said("Skylark Air flew 18.4m passengers in 2023.",
                 "Skylark Air carried 18.4 million passengers in 2023, 12% more than in 2022.") == [("flew", "carry")]
    # the same pronoun on both sides is no agreement, and no obstacle: the patient and the phrase agree
    assert _said("In lab tests it retained nine-tenths of its capacity after a thousand charging cycles.",
                 "In laboratory tests it kept 90% of its capacity after 1,000 charging cycles.") == [("retained", "keep")]
    assert _said("It retained its capacity.", "It kept its capacity.") == []  # one agreement only


@pytest.mark.parametrize(("claim", "evidence"), [
    ("Acme fired Jane Doe in 2019.", "Acme hired Jane Doe in 2019."),  # opposites
    ("The court convicted Lee in May.", "The court acquitted Lee in May."),
    ("Smith directed the film in 1990.", "Smith produced the film in 1990."),  # siblings
    ("Maria walked to the station in the morning.", "Maria ran to the station in the morning."),
    ("Nordair flew 18.4m passengers in 2023.", "Skylark Air carried 18.4m passengers in 2023."),  # another agent
    ("Skylark Air flew 18.4m passengers in 2023.", "Skylark Air carried 12m passengers in 2023."),  # another count
    ("Skylark Air flew 18.4m passengers in 2023.", "Skylark Air carried cargo in 2023."),  # another patient
    ("Skylark Air did not fly 18.4m passengers in 2023.", "Skylark Air carried 18.4 million passengers in 2023."),
])
def test_other_verbs_participants_or_polarity_are_not_said(claim, evidence):
    assert _said(claim, evidence) == []


def test_the_verifier_reads_the_verb_as_said_and_keeps_a_sibling_verb_novel():
    verifier = LocalVerifier(meaning=False)
    context = ["Skylark Air carried 18.4 million passengers in 2023, 12% more than in 2022. Its load factor rose to "
               "86% from 81%. Smith produced the documentary about the airline in 2021."]
    flew = verifier.verify("Skylark Air flew 18.4 million passengers in 2023.", context)
    assert flew.claims[0].status.value == "SUPPORTED"
    assert "flew = carry (same participants)" in flew.claims[0].signals.paraphrased
    assert "flew" not in flew.claims[0].signals.novel_terms
    directed = verifier.verify("Smith directed the documentary about the airline in 2021.", context)
    assert "directed" in directed.claims[0].signals.novel_terms


def test_the_verb_table_ships_sorted_symmetric_and_beside_its_license():
    import gzip
    from pathlib import Path

    import halguard.text.wordnet as wordnet

    folder = Path(wordnet.__file__).parent
    assert (folder / "LICENSE-WordNet").is_file()
    with gzip.open(folder / "verbs.tsv.gz", "rt", encoding="utf-8") as fh:
        rows = [line.rstrip("\n").split("\t") for line in fh]
    keys = [key for key, _ in rows]
    assert len(keys) > 5_000 and keys == sorted(keys) and len(set(keys)) == len(keys)
    table = {key: set(stems.split(" ")) for key, stems in rows}
    asymmetric = [(k, s) for k, stems in table.items() for s in stems if k not in table.get(s, ())]
    assert asymmetric == []  # an antonym of either side drops the relation both ways
