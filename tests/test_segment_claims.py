import pytest

from halguard.text.claims import extract_claims, find_citations, resolve_citation
from halguard.text.segment import split_sentences


def _sentences(text):
    return [text[s:e] for s, e in split_sentences(text)]


def test_abbreviations_and_decimals_do_not_split():
    text = "Dr. Smith paid $3.50 for it in the U.S. on Jan. 3. He left at 5 p.m. and came back."
    assert _sentences(text) == ["Dr. Smith paid $3.50 for it in the U.S. on Jan. 3.",
                                "He left at 5 p.m. and came back."]


def test_sentences_glued_without_a_space_are_split():
    # scraped pages and HaluEval's knowledge glue sentences and paragraphs ("a strategist.New Zealand's ...")
    text = ("Kerry Craig is a strategist.New Zealand's central bank raised rates.The Bank of Japan held them since "
            "Jan. 18.Japan's Nikkei fell.")
    assert _sentences(text) == ["Kerry Craig is a strategist.", "New Zealand's central bank raised rates.",
                                "The Bank of Japan held them since Jan. 18.", "Japan's Nikkei fell."]
    # abbreviations, initials, decimals, domains and versions stay whole
    for whole in ("The U.S. economy grew 3.5% in 2020.", "See example.com for e.g. details.", "Version 2.0 shipped.",
                  "J.K. Rowling wrote it.", "He met Dr.Smith there."):
        assert _sentences(whole) == [whole]


def test_offsets_are_exact_and_line_breaks_split():
    text = "  First sentence here.\n\n- a list item\nLast one, with 2.5 kg.  "
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == ["First sentence here.", "- a list item", "Last one, with 2.5 kg."]
    assert all(text[s:e] == text[s:e].strip() for s, e in spans)


def test_very_long_line_is_split_without_hanging():
    text = "This is one fact about a thing. " * 2000
    spans = split_sentences(text)
    assert len(spans) == 2000


def test_skips_hedges_and_list_intros_and_records_them():
    answer = "Here are the key points:\n- The tower is 330 metres tall.\nI hope this helps!"
    split = extract_claims(answer)
    assert [c.text for c in split.claims] == ["- The tower is 330 metres tall."]
    reasons = {answer[s:e]: r for s, e, r in split.skipped}
    assert reasons == {"Here are the key points:": "list introduction", "I hope this helps!": "hedge or filler"}


def test_a_count_of_the_answers_own_words_is_no_fact():
    answer = "Here is a 93-word summary of the article:\nThe tower is 330 metres tall."
    split = extract_claims(answer, question="Summarize the article.")
    assert [c.text for c in split.claims] == ["The tower is 330 metres tall."]
    assert [r for _, _, r in split.skipped] == ["list introduction"]
    # a number that counts a thing of the world is still a claim's
    claims = extract_claims("It is a 93-metre tower:\nIt is tall.").claims
    assert claims[0].text == "It is a 93-metre tower:"


def test_short_answer_is_checked_with_its_question():
    split = extract_claims("Arthur's Magazine", question="Which magazine was started first?")
    assert len(split.claims) == 1
    claim = split.claims[0]
    assert claim.question_aware
    assert claim.check_text == "Which magazine was started first? Arthur's Magazine"
    assert (claim.start, claim.end) == (0, 17)


def test_short_fragment_without_question_is_skipped():
    split = extract_claims("Yes indeed.")
    assert split.claims == []
    assert split.skipped[0][2] == "too short to carry a fact"


def test_citations_are_parsed_and_attached():
    answer = "Paris is the capital of France [S0]. [2]\nIt has 2.1 million people [1, S2]."
    split = extract_claims(answer)
    assert [c.citations for c in split.claims] == [("S0", "2"), ("1", "S2")]
    assert split.claims[0].check_text == "Paris is the capital of France."
    assert [m.labels for m in find_citations(answer)] == [("S0",), ("2",), ("1", "S2")]


@pytest.mark.parametrize(
    ("label", "expected"),
    [("S0", "a"), ("S1", "b"), ("1", "a"), ("2", "b"), ("3", None), ("S5", None), ("doc-b", "doc-b")],
)
def test_resolve_citation(label, expected):
    ids = ["a", "b"] if expected != "doc-b" else ["a", "doc-b"]
    assert resolve_citation(label, ids) == expected


def test_markdown_checkbox_is_not_a_citation():
    assert find_citations("- [x] done and [ ] not done") == []
