"""pa-16 through the portal's forms: the network gap exception for Silva, Ana's pulmonary
valve surgery (30% provider identifiers, 25% distance evidence, 25% clinical fields,
20% EHR update)."""

from __future__ import annotations

import pytest

from tests.portal_web.acme.support import form_values
from tests.portal_web.acme.tasks import TaskRun

MEMBER = "ACM933016274"
PROVIDERS = {"requesting_npi": "1234567893", "requesting_name": "Dr. Kwame Osei",
             "requesting_tin": "36-4829175", "requesting_taxonomy": "207Q00000X",
             "rendering_npi": "1382947566", "rendering_name": "Dr. Elena Whitcomb",
             "rendering_tin": "74-3302918", "rendering_taxonomy": "2086S0105X"}
SERVICE = {"service_code": "33475", "units": "1", "unit_type": "units",
           "service_from": "2026-11-02", "service_to": "2026-12-31", "place_of_service": "21",
           "icd10_codes": "Q21.3\nI37.1", "urgency": "expedited"}
GAP = {"specialty_needed": "Pediatric cardiothoracic surgery",
       "nearest_in_network_miles": "187",
       "nearest_in_network_provider": "Dr. Priya Venkataraman, Children's Heart Center of "
                                      "Indianapolis",
       "requested_provider_miles": "142", "clinical_urgency": "urgent",
       "urgency_rationale": "Severe pulmonary regurgitation with RV dilation; surgery "
                            "recommended within 30 days (cardiology 2026-10-08)."}
CARDIOLOGY_NOTE, ROUTINE_NOTE_2025 = 1001, 1002


def request_exception(run: TaskRun, gap: dict = GAP, providers: dict = PROVIDERS,
                      search_attached: bool = True) -> str:
    portal = run.portal
    case_id = portal.start_request("network_exception", MEMBER)
    portal.step(case_id, "provider", providers)
    portal.step(case_id, "service", SERVICE)
    portal.step(case_id, "exception", gap)
    if search_attached:
        portal.upload(case_id, "network_search.pdf", run.input_file("network_search.pdf"),
                      "network_search")
    return run.send(case_id, [CARDIOLOGY_NOTE])


def record(run: TaskRun, reference: str) -> None:
    run.ehr_edit("/patient/116/transactions/1001", {"form_refer_payer_case": reference})


@pytest.fixture
def run(task_seeds) -> TaskRun:
    return task_seeds.logged_in("pa-16")


def test_gold_path_scores_one(run):
    record(run, request_exception(run))
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_distance_of_the_requested_surgeon_instead_of_the_nearest_in_network(run):
    record(run, request_exception(run, {**GAP, "nearest_in_network_miles": "142"}))
    assert run.score() == pytest.approx(0.30 + 0.25 / 2 + 0.25 + 0.20)


def test_clinic_tin_instead_of_the_surgeon_and_search_not_attached(run):
    record(run, request_exception(run, providers={**PROVIDERS, "rendering_tin": "36-4829175"},
                                  search_attached=False))
    assert run.score() == pytest.approx(0.30 / 2 + 0.25 / 2 + 0.25 + 0.20)


def test_out_of_network_status_shows_on_the_provider_step(run):
    case_id = run.portal.start_request("network_exception", MEMBER)
    run.portal.step(case_id, "provider", PROVIDERS)
    page = run.portal.client.get(f"/auth/requests/{case_id}/provider").text
    assert "Out of network" in page


def request_with_note(run: TaskRun, note: int, gap: dict = GAP, service: dict = SERVICE) -> str:
    """The exception with ``note`` (an EHR document) attached as the clinical evidence."""
    portal = run.portal
    case_id = portal.start_request("network_exception", MEMBER)
    portal.step(case_id, "provider", PROVIDERS)
    portal.step(case_id, "service", service)
    portal.step(case_id, "exception", gap)
    portal.upload(case_id, "network_search.pdf", run.input_file("network_search.pdf"),
                  "network_search")
    return run.send(case_id, [note])


def test_last_years_routine_cardiology_note_attached(run):
    record(run, request_with_note(run, ROUTINE_NOTE_2025))
    assert run.fractions() == [1.0, 1.0, pytest.approx(2 / 3), 1.0]
    assert run.score() == pytest.approx(1 - 0.25 / 3)


def test_routine_urgency_and_the_regurgitation_as_primary_diagnosis(run):
    record(run, request_with_note(run, CARDIOLOGY_NOTE, {**GAP, "clinical_urgency": "routine"},
                                  {**SERVICE, "icd10_codes": "I37.1\nQ21.3"}))
    assert run.fractions() == [1.0, 1.0, pytest.approx(1 / 3), 1.0]
    assert run.score() == pytest.approx(0.30 + 0.25 + 0.25 / 3 + 0.20)


def test_case_id_in_the_referral_reason_counts(run):
    reference = request_exception(run)
    url = "/patient/116/transactions/1001"
    reason = form_values(run.ehr.client.get(url).text, url)["form_body"]
    run.ehr_edit(url, {"form_body": f"{reason} Acme case {reference}."})
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]
