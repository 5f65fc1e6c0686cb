"""Integers from the address: one parser (ASCII digits, SQLite's int64 range), and the five
GET requests that used to end in an HTTP 500 now answer the EHR's own error page naming the
bad parameter (or, for a free-text search, an empty result)."""

from __future__ import annotations

import pytest

from portal_web.common.params import INT64_MAX, INT64_MIN, parse_id, parse_int


@pytest.mark.parametrize(("raw", "expected"), [
    ("0", 0), ("42", 42), ("-7", -7), ("+7", 7), (str(INT64_MAX), INT64_MAX),
    (str(INT64_MIN), INT64_MIN), (5, 5),
    ("²", None), ("١٢", None), ("１２", None), (" 1", None), ("1 ", None), ("1\n", None),
    ("", None), ("1.0", None), ("1e9", None), ("0x10", None), (str(INT64_MAX + 1), None),
    (str(INT64_MIN - 1), None), ("9" * 40, None), (None, None), (True, None), (2**64, None),
])
def test_parse_int_takes_only_bounded_ascii_whole_numbers(raw, expected):
    assert parse_int(raw) == expected


def test_parse_int_bounds_and_row_ids():
    assert parse_int("5", low=1, high=4) is None and parse_int("4", low=1, high=4) == 4
    assert parse_id("12") == 12 and parse_id("-1") is None and parse_id("+1") is None
    assert parse_id("²") is None and parse_id(str(INT64_MAX + 1)) is None


@pytest.mark.parametrize(("url", "parameter"), [
    ("/calendar/event/new?pid=%C2%B2", "pid"),
    ("/patient/1/encounter/1001/esign?form=%C2%B2", "form"),
    ("/messages/new?pid=99999999999999999999", "pid"),
    ("/tasks/new?pid=99999999999999999999", "pid"),
    ("/calendar/event/new?pid=99999999999999999999", "pid"),
])
def test_bad_integer_parameters_get_the_ehr_error_page(ehr_for, url, parameter):
    ehr = ehr_for("ord-01", user="nurse.kelly")
    page = ehr.client.get(url)
    assert page.status_code == 400, (url, page.status_code)
    assert page.headers["content-type"].startswith("text/html")
    assert f"parameter “{parameter}”" in page.text
    assert page.template.name == "error.html" and page.context["user"] is not None


def test_finder_search_for_a_superscript_digit_finds_nobody(ehr_for):
    ehr = ehr_for("ord-01", user="nurse.kelly")
    page = ehr.client.get("/main/finder?q=%C2%B2")
    assert page.status_code == 200 and page.template.name == "finder.html"


def test_form_integers_use_the_same_parser():
    from starlette.datastructures import FormData

    from portal_web.common.forms import FieldReader

    reader = FieldReader(FormData([("a", "١٢"), ("b", "²"), ("c", "+12"), ("d", "1234567890")]))
    assert [reader.integer(n, n, low=0, high=10**12) for n in "abcd"] == [None, None, 12, None]
    assert set(reader.errors) == {"a", "b", "d"}
