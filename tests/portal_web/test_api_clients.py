"""pa-18 as an integration developer would do it: real clients against a real server.

uvicorn serves the episode (EHR on 127.0.0.1, the payer API on localhost, one port); fhirpy
reads the chart with the task's client credentials, following next links; the notes are
downloaded as Binary (sha256 equal to the EHR's stored bytes); the answers are derived from
the chart; the 278 with the QuestionnaireResponse and the notes goes to the payer over HTTP;
the returned reference is written to output/ref.txt; the verifier gives 1.0.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import io
import json
import re
from contextlib import AbstractContextManager

import httpx
import pypdf
from fhir.resources.R4B import get_fhir_model_class
from fhirpy import SyncFHIRClient

from portal_web import create_app
from tests.portal_web.browser import serve_app
from tests.portal_web.payer_support import EPISODE, assert_conforming_reply, reference_of, scores
from tests.portal_web.payer_x12 import (
    Document,
    Request278,
    questionnaire_document,
    request_with_attachments,
)
from tests.portal_web.support import store_rows

ICD10 = "http://hl7.org/fhir/sid/icd-10-cm"


def serve(run_dir) -> AbstractContextManager[int]:  # noqa: ANN001
    """The EHR on 127.0.0.1 and Acme's API on localhost, on one loopback port."""
    app = create_app({"run_dir": run_dir, "episode_id": EPISODE,
                      "hosts": {"127.0.0.1": "ehr", "localhost": "acme_api"}})
    return serve_app(app, "api")


def validated(resource) -> dict:  # noqa: ANN001
    data = resource.serialize() if hasattr(resource, "serialize") else resource
    get_fhir_model_class(data["resourceType"]).model_validate(data)
    return data


def pdf_text(data: bytes) -> str:
    return " ".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages)


def test_fhir_client_and_x12_solve_pa18(seeds):
    run_dir = seeds.run("pa-18")
    meta = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps({**meta, "episode_id": EPISODE}))
    fhir_creds = json.loads((run_dir / "input" / "fhir_client.json").read_text())
    api_creds = json.loads((run_dir / "input" / "api.json").read_text())
    stored = {}
    with serve(run_dir) as port:
        ehr = f"http://127.0.0.1:{port}"
        token = httpx.post(f"{ehr}/oauth2/default/token", data={
            "grant_type": "client_credentials", "client_id": fhir_creds["client_id"],
            "client_secret": fhir_creds["client_secret"]}).json()["access_token"]
        fhir = SyncFHIRClient(f"{ehr}/apis/default/fhir", authorization=f"Bearer {token}")

        patient = fhir.resources("Patient").search(identifier="510201").first()
        validated(patient)
        assert patient["birthDate"] == "1976-08-02"
        conditions = [validated(c) for c in fhir.resources("Condition").search(
            patient=patient.id).limit(2).fetch_all()]  # two per page: follows the next link
        assert len(conditions) == 3
        observations = [validated(o) for o in fhir.resources("Observation").search(
            patient=patient.id).fetch_all()]
        medications = [validated(m) for m in fhir.resources("MedicationStatement").search(
            patient=patient.id, status="active").fetch_all()]
        documents = [validated(d) for d in fhir.resources("DocumentReference").search(
            patient=patient.id).fetch_all()]
        assert observations == [] or all(o["subject"]["reference"].endswith(patient.id)
                                         for o in observations)

        notes: dict[str, bytes] = {}
        for doc in documents:
            attachment = doc["content"][0]["attachment"]
            binary = validated(fhir.reference("Binary", doc["id"]).to_resource())
            data = base64.b64decode(binary["data"])
            raw = httpx.get(attachment["url"], headers={"Authorization": f"Bearer {token}"})
            assert raw.content == data and len(data) == attachment["size"]
            notes[attachment["title"]] = data
        for title in notes:
            stored[title] = next(iter(_stored(run_dir, title)))
            assert hashlib.sha256(notes[title]).hexdigest() == \
                hashlib.sha256(stored[title]).hexdigest()

        # the answers, from the chart
        disc = next(c for c in conditions if c["clinicalStatus"]["coding"][0]["code"] == "active"
                    and c["code"]["coding"][0]["code"].startswith("M51"))
        onset = dt.date.fromisoformat(disc["onsetDateTime"])
        weeks = (dt.date(2026, 10, 19) - onset).days // 7
        nsaid = next(m["medicationCodeableConcept"]["text"] for m in medications
                     if "naproxen" in m["medicationCodeableConcept"]["text"])
        pt_summary = next(t for t in notes if t.startswith("PT discharge"))
        ortho = next(t for t in notes if t.startswith("Orthopedic"))
        pt_weeks = int(re.search(r"(\d+) weeks of physical therapy",
                                 pdf_text(notes[pt_summary])).group(1))
        assert "Red flags: none" in pdf_text(notes[ortho])
        imaging = any(d["type"]["text"] == "Imaging" for d in documents)
        answers = {
            "primary_diagnosis": {"system": ICD10, "code": disc["code"]["coding"][0]["code"]},
            "symptom_duration_weeks": weeks, "conservative_therapy_6wk": True,
            "physical_therapy": True, "pt_weeks": pt_weeks, "nsaid_trial": True,
            "nsaid_name": "naproxen 500 mg twice daily" if "twice daily" in nsaid else nsaid,
            "red_flags": [{"code": "none"}], "prior_imaging": {"code": "xray" if imaging
                                                               else "none"}}
        request = Request278(documents=[
            questionnaire_document(answers),
            Document("RFM-DOC-1", "PN", pt_summary, "application/pdf", notes[pt_summary],
                     "PT DISCHARGE SUMMARY"),
            Document("RFM-DOC-2", "M1", ortho, "application/pdf", notes[ortho],
                     "ORTHOPEDIC CONSULTATION")])
        reply = httpx.post(f"http://localhost:{port}/x12/278",
                           content=request_with_attachments(request),
                           headers={"Content-Type": "application/EDI-X12"},
                           auth=(api_creds["client_id"], api_creds["client_secret"]))
        assert reply.status_code == 200
        assert_conforming_reply(reply.text)
        (run_dir / "output" / "ref.txt").write_text(reference_of(reply.text) + "\n")
        browser = httpx.get(f"http://localhost:{port}/")
        assert "API only" in browser.text
    import verifier
    from tests.portal_web.support import CATALOG

    report = verifier.grade(CATALOG.get("pa-18"), run_dir)
    assert scores(report) == {"codes": 1.0, "answers": 1.0, "attachments": 1.0,
                              "reference": 1.0}


def _stored(run_dir, title: str) -> list[bytes]:  # noqa: ANN001
    return [bytes(r[0]) for r in store_rows(
        run_dir, "ehr", "select document_data from documents where name = ? and "
                        "foreign_id = 101", title)]
