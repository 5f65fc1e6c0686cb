"""pa-08 through the portal's forms: the inpatient admission notification for Moreno, Luis
(25% request type, 35% clinical fields, 20% attachment, 20% EHR record)."""

from __future__ import annotations

import pytest

from tests.portal_web.acme.tasks import TaskRun

MEMBER = "ACM619027734"
PROVIDERS = {"requesting_npi": "1765234988", "requesting_name": "Dr. Omar Haddad",
             "requesting_taxonomy": "208M00000X", "requesting_tin": "36-5518320",
             "rendering_npi": "1765234988", "rendering_name": "Dr. Omar Haddad",
             "rendering_taxonomy": "208M00000X", "rendering_tin": "36-5518320",
             "facility_npi": "1659378461", "facility_name": "Riverside Memorial Hospital"}
ADMISSION = {"admit_date": "2026-10-17", "admit_time": "22:47",
             "admission_type": "emergency", "admission_source": "emergency_department",
             "expected_los_days": "4", "icd10_codes": "A41.9\nN39.0\nR65.20"}
H_AND_P, ED_NOTE = 1002, 1001


def notify(run: TaskRun, admission: dict = ADMISSION, document: int = H_AND_P) -> str:
    portal = run.portal
    case_id = portal.start_request("inpatient_notification", MEMBER)
    portal.step(case_id, "provider", PROVIDERS)
    portal.step(case_id, "admission", admission)
    run.attach_from_ehr(case_id, [document], "history_and_physical")
    portal.finish_attachments(case_id)
    review = portal.client.get(f"/auth/requests/{case_id}/review").text
    assert "Notification due" in review and "10/20/2026" in review
    reference = portal.submit_request(case_id)
    assert reference
    return reference


def record(run: TaskRun, reference: str) -> None:
    run.ehr_edit("/patient/108/authorizations/1001", {"portal_reference": reference,
                                                      "status": "Submitted",
                                                      "submitted_date": "2026-10-19"})


@pytest.fixture
def run(task_seeds) -> TaskRun:
    return task_seeds.logged_in("pa-08")


def test_gold_path_scores_one(run):
    record(run, notify(run))
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]
    assert run.portal.query("select admit_at, attending_npi, notification_due from "
                            "admission_notifications") == [
        ("2026-10-17 22:47:00.000000", "1765234988", "2026-10-20")]


def test_ed_arrival_time_instead_of_the_admission_order(run):
    record(run, notify(run, {**ADMISSION, "admit_time": "19:05"}))
    assert run.score() == pytest.approx(0.25 + 0.35 * 2 / 3 + 0.20 + 0.20)


def test_chronic_diagnosis_added_and_ed_note_attached(run):
    record(run, notify(run, {**ADMISSION, "icd10_codes": "A41.9\nN39.0\nR65.20\nI10"},
                       document=ED_NOTE))
    assert run.score() == pytest.approx(0.25 + 0.35 * 2 / 3 + 0.0 + 0.20)


def test_admission_time_is_checked(run):
    case_id = run.portal.start_request("inpatient_notification", MEMBER)
    run.portal.step(case_id, "provider", PROVIDERS)
    response = run.portal.step(case_id, "admission", {**ADMISSION, "admit_time": "25:10"},
                               expect=200)
    assert "must be a time written HH:MM" in response.text


def test_a_late_notification_is_flagged_but_can_be_sent(run):
    from tests.portal_web.acme.test_cases import advance

    advance(run.path, days=2)  # Wednesday: past the Tuesday deadline
    run.portal.login()
    case_id = run.portal.start_request("inpatient_notification", MEMBER)
    run.portal.step(case_id, "provider", PROVIDERS)
    run.portal.step(case_id, "admission", ADMISSION)
    run.portal.finish_attachments(case_id)
    review = run.portal.client.get(f"/auth/requests/{case_id}/review").text
    assert "Late notification" in review and "10/20/2026" in review
    assert run.portal.submit_request(case_id)
    assert run.fractions()[0] == 0.0  # the request type item asks for a timely submission


def test_an_outpatient_request_instead_of_the_admission_notification(run):
    """The wrong request type: no request-type credit, no admission date (an outpatient case
    has no admission detail); its codes, attending (rendering) NPI and H&P still count."""
    portal = run.portal
    case_id = portal.start_request("outpatient", MEMBER)
    portal.step(case_id, "provider", PROVIDERS)
    portal.step(case_id, "service", {
        "service_code": "99223", "units": "1", "unit_type": "days",
        "service_from": "2026-10-17", "service_to": "2026-10-21", "place_of_service": "21",
        "icd10_codes": ADMISSION["icd10_codes"], "urgency": "expedited"})
    record(run, run.send(case_id, [H_AND_P], "history_and_physical"))
    assert run.fractions() == [0.0, pytest.approx(2 / 3), 1.0, 1.0]
    assert run.score() == pytest.approx(0.35 * 2 / 3 + 0.20 + 0.20)
