"""ord-14 (e-prescription left pending) on runs written as the Rx form and eRx Review write
a prescription, its pending status and a gateway message.

Split: 60% prescription fields (four equal parts); 20% correct pharmacy; 20% not
transmitted (two equal parts: left pending for signature, nothing sent to the gateway).
"""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.ehr import ErxGatewayLog, Prescription
from tests.verifier.tasks.runs import Run, seeded_task

FIELDS, PHARMACY, NOT_SENT = 0.60, 0.20, 0.20
NOW = dt.datetime(2026, 10, 19, 9, 15)
GOLD = {"drug": "atorvastatin 20 mg tablet", "drug_id": 2, "rxnorm_drugcode": None,
        "dosage": "1", "unit": "tab", "form": "tablet", "route": "PO", "interval": "16",
        "quantity": "90", "refills": 3, "drug_dosage_instructions": "Take 1 tablet by mouth "
        "nightly.", "pharmacy_id": 1, "provider_id": 10, "diagnosis": "ICD10:E78.5"}

task = seeded_task("ord-14")


def prepare(run: Run, *, review: str | None = "pending", channel: str = "browser",
            **changes) -> int:
    """Save the prescription, then act on eRx Review ("pending" or "transmit")."""
    pid = run.pid("402711")
    with run.write("nurse.kelly", channel=channel) as s:
        rx = Prescription(patient_id=pid, date_added=NOW, date_modified=NOW,
                          user="nurse.kelly", created_by=11, updated_by=11, active=1,
                          erx_uploaded=0, erx_source=0, erx_status="draft", encounter=1001,
                          start_date=NOW.date(), substitute=1, medication=1,
                          **{**GOLD, **changes})
        s.add(rx)
        s.flush()
        rx_id = rx.id
    if review is not None:
        with run.write("nurse.kelly", channel=channel) as s:
            row = s.get(Prescription, rx_id)
            if review == "transmit":
                s.add(ErxGatewayLog(prescription_id=rx_id, pid=pid, message_type="NewRx",
                                    pharmacy_ncpdp="1422117", sent_at=NOW, sent_by=10,
                                    status="accepted", payload="NewRx atorvastatin"))
                row.erx_uploaded, row.erx_source, row.erx_status = 1, 1, "transmitted"
            else:
                row.erx_status = "pending_signature"
            row.date_modified = NOW
    return rx_id


def test_pending_prescription_scores_one(task, tmp_path):
    run = task.run(tmp_path)
    prepare(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.checks[2].evidence["graded_prescription"] == {
        "erx_uploaded": 0, "erx_status": "pending_signature"}


def test_a_draft_never_left_pending_at_review_loses_half_of_not_transmitted(task, tmp_path):
    """Issue 14: the prescription left a draft (not pending signature) scored 1.0."""
    run = task.run(tmp_path)
    prepare(run, review=None, quantity="90 tablets")
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 0.5]
    assert report.score == pytest.approx(1.0 - NOT_SENT / 2)
    assert report.checks[2].evidence["graded_prescription"] == {
        "erx_uploaded": 0, "erx_status": "draft"}


@pytest.mark.parametrize("change", [
    {"drug": "atorvastatin 40 mg tablet", "drug_id": 3},
    {"interval": "9"},              # daily, not nightly
    {"quantity": "30"},
    {"refills": 0},
])
def test_each_field_wrong_loses_a_quarter_of_the_fields(task, tmp_path, change):
    run = task.run(tmp_path)
    prepare(run, **change)
    assert run.score() == pytest.approx(1.0 - FIELDS / 4)


@pytest.mark.parametrize("pharmacy", [2, 3])
def test_other_pharmacy_loses_the_pharmacy_item(task, tmp_path, pharmacy):
    run = task.run(tmp_path)
    prepare(run, pharmacy_id=pharmacy)
    assert run.score() == pytest.approx(1.0 - PHARMACY)


def test_transmitting_loses_the_not_transmitted_item(task, tmp_path):
    run = task.run(tmp_path)
    prepare(run, review="transmit")
    report = run.grade()
    parts = {p["part"]: p for p in report.checks[2].evidence["parts"]}
    assert parts["nothing transmitted"]["gateway_messages"]
    assert parts["left pending for signature"]["fraction"] == 0.0
    assert report.score == pytest.approx(1.0 - NOT_SENT)


def test_prescription_through_the_api_earns_only_nothing_transmitted(task, tmp_path):
    run = task.run(tmp_path)
    prepare(run, channel="api")
    report = run.grade()
    assert [c.fraction for c in report.checks] == [0.0, 0.0, 0.5]
    assert report.score == pytest.approx(NOT_SENT / 2)


def test_transmission_through_the_api_still_counts_against(task, tmp_path):
    run = task.run(tmp_path)
    prepare(run, channel="api", review="transmit")
    assert run.score() == pytest.approx(0.0)


def test_untouched_scores_only_nothing_transmitted(task, tmp_path):
    run = task.run(tmp_path)
    assert run.score() == pytest.approx(NOT_SENT / 2)
