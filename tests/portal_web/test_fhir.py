"""The FHIR R4 API: tokens, 401 without one, R4B-valid resources, vitals filed like the form."""

from __future__ import annotations

import json

import pytest
from fhir.resources.R4B.bundle import Bundle
from fhir.resources.R4B.encounter import Encounter
from fhir.resources.R4B.observation import Observation
from fhir.resources.R4B.patient import Patient

from tests.portal_web.support import changes

BASE = "/apis/default/fhir"
CLIENT = {"client_id": "ord18-vitals-client-7d3f",
          "client_secret": "q8Zt4mW2-sandbox-RxV9pL6n"}
CATEGORY = [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/observation-category",
                         "code": "vital-signs"}]}]


@pytest.fixture
def api(ehr_for):
    ehr = ehr_for("ord-18", user=None)
    client_file = json.loads((ehr.run_dir / "input" / "fhir_client.json").read_text())
    assert client_file["client_id"] == CLIENT["client_id"]
    token = ehr.client.post("/oauth2/default/token", data={
        "grant_type": "client_credentials", **CLIENT}).json()["access_token"]
    ehr.client.headers["Authorization"] = f"Bearer {token}"
    return ehr


def quantity(value: float, code: str) -> dict:
    return {"value": value, "unit": code, "system": "http://unitsofmeasure.org", "code": code}


def observation(patient: str, encounter: str, loinc: str, value=None, code=None,
                components=None, effective="2026-10-19T09:05:00-04:00") -> dict:
    body = {"resourceType": "Observation", "status": "final", "category": CATEGORY,
            "code": {"coding": [{"system": "http://loinc.org", "code": loinc}]},
            "subject": {"reference": f"Patient/{patient}"},
            "encounter": {"reference": f"Encounter/{encounter}"},
            "effectiveDateTime": effective}
    if components:
        body["component"] = [{"code": {"coding": [{"system": "http://loinc.org", "code": c}]},
                              "valueQuantity": quantity(v, "mm[Hg]")} for c, v in components]
    else:
        body["valueQuantity"] = quantity(value, code)
    return body


def ids(api) -> tuple[str, str]:
    patients = api.client.get(f"{BASE}/Patient", params={"identifier": "402015"}).json()
    Bundle.model_validate(patients)
    patient = patients["entry"][0]["resource"]
    Patient.model_validate(patient)
    encounters = api.client.get(f"{BASE}/Encounter", params={
        "patient": patient["id"], "date": "2026-10-19"}).json()
    assert encounters["total"] == 1
    encounter = encounters["entry"][0]["resource"]
    Encounter.model_validate(encounter)
    assert encounter["identifier"][0]["value"] == "1001"
    return patient["id"], encounter["id"]


def test_no_token_is_401(ehr_for):
    ehr = ehr_for("ord-18", user=None)
    for url in ("/Patient", "/Encounter", "/Observation"):
        response = ehr.client.get(BASE + url)
        assert response.status_code == 401
        assert response.json()["resourceType"] == "OperationOutcome"
        assert response.headers["www-authenticate"].startswith("Bearer")
    assert ehr.client.post(BASE + "/Observation", json={}).status_code == 401
    assert ehr.client.get(BASE + "/metadata").status_code == 200


def test_token_endpoint_errors(ehr_for):
    ehr = ehr_for("ord-18", user=None)
    token = "/oauth2/default/token"
    assert ehr.client.post(token, data={"grant_type": "password"}).status_code == 400
    wrong = ehr.client.post(token, data={"grant_type": "client_credentials",
                                         "client_id": CLIENT["client_id"],
                                         "client_secret": "nope"})
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client"
    scoped = ehr.client.post(token, data={"grant_type": "client_credentials", **CLIENT,
                                          "scope": "system/Patient.write"})
    assert scoped.status_code == 400 and scoped.json()["error"] == "invalid_scope"
    basic = ehr.client.post(token, data={"grant_type": "client_credentials"},
                            auth=(CLIENT["client_id"], CLIENT["client_secret"]))
    assert basic.status_code == 200 and basic.json()["token_type"] == "Bearer"


def test_api_is_off_where_the_world_leaves_it_off(ehr_for):
    ehr = ehr_for("ord-01", user=None)
    response = ehr.client.post("/oauth2/default/token", data={
        "grant_type": "client_credentials", **CLIENT})
    assert response.status_code == 403 and "turned off" in response.json()["error_description"]


def test_read_scope_cannot_write(api):
    read_only = api.client.post("/oauth2/default/token", data={
        "grant_type": "client_credentials", **CLIENT, "scope": "system/Observation.read"})
    patient, encounter = ids(api)
    response = api.client.post(BASE + "/Observation", json=observation(
        patient, encounter, "8867-4", 76, "/min"),
        headers={"Authorization": f"Bearer {read_only.json()['access_token']}"})
    assert response.status_code == 403


def test_six_observations_become_one_vitals_set_on_the_api_channel(api):
    patient, encounter = ids(api)
    mark = api.audit_mark()
    posted = [
        observation(patient, encounter, "85354-9", components=[("8480-6", 128),
                                                               ("8462-4", 82)]),
        observation(patient, encounter, "8867-4", 76, "/min"),
        observation(patient, encounter, "8310-5", 37.1, "Cel"),
        observation(patient, encounter, "59408-5", 97, "%"),
        observation(patient, encounter, "29463-7", 81.4, "kg"),
        observation(patient, encounter, "8302-2", 176, "cm"),
    ]
    for body in posted:
        response = api.client.post(BASE + "/Observation", json=body)
        assert response.status_code == 201, response.text
        created = response.json()
        Observation.model_validate(created)
        assert response.headers["location"].endswith(f"/Observation/{created['id']}")
        assert api.client.get(f"{BASE}/Observation/{created['id']}").json() == created
    entries = api.audit_since(mark)
    assert changes(entries)[:2] == [("insert", "form_vitals"), ("insert", "forms")]
    assert {e["table"] for e in entries} == {"form_vitals", "forms"}
    for entry in entries:
        assert (entry["channel"], entry["actor"]) == ("api", CLIENT["client_id"])
    assert api.query("select bps, bpd, pulse, temperature, oxygen_saturation, weight, height, "
                     "BMI from form_vitals where user = ?", CLIENT["client_id"]) == [
        ("128", "82", 76.0, 98.78, 97.0, 179.46, 69.29, 26.3)]
    assert api.query("select encounter from forms where formdir = 'vitals' and user = ?",
                     CLIENT["client_id"]) == [(1001,)]
    search = api.client.get(f"{BASE}/Observation", params={
        "patient": patient, "category": "vital-signs", "date": "ge2026-10-19"}).json()
    Bundle.model_validate(search)
    codes = {e["resource"]["code"]["coding"][0]["code"] for e in search["entry"]}
    assert {"85354-9", "8867-4", "8310-5", "59408-5", "29463-7", "8302-2", "39156-5"} <= codes


@pytest.mark.parametrize(("body", "status", "fragment"), [
    ("not json", 400, "not JSON"),
    ({"resourceType": "Patient"}, 400, "Observation resource"),
    ({"resourceType": "Observation", "status": "final", "code": {}, "bogus": 1}, 400,
     "bogus"),
])
def test_invalid_bodies_are_rejected_with_an_operation_outcome(api, body, status, fragment):
    raw = body if isinstance(body, str) else json.dumps(body)
    response = api.client.post(BASE + "/Observation", content=raw,
                               headers={"Content-Type": "application/fhir+json"})
    assert response.status_code == status
    outcome = response.json()
    assert outcome["resourceType"] == "OperationOutcome"
    assert fragment in json.dumps(outcome)


def test_semantic_problems_are_422_and_write_nothing(api):
    patient, encounter = ids(api)
    mark = api.audit_mark()
    cases = [
        (observation(patient, encounter, "8867-4", 76, "kg"), "not accepted"),
        (observation(patient, encounter, "8867-4", 900, "/min"), "plausible range"),
        (observation(patient, encounter, "1234-5", 1, "/min"), "LOINC vital-sign"),
        (observation(patient, "nope", "8867-4", 76, "/min"), "does not exist"),
        (observation(patient, encounter, "8867-4", 76, "/min",
                     effective="2027-01-01T09:00:00-05:00"), "in the future"),
        (observation(patient, encounter, "85354-9", components=[("8480-6", 128)]),
         "needs components"),
    ]
    for body, fragment in cases:
        response = api.client.post(BASE + "/Observation", json=body)
        assert response.status_code == 422, (fragment, response.text)
        assert fragment in response.json()["issue"][0]["diagnostics"]
    assert api.audit_since(mark) == []
