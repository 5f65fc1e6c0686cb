"""ord-09 (fasting labs with diagnosis links) on runs written as Procedures > Order writes
an order and its tests.

Split: 30% two tests (three equal parts); 20% date and fasting (two parts); 30% diagnosis
links (one part per test); 20% instructions and lab (two parts).
"""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.ehr import Form, ProcedureOrder, ProcedureOrderCode
from tests.verifier.tasks.runs import Run, seeded_task

TESTS, DATE_FASTING, DX, INSTRUCTIONS_LAB = 0.30, 0.20, 0.30, 0.20
NOW = dt.datetime(2026, 10, 19, 9, 25)
BOTH = "ICD10:E11.9;ICD10:E78.5"
LIPID = ("80061", "Lipid panel", BOTH)
A1C = ("83036", "Hemoglobin A1c", BOTH)
ORDER = {"lab_id": 1, "date_collected": dt.datetime(2026, 10, 28, 8, 0),
         "specimen_fasting": "YES", "patient_instructions": "12-hour fast"}

task = seeded_task("ord-09")


def order(run: Run, tests=(LIPID, A1C), *, mrn: str = "402512", channel: str = "browser",
          **changes) -> None:
    values = {**ORDER, **changes}
    pid = run.pid(mrn)
    with run.write(channel=channel) as s:
        row = ProcedureOrder(
            patient_id=pid, date_ordered=NOW, order_status="pending", activity=1,
            procedure_order_type="laboratory_test", provider_id=10, order_priority="normal",
            scheduled_date=values["date_collected"], order_diagnosis="ICD10:E11.9",
            encounter_id=1001 if mrn == "402512" else None, **values)
        s.add(row)
        s.flush()
        if row.encounter_id is not None:
            s.add(Form(date=NOW, encounter=row.encounter_id, form_name="Procedure Order",
                       form_id=row.procedure_order_id, pid=pid, user="dr.osei",
                       formdir="procedure_order", provider_id=10))
        for seq, (code, name, dx) in enumerate(tests, start=1):
            s.add(ProcedureOrderCode(
                procedure_order_id=row.procedure_order_id, procedure_order_seq=seq,
                procedure_code=code, procedure_name=name, diagnoses=dx, procedure_source="1",
                procedure_order_title=name, procedure_type="laboratory_test"))


def test_correct_order_scores_one(task, tmp_path):
    run = task.run(tmp_path)
    order(run, tests=(A1C, ("80061", "Lipid panel", "ICD10:E78.5;ICD10:E11.9")))
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.footprint["counts"]["stray"] == 0


def test_instructions_may_say_more(task, tmp_path):
    run = task.run(tmp_path)
    order(run, patient_instructions="12 hour fast: water only after 8 pm.")
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("tests, lost", [
    ((LIPID,), TESTS / 3 + DX / 2),                                     # HbA1c missing
    ((LIPID, A1C, ("80053", "Comprehensive metabolic panel", BOTH)), TESTS / 3),
    ((LIPID, ("83036", "Hemoglobin A1c", "ICD10:E11.9")), DX / 2),      # E78.5 not linked
    ((("80061", "Lipid panel", BOTH + ";ICD10:I10"), A1C), DX / 2),     # a third diagnosis
])
def test_test_and_diagnosis_mistakes(task, tmp_path, tests, lost):
    run = task.run(tmp_path)
    order(run, tests=tests)
    assert run.score() == pytest.approx(1.0 - lost)


@pytest.mark.parametrize("change, lost", [
    ({"date_collected": dt.datetime(2026, 10, 20, 8, 0)}, DATE_FASTING / 2),
    ({"specimen_fasting": "NO"}, DATE_FASTING / 2),
    ({"patient_instructions": None}, INSTRUCTIONS_LAB / 2),
    ({"patient_instructions": "Fasting"}, INSTRUCTIONS_LAB / 2),
    ({"lab_id": 2}, INSTRUCTIONS_LAB / 2),
])
def test_each_order_field_wrong_loses_its_part(task, tmp_path, change, lost):
    run = task.run(tmp_path)
    order(run, **change)
    assert run.score() == pytest.approx(1.0 - lost)


def test_reference_lab_tests_are_still_the_two_tests(task, tmp_path):
    run = task.run(tmp_path)
    order(run, tests=(("M7600", "Lipid Panel, Standard", BOTH), ("M496", "Hemoglobin A1c (HPLC)",
                                                                 BOTH)), lab_id=2)
    assert run.score() == pytest.approx(1.0 - INSTRUCTIONS_LAB / 2)


def test_two_separate_orders_grade_the_fuller_one(task, tmp_path):
    run = task.run(tmp_path)
    order(run, tests=(LIPID,))
    order(run, tests=(A1C,))
    report = run.grade()
    assert [c.fraction for c in report.checks] == pytest.approx([1 / 3, 1.0, 0.5, 1.0])
    assert report.score == pytest.approx(TESTS / 3 + DATE_FASTING + DX / 2 + INSTRUCTIONS_LAB)


def test_order_for_the_lookalike_earns_nothing(task, tmp_path):
    run = task.run(tmp_path)
    order(run, mrn="402521")
    assert run.score() == pytest.approx(0.0)


def test_order_through_the_api_earns_nothing(task, tmp_path):
    run = task.run(tmp_path)
    order(run, channel="api")
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    assert {e["table"] for e in report.channel["exclusions"]} == {
        "forms", "procedure_order", "procedure_order_code"}


def test_untouched_scores_zero(task, tmp_path):
    run = task.run(tmp_path)
    assert run.score() == pytest.approx(0.0)
