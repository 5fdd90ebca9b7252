"""A date the passages write otherwise is a changed number, though each of its numbers stands somewhere in them."""

import pytest

from halguard.grounding.signals.calendar import changed_dates
from halguard.grounding.signals.scope import scope_of
from halguard.text.contexts import Source
from halguard.text.dates import calendar_dates

WALL = ("The Berlin Wall was opened on the night of 9 November 1989. Formal demolition began in June 1990, and "
        "Germany was reunified on 3 October 1990.")


def _changed(claim: str, *passages: str) -> list[str]:
    scope = scope_of([Source(id=str(i), text=p) for i, p in enumerate(passages)], None)
    return [claim[s:e] for s, e in changed_dates(claim, scope)]


@pytest.mark.parametrize(("text", "dates"), [
    ("on 9 November 1989", [(1989, 11, 9)]),
    ("on November 9th, 1989", [(1989, 11, 9)]),
    ("on 1989-11-09", [(1989, 11, 9)]),
    ("the 4th of March 2019", [(2019, 3, 4)]),
    ("in June 1990", [(1990, 6, 0)]),
    ("In May 12 people came in 2020", []),
])
def test_calendar_dates(text, dates):
    assert [d for _, _, d in calendar_dates(text)] == dates


def test_a_month_moved_within_a_year_the_passages_date_is_changed():
    # "October" and "9" and "1989" are each in the passage: only the date as a whole is not.
    assert _changed("The wall was opened on 9 October 1989.", WALL) == ["9 October 1989"]
    assert _changed("The wall was opened on 19 November 1989.", WALL) == ["19 November 1989"]


@pytest.mark.parametrize("claim", [
    "The wall was opened on 9 November 1989.",
    "The wall was opened on November 9, 1989.",
    "The wall was opened on 1989-11-09.",
    "The wall was opened in November 1989.",
    "Demolition began on 13 June 1990.",  # the passage gives June 1990 without a day: more exact, not changed
    "The wall was opened in 1989.",
    "Talks began on 2 May 1985.",  # a year the passages date nothing in decides nothing
])
def test_the_passages_dates_in_other_forms_or_undated_years_are_not_changed(claim):
    assert _changed(claim, WALL) == []


def test_a_day_and_month_the_passages_give_in_another_year_only_is_changed():
    # the year stands in the passage, of another thing: the date as a whole is not the passage's
    wing = "The wing opened on 14 March 2023. A second ward is due to open in 2025."
    assert _changed("The wing opened on 14 March 2025.", wing) == ["14 March 2025"]
    assert _changed("The wing opened on 14 March 2023.", wing) == []
    assert _changed("The wing opened in March 2025.", wing) == []  # no day: nothing the passage dates otherwise
    # a day and month the passages also write without a year may be any year's
    assert _changed("The fair opened on 14 March 2025.", "The fair opens on 14 March; in 2023 it opened on "
                                                          "14 March 2023.") == []


def test_a_day_and_month_without_a_year_may_be_the_claims():
    passage = "The transfers started on 17 August last year. The coins had no collateral until December 2022."
    assert _changed("The transfers started in August 2022.", passage) == []
    assert _changed("The transfers started in September 2022.", passage) == ["September 2022"]


def test_verifier_blocks_a_changed_date_in_a_copied_sentence(verifier):
    verdict = verifier.verify("The Berlin Wall was opened on the night of 9 October 1989.", [WALL])
    assert verdict.label == "hallucinated"
    assert verdict.claims[0].signals.missing_numbers == ["9 October 1989"]
    assert verifier.verify("The Berlin Wall was opened on the night of 9 November 1989.", [WALL]).label == "supported"


def test_a_passage_of_dates_is_read_in_linear_time():
    # Each date was once tested against every date found before it: a 750 KB passage of dates took 3 minutes. Read
    # as a ratio (a shared machine's speed varies): four times the passage takes about four times as long, where
    # the quadratic reading took sixteen.
    import time

    def read(copies: int) -> float:
        passage = "On 1 May 2020 and March 3, 2019 and June 2018. " * copies
        t0 = time.perf_counter()
        assert len(calendar_dates(passage, yearless=True)) == 3 * copies
        assert _changed("It happened on 2 May 2020.", passage) == ["2 May 2020"]  # the passage's May 2020 is the 1st
        assert _changed("It happened on 1 May 2020.", passage) == []
        return time.perf_counter() - t0

    quarter, whole = read(5_250), read(21_000)  # about 250 KB and 1 MB, 63,000 dates
    assert whole < 8 * quarter + 1.0


OLIVES = ("The cooperative reported on 2 December 2025 that 37 farms lost part of their crop to a hailstorm on 11 "
          "October. Bibs are handed out between 16 and 17 March.")


@pytest.mark.parametrize(("claim", "changed"), [
    ("37 farms lost part of their crop in a November 11 hailstorm.", ["November 11"]),
    ("37 farms lost part of their crop to a hailstorm on October 11th.", []),
    ("The cooperative reported on December 2 that farms lost crops.", []),
    ("Bibs are handed out on March 16.", []),  # a range read as its last day: a month the passage dates
    ("The hailstorm struck in November.", []),  # a month alone: no day to compare
])
def test_a_day_and_month_without_a_year(claim, changed):
    assert _changed(claim, OLIVES) == changed


def test_a_day_and_month_without_a_year_against_a_passage_that_names_the_month():
    assert _changed("The storm hit on November 11.", "The storm hit on 11 October; November was calm.") == []
    assert _changed("The storm hit on November 11.", "The storm hit last autumn.") == []  # no dates to compare


def test_a_holiday_is_its_date():
    from halguard.text.dates import holiday_dates, holidays_as_dates

    text = "He was crowned on Christmas Day 1066; the treaty came on New Year’s Eve and Halloween, 1999."
    assert [d for _, _, d in holiday_dates(text)] == [(1066, 12, 25), (0, 12, 31), (1999, 10, 31)]
    assert holidays_as_dates("crowned on Christmas Day 1066") == "25 December 1066."
    assert holiday_dates("christmas day") == []  # a holiday is a name: capitalised
    passage = "William was crowned king at Westminster Abbey on Christmas Day 1066."
    assert _changed("William was crowned on 25 December 1066.", passage) == []
    assert _changed("William was crowned on 25 November 1066.", passage) == ["25 November 1066"]


def test_verifier_reads_a_passage_holiday_as_the_claims_date():
    from halguard import LocalVerifier

    verifier = LocalVerifier()
    passage = ("William defeated Harold II at Hastings on 14 October 1066. He was crowned king at Westminster Abbey "
               "on Christmas Day 1066.")
    question = "When was William crowned?"
    assert verifier.verify("William was crowned at Westminster Abbey on 25 December 1066.", [passage],
                           question=question).label == "supported"
    assert verifier.verify("William was crowned at Westminster Abbey on 26 December 1066.", [passage],
                           question=question).label == "hallucinated"
