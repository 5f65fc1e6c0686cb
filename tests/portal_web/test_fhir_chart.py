"""The EHR's FHIR API, chart side: what pa-18's chart reader sees, validated with R4B models.

Every resource a search or read returns is validated with ``fhir.resources`` (R4B); the
documents come back byte for byte (the same sha256 as the chart's Download button).
"""

from __future__ import annotations

import base64
import hashlib
import json

import pytest
from fhir.resources.R4B import get_fhir_model_class

from tests.portal_web.support import PASSWORDS

BASE = "/apis/default/fhir"
PA18_CLIENT = {"client_id": "pa18-chart-reader-5c1e", "client_secret": "Fz3kL9-sandbox-Tq7wN2vB"}
TOMAS = "510201"


def validate(resource: dict) -> None:
    """Raises if ``resource`` (and every resource in a Bundle) is not valid R4B."""
    get_fhir_model_class(resource["resourceType"]).model_validate(resource)
    for entry in resource.get("entry", []) if resource["resourceType"] == "Bundle" else []:
        get_fhir_model_class(entry["resource"]["resourceType"]).model_validate(entry["resource"])


@pytest.fixture
def chart(ehr_for):
    ehr = ehr_for("pa-18", user=None)
    client_file = json.loads((ehr.run_dir / "input" / "fhir_client.json").read_text())
    token = ehr.client.post("/oauth2/default/token", data={
        "grant_type": "client_credentials", "client_id": client_file["client_id"],
        "client_secret": client_file["client_secret"], "scope": client_file["scope"]})
    assert token.status_code == 200, token.text
    ehr.client.headers["Authorization"] = f"Bearer {token.json()['access_token']}"
    return ehr


def get(ehr, path: str, **params) -> dict:
    response = ehr.client.get(BASE + path, params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/fhir+json")
    body = response.json()
    validate(body)
    return body


def patient_id(ehr) -> str:
    bundle = get(ehr, "/Patient", identifier=TOMAS)
    assert bundle["total"] == 1
    return bundle["entry"][0]["resource"]["id"]


def test_conditions_are_the_problem_list_with_icd10_codes(chart):
    pid = patient_id(chart)
    bundle = get(chart, "/Condition", patient=pid)
    codes = {(e["resource"]["code"]["coding"][0]["code"],
              e["resource"]["clinicalStatus"]["coding"][0]["code"]) for e in bundle["entry"]}
    assert codes == {("I10", "active"), ("M54.50", "resolved"), ("M51.16", "active")}
    active = get(chart, "/Condition", patient=pid, **{"clinical-status": "active"})
    assert {e["resource"]["code"]["coding"][0]["code"] for e in active["entry"]} == \
        {"I10", "M51.16"}
    disc = get(chart, "/Condition", patient=pid,
               code="http://hl7.org/fhir/sid/icd-10-cm|M51.16")["entry"][0]["resource"]
    assert disc["onsetDateTime"] == "2026-08-05"
    assert "failed 6 weeks of PT and naproxen" in disc["note"][0]["text"]


def test_medication_statements_keep_the_naproxen_trial_and_the_finished_ibuprofen(chart):
    pid = patient_id(chart)
    bundle = get(chart, "/MedicationStatement", patient=pid)
    found = {e["resource"]["medicationCodeableConcept"]["text"]: e["resource"]
             for e in bundle["entry"]}
    naproxen = found["naproxen 500 mg tablet, 1 tab PO twice daily with food"]
    assert naproxen["status"] == "active"
    assert naproxen["effectivePeriod"] == {"start": "2026-08-10"}
    ibuprofen = found["ibuprofen 600 mg tablet, 1 tab PO three times daily PRN back pain"]
    assert ibuprofen["status"] == "completed"


def test_document_references_point_at_binaries_with_the_ehrs_bytes(chart):
    pid = patient_id(chart)
    bundle = get(chart, "/DocumentReference", patient=pid)
    by_title = {e["resource"]["content"][0]["attachment"]["title"]: e["resource"]
                for e in bundle["entry"]}
    assert set(by_title) == {"XR lumbar spine 2026-08-12.pdf",
                             "PT discharge summary 2026-09-30.pdf",
                             "Orthopedic consultation 2026-10-14.pdf"}
    stored = dict(chart.query("select name, document_data from documents where foreign_id = 101"))
    for title, resource in by_title.items():
        attachment = resource["content"][0]["attachment"]
        raw = chart.client.get(attachment["url"].removeprefix("http://emr.clinic.test"))
        assert raw.status_code == 200
        assert raw.headers["content-type"] == "application/pdf"
        assert raw.content == stored[title]
        assert attachment["size"] == len(stored[title])
        assert attachment["hash"] == base64.b64encode(hashlib.sha1(raw.content).digest()).decode()
        as_fhir = chart.client.get(attachment["url"].removeprefix("http://emr.clinic.test"),
                                   headers={"Accept": "application/fhir+json"}).json()
        validate(as_fhir)
        assert base64.b64decode(as_fhir["data"]) == stored[title]
    notes = get(chart, "/DocumentReference", patient=pid, category="clinical-note")
    assert {e["resource"]["content"][0]["attachment"]["title"] for e in notes["entry"]} == \
        {"PT discharge summary 2026-09-30.pdf", "Orthopedic consultation 2026-10-14.pdf"}


def test_binary_bytes_equal_the_gui_download(chart, ehr_for):
    pid = patient_id(chart)
    ortho = next(e["resource"] for e in get(chart, "/DocumentReference", patient=pid)["entry"]
                 if e["resource"]["identifier"][0]["value"] == "1003")
    api_bytes = chart.client.get(ortho["content"][0]["attachment"]["url"].removeprefix(
        "http://emr.clinic.test")).content
    gui = ehr_for("pa-18", user="pa.coord")
    assert "pa.coord" in PASSWORDS
    download = gui.client.get("/patient/101/documents/1003/download")
    assert download.status_code == 200
    assert hashlib.sha256(api_bytes).hexdigest() == hashlib.sha256(download.content).hexdigest()


def test_paging_follows_next_links_and_include_adds_the_patient(chart):
    pid = patient_id(chart)
    first = get(chart, "/Condition", patient=pid, _count="2")
    assert first["total"] == 3 and len(first["entry"]) == 2
    nxt = next(link["url"] for link in first["link"] if link["relation"] == "next")
    second = chart.client.get(nxt.removeprefix("http://emr.clinic.test")).json()
    validate(second)
    assert len(second["entry"]) == 1
    assert not any(link["relation"] == "next" for link in second["link"])
    ids = [e["resource"]["id"] for e in first["entry"] + second["entry"]]
    assert len(set(ids)) == 3
    counted = get(chart, "/Condition", patient=pid, _summary="count")
    assert counted["total"] == 3 and counted["entry"] == []
    included = get(chart, "/Condition", patient=pid, _include="Condition:patient")
    modes = [(e["resource"]["resourceType"], e["search"]["mode"]) for e in included["entry"]]
    assert modes.count(("Patient", "include")) == 1
    assert modes.count(("Condition", "match")) == 3


def test_scopes_per_client_and_operation_outcomes(chart):
    no_allergy_scope = chart.client.get(BASE + "/AllergyIntolerance")
    assert no_allergy_scope.status_code == 403
    assert no_allergy_scope.json()["resourceType"] == "OperationOutcome"
    assert "system/AllergyIntolerance.read" in no_allergy_scope.text
    for path, status in (("/Condition/not-a-real-id", 404), ("/Frobnicate", 404),
                         ("/Condition?onset-date=yesterday", 400),
                         ("/Condition?_count=lots", 400)):
        response = chart.client.get(BASE + path)
        assert response.status_code == status, path
        body = response.json()
        assert body["resourceType"] == "OperationOutcome"
        validate(body)
    write = chart.client.post(BASE + "/Condition", json={"resourceType": "Condition"})
    assert write.status_code == 405 and write.json()["resourceType"] == "OperationOutcome"
    ignored = get(chart, "/Condition", patient=patient_id(chart), color="blue")
    warning = ignored["entry"][-1]
    assert warning["search"]["mode"] == "outcome" and "color" in json.dumps(warning)


def test_metadata_lists_every_type_and_validates(chart):
    statement = get(chart, "/metadata")
    served = {r["type"] for r in statement["rest"][0]["resource"]}
    assert {"Patient", "Encounter", "Observation", "Condition", "AllergyIntolerance",
            "MedicationStatement", "MedicationRequest", "Procedure", "ServiceRequest",
            "DocumentReference", "Binary"} <= served


WIDE_CLIENT = ("wide-reader-test", "wide-reader-secret-1")


def wide_client_rows() -> str:
    from sandbox.stores.ehr import hash_password

    return f"""
globals:
  - {{gl_name: "rest_fhir_api", gl_index: 0, gl_value: "1"}}
oauth_clients:
  - {{client_id: "{WIDE_CLIENT[0]}", client_role: "system", client_name: "Test reader",
      client_secret: "{hash_password(*WIDE_CLIENT)}", grant_types: "client_credentials",
      scope: "system/*.read", token_endpoint_auth_method: "client_secret_post", is_enabled: 1,
      register_date: "2026-10-15 10:00:00"}}
"""


def test_every_type_of_a_wide_chart_validates(ehr_for):
    """pa-20's chart has allergies, prescriptions, lab orders and results: every resource of
    every type the server lists is valid R4B, and each type has some."""
    ehr = ehr_for("pa-20", user=None, extra=wide_client_rows())
    token = ehr.client.post("/oauth2/default/token", data={
        "grant_type": "client_credentials", "client_id": WIDE_CLIENT[0],
        "client_secret": WIDE_CLIENT[1]})
    assert token.status_code == 200, token.text
    ehr.client.headers["Authorization"] = f"Bearer {token.json()['access_token']}"
    statement = get(ehr, "/metadata")
    totals = {}
    for resource in statement["rest"][0]["resource"]:
        if resource["type"] == "Binary":
            continue
        bundle = get(ehr, f"/{resource['type']}", _count="200")
        totals[resource["type"]] = bundle["total"]
    empty = sorted(name for name, total in totals.items() if total == 0)
    assert not empty, totals
    labs = get(ehr, "/Observation", category="laboratory")
    assert labs["total"] > 0
    assert all("valueQuantity" in e["resource"] or "valueString" in e["resource"]
               for e in labs["entry"])


TYPES_SEARCHED = ["Patient", "Encounter", "Observation", "Condition", "MedicationStatement",
                  "DocumentReference", "Binary", "Nope"]
PARAMS = ["patient", "subject", "date", "onset-date", "code", "category", "clinical-status",
          "status", "_count", "_offset", "_include", "_summary", "_id", "identifier", "name",
          "family", "birthdate", "code:exact", "patient:Patient", "encounter", "type", "x"]


def test_search_parameters_never_fail_the_server(chart):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    values = st.one_of(st.text(max_size=20), st.sampled_from(
        ["ge2026-01-01", "lt2026", "2026-13-01", "eq2026-10-19T09:00:00-04:00", "-1", "0",
         "999999999999", "Condition:patient", "Condition:nope", "count", "|", "a|b|c",
         "http://hl7.org/fhir/sid/icd-10-cm|M51.16", "Patient/", ",,,", "\x00"]))

    @settings(max_examples=120, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(kind=st.sampled_from(TYPES_SEARCHED),
           params=st.lists(st.tuples(st.sampled_from(PARAMS), values), max_size=4),
           read=st.booleans())
    def run(kind, params, read):  # noqa: ANN001
        from urllib.parse import quote

        rid = quote(params[0][1][:20] or "x", safe="") if read and params else ""
        path = f"{BASE}/{kind}" + (f"/{rid}" if rid else "")
        response = chart.client.get(path, params=params)
        assert response.status_code in (200, 400, 403, 404), (path, params, response.text)
        body = response.json() if "json" in response.headers["content-type"] else None
        if response.status_code != 200:
            assert body["resourceType"] == "OperationOutcome"
        elif body is not None:
            validate(body)

    run()
