"""pa-14's Acme and EHR mistakes made through the sites' forms (the Beta Care fax ones are in
tests/portal_web/test_payer_tasks.py), graded with the task's verifier: each costs its case
exactly the part the verifier names.

The cases: 1 Abbott's knee MRI (submit, wizard), 3 Castillo's radiographs (no PA), 4 Dunn's
CPAP (hold: no sleep study report), 6 Farrow's secukinumab (submit, pharmacy), 7 Gallo's
colonoscopy (no PA), 8 Hale's shoulder MRI (hold: no radiographs, no conservative care),
10 Jensen's hospital bed (submit, DME portal).
"""

from __future__ import annotations

import pytest

from tests.portal_web.acme.post_tasks import (
    TaskRun,
    ehr_document,
    location_id,
    post_form,
    task_run,
)
from tests.portal_web.acme.support import feedback

FENWICK = {"npi": "1973628419", "name": "Dr. Paul Fenwick", "tin": "36-4829175",
           "taxonomy": "207X00000X"}
OSEI = {"npi": "1234567893", "name": "Dr. Kwame Osei", "tin": "36-4829175",
        "taxonomy": "207Q00000X"}
LINDGREN = {"npi": "1938475625", "name": "Dr. Sofia Lindgren", "tin": "36-4829175",
            "taxonomy": "2085R0202X"}
ABBOTT_ANSWERS = {"q_primary_diagnosis": "M23.221", "q_clinical_indication": (
    "Right knee locking, McMurray positive"), "q_symptom_duration_weeks": "8",
    "q_prior_imaging": "xray", "q_conservative_care": "yes"}
FARROW_ANSWERS = {"q_primary_diagnosis": "L40.0", "q_prior_therapies": (
    "Methotrexate 2025-11-03 to 2026-05-04, inadequate; narrowband UVB 2026-05-18 to "
    "2026-08-28, inadequate"), "q_severity": "BSA 12%, PASI 15",
    "q_prescriber_specialist": "no"}
DUNN_ORDER = {
    "order_date": "10/12/2026", "ordering_name": "Lisa Brandt, MD",
    "ordering_npi": "1203948561", "hcpcs": "E0601", "quantity": "1", "length_of_need": "99",
    "product_description": "Auto-CPAP 5-15 cm H2O with heated humidifier, mask and tubing.",
    "icd10_primary": "G47.33", "f2f_exam_date": "10/08/2026",
    "f2f_provider_npi": "1203948561", "supplier_npi": "1309485724"}
HALE_TASK = {"subject": "Shoulder MRI on hold: no shoulder radiographs and no conservative "
                        "care (6 weeks) documented",
             "body": "Acme's rule R-SH-1006 needs radiographs and 6 weeks of conservative "
                     "care before the MRI."}


@pytest.fixture
def run(seeds) -> TaskRun:
    return task_run(seeds, "pa-14")


def case_parts(run: TaskRun, number: int) -> dict[str, float]:
    """Case ``number``'s fraction and its parts' fractions, as graded."""
    for check in run.grade().checks:
        for part in check.evidence["parts"]:
            if part["part"] == f"case {number}":
                return {"case": part["fraction"],
                        **{p["part"]: p["fraction"] for p in part["parts"]}}
    raise AssertionError(f"no case {number} in the report")


def providers(requesting: dict, rendering: dict | None = None) -> dict[str, str]:
    roles = {"requesting": requesting, "rendering": rendering}
    return {f"{role}_{key}": value for role, who in roles.items() if who
            for key, value in who.items()}


def shown(answers: dict[str, str]) -> list[tuple[str, str]]:
    return [*answers.items(), *(("shown_keys", key[2:]) for key in answers)]


def outpatient(run: TaskRun, member: str, service: dict[str, str], answers=None,
               documents: tuple[tuple[int, int, str], ...] = ()) -> str:  # noqa: ANN001
    """An outpatient request through the wizard, submitted; its tracking reference."""
    portal = run.portal()
    case_id = portal.start_request("outpatient", member)
    portal.step(case_id, "provider", providers(FENWICK, LINDGREN))
    portal.step(case_id, "service", {"units": "1", "unit_type": "units",
                                     "urgency": "standard", **service})
    if answers is not None:
        portal.step(case_id, "questionnaire", shown(answers))
    ehr = run.ehr()
    for pid, doc, kind in documents:
        name, content = ehr_document(ehr, pid, doc)
        portal.upload(case_id, name, content, kind)
    portal.finish_attachments(case_id)
    reference = portal.submit_request(case_id)
    assert reference
    return reference


def abbott(run: TaskRun, documents=((125, 1001, "clinical_note"),  # noqa: ANN001
                                    (125, 1002, "imaging_report"))) -> str:
    return outpatient(run, "ACM800220301", {
        "service_code": "73721", "service_from": "2026-10-28", "service_to": "2026-12-26",
        "place_of_service": "11", "icd10_codes": "M23.221"}, ABBOTT_ANSWERS, documents)


def provider_task(run: TaskRun, mrn: str, assigned_to: str, subject: str, body: str) -> None:
    """A new task through the EHR's task form."""
    response = post_form(run.ehr().client, "/tasks/new", "/tasks/new", {
        "assigned_to": assigned_to, "mrn": mrn, "status": "Open", "priority": "High",
        "subject": subject, "body": body})
    assert response.status_code == 303, feedback(response.text)


def worklist_item(run: TaskRun, item: int, outcome: str, reference: str,
                  status: str = "Done") -> None:
    """The worklist row's form on the 'PA Today' page."""
    ehr = run.ehr()
    listed = ehr.query("select id from pa_worklists where name = 'PA Today'")[0][0]
    response = post_form(ehr.client, f"/pa/worklist/{listed}", f"/pa/worklist/item/{item}", {
        "status": status, "outcome": outcome, "reference": reference, "note": ""})
    assert response.status_code == 303, feedback(response.text)


# -- submissions ------------------------------------------------------------------------------------
def test_abbott_submitted_in_full_earns_the_case(run):
    worklist_item(run, 1001, "submitted", abbott(run))
    assert case_parts(run, 1)["case"] == 1.0


def test_abbott_without_the_radiograph_report_loses_half_the_documents(run):
    worklist_item(run, 1001, "submitted", abbott(run, ((125, 1001, "clinical_note"),)))
    parts = case_parts(run, 1)
    assert parts["submission fields"] == pytest.approx(0.75)
    assert parts["case"] == pytest.approx((1 + 0.75 + 1) / 3)


def test_abbott_submitted_but_the_row_without_a_reference_loses_half_the_row(run):
    abbott(run)
    worklist_item(run, 1001, "submitted", "")
    assert case_parts(run, 1)["worklist item"] == 0.5


def test_farrows_drug_as_a_specialist_prescription_costs_a_value(run):
    """Dr. Osei is a family physician: 'specialist' is one of the seven values wrong."""
    portal = run.portal()
    case_id = portal.start_request("pharmacy", "ACM800220306")
    portal.step(case_id, "provider", providers(OSEI))
    portal.step(case_id, "drug", {
        "drug_name": "secukinumab", "drug_strength": "150 mg/mL pen", "drug_quantity": "10",
        "days_supply": "28", "drug_sig": "300 mg SC weeks 0-4, then every 4 weeks",
        "icd10_codes": "L40.0", "urgency": "standard"})
    portal.step(case_id, "questionnaire",
                shown({**FARROW_ANSWERS, "q_prescriber_specialist": "yes"}))
    name, content = ehr_document(run.ehr(), 130, 1007)
    portal.upload(case_id, name, content, "clinical_note")
    portal.finish_attachments(case_id)
    worklist_item(run, 1006, "submitted", portal.submit_request(case_id))
    parts = case_parts(run, 6)
    assert parts["submission fields"] == pytest.approx((6 / 7 + 1) / 2)


def test_jensens_bed_through_the_wizard_is_the_wrong_channel(run):
    """The DME rule sends E0260 to the DME portal; an outpatient request is no DME case."""
    reference = outpatient(run, "ACM800220310", {
        "service_code": "E0260", "service_from": "2026-10-28", "service_to": "2027-10-27",
        "place_of_service": "12", "icd10_codes": "I50.22"},
        documents=((134, 1011, "clinical_note"), (134, 1012, "prescription")))
    worklist_item(run, 1010, "submitted", reference)
    assert case_parts(run, 10)["submitted through the right channel"] == 0.0


# -- no PA ------------------------------------------------------------------------------------------
def test_castillos_radiographs_requested_anyway_lose_the_nothing_submitted_half(run):
    outpatient(run, "ACM800220303", {
        "service_code": "72100", "service_from": "2026-10-20", "service_to": "2026-12-18",
        "place_of_service": "11", "icd10_codes": "M54.50"})
    worklist_item(run, 1003, "no_pa_required", "R-GP-1014")
    parts = case_parts(run, 3)
    assert parts["nothing submitted, no hold"] == 0.0 and parts["case"] == 0.5


def test_gallos_colonoscopy_held_with_a_task_loses_the_nothing_submitted_half(run):
    provider_task(run, "510607", "10", "Colonoscopy on hold", "Please confirm the referral.")
    worklist_item(run, 1007, "no_pa_required", "R-GP-3006")
    assert case_parts(run, 7)["nothing submitted, no hold"] == 0.0


@pytest.mark.parametrize(("outcome", "reference", "row"), [
    ("no_pa_required", "R-GP-1014", 1.0),
    ("no_pa_required", "Acme lookup", 0.5),     # no rule cited
    ("submitted", "R-GP-1014", 0.5),            # the wrong outcome
])
def test_castillos_row_needs_the_outcome_and_the_rule(run, outcome, reference, row):
    worklist_item(run, 1003, outcome, reference)
    assert case_parts(run, 3)["worklist item"] == row


# -- holds ------------------------------------------------------------------------------------------
def test_dunns_cpap_ordered_without_the_sleep_study_loses_the_hold(run):
    """The DME portal takes the order without the report; the case is no longer held."""
    dme = run.dme()
    member = dme.query("select id from members where member_number = 'ACM800220304'")[0][0]
    url = f"/orders/new?member={member}"
    response = post_form(dme.client, url, url, {**DUNN_ORDER, "action": "continue"})
    case_id = location_id(response, r"/orders/(\d+)/documents")
    response = post_form(dme.client, f"/orders/{case_id}/review",
                         f"/orders/{case_id}/submit", {"attest": "1"})
    assert response.status_code == 303, feedback(response.text)
    provider_task(run, "510604", "24", "CPAP: sleep study report with AHI missing",
                  "Please send the HSAT report.")
    assert case_parts(run, 4)["held"] == 0.0


@pytest.mark.parametrize(("assigned_to", "subject", "task"), [
    ("27", HALE_TASK["subject"], 1.0),
    ("10", HALE_TASK["subject"], 0.5),                   # Dr. Osei, not the orthopedist
    ("27", "Shoulder MRI on hold: no radiographs", 0.5),  # conservative care not named
])
def test_hales_task_goes_to_dr_fenwick_and_names_both_gaps(run, assigned_to, subject, task):
    provider_task(run, "510608", assigned_to, subject, "")
    worklist_item(run, 1008, "held", "EHR task", status="Pending info")
    parts = case_parts(run, 8)
    assert parts["held"] == 1.0 and parts["task to the provider"] == task
    assert parts["worklist item"] == 1.0
