"""Hand-written grounded paraphrases pass and hand-written fabrications do not (issue 45), on passages written for
this test (not the dev data, not benchmarks/adversarial/): two-passage contexts, a question, answers of one or two
sentences in a user's own words. Paraphrases that still fail are listed in docs/evaluation.md, not here."""

from __future__ import annotations

import pytest

from halguard import LocalVerifier

PASSAGES = {
    "lib": ["The Halden Public Library opened in 1962 and moved to its current building on Market Street in 2004. "
            "It holds about 180,000 books and lends e-readers to members.",
            "Membership is free for residents of Halden. Non-residents pay 25 euros a year. The library is closed on "
            "Sundays and public holidays."],
    "vac": ["The vaccine was approved by the regulator in March 2023 for adults aged 60 and over. In the main trial "
            "it prevented 83% of severe cases over six months.",
            "The most common side effects were a sore arm and tiredness, which usually went away within two days."],
    "ship": ["The container ship Nordic Star ran aground near the port of Aalborg on Monday night. None of the 19 "
             "crew members were injured.",
             "Tugboats refloated the vessel on Wednesday morning, and the port reopened to traffic the same afternoon."],
    "co": ["Brennan Foods reported annual sales of 1.4 billion dollars, up 9% from the previous year. The company "
           "plans to open 30 new stores in 2025, most of them in Texas.",
           "Chief executive Laura Kim said higher prices for coffee beans had squeezed margins in the second half."],
    "park": ["Lake Orrin National Park covers 1,200 square kilometres and was created in 1978 to protect the breeding "
             "grounds of the grey crane.",
             "Visitors can camp at three sites inside the park between May and September; a permit costs 12 dollars "
             "a night."],
}
QUESTIONS = {"lib": "Tell me about the Halden library.", "vac": "What do we know about the vaccine?",
             "ship": "What happened to the Nordic Star?", "co": "How is Brennan Foods doing?",
             "park": "What should I know about Lake Orrin National Park?"}


@pytest.fixture(scope="module")
def verifier():
    return LocalVerifier()


@pytest.mark.parametrize(("key", "answer"), [
    ("lib", "The library first opened in 1962 and has been in its Market Street building since 2004. It has roughly "
            "180,000 books, and members can borrow e-readers."),
    ("vac", "Regulators approved the vaccine in March 2023 for people aged 60 or older. In its main trial it "
            "prevented 83% of severe cases over a six-month period."),
    ("ship", "The ship was refloated by tugboats on Wednesday morning, and the port was open to traffic again that "
             "afternoon."),
    ("co", "Brennan Foods' yearly sales came to 1.4 billion dollars, a 9% increase on the year before. It intends to "
           "open 30 more stores in 2025, mostly in Texas."),
    ("park", "Camping is allowed at three sites in the park from May to September, and a permit is 12 dollars per "
             "night."),
])
def test_a_grounded_paraphrase_passes(verifier, key, answer):
    verdict = verifier.verify(answer, PASSAGES[key], question=QUESTIONS[key])
    assert verdict.label == "supported", [(c.text, c.score, c.signals.novel_terms) for c in verdict.claims]


@pytest.mark.parametrize(("key", "answer"), [
    ("lib", "The library opened in 1962 and moved to Market Street in 2008. It holds about 180,000 books."),
    ("lib", "Membership is free for everyone, and the library is closed on Mondays."),
    ("vac", "The most common side effects were fever and headaches, which usually went away within two days."),
    ("ship", "The Nordic Star ran aground near Aalborg on Monday night, and two of the 19 crew members were injured."),
    ("ship", "Tugboats refloated the vessel on Tuesday morning, but the port stayed closed for a week."),
    ("co", "Brennan Foods reported annual sales of 1.4 billion dollars, down 9% from the previous year."),
    ("co", "Chief executive Laura Kim said lower prices for coffee beans had improved margins."),
    ("park", "Lake Orrin National Park covers 1,200 square kilometres and was created in 1978 to protect wolves."),
    ("park", "Visitors can camp at five sites inside the park all year round; a permit costs 12 dollars a night."),
])
def test_a_fabrication_is_flagged(verifier, key, answer):
    verdict = verifier.verify(answer, PASSAGES[key], question=QUESTIONS[key])
    assert verdict.label == "hallucinated", [(c.text, c.score) for c in verdict.claims]
