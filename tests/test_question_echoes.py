"""A short answer that gives the question back (halguard/grounding/signals/echoes.py): the question's own names for
the one it asks are a role conflict; an answer, a choice, a property and a denial are not."""

from __future__ import annotations

import pytest

from halguard.grounding.signals.echoes import question_echoes

ALBUM = "Fade to Black is an album by what American country singer who is the younger brother of Johnny Cash?"
DJ = "Which Italian DJ is a member of the same musical group as Jeffrey Jey and Maurizio Lobina?"
WESTON = ("What is the name of the company founded by George Weston in 1882 whose subsidiary company Weston Bakeries "
          "Limited produces bread?")


@pytest.mark.parametrize(("answer", "question"), [
    ("Johnny Cash's album", ALBUM),
    ("Maurizio Lobina and Jeffrey Jey.", DJ),
    ("Gino Cassinis founded the knighthood.", "Who founded the knighthood in which Gino Cassinis was part of?"),
    ("Big Bad Voodoo Daddy won the Super Bowl.",
     "Who won the Super Bowl that Big Bad Voodoo Daddy performed at the half-time show?"),
])
def test_the_questions_own_names_given_as_the_answer(answer, question):
    found = question_echoes(answer, question)
    assert found and found[0][:2] == (0, len(answer))
    assert "the question's own" in found[0][2] and "'s," not in found[0][2]


@pytest.mark.parametrize(("answer", "question"), [
    ("Tommy Cash", ALBUM),  # an answer: a name the question does not write
    ("It is by Tommy Cash, Johnny Cash's younger brother.", ALBUM),
    ("George Weston Limited", WESTON),  # the question's words, but a company it does not name
    ("Violent Femmes", "Which is from farthest east in the United States of Youngblood Hawke and Violent Femmes"),
    ("Tom or Jerry: Tom.", "Who is older, Tom or Jerry?"),  # a choice the question offers
    ("Johnny Cash", "What nationality is the brother of Johnny Cash?"),  # a property is asked, not one of them
    ("Johnny Cash did not record it.", ALBUM),  # a denial: the negation and premise checks read it
    ("Johnny Cash recorded it in 1962.", ALBUM),  # a number the question lacks: a fact to check
    ("Yes, Johnny Cash.", "Is the singer Johnny Cash?"),  # a yes/no question
    ("The Cash brothers", "Who are Tommy and Johnny Cash?"),
    ("Johnny Cash", None),
    ("", ALBUM),
])
def test_answers_choices_properties_and_denials_are_no_echo(answer, question):
    assert question_echoes(answer, question) == []


def test_the_verifier_flags_the_echo_with_its_reason(verifier):
    context = ["Fade to Black is a 2008 album by Tommy Cash. Tommy Cash (born April 5, 1940) is an American country "
               "singer-songwriter and the younger brother of Johnny Cash."]
    echoed = verifier.verify("Johnny Cash's album", context, question=ALBUM)
    assert echoed.label == "hallucinated"
    assert any("the question's own Johnny Cash" in r for r in echoed.claims[0].reasons)
    assert echoed.claims[0].signals.role_conflicts
    answered = verifier.verify("Tommy Cash", context, question=ALBUM)
    assert answered.label == "supported" and not answered.claims[0].signals.role_conflicts


def test_a_long_question_and_answer_are_read_in_bounded_time():
    import time

    question = "Which " + "Alpha Beta and " * 3000 + "Gamma?"
    started = time.perf_counter()
    question_echoes("Alpha Beta " * 500, question)
    assert time.perf_counter() - started < 2.0
