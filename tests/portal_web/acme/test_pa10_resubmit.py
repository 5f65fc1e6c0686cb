"""pa-10 through the portal's forms: the rejected request PA26-041950 corrected in place
(40% NPI and taxonomy, 30% status, 30% no duplicate and no collateral change)."""

from __future__ import annotations

import pytest

from tests.portal_web.acme.support import feedback, form_values
from tests.portal_web.acme.tasks import TaskRun

CASE = 1000
EDIT = f"/auth/cases/{CASE}/edit"


def edit_form(run: TaskRun) -> dict:
    page = run.portal.client.get(EDIT)
    assert page.status_code == 200, page.text[:500]
    assert "Rendering provider NPI/taxonomy invalid" in page.text
    return form_values(page.text, EDIT)


def resubmit(run: TaskRun, changes: dict) -> None:
    data = {**edit_form(run), **changes, "attest": "1", "action": "resubmit"}
    response = run.portal.client.post(EDIT, data=data, follow_redirects=False)
    assert response.status_code == 303, feedback(response.text) or response.text[:1500]


@pytest.fixture
def run(task_seeds) -> TaskRun:
    return task_seeds.logged_in("pa-10", ehr=False)


def test_find_by_npi_then_resubmit_scores_one(run):
    mark = run.portal.audit_mark()
    data = {**edit_form(run), "rendering_npi": "1938475625", "action": "find_rendering"}
    found = run.portal.client.post(EDIT, data=data)
    assert found.status_code == 200
    filled = form_values(found.text, EDIT)
    assert filled["rendering_taxonomy"] == "2085R0202X"
    assert filled["rendering_name"] == "Dr. Sofia Lindgren"
    response = run.portal.client.post(EDIT, data={**filled, "attest": "1",
                                                  "action": "resubmit"},
                                      follow_redirects=False)
    assert response.status_code == 303
    assert run.portal.query("select status, revision, reference_number, rejection_reason "
                            "from pa_cases where id = ?", CASE) == [
        ("in_review", 1, "PA26-041950", None)]
    written = {(e["table"], e["action"]) for e in run.portal.audit_since(mark)}
    assert written == {("pa_cases", "update")}
    assert run.fractions() == [1.0, 1.0, 1.0]


def test_double_submit_resubmits_once(run):
    data = {**edit_form(run), "rendering_npi": "1938475625",
            "rendering_taxonomy": "2085R0202X", "attest": "1", "action": "resubmit"}
    first = run.portal.client.post(EDIT, data=data, follow_redirects=False)
    second = run.portal.client.post(EDIT, data=data, follow_redirects=False)
    assert first.status_code == second.status_code == 303
    assert run.portal.query("select revision from pa_cases where id = ?", CASE) == [(1,)]


def test_invalid_npi_is_refused_and_writes_nothing(run):
    mark = run.portal.audit_mark()
    data = {**edit_form(run), "rendering_npi": "1938475626", "attest": "1",
            "action": "resubmit"}
    response = run.portal.client.post(EDIT, data=data)
    assert response.status_code == 200
    assert any("check digit" in m for m in feedback(response.text))
    assert run.portal.audit_since(mark) == []


def test_new_request_instead_of_resubmitting_earns_nothing(run):
    portal = run.portal
    case_id = portal.start_request("outpatient", "ACM145590023")
    portal.step(case_id, "provider", {
        "requesting_npi": "1234567893", "requesting_name": "Dr. Kwame Osei",
        "requesting_tin": "36-4829175", "requesting_taxonomy": "207Q00000X",
        "rendering_npi": "1938475625", "rendering_name": "Dr. Sofia Lindgren",
        "rendering_tin": "36-4829175", "rendering_taxonomy": "2085R0202X"})
    portal.step(case_id, "service", {
        "service_code": "70553", "units": "1", "unit_type": "units",
        "service_from": "2026-10-26", "service_to": "2026-12-24", "place_of_service": "11",
        "icd10_codes": "R51.9"})
    portal.step(case_id, "questionnaire", {
        "q_primary_diagnosis": "R51.9", "q_clinical_indication": "New daily headache",
        "q_symptom_duration_weeks": "8", "q_prior_imaging": "none"})
    portal.finish_attachments(case_id)
    review = portal.client.get(f"/auth/requests/{case_id}/review").text
    assert "A similar request exists: " in review and "PA26-041950" in review
    assert portal.submit_request(case_id, acknowledge_similar=True)
    assert run.fractions() == [0.0, 0.0, 0.0]


def test_changing_another_field_costs_the_collateral_item(run):
    resubmit(run, {"rendering_npi": "1938475625", "rendering_taxonomy": "2085R0202X",
                   "units": "2"})
    assert run.fractions() == [1.0, 1.0, 0.0]


def test_only_a_rejected_request_can_be_edited(run):
    resubmit(run, {"rendering_npi": "1938475625", "rendering_taxonomy": "2085R0202X"})
    assert run.portal.client.get(EDIT).status_code == 409
