"""ord-03 (conditional magnesium replacement), both fixtures, written as the web EHR writes
prescriptions and lab orders.

Split: 20% correct decision; 40% medication order fields (four equal parts); 30% repeat lab
timing; 10% no extra orders. In the normal-Mg twin the order items are earned by ordering
nothing, so an untouched twin scores 1.0.
"""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.ehr import Form, Prescription, ProcedureOrder, ProcedureOrderCode
from tests.verifier.tasks.runs import Run, seeded_task

DECISION, MEDICATION, LAB, NO_EXTRA = 0.20, 0.40, 0.30, 0.10
NOW = dt.datetime(2026, 10, 19, 9, 10)
MG_SULFATE = {"drug": "magnesium sulfate 2 g/50 mL IV premix", "drug_id": 21, "dosage": "2",
              "unit": "g", "form": "premix", "route": "IV", "interval": "19",
              "drug_dosage_instructions": "2 g IV over 2 hours once (Mg 1.3)",
              "infusion_minutes": 120, "scheduled_at": dt.datetime(2026, 10, 19, 10, 0)}
MG_TEST = ("83735", "Magnesium, serum")
REPEAT = dt.datetime(2026, 10, 20, 6, 0)

task = seeded_task("ord-03")
twin = seeded_task("ord-03", "normal-mg")


def prescribe(run: Run, *, mrn: str = "402233", channel: str = "browser", **changes) -> None:
    """Save an inpatient medication order as the Rx form does."""
    values = {**MG_SULFATE, **changes}
    pid = run.pid(mrn)
    with run.write(channel=channel) as s:
        s.add(Prescription(
            patient_id=pid, date_added=NOW, date_modified=NOW, user="dr.osei", created_by=10,
            updated_by=10, active=1, erx_uploaded=0, erx_source=0, erx_status="draft",
            encounter=1001 if mrn == "402233" else 1002, provider_id=10,
            start_date=NOW.date(), refills=0, substitute=1, medication=1,
            care_setting="inpatient", **values))


def order_lab(run: Run, *, mrn: str = "402233", when: dt.datetime = REPEAT,
              tests: tuple[tuple[str, str], ...] = (MG_TEST,), channel: str = "browser") -> None:
    """Save a procedure order as Procedures > Order does (with its encounter's forms row)."""
    pid = run.pid(mrn)
    encounter = 1001 if mrn == "402233" else 1002
    with run.write(channel=channel) as s:
        order = ProcedureOrder(
            patient_id=pid, date_ordered=NOW, order_status="pending", activity=1,
            procedure_order_type="laboratory_test", lab_id=1, provider_id=10,
            date_collected=when, scheduled_date=when, order_priority="normal",
            specimen_fasting="NO", order_diagnosis="ICD10:J18.9", encounter_id=encounter)
        s.add(order)
        s.flush()
        s.add(Form(date=NOW, encounter=encounter, form_name="Procedure Order",
                   form_id=order.procedure_order_id, pid=pid, user="dr.osei",
                   formdir="procedure_order", provider_id=10))
        for seq, (code, name) in enumerate(tests, start=1):
            s.add(ProcedureOrderCode(
                procedure_order_id=order.procedure_order_id, procedure_order_seq=seq,
                procedure_code=code, procedure_name=name, diagnoses="ICD10:J18.9",
                procedure_source="1", procedure_order_title=name,
                procedure_type="laboratory_test"))


# -- default fixture: latest Mg 1.3 --------------------------------------------------------
def test_protocol_orders_score_one(task, tmp_path):
    run = task.run(tmp_path)
    prescribe(run)
    order_lab(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.checks[1].evidence["latest_mg"] == 1.3


def test_dose_in_milligrams_is_the_same_dose(task, tmp_path):
    run = task.run(tmp_path)
    prescribe(run, dosage="2000", unit="mg")
    order_lab(run)
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("wrong", [
    {"drug": "magnesium oxide 400 mg tablet", "drug_id": 23},   # a magnesium, not sulfate
    {"dosage": "4"},                                            # the <1.0 row of the table
    {"route": "IM"},            # written directly: the Rx form only takes an infusion for IV
    {"infusion_minutes": 60},
])
def test_each_medication_field_wrong_loses_a_quarter(task, tmp_path, wrong):
    run = task.run(tmp_path)
    prescribe(run, **wrong)
    order_lab(run)
    assert run.score() == pytest.approx(1.0 - MEDICATION / 4)


def test_oral_route_without_infusion_time_loses_two_quarters(task, tmp_path):
    run = task.run(tmp_path)
    prescribe(run, route="PO", infusion_minutes=None)
    order_lab(run)
    assert run.score() == pytest.approx(1.0 - MEDICATION / 2)


def test_repeat_lab_at_the_wrong_time_loses_the_timing(task, tmp_path):
    run = task.run(tmp_path)
    prescribe(run)
    order_lab(run, when=dt.datetime(2026, 10, 20, 8, 0))
    assert run.score() == pytest.approx(1.0 - LAB)


@pytest.mark.parametrize("extra", ["bmp in the order", "second order", "lookalike"])
def test_an_extra_order_loses_the_no_extra_part(task, tmp_path, extra):
    run = task.run(tmp_path)
    prescribe(run)
    if extra == "bmp in the order":
        order_lab(run, tests=(MG_TEST, ("80048", "Basic metabolic panel")))
    else:
        order_lab(run)
    if extra == "second order":
        prescribe(run)
    elif extra == "lookalike":
        prescribe(run, mrn="402323")
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 1.0, 0.0]
    assert report.score == pytest.approx(1.0 - NO_EXTRA)


def test_orders_through_the_api_do_not_count(task, tmp_path):
    run = task.run(tmp_path)
    prescribe(run, channel="api")
    order_lab(run, channel="api")
    report = run.grade()
    assert [c.fraction for c in report.checks] == [0.0, 0.0, 0.0, 1.0]
    assert report.score == pytest.approx(NO_EXTRA)
    assert report.channel["exclusions"]


def test_untouched_default_scores_only_no_extra_orders(task, tmp_path):
    run = task.run(tmp_path)
    assert run.score() == pytest.approx(NO_EXTRA)


# -- twin: latest Mg 2.0 -------------------------------------------------------------------
def test_untouched_twin_is_the_right_outcome(twin, tmp_path):
    run = twin.run(tmp_path)
    report = run.grade()
    assert report.variant == "normal-mg"
    assert report.checks[0].evidence["latest_mg"] == 2.0
    assert report.score == pytest.approx(1.0)


def test_twin_replacement_ordered_anyway_scores_only_no_extra(twin, tmp_path):
    run = twin.run(tmp_path)
    prescribe(run)
    order_lab(run)
    assert run.score() == pytest.approx(NO_EXTRA)


def test_twin_only_a_repeat_lab_loses_decision_and_lab(twin, tmp_path):
    run = twin.run(tmp_path)
    order_lab(run)
    assert run.score() == pytest.approx(MEDICATION + NO_EXTRA)


def test_twin_only_a_replacement_loses_decision_and_medication(twin, tmp_path):
    run = twin.run(tmp_path)
    prescribe(run)
    assert run.score() == pytest.approx(LAB + NO_EXTRA)


def test_twin_an_unrelated_order_loses_no_extra(twin, tmp_path):
    run = twin.run(tmp_path)
    order_lab(run, tests=(("80048", "Basic metabolic panel"),))
    assert run.score() == pytest.approx(1.0 - NO_EXTRA)


def test_twin_orders_through_the_api_still_are_orders(twin, tmp_path):
    run = twin.run(tmp_path)
    prescribe(run, channel="api")
    order_lab(run, channel="api")
    assert run.score() == pytest.approx(NO_EXTRA)
