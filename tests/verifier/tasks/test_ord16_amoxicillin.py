"""ord-16 (weight-based amoxicillin) on runs written as the Rx form saves a prescription.

Split: 20% weight used correctly; 40% per-dose volume; 20% frequency and duration (two
equal parts); 20% quantity.
"""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.ehr import Prescription
from tests.verifier.tasks.runs import Run, seeded_task

WEIGHT, VOLUME, FREQ_DAYS, QUANTITY = 0.20, 0.40, 0.20, 0.20
NOW = dt.datetime(2026, 10, 19, 9, 0)
GOLD = {"drug": "amoxicillin 400 mg/5 mL oral suspension", "drug_id": 14, "size": "400/5",
        "form": "suspension", "dosage": "10.5", "unit": "mL", "route": "PO", "interval": "1",
        "days_supply": 10, "quantity": "300 mL", "refills": 0,
        "drug_dosage_instructions": "Give 10.5 mL by mouth twice daily for 10 days.",
        "diagnosis": "ICD10:H66.001", "pharmacy_id": 1}

task = seeded_task("ord-16")


def prescribe(run: Run, *, mrn: str = "402790", channel: str = "browser", **changes) -> None:
    pid = run.pid(mrn)
    with run.write(channel=channel) as s:
        s.add(Prescription(patient_id=pid, date_added=NOW, date_modified=NOW, user="dr.osei",
                           created_by=10, updated_by=10, active=1, erx_uploaded=0,
                           erx_source=0, erx_status="draft", provider_id=10, encounter=1001,
                           start_date=NOW.date(), substitute=1, medication=1,
                           **{**GOLD, **changes}))


def test_correct_prescription_scores_one(task, tmp_path):
    run = task.run(tmp_path)
    prescribe(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.checks[0].evidence["found"] == "18.67 kg"


def test_duration_in_the_directions_when_days_supply_is_empty(task, tmp_path):
    run = task.run(tmp_path)
    prescribe(run, days_supply=None, quantity="300")
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("dosage, lost", [
    ("10.4", VOLUME),                  # truncated, not rounded: the weight was right
    ("9.5", VOLUME + WEIGHT),          # the older weight, 16.9 kg
    ("13.6", VOLUME + WEIGHT),         # the look-alike's 24.2 kg
    ("25", VOLUME + WEIGHT),           # the 4,000 mg/day cap applied to a child of 18.6 kg
])
def test_dose_volume_mistakes(task, tmp_path, dosage, lost):
    run = task.run(tmp_path)
    prescribe(run, dosage=dosage)
    assert run.score() == pytest.approx(1.0 - lost)


def test_dose_entered_in_mg_keeps_the_weight_only(task, tmp_path):
    run = task.run(tmp_path)
    prescribe(run, dosage="837", unit="mg")
    assert run.score() == pytest.approx(1.0 - VOLUME)


def test_three_times_daily_split_of_the_right_daily_dose(task, tmp_path):
    run = task.run(tmp_path)
    prescribe(run, interval="2", dosage="7")          # 1674 mg/day in three doses
    assert run.score() == pytest.approx(1.0 - VOLUME - FREQ_DAYS / 2)


@pytest.mark.parametrize("change, lost", [
    ({"interval": "20"}, FREQ_DAYS / 2),              # q.12h, not the b.i.d. asked for
    ({"days_supply": 7}, FREQ_DAYS / 2),
    ({"quantity": "210 mL"}, QUANTITY),               # not rounded up to whole bottles
])
def test_frequency_duration_and_quantity(task, tmp_path, change, lost):
    run = task.run(tmp_path)
    prescribe(run, **change)
    assert run.score() == pytest.approx(1.0 - lost)


def test_prescription_for_the_lookalike_earns_nothing(task, tmp_path):
    run = task.run(tmp_path)
    prescribe(run, mrn="402709")
    assert run.score() == pytest.approx(0.0)


def test_prescription_through_the_api_earns_nothing(task, tmp_path):
    run = task.run(tmp_path)
    prescribe(run, channel="api")
    assert run.score() == pytest.approx(0.0)


def test_untouched_scores_zero(task, tmp_path):
    run = task.run(tmp_path)
    assert run.score() == pytest.approx(0.0)
