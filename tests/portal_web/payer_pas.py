"""A Da Vinci PAS request Bundle for pa-18's lumbar MRI, as a PAS-capable EHR would send it."""

from __future__ import annotations

import base64
from typing import Any

from tests.portal_web.payer_x12 import GOLD_ANSWERS, Document, questionnaire_document


def pas_bundle(notes: list[Document], answers: dict[str, object] | None = None, *,
               member: str = "ACM402918331", birth_date: str = "1976-08-02",
               cpt: str = "72148", icd10: str = "M51.16") -> dict[str, Any]:
    qr_doc = questionnaire_document(answers if answers is not None else GOLD_ANSWERS)
    import json

    questionnaire_response = json.loads(qr_doc.content)
    questionnaire_response["id"] = "qr-1"
    entries: list[dict[str, Any]] = [
        {"fullUrl": "urn:uuid:claim-1", "resource": {
            "resourceType": "Claim", "id": "claim-1", "status": "active",
            "type": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/claim-type",
                                 "code": "professional"}]},
            "use": "preauthorization",
            "patient": {"reference": "urn:uuid:patient-1"},
            "created": "2026-10-19T09:15:00-04:00",
            "insurer": {"reference": "urn:uuid:insurer-1"},
            "provider": {"reference": "urn:uuid:requester-1"},
            "priority": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/"
                                               "processpriority", "code": "normal"}]},
            "careTeam": [{"sequence": 1, "provider": {"reference": "urn:uuid:practitioner-1"}}],
            "diagnosis": [{"sequence": 1, "diagnosisCodeableConcept": {"coding": [{
                "system": "http://hl7.org/fhir/sid/icd-10-cm", "code": icd10}]}}],
            "insurance": [{"sequence": 1, "focal": True,
                           "coverage": {"reference": "urn:uuid:coverage-1"}}],
            "supportingInfo": [{"sequence": 1, "category": {"coding": [{
                "system": "http://hl7.org/us/davinci-pas/CodeSystem/PASSupportingInfoType",
                "code": "questionnaireResponse"}]},
                "valueReference": {"reference": "urn:uuid:qr-1"}}],
            "item": [{"sequence": 1, "careTeamSequence": [1], "diagnosisSequence": [1],
                      "productOrService": {"coding": [{
                          "system": "http://www.ama-assn.org/go/cpt", "code": cpt}]},
                      "servicedPeriod": {"start": "2026-10-26", "end": "2026-11-25"},
                      "locationCodeableConcept": {"coding": [{
                          "system": "https://www.cms.gov/Medicare/Coding/place-of-service-codes"
                                    "/Place_of_Service_Code_Set", "code": "11"}]},
                      "quantity": {"value": 1}}]}},
        {"fullUrl": "urn:uuid:patient-1", "resource": {
            "resourceType": "Patient", "id": "patient-1",
            "identifier": [{"type": {"coding": [{
                "system": "http://terminology.hl7.org/CodeSystem/v2-0203", "code": "MB"}]},
                "value": member}],
            "name": [{"family": "Alvarez", "given": ["Tomas"]}], "gender": "male",
            "birthDate": birth_date}},
        {"fullUrl": "urn:uuid:coverage-1", "resource": {
            "resourceType": "Coverage", "id": "coverage-1", "status": "active",
            "subscriberId": member, "beneficiary": {"reference": "urn:uuid:patient-1"},
            "payor": [{"reference": "urn:uuid:insurer-1"}]}},
        {"fullUrl": "urn:uuid:insurer-1", "resource": {
            "resourceType": "Organization", "id": "insurer-1", "name": "Acme Health",
            "identifier": [{"system": "http://hl7.org/fhir/sid/payer-id", "value": "ACME1"}]}},
        {"fullUrl": "urn:uuid:requester-1", "resource": {
            "resourceType": "Organization", "id": "requester-1",
            "name": "Riverside Family Medicine & Specialty Clinic",
            "identifier": [{"system": "http://hl7.org/fhir/sid/us-npi",
                            "value": "1497758544"}]}},
        {"fullUrl": "urn:uuid:practitioner-1", "resource": {
            "resourceType": "Practitioner", "id": "practitioner-1",
            "name": [{"family": "Grant", "given": ["Test"]}],
            "identifier": [{"system": "http://hl7.org/fhir/sid/us-npi",
                            "value": "1546827399"}]}},
        {"fullUrl": "urn:uuid:qr-1", "resource": questionnaire_response},
    ]
    for number, note in enumerate(notes, start=1):
        entries.append({"fullUrl": f"urn:uuid:document-{number}", "resource": {
            "resourceType": "DocumentReference", "id": f"document-{number}",
            "status": "current", "description": note.description,
            "subject": {"reference": "urn:uuid:patient-1"},
            "content": [{"attachment": {"contentType": note.content_type,
                                        "title": note.filename,
                                        "data": base64.b64encode(note.content).decode()}}]}})
    return {"resourceType": "Bundle", "type": "collection",
            "timestamp": "2026-10-19T09:15:00-04:00", "entry": entries}
