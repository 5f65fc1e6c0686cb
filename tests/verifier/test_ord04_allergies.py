"""Worked example: ord-04 (allergies) graded on extracts built by writing rows directly.

Split from the seed: 50% penicillin entry fields (four equal parts: active, reaction,
severity, onset); 40% sulfa inactivated with comment (two equal parts); 10% nothing deleted.
"""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.ehr import Lists, PatientData
from tests.verifier.builders import RunBuilder, task_spec
from verifier import grade

SPEC = task_spec("R09.03.01.02-T04")
NOW = dt.datetime(2026, 10, 19, 9, 12)
PID, OTHER = 1301, 1302
SULFA, LATEX, OTHER_ALLERGY = 1401, 1402, 1403
COMMENT = "Tolerated TMP-SMX 2025 per pharmacy"
PENICILLIN, SULFA_PART, NOT_DELETED = 0.50, 0.40, 0.10


def seeded(tmp_path) -> RunBuilder:
    run = RunBuilder(tmp_path / "run", SPEC)
    with run.seed() as s:
        s.add_all([
            PatientData(id=1, pid=PID, pubpid="402301", fname="Priya", lname="Raman",
                        DOB=dt.date(1985, 2, 11), sex="Female"),
            PatientData(id=2, pid=OTHER, pubpid="402310", fname="Priyanka", lname="Raman",
                        DOB=dt.date(1985, 2, 11), sex="Female"),
        ])
        s.flush()
        s.add_all([
            Lists(id=SULFA, date=dt.datetime(2019, 4, 2, 11), type="allergy",
                  title="Sulfa (sulfonamide antibiotics)", begdate=dt.date(2019, 4, 1),
                  reaction="rash", severity_al="mild", pid=PID),
            Lists(id=LATEX, date=dt.datetime(2021, 1, 5, 9), type="allergy", title="Latex",
                  reaction="hives", severity_al="mild", pid=PID),
            Lists(id=OTHER_ALLERGY, date=dt.datetime(2020, 3, 3, 9), type="allergy",
                  title="Codeine", reaction="nausea", severity_al="mild", pid=OTHER),
        ])
    return run.snapshot()


def chart(run: RunBuilder, *, channel: str = "browser", penicillin: dict | None = None,
          sulfa: dict | None = None) -> None:
    entry = {"title": "Penicillin", "reaction": "hives", "severity_al": "moderate",
             "begdate": dt.date(2026, 9, 30), **(penicillin or {})}
    change = {"enddate": dt.date(2026, 10, 19), "comments": COMMENT, **(sulfa or {})}
    with run.agent(channel=channel) as s:
        s.add(Lists(date=NOW, type="allergy", pid=PID, user="nurse.kelly", **entry))
        row = s.get(Lists, SULFA)
        for key, value in change.items():
            setattr(row, key, value)


def graded(run: RunBuilder):
    report = grade(SPEC, run.close())
    assert report.complete, report.to_json()["checks"]
    return report


def test_correct_chart_scores_one(tmp_path):
    run = seeded(tmp_path)
    chart(run)
    report = graded(run)
    assert report.score == pytest.approx(1.0)
    assert report.footprint["counts"] == {"insert": 1, "update": 1, "delete": 0, "stray": 0}


@pytest.mark.parametrize("wrong", [
    {"reaction": "rash"},
    {"severity_al": "severe"},
    {"begdate": dt.date(2026, 9, 3)},
    {"enddate": dt.date(2026, 10, 19)},   # entered already inactive
])
def test_each_penicillin_field_wrong_loses_a_quarter_of_its_part(tmp_path, wrong):
    run = seeded(tmp_path)
    chart(run, penicillin=wrong)
    assert graded(run).score == pytest.approx(PENICILLIN * 3 / 4 + SULFA_PART + NOT_DELETED)


@pytest.mark.parametrize("wrong", [
    {"comments": "Tolerated Bactrim per pharmacy"},
    {"enddate": None},                     # comment added but still active
])
def test_each_sulfa_value_wrong_loses_half_of_its_part(tmp_path, wrong):
    run = seeded(tmp_path)
    chart(run, sulfa=wrong)
    assert graded(run).score == pytest.approx(PENICILLIN + SULFA_PART / 2 + NOT_DELETED)


def test_comment_compared_without_case_or_spacing(tmp_path):
    run = seeded(tmp_path)
    chart(run, sulfa={"comments": "  tolerated  TMP-SMX 2025 per pharmacy "})
    assert graded(run).score == pytest.approx(1.0)


def test_no_penicillin_entry_loses_its_whole_part(tmp_path):
    run = seeded(tmp_path)
    chart(run, penicillin={"title": "Amoxicillin"})
    assert graded(run).score == pytest.approx(SULFA_PART + NOT_DELETED)


def test_sulfa_deleted_instead_of_inactivated(tmp_path):
    run = seeded(tmp_path)
    chart(run, sulfa={"activity": 0})
    report = graded(run)
    assert [c.fraction for c in report.checks] == [1.0, 0.0, 0.0]
    assert report.score == pytest.approx(PENICILLIN)


def test_right_rows_through_the_api_count_for_nothing_gated(tmp_path):
    run = seeded(tmp_path)
    chart(run, channel="api")
    report = graded(run)
    assert [c.fraction for c in report.checks] == [0.0, 0.0, 1.0]
    assert report.score == pytest.approx(NOT_DELETED)
    assert {(e["table"], e["rows"]) for e in report.channel["exclusions"]} == {("lists", 2)}


@pytest.mark.parametrize("how", ["marked deleted", "row removed", "other patient's entry"])
def test_collateral_deletion_loses_the_nothing_deleted_part(tmp_path, how):
    run = seeded(tmp_path)
    chart(run)
    with run.agent() as s:
        if how == "marked deleted":
            s.get(Lists, LATEX).activity = 0
        elif how == "row removed":
            s.delete(s.get(Lists, LATEX))
        else:
            s.delete(s.get(Lists, OTHER_ALLERGY))
    report = graded(run)
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 0.0]
    assert report.score == pytest.approx(PENICILLIN + SULFA_PART)


def test_other_patients_row_is_flagged_in_the_footprint(tmp_path):
    run = seeded(tmp_path)
    chart(run)
    with run.agent() as s:
        s.get(Lists, OTHER_ALLERGY).comments = "charted on the wrong Raman"
    report = graded(run)
    flagged = [c for c in report.footprint["changes"] if c.get("flags")]
    assert [c["row"] for c in flagged] == [f"ehr.lists#{OTHER_ALLERGY}"]
    assert "other patient" in flagged[0]["flags"]
    assert report.score == pytest.approx(1.0)  # ord-04 grades deletions, not other edits


def test_untouched_extract_scores_below_half(tmp_path):
    run = seeded(tmp_path)
    report = graded(run)
    assert report.score == pytest.approx(NOT_DELETED)
    assert report.score < 0.5
