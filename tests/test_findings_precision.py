"""Issue 44: findings that are right. Names matched as mentions, role conflicts only between aligned events,
polarity flips only against an aligned proposition, and only kinds measured precise on real text block."""

from __future__ import annotations

import pytest

from halguard import ClaimStatus, LocalVerifier
from halguard.grounding.blocking import (
    BLOCKING_FINDINGS,
    BLOCKING_PRECISION,
    CONTRADICTION_KINDS,
    FINDING_PRECISION,
    MIN_MEASURED_CLAIMS,
    measured_precision,
)
from halguard.grounding.signals import ClaimMeasurements
from halguard.text.lexical import entity_mentions, term_set
from halguard.text.mentions import initials, mentioned, same_entity, strip_titles

RECORD = ('{"name": "Bacara Resort & Spa", "address": "8301 Hollister Ave", "city": "Goleta", "state": "CA", '
          '"categories": "Hotels, Resorts, Spas", "attributes": {"WiFi": "free", "RestaurantsReservations": true}}')
CURIE = "Marie Curie won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911."
NORTHWIND_SOLD = ("Northwind Traders sold its trucking division to Palmera Freight in March 2022, ending its "
                  "freight business.")
NORTHWIND_2015 = "Northwind Traders acquired Palmera Freight's parent company in 2015."
ACQUIRED = "Halvorsen Bank acquired Tidewater Credit Union in 2019 for $340 million, the largest deal in its history."
SUED = "In 2021 the city of Marlow sued Bexley Chemicals over groundwater contamination near the plant."
HIRED = "Orla Quinn hired Devin Marsh as chief financial officer in January, after a six-month search."
BRIDGE = "The bridge was designed by Ines Calder and built by Morrow Construction between 1998 and 2001."


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier()


DEA_CASE = ("The conviction was the result of Operation Pullin Chains, led by the U.S. Attorney's Office and the Drug "
            "Enforcement Administration. This operation targeted dealers.")


def _m(name: str, context: str) -> bool:
    return mentioned(name, [context], frozenset(term_set(context)))


@pytest.mark.parametrize(("name", "context"), [
    ("California", RECORD),  # a record's state code
    ("CA", "She moved to Goleta, California, in 2010."),  # and the reverse
    ("Wi-Fi", RECORD), ("WiFi", "Guests get free Wi-Fi in every room."), ("wifi", "free Wi-Fi"),
    ("Texan", "The storm damaged two Texas bases."),
    ("Colombian", "She was born in Barranquilla, Colombia."),
    ("EU", "The European Union imposed tariffs."), ("European Union", "The EU imposed tariffs."),
    ("USCIS", "Applications go to US Citizenship and Immigration Services."),
    ("US Citizenship and Immigration Services", "Applications go to USCIS."),
    ("the US", "the United States"), ("United States", "the U.S. Senate"), ("U.S.", "the United States"),
    ("Rep. George Santos", "George Santos, a congressman from New York"), ("Rep.", "anything"),
    ("°F", "It reached 104 degrees Fahrenheit."), ("F", "It reached 104 degrees Fahrenheit."),
    ("Patty", '"review_text": "Friendly bar.\\\\n\\\\nPatty in the front is awesome."'),  # a JSON escape
    ("DEA", DEA_CASE),  # the long form at the end of a long capitalised stretch and of its sentence
    ("USA", "Disposal of a faded or worn American flag is done by burning."),  # the adjective's country
    ("American", "She returned to the United States in 2019."),
    ("Pennsylvanians", "Think carefully, Pennsylvania. This is about all of us."),  # place in -a + n
    ("LAX", "He grabbed the camera in July 2013 at Los Angeles International Airport."),  # an airport's code
    ("CEO", "The board kept its founder, Omar Haddad, as chief executive."),  # an office, lower case, no "officer"
    ("CFO", "The board named finance chief Paul Berg as interim head."), ("C.E.O.", "the chief executive officer"),
    ("Q2", "Revenue in the second quarter rose 19%."), ("4Q", "fourth quarter deliveries"),  # reporting abbreviations
    ("YoY", "Revenues were up 19% year-over-year."), ("H1", "sales in the first half of 2023"),
    ("FY2025", "quarterly sales by region, financial year 2025"), ("FY25", "Revenue for fiscal 2025 rose."),  # a
    ("FY2025", "In the 2025 fiscal year revenue rose."),  # fiscal year run into its year
    ("Company's Q2", "The company's revenues in the second quarter rose."),  # a sentence's first word run into it
    ("U.K.", "Activists in London dumped paint."), ("US", "He moved to New York in 2019."),  # a passage's city
    ("Judge Amelia Ortiz", "Amelia Ortiz wrote the majority opinion."),  # offices spelt whole are titles too
    ("Mayor Ruth Berg", "the incumbent, Ruth Berg"),
    ("Nigeria's", "returned to the Nigerian government"), ("EU's", "The European Union imposed tariffs."),  # a
    ("the US’s", "the United States"),  # possessive names its owner
])
def test_a_name_said_another_way_is_mentioned(name, context):
    assert _m(name, context)


@pytest.mark.parametrize(("name", "context"), [
    ("Nevada", RECORD), ("Germany", "France and Spain signed."), ("Japan", "JP Morgan reported earnings."),
    ("NASA", "the European Space Agency"), ("American", "two Texas bases"), ("Boeing", "Lockheed Martin built it."),
    ("Oregon", "the state of Washington"), ("Dr. Alan Grant", "Ellie Sattler"),
    ("DEAT", DEA_CASE),  # a run ends with its sentence: "Administration. This" is no name
    ("Ohioans", "Think carefully, Pennsylvania."), ("USA", "He played for a Latin American club."),
    ("JFK", "He landed at Los Angeles International Airport."), ("SFO", "He flew in from San Francisco."),
    ("CEO", "the chief of police and the executive board"), ("CFO", "the chief financial analyst"),
    ("C.", "It reached 30 degrees Celsius."),  # an initial, not a unit symbol: dots are dropped for offices only
    ("Q3", "Revenue in the second quarter rose 19%."), ("QoQ", "Revenues were up 19% year-over-year."),
    ("Company's Q3", "The company's revenues in the second quarter rose."),
    ("FY2024", "quarterly sales by region, financial year 2025"), ("FY2025", "In 2025 revenue rose."),
    ("Canada", "Activists in London dumped paint."), ("London", "Activists in the UK dumped paint."),  # one way only
    ("UK", "He flew to Birmingham."), ("US", "He flew to Birmingham."),  # a city of two countries implies neither
])
def test_a_name_the_passages_lack_is_not_mentioned(name, context):
    assert not _m(name, context)


def test_mention_helpers():
    assert strip_titles("Rep. George Santos") == "George Santos"
    assert strip_titles("Gov.") == ""
    assert strip_titles("Judge Peter Lang") == "Peter Lang" and strip_titles("Justice") == ""
    assert initials("US Citizenship and Immigration Services") == "USCIS"
    assert same_entity("the US", "the United States")
    assert same_entity("EU", "European Union")
    assert not same_entity("Airbus", "Boeing")


def test_letters_joined_by_an_ampersand_are_one_word():
    names = [t[s:e] for t in ("The event ended with a Q&A and a signing.", "R&D grew while AT&T paid.")
             for s, e in entity_mentions(t)]
    assert names == ["AT&T"]  # "Q&A" and "R&D" abbreviate common words; "AT&T" is a name, not the word "at"


@pytest.mark.parametrize(("text", "names"), [
    ("It comes with 16 GB of RAM, a 512-GB SSD and a 3.2GHz chip.", ["RAM", "SSD"]),  # units after numbers
    ("The GB team won, and 2 GE engines power the A320.", ["GB", "GE", "A320"]),  # a capital without a number
    ("In 2020 J. K. Rowling wrote it; it has 16 GB.", ["J. K. Rowling"]),  # a letter after a year is an initial
])
def test_a_unit_symbol_after_a_number_is_no_name(text, names):
    assert [text[s:e] for s, e in entity_mentions(text)] == names


@pytest.mark.parametrize(("text", "names"), [
    ("Activists in the U.K. dumped paint.", ["U.K"]),  # not the name "U" and a sentence-initial "K"
    ("The U.S. and the E.U. agreed.", ["U.S", "E.U"]),  # "S" and "U" are stopwords, yet letters of the acronym
    ("He works at I.B.M. in Paris.", ["I.B.M", "Paris"]),
    ("He met J. K. Rowling in the U.S.A. last year.", ["J. K. Rowling", "U.S.A"]),  # a person's initials, spaced
    ("He moved to the U.S. Microsoft hired him.", ["U.S"]),  # a sentence after an acronym is not its name
    ("Take vitamin C. Researchers agree.", ["C"]), ("Plan B. Then C.", ["Plan B", "C"]),
    ("Q3 revenue rose.", ["Q3"]),  # a code opening a sentence is a name, as an acronym is
])
def test_initials_and_dotted_acronyms_stay_in_their_name(text, names):
    assert [text[s:e] for s, e in entity_mentions(text)] == names


@pytest.mark.parametrize(("answer", "context", "label"), [
    ("Activists in the U.K. dumped paint outside the Russian embassy.",
     "UK activists dumped paint outside the Russian embassy on Thursday.", "supported"),
    ("In 2019 the company moved its headquarters to the U.S.",
     "The company moved its headquarters to the United States in 2019.", "supported"),
    ("In 2019 the company moved its headquarters to the U.S.",
     "The company moved its headquarters to France in 2019.", "hallucinated"),
    ("Q2 revenues rose 19% YoY.", "Organic revenues in the second quarter were up 19% year-over-year.", "supported"),
    ("Q3 revenues rose 19% YoY.", "Organic revenues in the second quarter were up 19% year-over-year.",
     "hallucinated"),
    ("Northwind sold 7,680 units in FY2025.", "Northwind Outdoor sold 7,680 units in financial year 2025.",
     "supported"),
    ("Northwind sold 7,680 units in FY2024.", "Northwind Outdoor sold 7,680 units in financial year 2025.",
     "hallucinated"),
    # a name the claim glosses with the passages' acronym is theirs; a gloss the passages lack is checked as a name
    ("Ramadi is under pressure from Islamic State (ISIS) militants.", "Ramadi is under pressure from ISIS militants.",
     "supported"),
    ("Ramadi is under pressure from Islamic Jihad (PIJ) militants.", "Ramadi is under pressure from ISIS militants.",
     "hallucinated"),
])
def test_abbreviated_names_places_and_periods_are_read_as_written(answer, context, label):
    assert LocalVerifier(meaning=False).verify(answer, [context]).label == label


def test_a_crafted_run_of_capitals_stays_bounded():
    import time

    crafted = " ".join(["Alpha Beta Gamma and Delta of the Epsilon"] * 20_000)  # 840 KB of one capitalised run
    t0 = time.perf_counter()
    assert not mentioned("QXZ", [crafted], frozenset(term_set(crafted)))
    assert time.perf_counter() - t0 < 10.0


@pytest.mark.parametrize(("answer", "context"), [
    ("Marie Curie won the Nobel Prize in Chemistry in 1911.", [CURIE]),
    ("Bacara Resort & Spa is a resort in Goleta, California.", [RECORD]),
    ("The resort offers free Wi-Fi.", [RECORD]),
    ("The storm damaged two Texan bases.", ["The storm damaged two Texas bases on Tuesday, officials said."]),
    ("Rep. George Santos has refused to resign.",
     ["Representative George Santos has refused to resign despite the federal charges against him."]),
    ("The EU imposed new tariffs on steel.", ["The European Union imposed new tariffs on steel imports."]),
    ("At a ceremony in Lagos, the museum returned the bronze head to Nigeria's government.",
     ["The museum returned the bronze head to the Nigerian government at a ceremony in Lagos."]),
    ("Vergara wore a red dress at the gala.",
     ["Sofia Vergara, the Colombian-born actress, wore a red dress at the gala on Sunday."]),
    ("The Colombian-born actress wore a red dress at the gala.",
     ["Sofia Vergara, the Colombian-born actress, wore a red dress at the gala on Sunday."]),
    ("Palmera Freight bought the trucking division from Northwind Traders in March 2022.",
     [NORTHWIND_SOLD, NORTHWIND_2015]),  # the converse of the passage, not a swap
])
def test_grounded_answers_the_issue_names_are_supported(verifier, answer, context):
    v = verifier.verify(answer, context)
    assert v.label == "supported", [c.reasons for c in v.claims]


def test_the_northwind_swap_is_flagged_for_the_swap_not_the_date(verifier):
    answer = "Northwind Traders bought the trucking division from Palmera Freight in March 2022."
    v = verifier.verify(answer, [NORTHWIND_SOLD, NORTHWIND_2015])
    assert v.label == "hallucinated"
    reasons = " ".join(v.claims[0].reasons)
    assert "roles swapped: Northwind Traders / Palmera Freight" in reasons
    assert "2015" not in reasons
    assert all("March 2022" not in s.text for s in v.spans)


@pytest.mark.parametrize(("answer", "context"), [
    # fresh swaps, written for this issue: passive, nominal, relative clause, converse predicates
    ("Tidewater Credit Union acquired Halvorsen Bank in 2019.", ACQUIRED),
    ("Halvorsen Bank was acquired by Tidewater Credit Union in 2019.", ACQUIRED),
    ("Halvorsen Bank, which Tidewater Credit Union acquired in 2019, paid $340 million.", ACQUIRED),
    ("Bexley Chemicals sued the city of Marlow over groundwater contamination.", SUED),
    ("The city of Marlow was sued by Bexley Chemicals in 2021.", SUED),
    ("Devin Marsh hired Orla Quinn as chief financial officer.", HIRED),
    ("The bridge was designed by Morrow Construction and built by Ines Calder.", BRIDGE),
    ("In March, Hannah Voss replaced Tomas Reyes as head coach.",
     "In March, Tomas Reyes replaced Hannah Voss as head coach of the national team."),
    ("The Brisbane Museum of Art lent the painting to the Alder Foundation.",
     "The Alder Foundation lent the painting to the Brisbane Museum of Art for its spring exhibition."),
])
def test_fresh_role_swaps_are_flagged_with_a_role_reason(verifier, answer, context):
    v = verifier.verify(answer, [context])
    assert v.label == "hallucinated"
    assert any(c.signals.role_conflicts for c in v.claims), [c.reasons for c in v.claims]


@pytest.mark.parametrize(("answer", "context"), [
    ("Tidewater Credit Union was acquired by Halvorsen Bank in 2019.", ACQUIRED),
    ("Bexley Chemicals was sued by the city of Marlow in 2021.", SUED),
    ("Devin Marsh was hired by Orla Quinn as chief financial officer.", HIRED),
    ("Ines Calder designed the bridge, which Morrow Construction built.", BRIDGE),
])
def test_role_paraphrases_have_no_role_conflict(verifier, answer, context):
    v = verifier.verify(answer, [context])
    assert v.label == "supported"
    assert not any(c.signals.role_conflicts for c in v.claims)


@pytest.mark.parametrize(("answer", "context"), [
    ("The lawsuit does not name the parties involved.",
     "The lawsuit, filed on Monday in federal court, seeks damages of $2 million from the company."),
    ("Hernandez faces life in prison without parole.",
     "If convicted, Hernandez faces life in prison with no possibility of parole."),
    ("The donuts were not fresh.", "One reviewer said the donuts tasted stale and the coffee was cold."),
])
def test_a_negation_without_an_aligned_proposition_is_no_flip(verifier, answer, context):
    v = verifier.verify(answer, [context])
    assert not v.claims[0].signals.negation_mismatch
    assert v.claims[0].status != ClaimStatus.CONTRADICTION


def test_a_negator_opening_a_bound_is_no_flip(verifier):
    from halguard.grounding.signals.bounds_turned import bounds_turned
    from halguard.grounding.signals.negation import flip_targets

    assert flip_targets("It can be kept for no more than 6 hours.") == set()
    # a few words between the negator and its bound ("must not be kept for more than"): the bound again, whose
    # turning around ("can be kept for more than 6 hours") signals/bounds_turned.py reads
    assert flip_targets("It must not be kept for more than 6 hours.") == set()
    assert bounds_turned("It can be kept for more than 6 hours.", "It must not be kept for more than 6 hours.")
    context = ["After the first dose, the vial can be kept at room temperature for no more than 6 hours and must then "
               "be discarded."]
    v = verifier.verify("After the first dose, the vial may stay at room temperature for up to six hours and must then "
                        "be thrown away.", context)
    assert not v.claims[0].signals.negation_mismatch
    assert v.claims[0].status != ClaimStatus.CONTRADICTION


def test_an_antonym_is_read_against_every_clause_that_aligns_best(verifier):
    # "Water boils at 100 °C" and "the boiling point falls" each share two words with the claim's first clause
    context = ["Water boils at 100 °C at sea level, but the boiling point falls as air pressure decreases."]
    v = verifier.verify("The boiling point of water rises as air pressure decreases.", context)
    assert v.claims[0].signals.antonym_flips == ["rises"]
    assert v.label == "hallucinated"
    assert not verifier.verify("The boiling point of water falls as air pressure decreases.", context
                               ).claims[0].signals.antonym_flips


def test_an_antonym_is_read_clause_by_clause_where_the_evidence_holds_both_sides(verifier):
    context = ["Brightwater Utilities reported a first-half net profit of 312 million dollars, compared with a loss of "
               "45 million dollars a year earlier."]
    v = verifier.verify("Brightwater Utilities reported a first-half net loss of 312 million dollars.", context)
    assert v.claims[0].signals.antonym_flips == ["loss"]
    assert not verifier.verify("Brightwater Utilities reported a first-half net profit of 312 million dollars.",
                               context).claims[0].signals.antonym_flips
    assert not verifier.verify("A year earlier Brightwater had a loss of 45 million dollars.",
                               context).claims[0].signals.antonym_flips


def test_a_negation_is_read_against_the_proposition_it_stands_in(verifier):
    # one quoted "sentence" to the splitter: its "won't" belongs to the second proposition
    quote = ('"And so, I\'m announcing that if elected president, I will take a 23% pay cut, equivalent to the current '
             'gender wage gap, to stand in solidarity with working women in America. And I won\'t take a raise until '
             'every woman in America gets a raise, too."')
    v = verifier.verify("She said that if elected, she will take a 23% pay cut, equivalent to the current gender wage "
                        "gap, to show solidarity with working women in America.", [quote])
    assert not v.claims[0].signals.negation_mismatch
    v = verifier.verify("If elected, she will take a raise.", [quote])
    assert v.claims[0].signals.negation_mismatch


def test_a_denial_in_other_words_is_read_on_both_sides(verifier):
    from halguard.grounding.signals.negation import negation_mismatch
    from halguard.text.lexical import term_set

    def flips(claim: str, evidence: str) -> bool:
        terms = {t for t in term_set(claim) if len(t) > 2}
        return negation_mismatch(claim, evidence, terms, term_set(evidence), 0.6)

    evidence = "The fraternity members will likely be considered private individuals, and not public figures."
    assert not flips("The fraternity members are likely considered private individuals rather than public figures.",
                     evidence)
    assert flips("The fraternity members are likely considered public figures.", evidence)
    leased = "The company leased the building rather than buying it."
    assert flips("The company bought the building.", leased)  # the evidence's denial, the verb read by its base
    assert not flips("The company leased the building.", leased)
    v = verifier.verify("The company bought the building.", [leased])
    assert v.label == "hallucinated" and v.claims[0].signals.negation_mismatch
    # a verb of not doing in the evidence denies its complement; in the claim it only says the same denial
    failed = "The judges found that the company had failed to report the leak to the authorities."
    assert flips("The judges found that the company had reported the leak to the authorities.", failed)
    assert not flips("The judges found that the company had not reported the leak to the authorities.", failed)
    assert not flips("The judges found that the company had failed to report the leak to the authorities.",
                     "The judges found that the company did not report the leak to the authorities.")
    # "Santos has refused to resign" against a passage about calls for him to resign: no claim negation is read
    assert not flips("Santos has refused to resign.", "Calls for Santos to resign grew on Monday.")
    # a word the evidence also states un-negated is not denied by it
    for later in ("The rocket failed to reach orbit on its first flight but reached orbit in 2010.",
                  "The rocket did not reach orbit on its first flight but reached orbit in 2010."):
        assert not flips("The rocket reached orbit in 2010.", later)
    assert flips("The rocket reached orbit on its first flight.",
                 "The rocket failed to reach orbit on its first flight.")


def test_a_negated_copy_is_still_a_flip(verifier):
    context = ["The museum is open to the public on Mondays. Tickets are sold at the entrance."]
    v = verifier.verify("The museum is not open to the public on Mondays.", context)
    assert v.label == "hallucinated"
    assert v.claims[0].signals.negation_mismatch


def test_a_negated_clause_of_a_reworded_sentence_is_read_on_its_own(verifier):
    from halguard.grounding.signals.negated_clauses import negated_clause

    evidence = ["Here are some of our popular products that I believe would be perfect for your office. We offer a "
                "15% discount for new customers who sign up for a package."]
    # the sentence is reworded around the clause, so the whole claim is no copy of its evidence
    reworded = ("He suggests products that he believes would not be perfect for the office, and he offers a 15% "
                "discount to new customers.")
    assert negated_clause(["he believes would not be perfect for the office"], evidence, 0.6)
    v = verifier.verify(reworded, evidence)
    assert v.claims[0].signals.negation_mismatch and v.label == "hallucinated"
    # the reason names the passage's words the claim negates (issue 44: which finding, which words of which passage)
    assert ('negation differs from the evidence: it says "Here are some of our popular products that I believe would '
            'be perfect for your office."') in v.claims[0].reasons
    plain = verifier.verify(reworded.replace("would not be", "would be"), evidence)
    assert not plain.claims[0].signals.negation_mismatch


@pytest.mark.parametrize(("clause", "chunks"), [
    # one content word besides the negated one says too little to align
    ("but not for elderly users", ["Voice recognition is hard to learn, well, for the elderly."]),
    # the passage says the negation itself in another sentence
    ("she didn't take anyone's spot", ["There has been backlash about Hannah taking a spot away from someone. "
                                       "Hannah said she did not take anyone's spot on the show."]),
    # the aligned sentence negates something: a polarity question for the sentence-level check, not this one
    ("the museum is not open on Mondays", ["The museum is open on Mondays but not on Sundays."]),
    # a negation with an exception states the exception, as the passage does
    ("fraternities generally cannot sue unless the language is imputed against all members",
     ["If the language is imputed against all members of a small group, an individual member may sue."]),
    # a JSON record's values are the record checks' to read
    ("the restaurant does not offer outdoor seating",
     ['{"name": "Finch", "OutdoorSeating": true, "offer": "seating"}']),
    # the negated word is not in the aligned sentence: a question of support
    ("the company did not report the loss to its investors", ["The company told its investors about the loss."]),
])
def test_a_negated_clause_without_a_plain_counterpart_is_no_flip(clause, chunks):
    from halguard.grounding.signals.negated_clauses import negated_clause

    assert not negated_clause([clause], chunks, 0.6)


BEES = ("A study found that bumblebee colonies exposed to flurvaxin produced 23% fewer queens than unexposed colonies. "
        "The team monitored 48 colonies. Worker bee numbers were not significantly affected.")
LEAVE = ("During leave, the company continues its pension contributions at the normal rate of 7% of base salary. "
         "Employees who resign within 6 months of returning from leave are not required to repay any leave pay.")
BISTRO = ("Inspectors found raw chicken stored above desserts and recorded the fridge at 9C. No evidence of pests was "
          "found, and staff hand-washing facilities were judged adequate.")


@pytest.mark.parametrize(("claim", "chunk"), [
    ("Exposed colonies produced 23% fewer queens and significantly fewer worker bees than unexposed colonies.", BEES),
    ("Inspectors found evidence of pests at the bistro and recorded the fridge at 9C.", BISTRO),
    # "must" says the "required" the passage negates
    ("The company continues pension contributions at 7% of base salary during leave, but employees who resign within "
     "6 months of returning must repay their leave pay.", LEAVE),
])
def test_a_plain_clause_of_what_the_passage_negates_is_a_flip(verifier, claim, chunk):
    from halguard.grounding.signals.flips import clauses
    from halguard.grounding.signals.negated_clauses import negation_dropped

    assert negation_dropped([clause for _, clause in clauses(claim)], [chunk])
    v = verifier.verify(claim, [chunk])
    assert v.label == "hallucinated" and any(c.signals.negation_mismatch for c in v.claims)


@pytest.mark.parametrize(("claim", "chunk"), [
    ("Exposed colonies produced 23% fewer queens, while worker bee numbers were not significantly affected.", BEES),
    ("Inspectors found no evidence of pests.", BISTRO),
    ("Inspectors found raw chicken stored above desserts.", BISTRO),  # another clause, no negated word
    # the passage states the word plainly elsewhere among the clause's words
    ("Worker bee numbers were significantly affected in the second year.",
     BEES + " In the second year, worker bee numbers were significantly affected."),
    ("Employees who resign within 6 months of returning from leave don't have to repay any leave pay.", LEAVE),
    ("Staff who leave within six months of coming back must give notice.", LEAVE),
])
def test_what_keeps_the_passage_s_negation_is_no_flip(claim, chunk):
    from halguard.grounding.signals.flips import clauses
    from halguard.grounding.signals.negated_clauses import negation_dropped

    assert not negation_dropped([clause for _, clause in clauses(claim)], [chunk])


def test_negated_clauses_read_in_bounded_time():
    import time

    from halguard.grounding.signals.negated_clauses import negated_clause

    chunks = [" ".join(f"Sentence {i} says the shelving units would be perfect for office {i}." for i in range(400))]
    clauses = [f"the units would not be perfect for office {i}" for i in range(8)]
    start = time.perf_counter()
    negated_clause(clauses, chunks * 4, 0.6)
    assert time.perf_counter() - start < 10


def _best_spans_precision(kind: str) -> float:
    """The kind's precision on the span-labelled rows if every claim they lack to reach MIN_MEASURED_CLAIMS were
    hallucinated."""
    faithful, hallucinated = FINDING_PRECISION[kind].get("spans", (0, 0))
    n = max(faithful + hallucinated, MIN_MEASURED_CLAIMS)
    return (n - faithful) / n


def test_only_kinds_measured_precise_block():
    for kind in BLOCKING_FINDINGS:
        assert kind in CONTRADICTION_KINDS
        pooled, spans = measured_precision(kind), measured_precision(kind, "spans")
        assert pooled is not None and pooled >= BLOCKING_PRECISION
        assert spans is None or spans >= BLOCKING_PRECISION
        assert _best_spans_precision(kind) >= BLOCKING_PRECISION
    for kind in set(FINDING_PRECISION) - BLOCKING_FINDINGS:
        pooled = measured_precision(kind)
        assert kind not in CONTRADICTION_KINDS or pooled is None or pooled < BLOCKING_PRECISION or (
            _best_spans_precision(kind) < BLOCKING_PRECISION)
    assert "missing_entities" not in BLOCKING_FINDINGS  # a name the passages lack is unsupported, not contradicted


@pytest.mark.parametrize(("spans", "blocking"), [
    ((0, 0), True),  # never fired on RAG answers: the pooled figure decides
    ((1, 0), True),  # 9 of 10 is still possible
    ((2, 0), False),  # at best 8 of 10
    ((2, 30), True),  # measured: 0.9375
    ((4, 30), False),  # measured: 0.88
])
def test_a_kind_whose_few_rag_claims_rule_out_the_precision_does_not_block(monkeypatch, spans, blocking):
    from halguard.grounding import blocking as module

    table = dict(module.FINDING_PRECISION)
    table["negation_mismatch"] = {"spans": spans, "one_claim": (0, 90)}
    monkeypatch.setattr(module, "FINDING_PRECISION", table)
    assert module.blocks("negation_mismatch") is blocking


def test_measured_precision_pools_and_needs_enough_claims():
    assert measured_precision("no_such_kind") is None
    for kind, counts in FINDING_PRECISION.items():
        n = sum(f + h for f, h in counts.values())
        assert (measured_precision(kind) is None) == (n < MIN_MEASURED_CLAIMS)


@pytest.mark.parametrize("kind", sorted(FINDING_PRECISION))
def test_a_finding_contradicts_exactly_when_its_kind_blocks(kind):
    fields = {"arithmetic_errors": {"arithmetic_errors": [(0, 1, "x")]},
              "negation_mismatch": {"negation_mismatch": True}, "record_conflicts": {"record_conflicts": [(0, 1)]},
              "antonym_flips": {"antonym_flips": [(0, 1)]}, "role_conflicts": {"role_conflicts": [(0, 1, "x")]},
              "missing_entities": {"missing_entities": [(0, 1)]}, "missing_numbers": {"missing_numbers": [(0, 1)]},
              "changed_numbers": {"missing_numbers": [(0, 1)], "evidence_has_numbers": True},
              "changed_number_in_copy": {"missing_numbers": [(0, 1)], "evidence_has_numbers": True,
                                         "evidence_overlap": 1.0},
              "name_swapped": {"name_swapped": True}, "record_unknowns": {"record_unknowns": [(0, 1)]},
              "hours_conflicts": {"hours_conflicts": [(0, 1, "x")]},
              "choice_conflicts": {"choice_conflicts": [(0, 1, "x")]},
              "moved_numbers": {"role_conflicts": [(0, 1, "x")], "moved_numbers": [(0, 1)]}}[kind]
    m = ClaimMeasurements(similarity=0.9, novel_ratio=0.0, **fields)
    assert kind in m.finding_kinds()
    blocking = bool(m.finding_kinds() & BLOCKING_FINDINGS)
    assert m.contradicts is blocking


def test_a_headline_is_not_read_as_who_acted(verifier):
    # "Dollar General Sued for ..." drops the "was" that says Dollar General was sued: its parse is no evidence that
    # Dollar General sued anyone (a RAGTruth dev summary was flagged for it).
    context = ("Dollar General Sued for Firing Pregnant Worker\nA Dollar General worker in Georgia was reportedly "
               "fired after informing her store manager of her pregnancy, leading to a lawsuit filed by the U.S. Equal "
               "Employment Opportunity Commission (EEOC).")
    verdict = verifier.verify("Dollar General has been sued by the EEOC for firing a pregnant worker in Georgia.",
                              [context])
    assert not any(c.signals and c.signals.role_conflicts for c in verdict.claims)


def test_a_name_against_a_description_is_no_role_conflict(verifier):
    context = ("The grandmother of two dressed as a man for 43 years to find work. Sissa Abu Dahou, who lives in "
               "Luxor, Egypt, put on a man's robe after her husband died.")
    verdict = verifier.verify("Sissa Abu Dahou, a 65-year-old grandmother from Luxor, Egypt, dressed as a man for 43 "
                              "years.", [context])
    assert not any(c.signals and c.signals.role_conflicts for c in verdict.claims)


def test_the_passage_saying_the_claims_name_in_another_sentence_is_no_conflict(verifier):
    context = ("Xtina joined Rascal Flatts on stage for \"Riot\". Later that night Christina Aguilera joined Rascal "
               "Flatts again, this time for an encore.")
    verdict = verifier.verify("Christina Aguilera joined Rascal Flatts for \"Riot\".", [context])
    assert not any(c.signals and c.signals.role_conflicts for c in verdict.claims)


def test_a_reason_lists_at_most_eight_names_each_cut_to_a_line():
    verifier = LocalVerifier()
    crafted = verifier.verify("Ab " * 3_000, ["The mayor spoke."])
    assert crafted.label == "hallucinated"
    assert all(len(reason) < 250 for claim in crafted.claims for reason in claim.reasons)
    assert any(reason.startswith("names not in the context: Ab Ab") and reason.endswith(" ...")
               for reason in crafted.claims[0].reasons)
    many = verifier.verify("Omega beat Beta, Gamma, Delta, Epsilon, Zeta, Eta, Theta, Iota, Kappa and Lambda.",
                           ["Omega won."])
    assert "names not in the context: Beta, Gamma, Delta, Epsilon, Zeta, Eta, Theta, Iota and 2 more" in \
        many.claims[0].reasons
    assert len(many.claims[0].signals.missing_entities) == 10  # the signals keep every span


TRIAL = ("Two serious adverse events occurred in the treatment arms; neither was considered related to study drug by "
         "investigators.")


@pytest.mark.parametrize(("claim", "chunk", "flip"), [
    # "neither of X was related" denies "related", as the passage does, not the "two" it states
    ("Investigators judged that neither of the two serious adverse events in the treatment arms was related to the "
     "drug.", TRIAL, False),
    ("Investigators judged that neither of the two serious adverse events in the treatment arms was related to the "
     "drug.", TRIAL.replace("neither was", "both were"), True),
])
def test_a_negated_quantifier_denies_its_predicate(verifier, claim, chunk, flip):
    v = verifier.verify(claim, [chunk])
    assert any(c.signals.negation_mismatch for c in v.claims) is flip


MUSEUM_DAYS = "The museum is closed on Mondays except bank holiday Mondays, and closed on 25 and 26 December."


@pytest.mark.parametrize(("answer", "context", "label"), [
    # a holiday named for the day and month the passage writes
    ("The museum is shut on Mondays unless it's a bank holiday, and also on Christmas Day and Boxing Day.",
     MUSEUM_DAYS, "supported"),
    ("The museum is shut on Mondays unless it's a bank holiday, and also on Christmas Day and Boxing Day.",
     MUSEUM_DAYS.replace("26", "27"), "hallucinated"),
    ("The museum is also closed on New Year's Day.", MUSEUM_DAYS, "hallucinated"),
])
def test_a_holiday_is_named_by_its_date(verifier, answer, context, label):
    assert verifier.verify(answer, [context]).label == label


@pytest.mark.parametrize(("text", "targets"), [
    ("Companies can no longer use it in production.", {"use"}),  # "longer" is the phrase's grammar
    ("The wait is no longer than five minutes.", set()),  # a bound
    ("Neither of the two events was related to the drug.", {"relat"}),
])
def test_what_a_negation_denies(text, targets):
    from halguard.grounding.signals.negation import flip_targets

    assert flip_targets(text) == targets
