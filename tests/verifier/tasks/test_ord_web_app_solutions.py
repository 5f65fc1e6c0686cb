"""The contract between the web EHR and the orders verifiers: each task solved through the
real app (its forms in a TestClient, or its FHIR API for ord-18) grades exactly 1.0.

The unit tests of each task write rows directly; these drive the screens an agent uses, so a
change in how the app stores a value (an option id, a unit, a date column) shows up here.
"""

from __future__ import annotations

import json

import pytest

from tests.portal_web.support import Ehr, form_tokens_for, make_client
from tests.verifier.tasks import test_ord05_soap as ord05
from tests.verifier.tasks import test_ord13_joint_injection as ord13
from tests.verifier.tasks import test_ord19_intake_output as ord19
from tests.verifier.tasks.runs import EPISODE, Run, SeededTask


class Seeds:
    def __init__(self, root):
        self.root = root
        self.tasks: dict[str, SeededTask] = {}

    def run(self, alias: str, tmp_path) -> Run:
        if alias not in self.tasks:
            self.tasks[alias] = SeededTask(alias, self.root / alias)
        return self.tasks[alias].run(tmp_path)


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    return Seeds(tmp_path_factory.mktemp("web-solutions"))


def app(run: Run, user: str | None) -> Ehr:
    ehr = make_client(run.path, EPISODE)
    if user:
        ehr.login(user)
    return ehr


def submit(ehr: Ehr, url: str, data: dict, action: str | None = None) -> None:
    response = ehr.submit(url, data, action=action)
    assert response.status_code == 303, response.text[:2000]


def post_on_page(ehr: Ehr, page_url: str, action: str, data: dict) -> str:
    page = ehr.client.get(page_url)
    response = ehr.client.post(action, data={**form_tokens_for(page.text, action), **data},
                               follow_redirects=False)
    assert response.status_code == 303, response.text[:2000]
    return response.headers.get("location", "")


RX = {"start_date": "2026-10-19", "provider_id": "10", "substitute": "1", "refills": "0"}


def solve_ord02(ehr: Ehr) -> None:
    submit(ehr, "/patient/3/transactions/new?type=LBTref", {
        "type": "LBTref", "form_refer_date": "2026-10-19", "form_refer_from": "10",
        "form_refer_to": "40", "form_body": "Exertional chest pressure, abnormal stress ECG "
        "2026-10-08", "form_refer_urgency": "urgent", "form_refer_document": "1001"},
        action="/patient/3/transactions/new")


def solve_ord03(ehr: Ehr) -> None:
    submit(ehr, "/patient/5/rx/new", {
        **RX, "drug": "magnesium sulfate 2 g/50 mL IV premix", "dosage": "2", "unit": "g",
        "route": "IV", "interval": "19", "drug_dosage_instructions": "2 g IV over 2 hours once",
        "infusion_minutes": "120", "scheduled_at": "2026-10-19 10:00"})
    submit(ehr, "/patient/5/orders/new", {
        "lab_id": "1", "provider_id": "10", "date_collected": "2026-10-20",
        "time_collected": "06:00", "order_priority": "normal", "specimen_fasting": "NO",
        "encounter": "1001", "test_1": "130", "dx_1": "E83.42"})


def solve_ord05(ehr: Ehr) -> None:
    sections = {key: " ".join(ord05.PIECES[p] for p in pieces)
                for key, pieces in ord05.SECTION_PIECES.items()}
    submit(ehr, "/patient/8/encounter/1001/soap/new", sections)
    forms_id = ehr.query("select id from forms where formdir = 'soap' and encounter = 1001")[0][0]
    post_on_page(ehr, f"/patient/8/encounter/1001/esign?form={forms_id}",
                 "/patient/8/encounter/1001/esign",
                 {"form": forms_id, "password": "Riverside!Osei26", "lock": "1"})


def solve_ord08(ehr: Ehr) -> None:
    shown = ehr.submit("/patient/9/rx/new", {
        **RX, "drug": "clarithromycin 500 mg tablet", "dosage": "500", "unit": "mg",
        "route": "PO", "interval": "1", "drug_dosage_instructions": "500 mg PO BID x 7 days",
        "quantity": "14", "pharmacy_id": "2"})
    alert = shown.headers["location"]
    assert "/rx/alert/" in alert
    post_on_page(ehr, alert, alert, {"action": "cancel"})
    submit(ehr, "/patient/9/rx/new", {
        **RX, "drug": "azithromycin 250 mg tablet", "dosage": "250", "unit": "mg",
        "route": "PO", "interval": "9", "drug_dosage_instructions": "Take 2 tablets (500 mg) "
        "by mouth on day 1, then 1 tablet (250 mg) by mouth once daily on days 2 through 5.",
        "quantity": "6 tablets", "days_supply": "5", "pharmacy_id": "2", "diagnosis": "J01.90"})


def solve_ord09(ehr: Ehr) -> None:
    submit(ehr, "/patient/10/orders/new", {
        "lab_id": "1", "provider_id": "10", "date_collected": "2026-10-28",
        "time_collected": "08:00", "order_priority": "normal", "specimen_fasting": "YES",
        "patient_instructions": "12-hour fast", "encounter": "1001",
        "test_1": "110", "dx_1": "E11.9, E78.5", "test_2": "120", "dx_2": "E11.9; E78.5"})


def solve_ord11(ehr: Ehr) -> None:
    submit(ehr, "/patient/12/immunizations/new", {
        "cvx_code": "140", "administered_date": "2026-10-19 09:05",
        "completion_status": "Completed", "amount_administered": "0.5",
        "amount_administered_unit": "mL", "manufacturer": "Northbridge Biologics",
        "lot_number": "NB26F417", "expiration_date": "2027-06-30", "route": "IM",
        "administration_site": "left_deltoid", "administered_by_id": "11",
        "vis_edition": "influenza_inactivated_2026", "consent_obtained": "1",
        "information_source": "new_immunization_record", "encounter_id": "1001"},
        action="/patient/12/immunizations/new")


def solve_ord13(ehr: Ehr) -> None:
    submit(ehr, "/patient/13/encounter/1001/lbf/LBFjoint_inj/new",
           {f"form_{k}": v for k, v in ord13.GOLD.items()})


def solve_ord14(ehr: Ehr) -> None:
    submit(ehr, "/patient/14/rx/new", {
        **RX, "drug": "atorvastatin 20 mg tablet", "dosage": "1", "unit": "tab", "route": "PO",
        "interval": "16", "drug_dosage_instructions": "1 tab PO nightly", "quantity": "90",
        "refills": "3", "pharmacy_id": "1"})
    rx_id = ehr.query("select max(id) from prescriptions where patient_id = 14")[0][0]
    review = f"/patient/14/rx/{rx_id}/erx"
    post_on_page(ehr, review, review, {"action": "pending"})


def solve_ord16(ehr: Ehr) -> None:
    submit(ehr, "/patient/15/rx/new", {
        **RX, "drug": "amoxicillin 400 mg/5 mL oral suspension", "dosage": "10.5",
        "unit": "mL", "route": "PO", "interval": "1", "days_supply": "10",
        "drug_dosage_instructions": "10.5 mL by mouth twice daily for 10 days",
        "quantity": "300 mL", "pharmacy_id": "1"})


def solve_ord18(ehr: Ehr) -> None:
    client = json.loads((ehr.run_dir / "input" / "fhir_client.json").read_text())
    token = ehr.client.post("/oauth2/default/token", data={
        "grant_type": "client_credentials", "client_id": client["client_id"],
        "client_secret": client["client_secret"]}).json()["access_token"]
    ehr.client.headers["Authorization"] = f"Bearer {token}"
    base = "/apis/default/fhir"
    patient = ehr.client.get(f"{base}/Patient", params={"identifier": "402015"}).json()[
        "entry"][0]["resource"]["id"]
    encounter = ehr.client.get(f"{base}/Encounter", params={
        "patient": patient, "date": "2026-10-19"}).json()["entry"][0]["resource"]["id"]

    def quantity(value: float, code: str) -> dict:
        return {"value": value, "unit": code, "system": "http://unitsofmeasure.org",
                "code": code}

    for loinc, value, unit in (("85354-9", None, None), ("8867-4", 76, "/min"),
                               ("8310-5", 37.1, "Cel"), ("59408-5", 97, "%"),
                               ("29463-7", 81.4, "kg"), ("8302-2", 176, "cm")):
        body = {"resourceType": "Observation", "status": "final",
                "category": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/"
                                          "observation-category", "code": "vital-signs"}]}],
                "code": {"coding": [{"system": "http://loinc.org", "code": loinc}]},
                "subject": {"reference": f"Patient/{patient}"},
                "encounter": {"reference": f"Encounter/{encounter}"},
                "effectiveDateTime": "2026-10-19T09:00:00-04:00"}
        if value is None:
            body["component"] = [
                {"code": {"coding": [{"system": "http://loinc.org", "code": c}]},
                 "valueQuantity": quantity(v, "mm[Hg]")} for c, v in (("8480-6", 128),
                                                                      ("8462-4", 82))]
        else:
            body["valueQuantity"] = quantity(value, unit)
        response = ehr.client.post(f"{base}/Observation", json=body)
        assert response.status_code == 201, response.text


def solve_ord19(ehr: Ehr) -> None:
    submit(ehr, "/patient/17/encounter/1002/lbf/LBFio/new",
           {f"form_{k}": v for k, v in ord19.GOLD.items()})


SOLUTIONS = {
    "ord-02": ("dr.osei", solve_ord02), "ord-03": ("dr.osei", solve_ord03),
    "ord-05": ("dr.osei", solve_ord05), "ord-08": ("dr.osei", solve_ord08),
    "ord-09": ("dr.osei", solve_ord09), "ord-11": ("nurse.kelly", solve_ord11),
    "ord-13": ("dr.osei", solve_ord13), "ord-14": ("nurse.kelly", solve_ord14),
    "ord-16": ("dr.osei", solve_ord16), "ord-18": (None, solve_ord18),
    "ord-19": ("nurse.kelly", solve_ord19),
}


@pytest.mark.parametrize("alias", sorted(SOLUTIONS))
def test_solved_through_the_app_scores_one(seeds, tmp_path, alias):
    run = seeds.run(alias, tmp_path)
    user, solve = SOLUTIONS[alias]
    solve(app(run, user))
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0] * len(report.checks), [
        (c.name, c.evidence) for c in report.checks if c.fraction != 1.0]
    assert report.score == pytest.approx(1.0)
    assert not report.channel["exclusions"]
