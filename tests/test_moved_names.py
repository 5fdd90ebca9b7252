"""A name of the passages moved into a copied sentence that names another in its place is a role conflict."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.closest import ClosestSentence
from halguard.grounding.signals.moved import moved_names
from halguard.grounding.signals.scope import scope_of
from halguard.text.contexts import Source

ELECTION = ("In the run-off, Paula Ferreira defeated the incumbent Jorge Salas with 54% of the vote. Salas had won the "
            "first round narrowly. Ferreira will be sworn in on 1 January.")
TRANSFER = ("Midfielder Ana Costa has left Valmont FC and signed for Rivera United on a three-year deal. Rivera paid a "
            "fee of 4 million euros. Costa scored nine goals for Valmont last season.")
BEETLE = ("Researchers at Lund University discovered a new species of beetle in the rainforest of Borneo. The team, "
          "led by entomologist Sara Lind, named it after the naturalist Alfred Russel Wallace.")
RESULTS = ("Harrowgate Instruments reported revenue of 412.6 million pounds for the third quarter. Chief executive "
           "Miriam Oakes said order intake in the aerospace division grew 17% and now accounts for roughly a third of "
           "the group's order backlog. Chief financial officer Daniel Pryce confirmed that the board had approved an "
           "interim dividend of 6.5 pence per share.")
CUTS = ("Orvane Logistics will cut 640 jobs. Most of the reductions will fall in its European warehousing division, "
        "and the company will close its distribution center in Ghent, Belgium, by the end of September. Orvane's "
        "customer service operations in Manila will not be affected.")
VIOLIN = ("The violinist Sofia Lindqvist studied for six years with the renowned teacher Emil Ferenczi in Vienna "
          "before winning the Albrecht Competition in 2015.")
DEAL = ("Kestrel Foods agreed to buy the snack maker Brightcrumb for 240 million pounds. Brightcrumb's founder, Tomas "
        "Reyes, will join Kestrel's board.")

MERGER = ("Northbridge General Hospital and St. Aldric Medical Centre will merge into one trust. Dr. Helen Okafor, "
          "currently chief executive of Northbridge, will lead the new trust, while St. Aldric's chief executive, "
          "Marcus Pell, will become chief operating officer.")


def _moved(claim: str, passage: str) -> list[str]:
    scope = scope_of([Source("p0", passage)], None)
    return [why for _, _, why in moved_names(claim, ClosestSentence.of(claim, passage), scope, 0.8)]


@pytest.mark.parametrize(("claim", "passage", "why"), [
    ("Ferreira had narrowly won the first round.", ELECTION, "Ferreira where the passage has Salas"),
    ("Costa scored nine goals for Rivera last season.", TRANSFER, "Rivera where the passage has Valmont"),
    ("Alfred Russel Wallace discovered a new species of beetle in Borneo.", BEETLE,
     "Alfred Russel Wallace where the passage has Lund University"),
    ("Kestrel's founder, Tomas Reyes, will join Brightcrumb's board.", DEAL,
     "Kestrel's founder where the passage has Brightcrumb's founder"),
    ("The indie band Halyard is from Leeds.", "Halyard toured Leeds in 2009. The indie band Halyard is from Sheffield.",
     "Leeds where the passage has Sheffield"),  # a preposition places the name
    # the name's own noun made its possession: Ferenczi is the teacher, not the one taught
    ("Sofia Lindqvist, Emil Ferenczi's teacher in Vienna, won the Albrecht Competition in 2015.", VIOLIN,
     "Emil Ferenczi's teacher where the passage has teacher Emil Ferenczi"),
    # a name put before the noun whose phrase names another ("in Ghent")
    ("The company will close its Manila distribution center by the end of September.", CUTS,
     "Manila where the passage has Ghent"),
    # the name takes its title along: "chief financial officer" is the name's, not the copy's
    ("Chief financial officer Daniel Pryce said aerospace order intake grew 17% and now makes up about a third of the "
     "order backlog.", RESULTS, "Daniel Pryce where the passage has Miriam Oakes"),
])
def test_a_name_moved_into_a_copied_sentence_is_found(claim, passage, why):
    assert why in _moved(claim, passage)


@pytest.mark.parametrize(("claim", "passage"), [
    ("Salas had won the first round narrowly.", ELECTION),  # the sentence itself
    ("Costa scored nine goals for Valmont last season.", TRANSFER),
    ("Chief executive Miriam Oakes said aerospace order intake grew 17% and now makes up about a third of the order "
     "backlog.", RESULTS),
    ("Chief financial officer Daniel Pryce said the board approved an interim dividend of 6.5 pence a share.",
     RESULTS),
    ("The company will close its Ghent distribution center by the end of September.", CUTS),
    ("Sofia Lindqvist, a pupil of the teacher Emil Ferenczi in Vienna, won the Albrecht Competition in 2015.", VIOLIN),
    # where a passage also writes the possession, someone else may hold it
    ("Anna Berg, Emil Ferenczi's teacher in Vienna, won the Albrecht Competition in 2015.",
     VIOLIN + " Emil Ferenczi's teacher was Anna Berg."),
    ("The company will close a distribution center by the end of September, not its Manila operations.", CUTS),
    # names from two sentences: no copy of one
    ("A Lund University team led by Sara Lind found a new beetle in Borneo and named it after Wallace.", BEETLE),
    ("Brightcrumb's founder, Tomas Reyes, will join Kestrel's board.", DEAL),
    # a coreferent said by its name: the sentence's other name stands in another slot
    ("Acme's revenue rose 5%, the chief executive said.",
     "Acme makes brakes. The company's revenue rose 5%, chief executive Jane Doe said."),
    # an article alone is no slot; a weekday is compared only with a weekday, not with a name
    ("The ICRC made the appeal as the UN Security Council met.",
     "The ICRC urged a pause. The call came just before the U.N. Security Council met."),
    ("Al-Abadi arrived in Tikrit to claim the victory.",
     "Al-Abadi arrived Wednesday to claim the victory. Tikrit fell a year after it was attacked."),
    # one person by either of the names the passage gives together
    ("The event ended with photo opportunities with Raymond.",
     "Tameka Raymond spoke about her memoir. The event ended with photo opportunities with Tameka."),
    # a name the passages lack is the missing names' finding, not a moved one
    ("Ferreira had narrowly won the first round.", ELECTION.replace("Paula Ferreira", "Paula Gomes").replace(
        "Ferreira will", "Gomes will")),
    # the whole name of what the sentence names short ("Northbridge", "St. Aldric's"), and a possessive the passage
    # writes with "of" ("chief executive of Northbridge")
    ("Helen Okafor, chief executive of Northbridge General Hospital, will lead the new trust.", MERGER),
    ("Marcus Pell, chief executive of St. Aldric Medical Centre, will become chief operating officer.", MERGER),
    ("The new trust will be led by Northbridge's chief executive, Helen Okafor.", MERGER),
])
def test_no_moved_name_without_a_swap(claim, passage):
    assert _moved(claim, passage) == []


def test_a_name_called_the_noun_is_not_its_possessor_where_no_passage_says_so():
    from halguard.grounding.signals.moved import _is_the

    assert _is_the("teacher", "Emil Ferenczi", VIOLIN, [VIOLIN])
    assert not _is_the("teacher", "Emil Ferenczi", VIOLIN, [VIOLIN, "Emil Ferenczi's teacher was Anna Berg."])
    assert not _is_the("pupil", "Emil Ferenczi", VIOLIN, [VIOLIN])


def test_a_short_answers_name_beside_another_name_copies_no_sentence():
    # the best chunk holds only the Albany sentence; the passages name Colonie elsewhere ("New York" is a name of
    # the claim, not the copy of a sentence)
    passages = ("Major portions of the film were shot on location in Albany, New York. The cemetery lies in "
                "Colonie, New York, just outside the city.")
    chunk = "Major portions of the film were shot on location in Albany, New York."
    scope = scope_of([Source("p0", passages)], None)
    assert moved_names("Colonie, New York", ClosestSentence.of("Colonie, New York", chunk), scope, 0.8) == []
    claim = "The film was shot on location in Colonie, New York."
    at = claim.index("Colonie")
    found = moved_names(claim, ClosestSentence.of(claim, chunk), scope, 0.8)
    assert found == [(at, at + 7, "Colonie where the passage has Albany")]


def test_verifier_reports_a_moved_name_as_a_role_conflict():
    verifier = LocalVerifier()
    verdict = verifier.verify("Ferreira had narrowly won the first round.", [ELECTION])
    assert verdict.label == "hallucinated"
    # the role check's frames read it too now that a one-name sentence is parsed: either reason names the swap
    assert any(r.startswith("Ferreira where the passage has Salas") for r in verdict.claims[0].signals.role_conflicts)
    assert verifier.verify("Salas had narrowly won the first round.", [ELECTION]).label == "supported"


def test_moved_names_are_bounded_on_crafted_text():
    crafted = "Alpha Beta " * 5_000 + "won."
    passage = "Gamma won. " + "Alpha Beta " * 5_000
    scope = scope_of([Source("p0", passage)], None)
    start = time.monotonic()
    moved_names(crafted, ClosestSentence.of(crafted, passage), scope, 0.8)
    assert time.monotonic() - start < 10.0


TRIAL_FUNDING = ("Dr. Lena Park, a cardiologist at St. Mary's Hospital, led the study of 1,200 patients. The trial was "
                 "funded by Corvel Pharma, which makes the drug.")


def test_a_name_after_a_titles_abbreviation_is_moved_whole(verifier):
    # "St. Mary's Hospital" was read as "St" and "Mary's Hospital", neither in the funder's slot
    verdict = verifier.verify("The trial was funded by St. Mary's Hospital.", [TRIAL_FUNDING])
    assert verdict.label == "hallucinated"
    reasons = verdict.claims[0].signals.role_conflicts
    assert len(reasons) == 1 and reasons[0].startswith("St. Mary's Hospital where the passage has Corvel Pharma")
    faithful = verifier.verify("Corvel Pharma, which makes the drug, funded the trial.", [TRIAL_FUNDING])
    assert faithful.label == "supported"
