"""Names a fabrication changes that once passed as found: a weekday (WordNet's "Th" for Thursday matched "the"),
a code's number ("SARS-CoV-4" for "SARS-CoV-2"), and a place name beside a place adjective the passage has ("the
Moscow Russian embassy")."""

from __future__ import annotations

import time

import pytest

from halguard import LocalVerifier
from halguard.grounding.signals.codes import changed_codes
from halguard.grounding.signals.scope import scope_of
from halguard.text.contexts import Source
from halguard.text.places import _related_places, is_demonym


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier()


BUDGET = "The city council voted on Wednesday to approve the budget, after a long debate."
EMBASSY = "Activists poured paint in front of the Russian embassy in London on Thursday."
VACCINE = "Pfizer expects sales of Comirnaty, its SARS-CoV-2 vaccine, to fall in 2023."


def test_an_initialisms_plural_is_its_singular():
    from halguard.text.lexical import stem

    assert stem("TVs") == stem("TV") == "tv" and stem("PCs") == "pc" and stem("CEOs") == "ceo"
    assert stem("ADS") == "ads" and stem("Bus") == "bus"  # not an initialism's plural


def test_a_weekday_is_no_demonym_of_a_stopword():
    assert _related_places("thursday") == () and _related_places("saturday") == ()
    assert "texas" in _related_places("texan")
    assert is_demonym("Russian") and is_demonym("Texan") and not is_demonym("Moscow") and not is_demonym("Texas")


def test_a_demonym_whose_place_wordnet_gives_by_its_stem_names_the_place():
    from halguard.text.places import demonym_place_keys, place_keys

    # WordNet relates "French" to the stem "franc"; ISO 3166 renamed Turkey, which English text still writes
    assert demonym_place_keys("French") == {"country:FR"} and demonym_place_keys("Greek") == {"country:GR"}
    assert place_keys("Turkey") == place_keys("Türkiye") == {"country:TR"}
    assert demonym_place_keys("Turkish") == {"country:TR"}
    # a people's noun WordNet relates elsewhere ("Turk": the Turkic languages) is its country's by a small table
    assert demonym_place_keys("Turks") == {"country:TR"} and demonym_place_keys("Dutch") == {"country:NL"}
    from halguard.grounding.roles import role_conflicts

    passage = ["Francis spoke of the genocide without directly angering the Turks, who deny it."]
    assert role_conflicts("Francis spoke of the genocide without directly angering Turkey.", passage,
                          lambda a: True) == []
    assert role_conflicts("Francis spoke of the genocide without directly angering Greece.", passage, lambda a: True)


@pytest.mark.parametrize(("answer", "context", "label", "flagged_name"), [
    ("The council voted on Thursday to approve the budget.", BUDGET, "hallucinated", "Thursday"),
    ("The council voted on Wednesday to approve the budget.", BUDGET, "supported", None),
    ("Activists poured paint in front of the Moscow Russian embassy.", EMBASSY, "hallucinated", "Moscow Russian"),
    ("Activists poured paint in front of the Russian embassy in London.", EMBASSY, "supported", None),
    # a place adjective the passage never names the place of, beside a name it has
    ("Activists poured paint in front of the London Mexican embassy.", EMBASSY, "hallucinated", "London Mexican"),
    ("Activists poured paint in front of the London Russian embassy.", EMBASSY, "supported", None),
    # an initialism's plural is found by its singular (once found only through WordNet's "tv" as a "place")
    ("The rooms have flat-screen TVs.", "Each room has a flat-screen TV and a minibar.", "supported", None),
])
def test_weekdays_and_names_beside_a_place_adjective(verifier, answer, context, label, flagged_name):
    v = verifier.verify(answer, [context])
    assert v.label == label
    names = v.claims[0].signals.missing_entities
    assert names == ([flagged_name] if flagged_name else [])


def _codes(text: str, context: str) -> list[str]:
    return [text[a:b] for a, b in changed_codes(text, scope_of([Source(id="s", text=context)], None))]


def test_a_code_is_changed_only_where_the_passages_write_its_name_with_other_numbers():
    assert _codes("Sales of its SARS-CoV-4 vaccine fell.", VACCINE) == ["SARS-CoV-4"]
    assert _codes("Sales of its SARS-CoV-2 vaccine fell.", VACCINE) == []
    assert _codes("Sales of its sars-cov-2 vaccine fell.", VACCINE) == []  # no capital: not read as a code
    assert _codes("The COVID-19 vaccine sold well.", "The COVID vaccine sold well.") == []  # never with a number
    assert _codes("Twelve F-35 jets arrived.", "Twelve F-16 jets and an F 16 trainer arrived.") == ["F-35"]
    assert _codes("Twelve F-16 jets arrived.", "Twelve F16 jets arrived.") == []
    assert _codes("Use the top-10 list.", "Use the top-5 list.") == []


def test_a_names_roman_numeral_is_read_as_its_code():
    war = "The Me 263 was developed towards the end of World War II."
    assert _codes("It was developed towards the end of World War III.", war) == ["War III"]
    assert _codes("It was developed towards the end of World War II.", war) == []
    assert _codes("Henry VII was his father.", "Henry VIII had six wives. His father was Henry VII.") == []
    assert _codes("Super Bowl LVIII was played in Las Vegas.", "Super Bowl LVII was played in Arizona.") == [
        "Bowl LVIII"]
    assert _codes("Elizabeth I ruled.", "Elizabeth II ruled.") == []  # a lone "I" may be the pronoun
    # a word that starts with a numeral's letter is no numeral ("D" of "Dulles")
    assert _codes("Flights to Washington Dulles resume.", "Flights to Washington DC and Washington II resume.") == []
    assert _codes("Rocky IV came out in 1985.", "Star Wars: Episode IV came out in 1977.") == []  # another name


def test_a_changed_code_flags_the_claim_as_a_number_written_otherwise(verifier):
    v = verifier.verify("Pfizer expects sales of its SARS-CoV-4 vaccine to fall.", [VACCINE])
    assert v.label == "hallucinated"
    assert v.claims[0].signals.missing_numbers == ["SARS-CoV-4"]
    assert verifier.verify("Pfizer expects sales of its SARS-CoV-2 vaccine to fall.", [VACCINE]).label == "supported"


def test_codes_read_in_bounded_time():
    context = " ".join(f"Model X-{i} shipped in War {'I' * (i % 4)}." for i in range(4_000))
    claim = " ".join(f"A{i}-B-C-D-{i} War IV" for i in range(2_000)) + " a-" * 20_000
    scope = scope_of([Source(id="s", text=context)], None)
    start = time.perf_counter()
    changed_codes(claim, scope)
    assert time.perf_counter() - start < 5  # eight codes of each kind read, each one scan of the passages


MARKETS = ("Asian share markets fell on Tuesday after strong US data. The Bank of Japan said on Wednesday it would "
           "conduct emergency bond buying, in a move to contain elevated yields.")
RECALL = "The company announced the recall in March. The recall took effect in June, the company said."


@pytest.mark.parametrize(("answer", "context", "moved"), [
    # a weekday or month of another event of the passage, put in a copied sentence's slot of its own kind
    ("The Bank of Japan said on Tuesday it would conduct emergency bond buying to contain elevated yields.", MARKETS,
     "Tuesday where the passage has Wednesday"),
    ("The recall took effect in March, the company said.", RECALL, "March where the passage has June"),
    ("The Bank of Japan said on Wednesday it would conduct emergency bond buying to contain elevated yields.",
     MARKETS, None),
    ("Asian share markets fell on Tuesday after strong US data.", MARKETS, None),
    # a weekday is never compared with a name, nor a month with a weekday
    ("The recall took effect on Tuesday, the company said.", RECALL + " Shares fell on Tuesday.", None),
])
def test_a_weekday_or_month_moved_from_another_event(verifier, answer, context, moved):
    v = verifier.verify(answer, [context])
    conflicts = v.claims[0].signals.role_conflicts
    if not moved:
        assert conflicts == []
    else:  # the copied slot's reading, or the frames' once they compare months ("in March where ... in June (take)")
        assert len(conflicts) == 1
        assert conflicts[0] == moved or conflicts[0].startswith("in " + moved.replace(" has ", " has in "))
        assert v.label == "hallucinated"
