"""Acme's Da Vinci PAS operation: the same case as the 278, with a ClaimResponse answer."""

from __future__ import annotations

import json
import logging

import pytest
from fhir.resources.R4B.bundle import Bundle
from fhir.resources.R4B.questionnaire import Questionnaire

from tests.portal_web.payer_pas import pas_bundle
from tests.portal_web.payer_support import CLIENT, payer_run, scores
from tests.portal_web.payer_x12 import GOLD_ANSWERS

FHIR = {"Content-Type": "application/fhir+json"}
REVIEW_ACTION = "http://hl7.org/fhir/us/davinci-pas/StructureDefinition/extension-reviewAction"


@pytest.fixture
def payer(seeds):
    logging.getLogger("portal_web").setLevel(logging.CRITICAL)
    return payer_run(seeds)


def submit(payer, bundle: dict):  # noqa: ANN201
    return payer.client.post("/fhir/Claim/$submit", content=json.dumps(bundle), headers=FHIR,
                             auth=CLIENT)


def notes(payer) -> list:
    return [payer.note(1002, "PN"), payer.note(1003, "M1")]


def test_pas_submit_files_the_case_and_answers_with_the_reference(payer):
    response = submit(payer, pas_bundle(notes(payer)))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/fhir+json")
    result = response.json()
    Bundle.model_validate(result)
    claim_response = result["entry"][0]["resource"]
    assert claim_response["resourceType"] == "ClaimResponse"
    assert claim_response["outcome"] == "complete"
    reference = claim_response["preAuthRef"]
    review = claim_response["item"][0]["adjudication"][0]["extension"][0]
    assert review["url"] == REVIEW_ACTION
    assert review["extension"][0]["valueCodeableConcept"]["coding"][0]["code"] == "A4"
    assert [c[1] for c in payer.cases()] == [reference]
    assert payer.query("acme", "select submitted_via from pa_cases where reference_number = ?",
                       reference) == [("pas",)]
    assert payer.query("acme", "select direction, transaction_set, case_id is not null from "
                               "x12_transactions") == [("inbound", "PAS", 1),
                                                       ("outbound", "PAS", 1)]
    payer.write_output("ref.txt", reference)
    report = payer.grade()
    assert scores(report) == {"codes": 1.0, "answers": 1.0, "attachments": 1.0,
                              "reference": 1.0}


def test_pas_inquire_returns_the_current_review_action(payer):
    reference = submit(payer, pas_bundle(notes(payer))).json()["entry"][0]["resource"][
        "preAuthRef"]
    bundle = pas_bundle([])
    bundle["entry"][0]["resource"]["identifier"] = [{"value": reference}]
    response = payer.client.post("/fhir/Claim/$inquire", content=json.dumps(bundle),
                                 headers=FHIR, auth=CLIENT)
    assert response.status_code == 200, response.text
    answer = response.json()["entry"][0]["resource"]
    assert answer["preAuthRef"] == reference
    assert "In review" in answer["disposition"]


@pytest.mark.parametrize(("change", "status", "fragment"), [
    (lambda b: b.update(type="transaction"), 400, "type 'collection'"),
    (lambda b: b["entry"][0]["resource"].update(use="claim"), 400, "preauthorization"),
    (lambda b: b["entry"][0]["resource"].update(bogus=1), 400, "not valid FHIR R4"),
    (lambda b: b["entry"][0]["resource"]["patient"].update(reference="urn:uuid:nobody"), 400,
     "Claim.patient must reference"),
])
def test_invalid_bundles_get_an_operation_outcome(payer, change, status, fragment):
    bundle = pas_bundle(notes(payer))
    change(bundle)
    response = submit(payer, bundle)
    assert response.status_code == status
    body = response.json()
    assert body["resourceType"] == "OperationOutcome" and fragment in json.dumps(body)
    assert payer.cases() == []


def test_refused_requests_get_a_claim_response_with_the_x12_reason(payer):
    response = submit(payer, pas_bundle(notes(payer), {**GOLD_ANSWERS, "pt_weeks": "six"}))
    assert response.status_code == 200
    answer = response.json()["entry"][0]["resource"]
    assert answer["outcome"] == "error"
    assert answer["error"][0]["code"]["coding"][0]["code"] == "AO"
    assert "pt_weeks" in answer["disposition"]
    unknown = submit(payer, pas_bundle(notes(payer), member="ACM000000000")).json()
    assert unknown["entry"][0]["resource"]["error"][0]["code"]["coding"][0]["code"] == "75"
    assert payer.cases() == []


def test_questionnaires_are_published_for_dtr_style_clients(payer):
    found = payer.client.get("/fhir/Questionnaire", params={"context": "72148"}, auth=CLIENT)
    assert found.status_code == 200
    bundle = found.json()
    Bundle.model_validate(bundle)
    questionnaire = bundle["entry"][0]["resource"]
    Questionnaire.model_validate(questionnaire)
    assert questionnaire["url"] == "http://api.acmehealth.test/fhir/Questionnaire/lumbar-mri"
    items = {i["linkId"]: i for i in questionnaire["item"]}
    assert items["pt_weeks"]["enableWhen"] == [{"question": "physical_therapy", "operator": "=",
                                                "answerBoolean": True}]
    assert {o["valueCoding"]["code"] for o in items["prior_imaging"]["answerOption"]} == \
        {"none", "xray", "ct", "mri"}
    assert payer.client.get("/fhir/Questionnaire/lumbar-mri", auth=CLIENT).json() == questionnaire
    assert payer.client.get("/fhir/Questionnaire/lumbar-mri").status_code == 401
    assert payer.client.get("/fhir/metadata").json()["resourceType"] == "CapabilityStatement"


def test_other_fhir_paths_get_an_operation_outcome(payer):
    for method, path in (("GET", "/fhir/Patient"), ("POST", "/fhir/Claim")):
        response = payer.client.request(method, path, auth=CLIENT)
        assert response.status_code == 404
        assert response.json()["resourceType"] == "OperationOutcome"


@pytest.mark.parametrize(("method", "path", "headers", "status"), [
    ("GET", "/fhir/metadata", {"Accept": "application/fhir+xml"}, 406),
    ("GET", "/fhir/Questionnaire?_format=xml", {}, 406),
    ("GET", "/fhir/Questionnaire/lumbar-mri", {"Accept": "text/html"}, 406),
    ("POST", "/fhir/Claim/$inquire", {"Content-Type": "application/xml"}, 415),
    ("POST", "/fhir/Claim/$submit", {"Accept": "application/fhir+xml",
                                     "Content-Type": "application/fhir+json"}, 406),
])
def test_formats_other_than_fhir_json_are_refused(payer, method, path, headers, status):
    response = payer.client.request(method, path, headers=headers, auth=CLIENT,
                                    content=b"<Bundle/>" if method == "POST" else None)
    assert response.status_code == status
    body = response.json()
    assert body["resourceType"] == "OperationOutcome"
    assert body["issue"][0]["code"] == "not-supported"
    assert payer.query("acme", "select count(*) from x12_transactions") == [(0,)]  # nothing filed
