"""A currency said by its word or its symbol, and the count "twice" (sixteenth session, issue 45): "89 euros" is the
passage's "€89", "€89" where the passage gives "£89" is a currency it lacks, in a copy too, and "€90 million" where
it gives "£90 million" (and euros of another amount) an amount in another currency; "scored twice" is two goals."""

import pytest

from halguard.text.currency import currency_amounts, currency_symbols, currency_words


@pytest.mark.parametrize(("claim", "passage"), [
    ("The grant is worth 2.6 million dollars.", "The grant is worth $2.6 million."),
    ("Fares start at 89 euros.", "Fares start at €89."),
    ("The fee was 22 million pounds.", "The fee was £22 million."),
    ("Fares start at €89.", "Fares start at 89 euros."),
])
def test_a_currency_said_by_word_or_symbol_is_the_passages(verifier, claim, passage):
    assert verifier.verify(claim, [passage]).label == "supported"


@pytest.mark.parametrize(("claim", "passage", "symbol"), [
    ("Fares start at €89.", "Fares start at £89.", "€"),
    ("The fee was $22 million.", "The fee was £22 million.", "$"),
    ("Fares start at €89.", "Fares start at 89 pounds.", "€"),
])
def test_a_currency_the_passages_lack_is_flagged_on_its_symbol(verifier, claim, passage, symbol):
    verdict = verifier.verify(claim, [passage])
    assert verdict.label == "hallucinated"
    assert [s.text for s in verdict.spans] == [symbol]
    # a word the passages lack is flagged as before
    assert verifier.verify("The fee was 22 million dollars.", ["The fee was £22 million."]).label == "hallucinated"


def test_an_amount_the_passages_give_in_another_currency_only_is_flagged(verifier):
    # the passages name euros elsewhere: the amount itself is in pounds
    passages = ["Kessel Bank lent 80 million euros to Orna Credit.",
                "Brandt Tools agreed to buy Pell Metals for £90 million."]
    verdict = verifier.verify("Brandt Tools agreed to buy Pell Metals for €90 million.", passages)
    assert verdict.label == "hallucinated" and [s.text for s in verdict.spans] == ["€"]
    for faithful in ("Brandt Tools agreed to buy Pell Metals for 90 million pounds.",
                     "Kessel Bank lent €80 million to Orna Credit."):
        assert verifier.verify(faithful, passages).label == "supported"


def test_currency_symbols_are_read_before_an_amount_only():
    assert currency_words("It cost $2.6 million, or € 2.4 million.") == "cent cents dollar dollars euro euros"
    assert currency_words("Price range: $$ (two of four).") == ""
    assert [(s, e) for s, e, _ in currency_symbols("from £5 to £9")] == [(5, 6), (11, 12)]
    assert [(v, c) for _, _, v, c in currency_amounts("$2.6 million, € 89 and 90 million pounds; 5 apples")] == [
        (2.6e6, "dollar"), (89.0, "euro"), (9e7, "pound")]


def test_twice_is_the_count_two():
    from halguard.text.number_words import word_numbers

    assert [n.value for n in word_numbers("She scored twice, and thrice in the year before.")] == [2.0, 3.0]
    assert [n.value for n in word_numbers("She met them twice a week.")] == [2.0]
    # a multiplier is no count: "twice the prior-year level", "twice as many"
    assert word_numbers("Earnings were twice the prior-year level and twice as high as in 2019.") == []
    # "as" that starts a clause is no multiplier's
    assert [n.value for n in word_numbers("Eriksen scored twice as Lund beat Helsingborg.")] == [2.0]


@pytest.mark.parametrize(("claim", "passage", "label"), [
    ("Nadia Okoro scored two goals in the final.", "In the final, striker Nadia Okoro scored twice.", "supported"),
    ("Nadia Okoro scored twice in the final.", "In the final, striker Nadia Okoro scored two goals.", "supported"),
    ("Nadia Okoro scored three goals in the final.", "In the final, striker Nadia Okoro scored twice.", "hallucinated"),
    ("Nadia Okoro scored twice in the final.", "In the final, striker Nadia Okoro scored three goals.", "hallucinated"),
])
def test_a_count_said_as_twice_is_compared_by_value(verifier, claim, passage, label):
    assert verifier.verify(claim, [passage]).label == label


def test_the_currency_of_an_amount():
    from halguard.text.currency import currency_of
    from halguard.text.lexical import number_mentions

    text = "It costs $2.6 million, € 89 or 90 million pounds, for 3 apples."
    assert [currency_of(text, m) and currency_of(text, m)[2] for m in number_mentions(text)] == [
        "dollar", "euro", "pound", None]
