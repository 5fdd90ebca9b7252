"""Who did it, read where the parser or the word checks missed it (sixteenth session, issues 44 and 45): a doer alone
where the passage has another doer and gives the claim's person another part ("Hana Ito finished fifth" where her
teammate did), the subject of a second clause the parser read as the first clause's object ("became mayor and his
rival, Eva Lund, joined the council"), a loan or a gift told from the receiver's side ("received a loan from"), a
bare participle's clause ("Launched in 2019, the app ...": the app was launched), a post named by its holder's
copula ("will become Vantor's head of research": Vantor is not who heads), a description the passage gives one
named thing put on another ("Orrin Tools, a maker of steel pipes", where Pell Metals is), a name where the passage
has someone's relation ("Ida Hahn gave the clock" where her daughter did, and she bought it), the thing given in a
"with" phrase ("was presented with the medal by Ana Reis"), the doer of a "before" / "after" gerund ("studied with
Pavel Rus before winning the prize": she won it), and a quantity moved from another sentence in another
unit of the same dimension ("up to four days" where the passage says "up to two weeks"), and a speaker moved in a
copied reported clause ("Ardmore Home said 11 of its vessels ..." where Keel Lines' spokesperson did)."""


from halguard.grounding.roles import role_conflicts
from halguard.grounding.roles.parse import parsed_frames
from tests.role_swap_checks import swap_checks

RACE = "Hana Ito won the 10,000 metres in 31:02; her teammate, Mei Sato, finished fifth."
COUNCIL = "After the vote, Lars Berg became mayor and his rival, Eva Lund, joined the council of the nearby town Vik."
LOAN = "Nordic Bank lent 50 million euros to the smaller Aster Credit in May."
GIFT = "The painter Ada Roth donated 40 sketches to the Kell Museum, which will show them in the spring."
APP = "Orbis Labs launched the Tally app in 2019. The app now has two million users."
DEAL = "Orrin Tools agreed to buy Pell Metals, a maker of steel pipes based in Hull, for 90 million pounds."
SUCCESSION = ("Tamsin Oyelaran, previously finance director at rival Brook Foods, will succeed Hugo Lind as chief "
              "executive of Calder Mills.")
CLOCK = "The clock, bought by the collector Ida Hahn in 1970, was given to the Lorne Museum by her daughter in 2011."
MEDAL = "At the gala in Porto, the writer Ana Reis presented the Vell Medal to the young painter Tomas Alves."
STUDY = "The cellist Ines Kol studied for five years with Pavel Rus in Prague before winning the Dvorak Prize in 2018."
TAKEOVER = ("Under the deal, Vantor Group will take over Keel Media, and Keel's founder, Ruth Ames, will become "
            "Vantor's head of research.")

SWAPS = [
    (RACE, "Hana Ito finished fifth."),
    (COUNCIL, "Lars Berg joined the council of Vik."),
    (COUNCIL, "Eva Lund became mayor."),
    (LOAN, "Nordic Bank received a 50 million euro loan from Aster Credit."),
    (GIFT, "Ada Roth received 40 sketches from the Kell Museum."),
    (DEAL, "Orrin Tools, a maker of steel pipes based in Hull, agreed to buy Pell Metals."),
    (SUCCESSION, "Hugo Lind, previously finance director at Brook Foods, will run Calder Mills."),
    (CLOCK, "Ida Hahn gave the clock to the Lorne Museum in 2011."),
    (MEDAL, "Ana Reis was presented with the Vell Medal by Tomas Alves."),
    (STUDY, "Pavel Rus won the Dvorak Prize in 2018."),
]
FAITHFUL = [
    (RACE, "Mei Sato finished fifth."),
    (COUNCIL, "Eva Lund joined the council of Vik."),
    (COUNCIL, "Lars Berg became mayor."),
    (LOAN, "Aster Credit received a 50 million euro loan from Nordic Bank."),
    (GIFT, "The Kell Museum received 40 sketches from Ada Roth."),
    (APP, "Launched in 2019, the Tally app now has two million users."),
    (TAKEOVER, "Ruth Ames will head research at Vantor Group."),
    (DEAL, "Orrin Tools agreed to buy Pell Metals, a Hull maker of steel pipes."),
    (SUCCESSION, "Tamsin Oyelaran, formerly finance director at Brook Foods, will succeed Hugo Lind."),
    (CLOCK, "Her daughter gave the clock to the Lorne Museum in 2011."),
    (CLOCK, "Ida Hahn bought the clock in 1970."),
    (MEDAL, "The young painter Tomas Alves was presented with the Vell Medal by Ana Reis."),
    (MEDAL, "Ana Reis presented Tomas Alves with the Vell Medal."),
    (STUDY, "Ines Kol won the Dvorak Prize in 2018 after studying in Prague."),
]


(test_a_swap_is_a_role_conflict, test_the_faithful_telling_has_no_role_conflict, test_the_verifier_flags_the_swap,
 test_the_verifier_passes_the_faithful_telling) = swap_checks(SWAPS, FAITHFUL)


def test_a_doer_alone_is_moved_only_with_the_same_verb_and_no_clause():
    # the verb says what the doer said or helped to do in its clause: "Jones said ..." is no other doer's "said"
    talks = "Anna Lind chaired the talks, and Omar Said, the envoy, said the deal was close."
    assert role_conflicts("Anna Lind said the deal was close.", [talks], lambda a: True) == []
    # another verb of the same sense is not the same event read by its doer alone
    assert role_conflicts("Hana Ito ended fifth.", [RACE], lambda a: True) == []


def test_the_second_clauses_subject_is_not_the_first_clauses_object():
    frames = {f.predicate: f for f in parsed_frames(COUNCIL)}
    assert [a.text for a in frames["become"].get("attr")] == ["mayor"]
    assert [a.text for a in frames["join"].get("agent")] == ["his rival, Eva Lund"]
    # a second verb of the first subject, after its own "and", keeps it
    shop = {f.predicate: f for f in parsed_frames("Lars Berg bought apples and pears, and sold them in Vik.")}
    assert [a.text for a in shop["sell"].get("agent")] == ["Lars Berg"]
    assert len(shop["buy"].get("patient")) == 2


def test_a_bare_participles_clause_is_passive():
    launched = next(f for f in parsed_frames("Launched in 2019, the Tally app now has two million users.")
                    if f.predicate == "launch")
    assert [a.text for a in launched.get("patient")] == ["the Tally app"] and not launched.get("agent")
    # with its own auxiliary it is active: "Having launched the app, Orbis Labs ..."
    active = next(f for f in parsed_frames("Having launched the app in 2019, Orbis Labs hired ten people.")
                  if f.predicate == "launch")
    assert [a.text for a in active.get("agent")] == ["Orbis Labs"]


def test_a_post_said_of_a_name_is_no_event_of_its_possessor():
    nouns = [f for f in parsed_frames(TAKEOVER) if f.nominal and f.predicate == "head"]
    assert all(not f.get("agent") for f in nouns)
    # an event noun keeps its possessor as the doer
    sale = next(f for f in parsed_frames("The deal was Vantor's purchase of Keel Media.") if f.nominal)
    assert [a.text for a in sale.get("agent")] == ["Vantor's"]


DELAY = ["The bridge at Carrow was closed for four days after the storm.",
         "Greenway Buses said the closure would delay its routes by up to two weeks."]


def test_a_quantity_moved_in_another_unit_is_flagged_with_both_quantities(verifier):
    verdict = verifier.verify("Greenway Buses said the closure would delay its routes by up to four days.", DELAY)
    assert verdict.label == "hallucinated"
    assert any("four days where the passage has two weeks" in r for c in verdict.claims for r in c.reasons)
    # the same quantity in another unit is the passage's
    same = verifier.verify("Greenway Buses said the closure would delay its routes by up to 14 days.", DELAY)
    assert same.label == "supported"


def test_a_description_shared_or_given_to_both_is_not_moved():
    both = "Orrin Tools, a maker of steel pipes, agreed to buy Pell Metals, a maker of steel pipes based in Hull."
    assert role_conflicts("Orrin Tools, a maker of steel pipes, agreed to buy Pell Metals.", [both],
                          lambda a: True) == []
    # one word describes many things alike
    assert role_conflicts("Orrin Tools, a company, agreed to buy Pell Metals.",
                          ["Orrin Tools agreed to buy Pell Metals, a company based in Hull."], lambda a: True) == []


def test_a_gerund_after_before_or_after_is_done_by_its_clauses_subject_actively():
    fail = next(f for f in parsed_frames("He was fined after failing to pay the bill.") if f.predicate == "fail")
    assert [a.text for a in fail.get("agent")] == ["He"]
    # not a gerund of "of": "accused him of interfering" is his interfering, not the accuser's
    accused = parsed_frames("The photographer sued West and accused him of interfering with his work.")
    assert not next(f for f in accused if f.predicate == "interfere").get("agent")
    win = next(f for f in parsed_frames(STUDY) if f.predicate == "win")
    assert [a.text for a in win.get("agent")] == ["The cellist Ines Kol"]


def test_a_speaker_moved_in_a_copied_reported_clause_is_flagged(verifier):
    passages = ["Retailer Ardmore Home said the strike would delay its deliveries by up to two weeks.",
                "A spokesperson for the shipping line Keel Lines said 11 of its vessels had been diverted to Calder."]
    moved = verifier.verify("Ardmore Home said 11 of its vessels had been diverted to Calder.", passages)
    assert moved.label == "hallucinated"
    assert any("Ardmore Home where the passage has Keel Lines" in r for c in moved.claims for r in c.reasons)
    # the speaker's own organisation, and the coreferent the claim names by a description, are the passage's
    assert verifier.verify("Keel Lines said 11 of its vessels had been diverted to Calder.", passages).label == (
        "supported")
