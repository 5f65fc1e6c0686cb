"""What users type into order fields: accepted forms and refusals with messages."""

from datetime import date, datetime, time

import pytest

from desktop_ehr.services.parsing import (
    InputError,
    format_number,
    parse_date,
    parse_datetime,
    parse_int,
    parse_phone,
    parse_positive_number,
    parse_time,
)

TODAY = date(2026, 10, 19)


@pytest.mark.parametrize("text, expected", [
    ("10/26/2026", date(2026, 10, 26)), ("10/26/26", date(2026, 10, 26)),
    ("2026-10-26", date(2026, 10, 26)), ("t", TODAY), ("T+3", date(2026, 10, 22)),
    ("t-5", date(2026, 10, 14)), (" t + 7 ", date(2026, 10, 26)),
])
def test_dates_in_the_forms_clinicians_type(text, expected):
    assert parse_date(text, TODAY) == expected


@pytest.mark.parametrize("text", ["13/40/2026", "2/30/2026", "tomorrow", "26.10.2026", ""])
def test_bad_dates_are_refused_with_what_to_type(text):
    with pytest.raises(InputError) as err:
        parse_date(text, TODAY, "Start date")
    assert "Start date" in err.value.message
    assert "MM/DD/YYYY" in err.value.message or "calendar" in err.value.message or \
        "empty" in err.value.message


@pytest.mark.parametrize("text, expected", [
    ("21:00", time(21)), ("2100", time(21)), ("9:00 PM", time(21)), ("9p", time(21)),
    ("12:30 am", time(0, 30)), ("07:05", time(7, 5)),
])
def test_times(text, expected):
    assert parse_time(text) == expected


@pytest.mark.parametrize("text", ["25:00", "9:75", "noon", "13pm"])
def test_bad_times_are_refused(text):
    with pytest.raises(InputError, match="not a time"):
        parse_time(text, "Stop time")


def test_datetime_pairs_and_defaults():
    assert parse_datetime("", "", TODAY, "Stop") is None
    assert parse_datetime("t+4", "", TODAY, "Stop", time(23, 59)) == datetime(2026, 10, 23,
                                                                             23, 59)
    with pytest.raises(InputError, match="Stop time is empty"):
        parse_datetime("t+4", "", TODAY, "Stop")


def test_numbers():
    assert parse_positive_number("2.5", "Dose") == 2.5
    assert parse_positive_number("5,000", "Dose") == 5000
    for bad, message in (("abc", "not a number"), ("-4", "greater than zero"),
                         ("0", "greater than zero"), ("1.23456", "too many decimals")):
        with pytest.raises(InputError, match=message):
            parse_positive_number(bad, "Dose")
    with pytest.raises(InputError, match="above the largest"):
        parse_positive_number("200", "Dose per kg", maximum=100)
    assert parse_positive_number("0", "Units", allow_zero=True) == 0
    assert parse_int("2", "Occurrences", minimum=1, maximum=10) == 2
    with pytest.raises(InputError, match="between 1 and 10"):
        parse_int("11", "Occurrences", minimum=1, maximum=10)


def test_phone_numbers_are_normalized_or_refused():
    assert parse_phone("(217) 555-0199") == "217-555-0199"
    assert parse_phone("217.555.0199") == "217-555-0199"
    assert parse_phone("+1 217 555 0199") == "217-555-0199"
    with pytest.raises(InputError, match="10-digit"):
        parse_phone("555-0199")


def test_number_format_matches_order_sentences():
    assert format_number(2.0) == "2"
    assert format_number(2.5) == "2.5"
    assert format_number(5000) == "5,000"
