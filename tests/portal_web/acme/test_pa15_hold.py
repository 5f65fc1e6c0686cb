"""pa-15 with the portal open: holding the knee arthroscopy request keeps the
'no submission' item (40%); submitting CPT 29881 through the portal loses it."""

from __future__ import annotations

import pytest

from tests.portal_web.acme.tasks import TaskRun

MEMBER = "ACM287459016"
PROVIDERS = {"requesting_npi": "1973628419", "requesting_name": "Dr. Paul Fenwick",
             "requesting_tin": "36-4829175", "requesting_taxonomy": "207X00000X",
             "rendering_npi": "1973628419", "rendering_name": "Dr. Paul Fenwick",
             "rendering_tin": "36-4829175", "rendering_taxonomy": "207X00000X"}
SERVICE = {"service_code": "29881", "units": "1", "unit_type": "units",
           "service_from": "2026-11-10", "service_to": "2026-12-31", "place_of_service": "22",
           "icd10_codes": "S83.241A"}
ANSWERS = {"q_primary_diagnosis": "S83.241A", "q_conservative_care_months": "1",
           "q_mri_done": "no", "q_mechanical_symptoms": "yes", "q_symptoms_persist": "yes"}


def hold_and_message(run: TaskRun) -> None:
    """The gold path: a message to Dr. Fenwick naming both gaps, the item 'Pending info'."""
    run.ehr_edit("/messages/new?pid=115", {
        "title": "Prior Auth", "assigned_to": "dr.fenwick", "message_status": "New",
        "mrn": "510399", "body": "Knee arthroscopy (29881) held: Acme needs 3 months of "
                                 "documented conservative care (only 5 weeks of PT) and the "
                                 "knee MRI report."}, action="/messages/new")
    run.ehr_edit("/pa/worklist/2", {"status": "Pending info", "outcome": "held"},
                 action="/pa/worklist/item/1001")


def draft_29881(run: TaskRun) -> int:
    portal = run.portal
    case_id = portal.start_request("outpatient", MEMBER)
    portal.step(case_id, "provider", PROVIDERS)
    portal.step(case_id, "service", SERVICE)
    page = portal.client.get(f"/auth/requests/{case_id}/questionnaire").text
    assert "Knee arthroscopy" in page
    portal.step(case_id, "questionnaire", [*ANSWERS.items(),
                                           *[("shown_keys", k[2:]) for k in ANSWERS]])
    return case_id


@pytest.fixture
def run(task_seeds) -> TaskRun:
    return task_seeds.logged_in("pa-15")


def test_holding_scores_one(run):
    hold_and_message(run)
    assert run.fractions() == [1.0, 1.0, 1.0]


def test_submitting_29881_loses_no_submission(run):
    hold_and_message(run)
    case_id = draft_29881(run)
    run.send(case_id, [1002], "therapy_note")
    assert run.fractions() == [0.0, 1.0, 1.0]


def test_a_draft_without_attachments_is_allowed(run):
    hold_and_message(run)
    draft_29881(run)
    assert run.score() == pytest.approx(1.0)


def test_a_document_attached_to_a_draft_counts_as_sent(run):
    hold_and_message(run)
    case_id = draft_29881(run)
    run.attach_from_ehr(case_id, [1001], "imaging_report")
    assert run.fractions() == [0.0, 1.0, 1.0]
