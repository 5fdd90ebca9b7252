"""Role and entity swaps written fresh (fourteenth session, issue 44), in shapes the adversarial set did not have:
a prize given and received, a post held "as" something, a passive's doer in an "under licence" phrase, a number
whose noun the sentence leaves out, a possessor beside the name of what it owns, and a verb coordinated with a
passive in a tense of its own ("was born ... and died"), a storm's "Hurricane" (no name of its own), a frame of
another event that only shares a participant, a name against a description where the name did another thing to
the same participant in the passage, a coordinated verb with its own auxiliary ("and was replaced by"), and a month
of another event ("approved in March and completed in May"). Each swap is flagged by the role
check and each faithful telling of the same passage passes, so the reading is not a blanket suspicion of the shape."""


from halguard.grounding.roles.parse import parsed_frames
from tests.role_swap_checks import swap_checks

AWARD = "Marta Lindqvist, the mayor of Vellby, presented the bravery award to firefighter Oskar Berg."
JURY = "The jury awarded the Golden Reel to Salt Roads, and Night Ferry took the audience prize."
MERGER = "After the merger, Clara Benz became chair of the board and Yusuf Demir stayed on as chief executive."
VACCINE = ("The vaccine was developed by Corvan Bio and is manufactured under licence by Sentara Pharma in Pune.")
SALES = "Ravel Motors sold 410,000 cars last year, while its rival Quint sold 380,000."
VARGA = "The painter Ilona Varga was born in Szeged in 1902 and died in Vienna in 1987."
STORMS = "Hurricane Dora hit Tampico on Monday, two days after Hurricane Eli struck Veracruz."
LOANS = ("The Louvre lent the Vermeer to the Rijksmuseum for its 2023 exhibition, while the Prado sent two Velázquez "
         "portraits.")
APPEAL = ("The appeal court overturned the conviction of Rui Matos, who had been found guilty of fraud by a Lisbon "
          "jury in 2020.")
COACH = "Orla Byrne coached the Dublin Harps to the 2021 title and was replaced by Sean Walsh in 2023."
DEAL = ("The merger of Castell Media and Ridgeway Press was approved by regulators in March and completed in "
        "May.")
VINEYARD = "Kira Voss's sister, Anja, manages the family vineyard in Mosel, which their grandfather planted in 1951."

SWAPS = [
    (AWARD, "Firefighter Marta Lindqvist received the bravery award."),
    (JURY, "Night Ferry received the Golden Reel."),
    (JURY, "Night Ferry won the Golden Reel."),
    (MERGER, "Clara Benz remained chief executive after the merger."),
    (VACCINE, "Corvan Bio manufactures the vaccine in Pune."),
    (SALES, "Quint sold 410,000 cars last year."),
    (VINEYARD, "Kira Voss manages the family vineyard in Mosel."),
    (VARGA, "Ilona Varga died in 1902."),
    (STORMS, "Hurricane Eli hit Tampico on Monday."),  # "Hurricane" is no name of its own
    (LOANS, "The Louvre sent two Velázquez portraits to the Rijksmuseum."),  # the loan is another event
    (APPEAL, "The Lisbon jury overturned Rui Matos's conviction."),  # the jury did another thing to Matos
    (COACH, "Orla Byrne replaced Sean Walsh in 2023."),  # "and was replaced": a passive of its own
    (DEAL, "The merger was completed in March."),  # another event's month
    (DEAL, "Regulators approved the Castell Media-Ridgeway Press merger in May."),
]
FAITHFUL = [
    (AWARD, "Oskar Berg received the bravery award from Marta Lindqvist."),
    (JURY, "Salt Roads received the Golden Reel from the jury."),
    (MERGER, "Yusuf Demir remained chief executive after the merger."),
    (VACCINE, "The vaccine is manufactured by Sentara Pharma in Pune."),
    (SALES, "Quint sold 380,000 cars last year."),
    (VINEYARD, "Anja manages the family vineyard in Mosel."),
    (VARGA, "Ilona Varga died in Vienna in 1987."),
    (STORMS, "Hurricane Dora hit Tampico on Monday."),
    (LOANS, "The Prado sent two Velázquez portraits."),
    (APPEAL, "The appeal court overturned Rui Matos's conviction."),
    (COACH, "Sean Walsh replaced Orla Byrne in 2023."),
    (DEAL, "The merger was completed in May."),
    (DEAL, "Regulators approved the merger in March."),
]


(test_a_swap_is_a_role_conflict, test_the_faithful_telling_has_no_role_conflict, test_the_verifier_flags_the_swap,
 test_the_verifier_passes_the_faithful_telling) = swap_checks(SWAPS, FAITHFUL)


def test_a_post_held_as_something_is_its_holder_attribute():
    frame = next(f for f in parsed_frames(MERGER) if f.predicate == "stay on")
    assert [a.text for a in frame.get("attr")] == ["as chief executive"]
    # a verb that is not one of holding a post keeps its "as" phrase ("known as Faarrow" names, it holds no post)
    known = next(f for f in parsed_frames("The duo is known as Faarrow.") if f.predicate == "know")
    assert not known.get("attr")


def test_the_doer_under_licence_is_the_passive_agent_and_an_active_verb_is_untouched():
    made = next(f for f in parsed_frames(VACCINE) if f.predicate == "manufacture")
    assert [sorted(a.identity) for a in made.get("agent")] == [["pharma", "sentara"]]
    active = next(f for f in parsed_frames("Sentara Pharma makes it under licence from Corvan Bio.")
                  if f.predicate == "make")
    assert [sorted(a.identity) for a in active.get("agent")] == [["pharma", "sentara"]]


def test_an_apposition_names_the_head_and_a_possessor_alone_still_does():
    sister = next(f for f in parsed_frames(VINEYARD) if f.predicate == "manage").get("agent")[0]
    assert sister.identity == frozenset({"anja"})
    # without a name of its own the possessed thing keeps its possessor's ("Keller's board" names Keller)
    board = next(f for f in parsed_frames("Keller's board approved the deal.") if f.predicate == "approve")
    assert board.get("agent")[0].identity == frozenset({"keller"})


def test_a_coordinated_verb_in_a_tense_of_its_own_has_its_own_voice():
    frames = {f.predicate: f for f in parsed_frames(VARGA)}
    assert frames["bear"].get("patient") and frames["die"].get("agent")  # she was born; she died
    # a participle coordinated with a passive shares its voice: the company was founded and bought
    bought = {f.predicate: f for f in parsed_frames(
        "Brannock Foods was founded by Ada Kerr in 1961 and bought by Hollis Group in 2004.")}["buy"]
    assert [sorted(a.identity) for a in bought.get("patient")] == [["brannock", "foods"]]
    assert [sorted(a.identity) for a in bought.get("agent")] == [["group", "hollis"]]
