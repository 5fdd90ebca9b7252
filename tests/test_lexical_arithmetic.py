import pytest

from halguard.grounding.signals.arithmetic import check_arithmetic, is_math_claim
from halguard.text.lexical import content_terms, entity_mentions, has_negation, number_mentions, number_values, stem


def test_numbers_are_normalised():
    values = [m.value for m in number_mentions("It cost $3.5 million in 2019, up 12% from 1,200 units; three left.")]
    assert values == [3_500_000.0, 2019.0, 12.0, 1200.0, 3.0]


def test_times_get_24h_alternatives():
    alts = [m.alt for m in number_mentions("open 5:30 pm to 11 PM")]
    assert alts[0] == 17.0 and alts[-1] == 23.0


def test_number_values_include_unscaled():
    assert {3.5, 3_500_000.0} <= number_values("$3.5 million")


def test_entities_skip_sentence_initial_words():
    text = "Then Barack Obama met the Prime Minister of Canada in Ottawa."
    assert [text[s:e] for s, e in entity_mentions(text)] == ["Barack Obama", "Prime Minister of Canada", "Ottawa"]


@pytest.mark.parametrize(("text", "names"), [
    # a title's full stop opens no sentence: the name after it is read, on the title's run
    ("She met Mr. Smith yesterday.", ["Mr. Smith"]),
    ("Dr. Park led the study.", ["Dr. Park"]),
    ("They flew to St. Louis in May.", ["St. Louis"]),
    ("Dr. Lena Park works at St. Mary's Hospital.", ["Dr. Lena Park", "St. Mary's Hospital"]),
    # a full stop after anything else still ends the sentence
    ("He became a judge. However, he resigned.", []),
])
def test_a_name_after_a_titles_abbreviation_is_a_name(text, names):
    assert [text[s:e] for s, e in entity_mentions(text)] == names


def test_content_terms_drop_stopwords_and_numbers():
    assert [t for _, _, t in content_terms("The cities were acquired in 2019 by them")] == ["city", "acquir"]
    assert stem("companies") == stem("company")


@pytest.mark.parametrize(
    ("text", "negated"),
    [("It is not open.", True), ("It isn't open.", True), ("It never closed.", True), ("It is open.", False),
     ("Nothing was found.", True), ("A notable novel.", False)],
)
def test_negation(text, negated):
    assert has_negation(text) is negated


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("12 + 30 = 42", True),
        ("12 + 30 = 43", False),
        ("(4 x 5) / 2 = 10", True),
        ("25% of 80 is 20", True),
        ("25% of 80 is 30", False),
        ("Revenue grew from 40 to 50, a 25% increase.", True),
        ("Revenue grew from 40 to 50, a 20% increase.", False),
        ("Sales fell from 200 to 150, a 25% decrease.", True),
        ("Sales fell from 200 to 150, a 25% increase.", False),
        ("One third is 33.3% of 100 is 33.3", True),
    ],
)
def test_arithmetic(text, ok):
    findings = check_arithmetic(text)
    assert findings, text
    assert all(f.ok for f in findings) is ok


def test_no_math_no_findings():
    assert not is_math_claim("The tower is tall.")
    assert check_arithmetic("The 2019-2020 season was long.") == []


@pytest.mark.parametrize(
    ("text", "number", "expected"),
    [("3. Place the door stop back.", "3", True), ("(2) Burn the flag.", "2", True),
     ("This is mentioned in passage 3.", "3", True), ("Step 6: Serve it.", "6", True),
     ("Option 1 or Option 2.", "2", True), ("It has 3 bedrooms.", "3", False),
     ("Revenue was 3.5 million.", "3.5", False), ("The 7. century", "7", False)],
)
def test_list_markers_and_references_are_enumerators(text, number, expected):
    from halguard.text.lexical import is_enumerator

    start = text.index(number)
    assert is_enumerator(text, start, start + len(number)) is expected


@pytest.mark.parametrize(
    ("claim", "evidence", "flip"),
    [("He can attend the summit.", "He cannot attend the summit.", True),
     ("The firm does not focus on retail.", "The firm focuses on retail clients.", True),
     ("It is unclear whether it helps.", "It is not clear whether it helps.", False),
     ("Clinton seemed unconcerned.", "No wonder Clinton seemed unconcerned.", False),
     ("It is not cheap.", "It is not cheap at all.", False)],
)
def test_negation_flip_needs_the_negated_word_on_the_other_side(claim, evidence, flip):
    from halguard.text.lexical import negation_flip

    assert negation_flip(claim, evidence) is flip


@pytest.mark.parametrize(
    ("claim", "evidence", "words"),
    [("Revenue grew 5% last year.", "Revenue dropped 5% last year.", ["grew"]),
     ("The company lowered its forecast.", "The company increased its forecast.", ["lowered"]),
     ("Voice recognition is easy to learn.", "Voice recognition is hard to learn.", ["easy"]),
     ("Revenue grew while costs fell.", "Revenue dropped.", []),  # the claim has both sides: no decision
     ("They bought a new car.", "They sold their car and bought a new one.", []),
     ("Stores in New York opened.", "Stores in Old Town opened.", []),  # names are not evaluations
     # a negative prefix, either way; "in-" only before an adjective's ending
     ("Jordan is an experienced sailor.", "His son is an inexperienced sailor.", ["experienced"]),
     ("The model reads unstructured text.", "The model reads structured text.", ["unstructured"]),
     ("The staff were inattentive.", "The staff were attentive.", ["inattentive"]),
     ("It offers energy-inefficient buildings.", "It offers energy-efficient buildings.", ["inefficient"]),
     ("The restaurant has indoor seating.", "The restaurant has a blue door.", []),  # "in-" + "door": no negation
     ("The stabbing happened inside the club.", "It happened on the side of the club.", []),
     ("Unlike the others, it floats.", "Like the others, it floats.", []),
     ("It was unclear and uncertain.", "It was unclear.", [])],  # the same form on both sides: no flip
)
def test_antonym_flips(claim, evidence, words):
    from halguard.grounding.signals.antonyms import antonym_flips

    assert [claim[a:b] for a, b in antonym_flips(claim, evidence)] == words


@pytest.mark.parametrize(
    ("claim", "evidence", "words"),
    [  # an evidence word under a negation says nothing of its side: "not very clean" is "unclean"
     ("One reviewer found unclean silverware.", "The silverware was not very clean.", []),
     ("It is unclear whether marriage causes it.", "It is not clear whether marriage causes it.", []),
     ("Sales rose in May.", "Sales did not fall in May.", []),
     ("One reviewer found unclean silverware.", "The silverware was very clean.", ["unclean"]),
     # a contest seen from its two sides is no flip; the same party winning and losing is
     ("The Wildcats lost to the Wisconsin Badgers in the final.",
      "The Wildcats' season ended at the hands of the Wisconsin Badgers, who rallied for a 71-64 victory.", []),
     ("The Wildcats lost to the Wisconsin Badgers in the final.", "It will be looking to win the title.", []),
     ("The Lakers lost to the Celtics.", "The Lakers won against the Celtics.", ["lost"]),
     ("Nadal lost the final.", "Nadal won the final.", ["lost"]),
     ("Nadal lost the final.", "He won the final.", ["lost"]),
     ("The launch failed.", "The launch was a success.", ["failed"])],
)
def test_antonym_flips_read_negated_evidence_and_contests(claim, evidence, words):
    from halguard.grounding.signals.antonyms import antonym_flips
    from halguard.text.lexical import negated_terms

    assert [claim[a:b] for a, b in antonym_flips(claim, evidence, negated_terms(evidence))] == words


def test_words_ending_in_s_that_are_not_plurals_keep_their_stem():
    assert stem("focus") == stem("focuses") and stem("class") == stem("classes") and stem("bus") == stem("buses")
    assert stem("analysis") != stem("analys")
