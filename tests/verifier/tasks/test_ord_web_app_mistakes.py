"""Issue 14's mistakes made through the web EHR's own screens (and, for ord-18, its FHIR
API), each graded at the exact partial score the seed's split implies. Each of these scored
1.0 before the verifiers graded the value.

ord-01's wrong BMI cannot be made on the Vitals form (it computes the BMI, read-only): that
case is written through the audited writer in tests/verifier/test_ord01_vitals.py.
"""

from __future__ import annotations

import json

import pytest

from tests.verifier.tasks import test_ord_web_app_solutions as solutions
from tests.verifier.tasks.test_ord_web_app_solutions import RX, Seeds, app, submit


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    return Seeds(tmp_path_factory.mktemp("web-mistakes"))


def fractions(report) -> list[float | None]:  # noqa: ANN001 - a verifier Report
    return [c.fraction for c in report.checks]


def test_ord14_prescription_saved_but_never_left_pending_at_review(seeds, tmp_path):
    """The Rx form saved (a draft) without going on to eRx Review's 'Leave pending': the
    instruction asks for it pending the physician's signature. 20% x 1/2 lost."""
    run = seeds.run("ord-14", tmp_path)
    ehr = app(run, "nurse.kelly")
    submit(ehr, "/patient/14/rx/new", {
        **RX, "drug": "atorvastatin 20 mg tablet", "dosage": "1", "unit": "tab", "route": "PO",
        "interval": "16", "drug_dosage_instructions": "1 tab PO nightly", "quantity": "90",
        "refills": "3", "pharmacy_id": "1"})
    assert ehr.query("select erx_status, erx_uploaded from prescriptions where patient_id = 14 "
                     "order by id desc limit 1") == [("draft", 0)]
    report = run.grade()
    assert fractions(report) == [1.0, 1.0, 0.5]
    assert report.score == pytest.approx(0.9)


def test_ord04_sulfa_rewritten_while_inactivated(seeds, tmp_path):
    """The Sulfa allergy's edit form submitted with the end date and the comment, but its
    title, reaction, severity and verification changed too: the entry inactivated is no
    longer the Sulfa entry as recorded. 40% x 1/2 lost."""
    run = seeds.run("ord-04", tmp_path)
    ehr = app(run, "nurse.kelly")
    submit(ehr, "/patient/7/issue/new?type=allergy", {
        "type": "allergy", "title": "Penicillin", "reaction": "hives", "severity_al": "moderate",
        "verification": "confirmed", "begdate": "2026-09-30", "outcome": "0"},
        action="/patient/7/issue/new")
    submit(ehr, "/patient/7/issue/1001", {
        "type": "allergy", "title": "Sulfonamide antibiotics", "reaction": "hives",
        "severity_al": "mild", "verification": "refuted", "begdate": "2014-06-01",
        "enddate": "2026-10-19", "outcome": "0",
        "comments": "Rash after Bactrim (2014). Tolerated TMP-SMX 2025 per pharmacy"})
    report = run.grade()
    assert fractions(report) == [1.0, 0.5, 1.0]
    assert report.score == pytest.approx(0.8)
    inactivated = next(p for p in report.checks[1].evidence["parts"]
                       if p["part"] == "inactivated")
    assert sorted(inactivated["found"]["rewritten"]) == [
        "reaction", "severity_al", "title", "verification"]


@pytest.mark.parametrize("title", ["Sulfa", "Sulfa drugs"], ids=["kept", "renamed"])
def test_ord04_sulfa_inactivated_through_the_form_as_recorded(seeds, tmp_path, title):
    """The same form with the entry's facts left as they were scores 1.0; renaming it alone
    costs the inactivation half."""
    run = seeds.run("ord-04", tmp_path)
    ehr = app(run, "nurse.kelly")
    submit(ehr, "/patient/7/issue/new?type=allergy", {
        "type": "allergy", "title": "Penicillin", "reaction": "hives", "severity_al": "moderate",
        "verification": "confirmed", "begdate": "2026-09-30", "outcome": "0"},
        action="/patient/7/issue/new")
    submit(ehr, "/patient/7/issue/1001", {
        "type": "allergy", "title": title, "reaction": "rash", "severity_al": "moderate",
        "verification": "confirmed", "begdate": "2014-06-01", "enddate": "2026-10-19",
        "outcome": "0", "comments": "Tolerated TMP-SMX 2025 per pharmacy"})
    assert run.grade().score == pytest.approx(1.0 if title == "Sulfa" else 0.8)


@pytest.mark.parametrize("bmi, score", [(29.6, 0.9), (26.3, 1.0)], ids=["wrong", "right"])
def test_ord18_a_bmi_observation_posted_besides_the_six(seeds, tmp_path, bmi, score):
    """A BMI Observation (39156-5) the client posts itself lands in a vitals set of its own
    (the API computes the six's BMI in theirs): 29.6 for the sheet's 26.3 is a wrong BMI in
    her chart. 70% x 1/7 lost."""
    run = seeds.run("ord-18", tmp_path)
    ehr = app(run, None)
    before = ehr.query("select max(id) from form_vitals")[0][0]
    solutions.solve_ord18(ehr)
    base = "/apis/default/fhir"
    patient = ehr.client.get(f"{base}/Patient", params={"identifier": "402015"}).json()[
        "entry"][0]["resource"]["id"]
    encounter = ehr.client.get(f"{base}/Encounter", params={
        "patient": patient, "date": "2026-10-19"}).json()["entry"][0]["resource"]["id"]
    body = {"resourceType": "Observation", "status": "final",
            "category": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/"
                                      "observation-category", "code": "vital-signs"}]}],
            "code": {"coding": [{"system": "http://loinc.org", "code": "39156-5"}]},
            "subject": {"reference": f"Patient/{patient}"},
            "encounter": {"reference": f"Encounter/{encounter}"},
            "effectiveDateTime": "2026-10-19T09:00:00-04:00",
            "valueQuantity": {"value": bmi, "unit": "kg/m2",
                              "system": "http://unitsofmeasure.org", "code": "kg/m2"}}
    response = ehr.client.post(f"{base}/Observation", content=json.dumps(body),
                               headers={"Content-Type": "application/fhir+json"})
    assert response.status_code == 201, response.text
    assert ehr.query("select BMI from form_vitals where id > ? order by id", before) == [
        (26.3,), (bmi,)]  # the six's set, with its computed BMI; the posted one's own set
    report = run.grade()
    assert fractions(report) == pytest.approx([1.0, 1.0 if score == 1.0 else 6 / 7, 1.0])
    assert report.score == pytest.approx(score)


def test_ord14_left_pending_at_review_scores_one(seeds, tmp_path):
    """The control: the same prescription taken on to eRx Review and left pending."""
    run = seeds.run("ord-14", tmp_path)
    ehr = app(run, "nurse.kelly")
    solutions.solve_ord14(ehr)
    rx_id = ehr.query("select max(id) from prescriptions where patient_id = 14")[0][0]
    assert ehr.query("select erx_status from prescriptions where id = ?", rx_id) == [
        ("pending_signature",)]
    assert run.grade().score == pytest.approx(1.0)
