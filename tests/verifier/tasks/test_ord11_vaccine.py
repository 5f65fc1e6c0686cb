"""ord-11 (influenza vaccine) on runs written as the immunization screen saves a row.

Split: 30% product/CVX; 30% lot and expiration (two parts); 25% dose/route/site (three
parts); 15% VIS and administrator (three parts: VIS date, administering user, consent).
"""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.ehr import Immunization
from tests.verifier.tasks.runs import Run, seeded_task

CVX, LOT_EXP, DOSE_ROUTE_SITE, VIS_BY = 0.30, 0.30, 0.25, 0.15
NOW = dt.datetime(2026, 10, 19, 9, 5)
GOLD = {"administered_date": NOW, "cvx_code": "140", "completion_status": "Completed",
        "amount_administered": 0.5, "amount_administered_unit": "mL",
        "manufacturer": "Northbridge Biologics, Inc.", "lot_number": "NB26F417",
        "expiration_date": dt.date(2027, 6, 30), "route": "IM",
        "administration_site": "left_deltoid", "administered_by_id": 11,
        "ordering_provider": 10, "vis_date": dt.date(2026, 8, 6),
        "education_date": dt.date(2026, 10, 19), "information_source": "new_immunization_record",
        "consent_obtained": 1, "encounter_id": 1001}

task = seeded_task("ord-11")


def document(run: Run, *, channel: str = "browser", **changes) -> None:
    pid = run.pid("402600")
    with run.write("nurse.kelly", channel=channel) as s:
        s.add(Immunization(patient_id=pid, create_date=NOW, update_date=NOW, created_by=11,
                           updated_by=11, added_erroneously=0, **{**GOLD, **changes}))


def test_correct_record_scores_one(task, tmp_path):
    run = task.run(tmp_path)
    document(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.checks[0].evidence["manufacturer"] == "Northbridge Biologics, Inc."


def test_lot_case_and_spacing_ignored(task, tmp_path):
    run = task.run(tmp_path)
    document(run, lot_number="nb26 f417")
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("change, lost", [
    ({"cvx_code": "141"}, CVX),
    ({"lot_number": "NB26F471"}, LOT_EXP / 2),
    ({"expiration_date": dt.date(2027, 3, 30)}, LOT_EXP / 2),
    ({"amount_administered": 0.25}, DOSE_ROUTE_SITE / 3),
    ({"route": "SC"}, DOSE_ROUTE_SITE / 3),
    ({"administration_site": "right_deltoid"}, DOSE_ROUTE_SITE / 3),
    ({"vis_date": dt.date(2021, 8, 6)}, VIS_BY / 3),        # the withdrawn edition
    ({"administered_by_id": 10}, VIS_BY / 3),
    ({"consent_obtained": 0}, VIS_BY / 3),                  # "and consent obtained"
])
def test_each_wrong_value_loses_its_part(task, tmp_path, change, lost):
    run = task.run(tmp_path)
    document(run, **change)
    assert run.score() == pytest.approx(1.0 - lost)


@pytest.mark.parametrize("change", [
    {"administered_date": dt.datetime(2026, 10, 18, 9, 5)},
    {"completion_status": "Refused"},
])
def test_a_row_that_is_not_todays_dose_earns_nothing(task, tmp_path, change):
    run = task.run(tmp_path)
    pid = run.pid("402600")
    with run.write("nurse.kelly") as s:
        s.add(Immunization(patient_id=pid, create_date=NOW, created_by=11,
                           **{**GOLD, "added_erroneously": 0, **change}))
    assert run.score() == pytest.approx(0.0)


def test_row_through_the_api_earns_nothing(task, tmp_path):
    run = task.run(tmp_path)
    document(run, channel="api")
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    assert report.channel["exclusions"][0]["table"] == "immunizations"


def test_untouched_scores_zero(task, tmp_path):
    run = task.run(tmp_path)
    assert run.score() == pytest.approx(0.0)
