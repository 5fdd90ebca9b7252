"""A choice question's answer picks the option the passages give (halguard.grounding.signals.choice)."""

import time

import pytest

from halguard.grounding.signals.choice import choice_conflicts, choice_options

HANSBERRY = "Lorraine Vivian Hansberry (May 19, 1930 – January 12, 1965) was an American playwright and writer."
GULLAND = "Sandra Gulland (born 3 November 1944) is an American-born Canadian novelist."
BORN = "Which author was born first, Lorraine Hansberry or Sandra Gulland?"
SPECIES = "Which genus has more species, Cardiospermum or Chestnut?"
CARDIO = "Cardiospermum is a genus of about 14 species of flowering plants in the soapberry family."
CHESTNUT = ("The chestnuts are the nine species of deciduous trees and shrubs in the genus Castanea. Chestnut wood "
            "is hard.")


def _conflicts(claim, question, *passages, alone=False):
    return [claim[s:e] for s, e, _ in choice_conflicts(claim, question, list(passages), answers_alone=alone)]


@pytest.mark.parametrize(("question", "options"), [
    (BORN, ("Lorraine Hansberry", "Sandra Gulland")),
    ("Was Allen Drury or Jean Giono born first?", ("Allen Drury", "Jean Giono")),
    ("Does the Inula genus or the Fouquieria genus have more species?", ("Inula", "Fouquieria")),
    ("Who founded Acme Corp?", None),
    ("What band released three EPs: \"Box\" in 2011 with an earlier lineup, The Naked and Famous or Residual Kid?",
     ("Famous", "Residual Kid")),
])
def test_the_options_of_a_question(question, options):
    found = choice_options(question)
    assert (found[:2] if found else None) == options


@pytest.mark.parametrize("claim", [
    "Sandra Gulland was born first.",
    "Sandra Gulland was born before Lorraine Hansberry.",
    "Lorraine Hansberry was born after Sandra Gulland.",
    "Sandra Gulland is older than Hansberry.",
])
def test_the_other_option_by_the_passages_years_is_found(claim):
    assert _conflicts(claim, BORN, HANSBERRY, GULLAND)


@pytest.mark.parametrize("claim", [
    "Lorraine Hansberry was born first.",
    "Lorraine Hansberry was born before Sandra Gulland.",
    "Sandra Gulland was born after Lorraine Hansberry.",
    "Sandra Gulland is younger than Hansberry.",
    "Sandra Gulland was born in 1944.",  # a sentence of a longer answer: no pick of its own
    "While Sandra Gulland was born in 1944, Lorraine Hansberry came earlier.",  # the comparative is not between them
    "Both were born in the twentieth century.",
    "Sandra Gulland was not born first.",  # a negation: not read
])
def test_a_right_pick_or_no_pick_is_no_finding(claim):
    assert _conflicts(claim, BORN, HANSBERRY, GULLAND) == []


def test_a_short_answer_picks_the_option_it_names():
    assert _conflicts("Sandra Gulland.", BORN, HANSBERRY, GULLAND, alone=True) == ["Sandra Gulland"]
    assert _conflicts("Lorraine Hansberry.", BORN, HANSBERRY, GULLAND, alone=True) == []
    assert _conflicts("Sandra Gulland.", BORN, HANSBERRY, GULLAND) == []  # not the whole answer: no pick


def test_counts_are_read_beside_the_questions_noun():
    assert _conflicts("Chestnut has more species than Cardiospermum.", SPECIES, CARDIO, CHESTNUT)
    assert _conflicts("Cardiospermum has more species.", SPECIES, CARDIO, CHESTNUT) == []
    assert _conflicts("Chestnut has fewer species.", SPECIES, CARDIO, CHESTNUT) == []  # its own direction: right


def test_a_value_missing_on_either_side_decides_nothing():
    assert _conflicts("Sandra Gulland was born first.", BORN, HANSBERRY, "Sandra Gulland is a Canadian novelist.") == []
    # One passage naming both options gives each the sentences that name it alone.
    both = f"{HANSBERRY} {GULLAND}"
    assert _conflicts("Sandra Gulland was born first.", BORN, both) == ["Sandra Gulland"]
    # The question's comparative must stand beside the options: an "earlier" in another clause is none.
    q = "What band released three EPs: \"Box\" in 2011 with an earlier lineup, The Naked and Famous or Residual Kid?"
    ctx = "The Naked and Famous formed in 2007. Residual Kid formed in 2009 and released three EPs."
    assert _conflicts("Residual Kid.", q, ctx, alone=True) == []


def test_bounded_on_crafted_input():
    passage = ("Sandra Gulland 1944 " * 20_000) + "Lorraine Hansberry 1930"
    t0 = time.perf_counter()
    choice_conflicts("Sandra Gulland was born first.", BORN + " or " * 10_000, [passage] * 50)
    assert time.perf_counter() - t0 < 5.0


def test_verifier_reports_the_pick_and_its_reason(verifier):
    wrong = verifier.verify("Sandra Gulland was born first.", [HANSBERRY, GULLAND], question=BORN)
    assert wrong.label == "hallucinated"
    claim = wrong.claims[0]
    assert claim.signals.choice_conflicts == [
        "Sandra Gulland: the passages give Lorraine Hansberry 1930, against 1944 for Sandra Gulland"]
    assert any(why.startswith("the other option: 'Sandra Gulland'") for why in claim.reasons)
    right = verifier.verify("Lorraine Hansberry was born first.", [HANSBERRY, GULLAND], question=BORN)
    assert right.label == "supported"
    assert right.claims[0].signals.choice_conflicts == []


def test_the_year_of_the_questions_event_wins_over_the_first_year():
    question = "Which was completed first, the Eiffel Tower or the Statue of Liberty?"
    tower = "The Eiffel Tower, visited by 7 million people in 2019, was completed in 1889."
    statue = "The Statue of Liberty was completed in 1886 and dedicated that October."
    assert _conflicts("The Eiffel Tower was completed first.", question, tower, statue) == ["Eiffel Tower"]
    assert _conflicts("The Statue of Liberty was completed first.", question, tower, statue) == []
    # Without the event's word in a passage, its first year: "(born ...)" is not written, the dates are.
    assert _conflicts("Sandra Gulland was born first.", BORN, HANSBERRY, "Sandra Gulland (3 November 1944) writes.")


@pytest.mark.parametrize(("claim", "wrong"), [
    ("Yale University was founded before Harvard University.", True),
    ("Yale is older than Harvard.", True),
    ("Harvard was founded after Yale.", True),
    ("Harvard University was founded before Yale University.", False),
    ("Yale was founded after Harvard.", False),
    ("Yale, founded before the war, admitted Harvard students.", False),  # "before the war" compares nothing
    ("It is older than Harvard.", False),
])
def test_a_claim_that_puts_two_names_in_time_order_is_read_without_a_question(claim, wrong):
    passages = ["Harvard University was founded in 1636.", "Yale University was founded in 1701."]
    assert bool(choice_conflicts(claim, None, passages)) is wrong


def test_a_claims_own_count_comparison_is_not_read():
    # Counts are compared only as a question asks them (measured there); a sentence's "more goals than" is not.
    passages = ["Oslo has about 709,000 inhabitants.", "Bergen has about 285,000 inhabitants."]
    assert choice_conflicts("Bergen has more inhabitants than Oslo.", None, passages) == []
    asked = "Which has more inhabitants, Oslo or Bergen?"
    assert choice_conflicts("Bergen has more inhabitants than Oslo.", asked, passages)


def test_verifier_reads_a_time_order_without_a_question(verifier):
    passages = ["Harvard University was founded in 1636. Yale University was founded in 1701."]
    wrong = verifier.verify("Yale University was founded before Harvard University.", passages)
    assert wrong.label == "hallucinated" and wrong.claims[0].signals.choice_conflicts
    assert verifier.verify("Harvard University was founded before Yale University.", passages).label == "supported"


def test_the_rules_only_findings_hold_the_pick_against_a_judge():
    # deterministic_findings (what an LLM judge's "supported" cannot overrule) measures claims as the verifier does:
    # the choice check runs there too, not only in the verifier's own pipeline.
    from halguard.grounding.findings import deterministic_findings

    found = deterministic_findings("Sandra Gulland was born first.", [HANSBERRY, GULLAND], question=BORN)
    assert [f.kind for f in found.all] == ["choice_conflict"]
    assert found.all[0].text == "Sandra Gulland"
    assert deterministic_findings("Lorraine Hansberry was born first.", [HANSBERRY, GULLAND], question=BORN).all == []


BARTOK = "Béla Viktor János Bartók (1881 – 1945) was a Hungarian composer, pianist and ethnomusicologist."
PEPUSCH = ("Johann Christoph Pepusch (1667 – 1752) was a German-born composer who spent most of his working life in "
           "England.")
HUNGARIAN = "Which composer was Hungarian, Béla Bartók or Johann Christoph Pepusch?"


@pytest.mark.parametrize(("claim", "found"), [
    ("Johann Christoph Pepusch was a Hungarian composer.", ["Johann Christoph Pepusch"]),
    ("Johann Christoph Pepusch.", ["Johann Christoph Pepusch"]),
    ("Béla Bartók was the Hungarian composer.", []),  # the right pick
    ("Both were composers.", []), ("Neither was Hungarian.", []),
    ("Pepusch was not Hungarian; Bartók was.", []),  # a negation: not read
])
def test_the_option_without_the_asked_property_is_found(claim, found):
    assert _conflicts(claim, HUNGARIAN, BARTOK, PEPUSCH, alone=True) == found


@pytest.mark.parametrize(("question", "passages", "claim"), [
    # the property's words in both options' passages, or in neither: nothing decided
    ("Which composer was Hungarian, Béla Bartók or Johann Christoph Pepusch?",
     (BARTOK, PEPUSCH.replace("German-born", "Hungarian-born")), "Johann Christoph Pepusch."),
    ("Which composer was Danish, Béla Bartók or Johann Christoph Pepusch?", (BARTOK, PEPUSCH),
     "Johann Christoph Pepusch."),
    # a value asked, not a subject ("born in A or B"), and a comparison this check does not read
    ("Was Robert Heaton born in Canada or England?", ("Robert Heaton was born in England.", "Canada is large."),
     "Canada."),
    ("Which breed of dog is larger, the German Pinscher or the Cirneco?",
     ("The German Pinscher is a medium-sized dog.", "The Cirneco is a larger hunting dog."), "The German Pinscher."),
])
def test_a_property_question_decides_only_where_the_passages_do(question, passages, claim):
    assert _conflicts(claim, question, *passages, alone=True) == []


def test_a_property_pick_is_read_in_short_answers_only():
    # A sentence of a longer answer naming one option is no pick (the question may ask about the other one too)
    assert _conflicts("Johann Christoph Pepusch was a composer.", HUNGARIAN, BARTOK, PEPUSCH) == []


def test_a_property_question_stays_bounded_on_crafted_input():
    passage = ("Béla Bartók Hungarian " * 20_000) + "Johann Christoph Pepusch composer"
    t0 = time.perf_counter()
    choice_conflicts("Johann Christoph Pepusch.", HUNGARIAN + " or " * 10_000, [passage] * 50, answers_alone=True)
    assert time.perf_counter() - t0 < 5.0


def test_verifier_reports_a_property_pick(verifier):
    wrong = verifier.verify("Johann Christoph Pepusch was a Hungarian composer.", [BARTOK, PEPUSCH],
                            question=HUNGARIAN)
    assert wrong.label == "hallucinated"
    assert wrong.claims[0].signals.choice_conflicts == [
        "Johann Christoph Pepusch: the passages say Hungarian of Béla Bartók, not of Johann Christoph Pepusch"]
    right = verifier.verify("Béla Bartók was Hungarian.", [BARTOK, PEPUSCH], question=HUNGARIAN)
    assert right.label == "supported" and right.claims[0].signals.choice_conflicts == []


@pytest.mark.parametrize(("question", "options"), [
    ("Which novel came out first, The Hours That Broke the Silence or The Girl Who Walked Home?",
     ("The Hours That Broke the Silence", "The Girl Who Walked Home")),
    ("Which label was founded earlier--Morrow or Kestrel?", ("Morrow", "Kestrel")),
    ("Which band was formed first Morrow or The Kestrels ?", ("Morrow", "The Kestrels")),
    ("Which game was published first, Hold On! or Tidewater?", ("Hold On!", "Tidewater")),
    ("Which genus holds more species: Vellara, or Quintonia?", ("Vellara", "Quintonia")),
    ("Which ship was launched first, HMS Ardent, 1929 or The Northern Star?", ("HMS Ardent, 1929", "The Northern Star")),
    ("Would the festival be held in even or uneven years?", None),
    ("What types of media would these be seen on, Television or movies?", None),
    ("Who sang the part of a soprano, mezzo-soprano, or contralto?", None),
])
def test_options_a_name_reader_does_not_take_whole_are_read_by_the_layout(question, options):
    found = choice_options(question)
    assert (found[:2] if found else None) == options


def test_an_option_read_by_the_layout_is_checked_like_any():
    question = "Which novel came out first, The Hours That Broke the Silence or The Girl Who Walked Home?"
    hours = "The Hours That Broke the Silence is a novel by Ada Perrin, first published in 1962."
    girl = "The Girl Who Walked Home is a 1958 novel by the Welsh writer Owen Prys."
    assert _conflicts("The Hours That Broke the Silence came out first.", question, hours, girl, alone=True) == [
        "Hours That Broke the Silence"]
    assert _conflicts("The Girl Who Walked Home came out first.", question, hours, girl, alone=True) == []
    assert _conflicts("The Girl Who Walked Home.", question, hours, girl, alone=True) == []


def test_the_layout_reader_is_bounded():
    question = "Which came first, " + "The Long Title " * 5_000 + "or " + "Another Long Title " * 5_000 + "?"
    t0 = time.perf_counter()
    choice_options(question)
    choice_options("Which, " * 10_000 + " A or B?")
    assert time.perf_counter() - t0 < 1.0


def test_the_sentences_after_an_options_own_speak_of_it_by_the_questions_event_only():
    question = "Which brewery was founded first, Harrow Ales or Kestrel Brewing?"
    # one passage of two paragraphs glued together, as retrieved: the founding years stand in the sentences after
    passage = ("Harrow Ales is a brewery in Kent. It was founded in 1962 by two brothers.Kestrel Brewing is a craft "
               "brewery in Leeds. The brewery was founded in 1958.")
    assert _conflicts("Harrow Ales was founded first.", question, passage, alone=True) == ["Harrow Ales"]
    assert _conflicts("Kestrel Brewing was founded first.", question, passage, alone=True) == []
    # a year after no word of the question's event is no value of the option's: a broadcast is not a first role
    question = "Who first acted in the series Night Harbour, Tom Ashby or Clara Venn?"
    passage = ("Tom Ashby (born 4 May 1990) is a British actor. In 2016 he played a sailor in Night Harbour. Night "
               "Harbour is a drama which starred Clara Venn in its first series. A special was broadcast in 2013.")
    assert _conflicts("Clara Venn.", question, passage, alone=True) == []
