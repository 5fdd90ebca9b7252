"""Clauses the parser misreads, repaired for the role frames (fifteenth session, issue 44): two clauses joined by a
semicolon (parsed apart: the second clause's subject is not the first one's), a quoted title (its quotation marks
confuse the parser: "awarded the prize to 'Salt Roads'"; its "and" is no coordination: "'War and Ashes'"), a reduced
passive relative read as a clause of its own ("confirmed the comet spotted by amateurs"), the phrases after a
participle set off by commas ("returned the manuscript, stolen from Krakow in 1941, to the Polish government"), the
subject of a passive with an object of its own ("was awarded the Holm Medal": whom it went to), an event noun's
"from" / "to" phrase hung on its object ("the county's sale of the hospital to Brightway"), a name the passage puts
on the other side of the verb from a pronoun ("she succeeds Tom Hale"), a phrase whose own preposition differs
("taken from Kumasi" against "taken from Accra ... at a ceremony in Kumasi"), a name after its description read as
its object ("by architect Lena Brandt"), an object's apposition read as the verb's ("arrested the skipper, Tom Reid,
after ..."), and one person done to where the passage has another and gives the claim's person another part ("Carl
Moss was acquitted" where he was jailed and his brother acquitted). Each swap is flagged and each faithful
telling of the same passage passes."""

import pytest

from halguard.grounding.roles import role_conflicts
from halguard.grounding.roles.parse import parsed_frames
from tests.role_swap_checks import swap_checks

PRIZES = ("The judges gave the Blue Quill to 'Harbour Lights', written by Mara Quist; 'Cold Orchard', by Ivo Petrak, "
          "took the readers' award.")
COMET = "Amateurs in Chile confirmed the comet, which had first been spotted by the Rubin telescope."
COMET_REDUCED = "The Rubin telescope confirmed the comet spotted by amateurs in Chile."
FERRY = "Storvik Yard built the ferry; it was later bought by Nordlys Lines in 2015."
MANUSCRIPT = ("The library returned the manuscript, stolen from Krakow in 1941, to the Polish government at a ceremony "
              "in Warsaw.")
MEDAL = ("Dr. Ines Varela, whose lab built the sensor, was awarded the Holm Medal; her colleague Rui Matos won the "
         "2020 Carver Prize.")
HOSPITAL = "The county's sale of the old hospital to Brightway Homes was approved in May."
LENDING = "Orion Bank named Clara Weiss head of lending; she succeeds Tom Hale, who retires in June."
NOVEL = "The novel 'War and Ashes', written by Petra Novak, was translated by Jan Dvorak in 2015."
TOWER = "The tower, designed by architect Lena Brandt, was opened by the governor, Paul Weiss, in June."
CRASH = ("Police arrested the skipper, Tom Reid, after the collision; his deckhand, Ola Berg, was taken to hospital "
         "with a broken arm.")
TRIAL = "Judge Ruth Ames jailed Carl Moss for five years; his brother, Ivan Moss, was acquitted."
MEMOIR = "Marta Holm translated the memoir from Danish into English; the original was written by Jens Berg in 2004."
COIN = "The coin, found by a schoolboy near Ripon in 2019, was bought by the Yorkshire Museum for 12,000 pounds."
LIBRARY = "The new library, paid for by the Ellis Trust, was designed by the Dutch firm Vos Studio and opened in 2022."

SWAPS = [
    (PRIZES, "Ivo Petrak's 'Cold Orchard' received the Blue Quill."),
    (COMET, COMET_REDUCED),
    (FERRY, "Nordlys Lines built the ferry."),
    (MANUSCRIPT, "The Polish government returned the manuscript to the library at a ceremony in Warsaw."),
    (MANUSCRIPT, "The manuscript was stolen from Warsaw in 1941."),
    (MEDAL, "Rui Matos was awarded the Holm Medal."),
    (HOSPITAL, "The county bought the old hospital from Brightway Homes."),
    (LENDING, "Tom Hale succeeds Clara Weiss."),
    (NOVEL, "Jan Dvorak wrote 'War and Ashes'."),
    (TOWER, "Paul Weiss designed the tower."),
    (CRASH, "Ola Berg was arrested after the collision."),
    (TRIAL, "Carl Moss was acquitted."),
    (MEMOIR, "Marta Holm wrote the memoir in 2004."),  # the year places it in the writing, not her translation
    (COIN, "A schoolboy bought the coin for 12,000 pounds."),  # the description did another thing to the coin
    (COIN, "The Yorkshire Museum found the coin near Ripon in 2019."),  # and the name did
    (LIBRARY, "Vos Studio paid for the new library."),  # "paid for by": the library is what was paid for
]
FAITHFUL = [
    (PRIZES, "Mara Quist's 'Harbour Lights' received the Blue Quill."),
    (PRIZES, "'Cold Orchard' took the readers' award."),
    (COMET, "The Rubin telescope spotted the comet, which amateurs in Chile confirmed."),
    (FERRY, "Storvik Yard built the ferry."),
    (FERRY, "Nordlys Lines bought the ferry in 2015."),
    (MANUSCRIPT, "The library returned the manuscript to the Polish government."),
    (MANUSCRIPT, "The manuscript was stolen from Krakow in 1941."),
    (MEDAL, "Ines Varela was awarded the Holm Medal."),
    (HOSPITAL, "Brightway Homes bought the old hospital from the county."),
    (LENDING, "Clara Weiss succeeds Tom Hale."),
    (NOVEL, "Petra Novak wrote 'War and Ashes'."),
    (TOWER, "Lena Brandt designed the tower."),
    (CRASH, "Tom Reid was arrested after the collision."),
    (TRIAL, "Ivan Moss was acquitted."),
    (MEMOIR, "Marta Holm translated the memoir into English."),
    (COIN, "The Yorkshire Museum bought the coin for 12,000 pounds."),
    (COIN, "A schoolboy found the coin near Ripon in 2019."),
    (LIBRARY, "The Ellis Trust paid for the new library."),
]


(test_a_swap_is_a_role_conflict, test_the_faithful_telling_has_no_role_conflict, test_the_verifier_flags_the_swap,
 test_the_verifier_passes_the_faithful_telling) = swap_checks(SWAPS, FAITHFUL)


def test_a_semicolon_starts_a_clause_of_its_own():
    frames = {f.predicate: f for f in parsed_frames(PRIZES)}
    takers = [a.text for a in frames["take"].get("agent")]
    assert len(takers) == 1 and "Cold Orchard" in takers[0]  # not the judges
    # one sentence still parses as one: its frames keep their subjects
    whole = {f.predicate: f for f in parsed_frames("The judges gave the Blue Quill to Harbour Lights and took a bow.")}
    assert [a.text for a in whole["take"].get("agent")] == ["The judges"]


@pytest.mark.parametrize("sentence", ["The judges gave the Blue Quill to 'Harbour Lights'.",
                                      "The jury awarded the Golden Reel to 'Salt Roads'."])
def test_a_quoted_title_after_to_is_whom_it_went_to(sentence):
    gave = next(f for f in parsed_frames(sentence) if f.predicate in ("give", "award"))
    went_to = gave.get("recipient") + gave.get("prep:to")
    assert len(went_to) == 1 and went_to[0].identity in ({"harbour", "lights"}, {"salt", "roads"})
    assert "'" not in went_to[0].text and "  " not in went_to[0].text  # the reason reads the title as written


def test_a_reduced_passive_relative_is_its_noun_done_to():
    frames = {f.predicate: f for f in parsed_frames(COMET_REDUCED)}
    assert [a.text for a in frames["confirm"].get("patient")] == ["the comet"]
    assert [a.text for a in frames["spot"].get("patient")] == ["the comet"]
    assert "amateurs" in frames["spot"].get("agent")[0].text
    # a complement clause with an active subject of its own is left alone: the officials did the saying
    said = {f.predicate: f for f in parsed_frames("The minister said the officials handled the case badly.")}
    assert [a.text for a in said["handle"].get("agent")] == ["the officials"]


def test_a_passive_with_an_object_gives_its_subject_the_thing():
    award = next(f for f in parsed_frames(MEDAL) if f.predicate == "award")
    assert [a.text for a in award.get("recipient")] == ["Dr. Ines Varela"]
    assert [a.text for a in award.get("patient")] == ["the Holm Medal"]
    # a passive without an object keeps its subject as what was done to
    built = next(f for f in parsed_frames("The sensor was built by her lab.") if f.predicate == "build")
    assert [a.text for a in built.get("patient")] == ["The sensor"]


def test_a_set_off_participle_lends_its_tail_to_the_main_verb():
    frames = {f.predicate: f for f in parsed_frames(MANUSCRIPT)}
    assert [a.text for a in frames["return"].get("prep:to")] == ["to the Polish government"]
    assert not frames["steal"].get("prep:to")
    assert [a.text for a in frames["steal"].get("prep:from")] == ["from Krakow"]


def test_a_quoted_title_with_and_is_one_name():
    written = next(f for f in parsed_frames(NOVEL) if f.predicate == "write")
    assert [a.identity for a in written.get("patient")] == [frozenset({"war", "ashes"})]
    # unquoted, "and" coordinates two names as before
    met = next(f for f in parsed_frames("Petra Novak met Jan Dvorak and Eva Holub.") if f.predicate == "meet")
    assert len(met.get("patient")) == 2


def test_a_narrower_finding_marks_the_words_and_the_role_reason_stays(verifier):
    # "on 25 December 2019" against "on 25 December 2021": the changed year is the span, the role check's reason
    # (which date the passage gives) is the claim's
    passage = "The probe was launched on 25 December 2021 on an Ariane 5 rocket from Kourou."
    verdict = verifier.verify("The probe was launched on 25 December 2019 on an Ariane 5 rocket.", [passage])
    assert verdict.label == "hallucinated"
    assert [s.text for s in verdict.spans] == ["2019"]
    assert any("where the passage has on 25 December 2021" in r for r in verdict.claims[0].reasons)
    # a role conflict with no narrower finding inside is its own span
    swapped = verifier.verify("Tom Hale succeeds Clara Weiss.", [LENDING])
    assert any("Tom Hale" in s.text for s in swapped.spans)


def test_one_participant_each_is_no_conflict_without_another_part_or_with_other_details():
    # two people's births are two events; "Italy finished second" is not "France finished fourth"
    assert role_conflicts("Lorraine Hansberry was born in 1930.",
                          ["Sandra Gulland (born 3 November 1944) is a Canadian novelist."], lambda a: True) == []
    race = "Poland won in 42.10; Italy took silver in 42.31 and France, the champions, finished fourth."
    assert role_conflicts("Italy finished second in 42.31.", [race], lambda a: True) == []
    # a doer alone is not read so ("Smith said ..." beside "Jones said ...")
    talks = "Anna Lind chaired the talks, and Omar Said, the envoy, said the deal was close."
    assert role_conflicts("Anna Lind said the deal was close.", [talks], lambda a: True) == []


def test_a_description_against_a_name_says_nothing_by_itself():
    # "the company" can be Halvorsen Marine: only a new someone ("a schoolboy", above) that did another thing to the
    # same participant is not the name; a definite description refers back, even one that did another thing
    passage = "Halvorsen Marine bought the shipyard in 2019."
    assert role_conflicts("The company bought the shipyard in 2019.", [passage], lambda a: True) == []
    later = "Halvorsen Marine bought the shipyard in 2019, and the company sold the shipyard to Beta in 2023."
    assert role_conflicts("The company bought the shipyard in 2019.", [later], lambda a: True) == []
