"""Results, value comparison and equal shares: the arithmetic every task's checks rely on."""

from __future__ import annotations

import datetime as dt
import math

import pytest

from verifier import NOT_GRADED, CouldNotGrade, Result, check, equal_share, expect


@pytest.mark.parametrize("bad", [-0.1, 1.01, math.nan, None, True])
def test_graded_result_needs_a_fraction_in_range(bad):
    with pytest.raises(ValueError):
        Result(bad)


def test_could_not_grade_has_no_fraction():
    result = Result.could_not_grade("judge down")
    assert (result.fraction, result.status, result.evidence["reason"]) == (
        None, NOT_GRADED, "judge down")
    with pytest.raises(ValueError):
        Result(0.0, status=NOT_GRADED)


def test_check_returns_are_coerced():
    assert Result.of(True).fraction == 1.0
    assert Result.of(False).fraction == 0.0
    assert Result.of(0.25, note="x").evidence == {"note": "x"}
    with pytest.raises(TypeError):
        Result.of("yes")


@pytest.mark.parametrize("found, expected, tol, ok", [
    ("128", 128, None, True),          # OpenEMR keeps BP as text
    (128.0, 128, None, True),
    ("129", 128, None, False),
    (98.8, 98.78, 0.05, True),
    (98.7, 98.78, 0.05, False),
    (None, 76, None, False),
    ("  Moderate ", "moderate", None, True),
    ("hives ", "Hives", None, True),
    ("2026-09-30", dt.date(2026, 9, 30), None, True),
    (dt.datetime(2026, 9, 30, 8), dt.date(2026, 9, 30), None, True),
    (dt.date(2026, 9, 3), dt.date(2026, 9, 30), None, False),
    ("abc", 5, None, False),
])
def test_expect_compares_in_the_expected_values_terms(found, expected, tol, ok):
    result = expect(found, expected, tol=tol)
    assert result.fraction == (1.0 if ok else 0.0)
    assert "expected" in result.evidence and "found" in result.evidence


def test_equal_share_is_the_mean_of_its_parts():
    result = equal_share({"a": True, "b": False, "c": 0.5, "d": Result(1.0)})
    assert result.fraction == pytest.approx(2.5 / 4)
    assert [p["part"] for p in result.evidence["parts"]] == ["a", "b", "c", "d"]


def test_equal_share_with_an_ungraded_part_is_not_graded():
    result = equal_share([("case 1", True), ("case 2", Result.could_not_grade("no judge"))])
    assert result.status == NOT_GRADED and result.fraction is None
    assert "case 2" in result.evidence["reason"]


def test_equal_share_keeps_a_veto_and_refuses_no_parts():
    assert equal_share({"a": Result(1.0).with_veto("fabricated allergy")}).veto
    with pytest.raises(ValueError):
        equal_share({})


def test_check_needs_a_name_and_turns_could_not_grade_into_a_status():
    with pytest.raises(ValueError):
        check("  ")

    @check("LLM-judged argument")
    def argument(_ex):
        raise CouldNotGrade("endpoint down", {"raw": ["timeout"]})

    result = argument(None)
    assert argument.name == "LLM-judged argument"
    assert result.status == NOT_GRADED
    assert result.evidence == {"reason": "endpoint down", "raw": ["timeout"]}
