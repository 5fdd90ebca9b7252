"""Two swaps the role check reads (issue 44): a named doer of a verb whose doer's noun the passage gives someone else
("Ruiz will conduct" where Tanabe is the conductor), and a product code swapped in an argument ("Model K9" where the
passage recalls "Model K7")."""

import pytest

from halguard.grounding.roles.descriptions import DOER_VERBS, doer_nouns
from halguard.text.lexical import stem

TOUR = ("The Brenholt Philharmonic will tour eight cities in East Asia this autumn under its chief conductor, Yuki "
        "Tanabe. Pianist Mateo Ruiz will join the orchestra as soloist for the first five concerts.")
BAKERY = ("Brightcrumb's founder, Omar Haddad, opened its first bakery in Leeds in 2009. Its chief executive, Lena "
          "Park, joined the company in 2015 and opened its first London shop in 2018.")
RAVENS = ("Head coach Dana Cole guided the Ravens to the league title on Sunday. Captain Ian Moss scored twice in the "
          "final.")
KETTLES = ("Brightwell Appliances is recalling about 18,500 Model K7 electric kettles sold in Canada. The base of the "
           "kettle can overheat and crack. The Model K9 kettle is not affected.")


@pytest.mark.parametrize(("passage", "answer", "label"), [
    (TOUR, "Mateo Ruiz will conduct the Brenholt Philharmonic on its East Asian tour.", "hallucinated"),
    (TOUR, "Yuki Tanabe will conduct the Brenholt Philharmonic on its East Asian tour.", "supported"),
    (BAKERY, "Lena Park founded Brightcrumb.", "hallucinated"),
    (BAKERY, "Omar Haddad founded Brightcrumb.", "supported"),
    (RAVENS, "Ian Moss coached the Ravens to the league title.", "hallucinated"),
    (RAVENS, "Dana Cole coached the Ravens to the league title.", "supported"),
])
def test_a_named_doer_the_passage_never_calls_so_where_it_calls_another_is_a_swap(verifier, passage, answer, label):
    verdict = verifier.verify(answer, [passage])
    assert verdict.label == label
    conflicts = verdict.claims[0].signals.role_conflicts
    assert bool(conflicts) == (label == "hallucinated")


def test_a_doer_the_passage_also_calls_so_or_has_do_it_moved_nothing(verifier):
    # a guest conductor beside the chief conductor: the passage calls Ruiz a conductor too
    passage = ("The Brenholt Philharmonic will tour Asia under its chief conductor, Yuki Tanabe, with guest conductor "
               "Mateo Ruiz leading two of the concerts.")
    assert verifier.verify("Mateo Ruiz will conduct the Brenholt Philharmonic in Asia.", [passage]).label == "supported"
    # the passage has the claim's doer do it, whatever it calls others
    passage = ("Yuki Tanabe is the orchestra's chief conductor. Mateo Ruiz will conduct the orchestra in Osaka while "
               "Tanabe recovers.")
    verdict = verifier.verify("Mateo Ruiz will conduct the orchestra in Osaka.", [passage])
    assert not verdict.claims[0].signals.role_conflicts


def test_doer_nouns_are_the_verbs_own_and_only_for_the_listed_verbs():
    assert doer_nouns("conduct") == {stem("conductor"): "conductor"}
    assert doer_nouns("manage") == {stem("manager"): "manager"}
    assert set(doer_nouns("coach").values()) == {"coacher", "coach"}
    # verbs whose doers are many alike name no role
    assert doer_nouns("play") == {} and doer_nouns("write") == {}
    assert all(doer_nouns(v) for v in DOER_VERBS)


@pytest.mark.parametrize(("answer", "label"), [
    ("Brightwell is recalling its Model K9 kettles.", "hallucinated"),
    ("Brightwell is recalling its Model K7 kettles.", "supported"),
])
def test_a_product_code_swapped_in_an_argument_is_a_role_conflict(verifier, answer, label):
    verdict = verifier.verify(answer, [KETTLES])
    assert verdict.label == label
    assert bool(verdict.claims[0].signals.role_conflicts) == (label == "hallucinated")


def test_two_doers_of_one_verb_are_each_read(verifier):
    # two named doers, neither the passage's producer: each is a conflict of its own (the second is read after the
    # first was found)
    passage = "\"Stay\" is a song by the Norwegian producer Kygo, featuring vocals from Maty Noyes."
    verdict = verifier.verify("\"Stay\" was produced by William Larsen and Maty Noyes.", [passage])
    assert verdict.label == "hallucinated"
    conflicts = verdict.claims[0].signals.role_conflicts
    assert len(conflicts) == 2 and all("Kygo" in c for c in conflicts)
