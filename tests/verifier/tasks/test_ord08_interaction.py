"""ord-08 (interaction alert → azithromycin) on runs written as the web EHR's Rx form and
alert page write prescriptions and cds_alert_log rows.

Split: 40% no clarithromycin; 40% azithromycin order exact (five equal parts); 20% alert
acknowledged (two equal parts).
"""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.ehr import CdsAlertLog, Prescription
from tests.verifier.tasks.runs import Run, seeded_task

NO_CLARITHRO, AZITHRO, ALERT = 0.40, 0.40, 0.20
NOW = dt.datetime(2026, 10, 19, 9, 20)
SIG = ("Take 2 tablets (500 mg) by mouth on day 1, then 1 tablet (250 mg) by mouth once daily "
       "on days 2 through 5.")
AZITHROMYCIN = {"drug": "azithromycin 250 mg tablet", "drug_id": 8, "dosage": "1", "unit": "tab",
                "form": "tablet", "route": "PO", "interval": "9", "quantity": "6",
                "refills": 0, "days_supply": 5, "drug_dosage_instructions": SIG,
                "diagnosis": "ICD10:J01.90"}
CLARITHROMYCIN = {"drug": "clarithromycin 500 mg tablet", "drug_id": 7, "dosage": "1",
                  "unit": "tab", "form": "tablet", "route": "PO", "interval": "1",
                  "quantity": "14", "refills": 0, "days_supply": 7,
                  "drug_dosage_instructions": "Take 1 tablet by mouth twice daily for 7 days."}

task = seeded_task("ord-08")


def prescribe(run: Run, values: dict, *, channel: str = "browser") -> int:
    pid = run.pid("402480")
    with run.write(channel=channel) as s:
        rx = Prescription(patient_id=pid, date_added=NOW, date_modified=NOW, user="dr.osei",
                          created_by=10, updated_by=10, active=1, erx_uploaded=0, erx_source=0,
                          erx_status="draft", provider_id=10, pharmacy_id=2, encounter=1001,
                          start_date=NOW.date(), substitute=1, medication=1, **values)
        s.add(rx)
        s.flush()
        return rx.id


def alert(run: Run, action: str | None, *, channel: str = "browser") -> int:
    """The alert the Rx form logs when it is shown, then the action taken on its page."""
    pid = run.pid("402480")
    with run.write(channel=channel) as s:
        row = CdsAlertLog(pid=pid, alert_type="drug-drug", severity="contraindicated",
                          drugs="clarithromycin + simvastatin", shown_at=NOW, shown_to=10,
                          acknowledged=0, message="Clarithromycin strongly inhibits CYP3A4.")
        s.add(row)
        s.flush()
        alert_id = row.id
    if action is not None:
        with run.write(channel=channel) as s:
            row = s.get(CdsAlertLog, alert_id)
            row.acknowledged, row.acknowledged_at, row.acknowledged_by = 1, NOW, 10
            row.action_taken = action
    return alert_id


def follow_policy(run: Run, *, channel: str = "browser", **azithro) -> None:
    alert(run, "cancel", channel=channel)
    prescribe(run, {**AZITHROMYCIN, **azithro}, channel=channel)


def test_policy_followed_scores_one(task, tmp_path):
    run = task.run(tmp_path)
    follow_policy(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.footprint["counts"]["stray"] == 0


def test_sig_compared_ignoring_case_spacing_and_punctuation(task, tmp_path):
    run = task.run(tmp_path)
    follow_policy(run, drug_dosage_instructions=SIG.lower().replace(",", "").rstrip("."),
                  quantity="6 tablets")
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("wrong", [
    {"drug": "azithromycin 500 mg tablet", "drug_id": 9},
    {"route": "IV"},
    {"drug_dosage_instructions": "Take 1 tablet by mouth daily for 5 days."},
    {"quantity": "5"},
    {"refills": 1},
])
def test_each_azithromycin_value_wrong_loses_a_fifth(task, tmp_path, wrong):
    run = task.run(tmp_path)
    follow_policy(run, **wrong)
    assert run.score() == pytest.approx(1.0 - AZITHRO / 5)


def test_override_keeps_clarithromycin_and_fails_the_acknowledgement(task, tmp_path):
    run = task.run(tmp_path)
    alert(run, "override")
    prescribe(run, CLARITHROMYCIN)
    prescribe(run, AZITHROMYCIN)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [0.0, 1.0, 0.5]
    assert report.score == pytest.approx(AZITHRO + ALERT / 2)


def test_clarithromycin_discontinued_afterwards_is_no_active_clarithromycin(task, tmp_path):
    run = task.run(tmp_path)
    alert(run, "override")
    rx_id = prescribe(run, CLARITHROMYCIN)
    with run.write() as s:
        s.get(Prescription, rx_id).active = 0
    prescribe(run, AZITHROMYCIN)
    assert run.score() == pytest.approx(1.0 - ALERT / 2)


@pytest.mark.parametrize("action, lost", [(None, ALERT / 2), ("modify", ALERT / 2)])
def test_alert_not_cancelled_loses_half_of_the_alert_item(task, tmp_path, action, lost):
    run = task.run(tmp_path)
    alert(run, action)
    prescribe(run, AZITHROMYCIN)
    assert run.score() == pytest.approx(1.0 - lost)


def test_no_alert_shown_loses_the_alert_item(task, tmp_path):
    run = task.run(tmp_path)
    prescribe(run, AZITHROMYCIN)
    assert run.score() == pytest.approx(1.0 - ALERT)


def test_rows_through_the_api_earn_nothing(task, tmp_path):
    run = task.run(tmp_path)
    follow_policy(run, channel="api")
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 0.0, 0.0]
    assert report.score == pytest.approx(NO_CLARITHRO)


def test_clarithromycin_through_the_api_is_still_active_clarithromycin(task, tmp_path):
    run = task.run(tmp_path)
    follow_policy(run)
    prescribe(run, CLARITHROMYCIN, channel="api")
    assert run.score() == pytest.approx(1.0 - NO_CLARITHRO)


def test_untouched_scores_only_no_clarithromycin(task, tmp_path):
    run = task.run(tmp_path)
    assert run.score() == pytest.approx(NO_CLARITHRO)
