"""A one-holder post given to the wrong person (halguard.grounding.signals.titles, issue 44): "The mayor, Tessa
Grant" where the passage's mayor is Owen Hale is a role conflict; the post given to its holder, a qualified post
("the former mayor", "the mayor of Oslo"), and a post the passages give to several people are not."""

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.scope import scope_of
from halguard.grounding.signals.titles import posts_moved
from halguard.text.contexts import Source

COUNCIL = ("Tessa Grant, who chairs the council's housing committee, criticised the plan; the mayor, Owen Hale, "
           "defended it.")
ORBIS = "Nadia Karim is the chief financial officer of Orbis Health; its chief executive is Leo Brandt."
TWO_MAYORS = "The mayor of Oslo, Owen Hale, met the mayor of Vellby, Tessa Grant."
SUMMIT = ("A handshake between President Barack Obama and Cuban President Raul Castro opened the summit. The late Hugo "
          "Chavez had outplayed Obama in 2009.")
FORMER = "The former mayor, Tessa Grant, criticised the plan; the mayor, Owen Hale, defended it."
MERGER = ("Northbridge General Hospital and St. Aldric Medical Centre will merge. Dr. Helen Okafor, currently chief "
          "executive of Northbridge, will lead the new trust, while St. Aldric's chief executive, Marcus Pell, will "
          "become chief operating officer.")
NORVIA = ("Keller Pharma agreed to buy Norvia, the companies said on Monday. Norvia's chief executive, Ida Holm, will "
          "join Keller's board.")


def _moved(claim: str, passage: str) -> list[str]:
    return [why for _, _, why in posts_moved(claim, scope_of([Source("p0", passage)], None))]


@pytest.mark.parametrize(("claim", "passage", "reason"), [
    ("The mayor, Tessa Grant, criticised the plan.", COUNCIL, "the mayor: Tessa Grant where the passage has Owen Hale"),
    ("Tessa Grant, the mayor, criticised it.", COUNCIL, "the mayor: Tessa Grant where the passage has Owen Hale"),
    ("Mayor Tessa Grant criticised the plan.", COUNCIL, "the mayor: Tessa Grant where the passage has Owen Hale"),
    ("Nadia Karim is the chief executive of Orbis Health.", ORBIS,
     "the chief executive: Nadia Karim where the passage has Leo Brandt"),
    ("CEO Nadia Karim spoke.", ORBIS, "the chief executive: Nadia Karim where the passage has Leo Brandt"),
    ("Leo Brandt is the CFO.", ORBIS, "the chief financial officer: Leo Brandt where the passage has Nadia Karim"),
    ("The mayor of Oslo, Tessa Grant, spoke.", TWO_MAYORS, "the mayor: Tessa Grant where the passage has Owen Hale"),
    ("Cuban President Hugo Chavez met Obama.", SUMMIT, "the president: Hugo Chavez where the passage has Raul Castro"),
    # the former mayor is not the mayor
    ("The mayor, Tessa Grant, criticised the plan.", FORMER, "the mayor: Tessa Grant where the passage has Owen Hale"),
    # an apposition without an article ("currently" allowed), and a possessive's owner qualifies the post
    ("Helen Okafor, chief executive of St. Aldric, will lead the trust.", MERGER,
     "the chief executive: Helen Okafor where the passage has Marcus Pell"),
    ("The trust will be led by Dr. Helen Okafor, currently chief executive of St. Aldric.", MERGER,
     "the chief executive: Helen Okafor where the passage has Marcus Pell"),
    ("Marcus Pell, chief executive of Northbridge, will be its operating chief.", MERGER,
     "the chief executive: Marcus Pell where the passage has Helen Okafor"),
])
def test_a_post_given_to_another_of_the_passages_people_is_moved(claim, passage, reason):
    assert _moved(claim, passage) == [reason]


@pytest.mark.parametrize(("claim", "passage"), [
    ("Mayor Owen Hale defended the plan.", COUNCIL),  # its holder
    ("Owen Hale is the mayor.", COUNCIL),
    ("Hale, the mayor, defended it.", COUNCIL),  # a surname is the full name
    ("Orbis Health's CEO, Leo Brandt, spoke.", ORBIS),  # the initialism is the post
    ("Nadia Karim is the CFO of Orbis Health.", ORBIS),
    ("The mayor of Vellby, Tessa Grant, spoke.", TWO_MAYORS),  # two places, two mayors
    ("Mayor Tessa Grant spoke.", TWO_MAYORS),
    ("President Hugo Chavez met Obama.", SUMMIT),  # the passage's presidents are several people
    ("Venezuelan President Hugo Chavez met Obama.", SUMMIT),  # a post the passage gives no one
    ("The deputy mayor, Tessa Grant, criticised the plan.", COUNCIL),  # another post
    ("The former mayor, Tessa Grant, criticised the plan.", FORMER),  # a qualified post is another post
    ("Mayor Jane Doe criticised the plan.", COUNCIL),  # a name the passage lacks: the missing names' finding
    # the long and the short name of one body are one qualifier
    ("Marcus Pell, chief executive of St. Aldric Medical Centre, will be its operating chief.", MERGER),
    ("Northbridge's chief executive, Helen Okafor, will lead the new trust.", MERGER),
    # a full stop ends a possessive's owner ("on Monday. Norvia's"), and the claim's person holding the post of
    # another body is the copy checks' to read, not "Ida Holm where the passage has Ida Holm"
    ("Keller Pharma's chief executive, Ida Holm, will join Norvia's board.", NORVIA),
])
def test_the_holder_another_post_or_an_unclear_holder_is_no_finding(claim, passage):
    assert _moved(claim, passage) == []


def test_the_verifier_flags_the_moved_post_as_a_role_conflict():
    verdict = LocalVerifier().verify("The mayor, Tessa Grant, criticised the plan.", [COUNCIL])
    assert verdict.label == "hallucinated"
    assert any("the mayor: Tessa Grant where the passage has Owen Hale" in r for r in verdict.claims[0].reasons)
    assert LocalVerifier().verify("Mayor Owen Hale defended the plan.", [COUNCIL]).label == "supported"


@pytest.mark.parametrize("crafted", ["A'" * 10_000, "mayor A'" * 2_500, "the mayor, " + "Ab-" * 7_000,
                                     "Mayor " + "Ab " * 7_000, "The Mayor " * 2_000])
def test_crafted_text_is_read_in_bounded_time(crafted):
    scope = scope_of([Source("p0", crafted)], None)
    start = time.perf_counter()
    posts_moved(crafted[:5_000], scope)
    assert time.perf_counter() - start < 2.0  # about 10 ms here; unbounded patterns took 11 s on the first


def test_the_passage_cache_is_keyed_by_the_scanned_part_only(monkeypatch):
    from halguard.grounding.signals import titles

    seen = []
    real = titles._held_in_passage
    monkeypatch.setattr(titles, "_held_in_passage", lambda scanned: seen.append(len(scanned)) or real(scanned))
    long_passage = COUNCIL + " Filler text." * 200_000  # 2.6 MB: a cache of 64 such keys would hold 170 MB
    assert _moved("The mayor, Tessa Grant, criticised the plan.", long_passage) == [
        "the mayor: Tessa Grant where the passage has Owen Hale"]
    assert seen and max(seen) <= titles.MAX_SCANNED_CHARS
