"""Stored documents as DocumentReference, their bytes as Binary.

A ``documents`` row (not deleted) is a DocumentReference whose attachment points to
``Binary/<id>``; ``GET Binary/<id>`` returns the stored bytes unchanged with the stored
content type (the same bytes, so the same sha256, as the chart's Download button), or a
Binary resource with the bytes base64-encoded when the client asks for FHIR JSON.
The attachment carries ``size`` and ``hash`` (SHA-1, base64, as FHIR defines it) so a
client can check what it downloaded.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.requests import Request
from starlette.responses import Response

from portal_web.fhir.clinical import encounter_refs, patient_refs
from portal_web.fhir.common import FhirResponse, authorize, fhir_datetime, outcome, site_of
from portal_web.fhir.resources import LOINC, row_uuid
from portal_web.fhir.search import Entry, coded
from sandbox.stores.ehr import Category, CategoryToDocument, Document

DOCUMENT_CATEGORY = ("http://hl7.org/fhir/us/core/CodeSystem/"
                     "us-core-documentreference-category")
TYPES = {  # document category -> LOINC document type
    "Clinical Notes": ("11506-3", "Progress note"),
    "Imaging": ("18748-4", "Diagnostic imaging study"),
    "Lab Report": ("11502-2", "Laboratory report"),
    "Diagnostic Tests": ("30954-2", "Relevant diagnostic tests/laboratory data Narrative"),
    "Referrals": ("57133-1", "Referral note"),
    "Advance Directive": ("42348-3", "Advance directives"),
    "Consent Forms": ("59284-0", "Consent Document"),
    "Outside Records": ("34133-9", "Summarization of episode note"),
    "Prior Authorization": ("52070-5", "Payer-related information"),
}
DEFAULT_TYPE = ("34133-9", "Summarization of episode note")


def document_id(doc: Document) -> str:
    return row_uuid("documents", doc.id, doc.uuid)


def _categories(db: Session) -> dict[int, str]:
    names = {c.id: c.name for c in db.scalars(select(Category))}
    found: dict[int, str] = {}
    for link in db.scalars(select(CategoryToDocument).order_by(CategoryToDocument.category_id)):
        found.setdefault(link.document_id, names.get(link.category_id, ""))
    return found


def document_references(db: Session, today: dt.date, base: str) -> list[Entry]:
    patients, encounters = patient_refs(db), encounter_refs(db)
    categories = _categories(db)
    entries = []
    for doc in db.scalars(select(Document).where(Document.deleted == 0).order_by(
            Document.foreign_id, Document.date, Document.id)):
        data = bytes(doc.document_data or b"")
        category = categories.get(doc.id, "")
        code, display = TYPES.get(category, DEFAULT_TYPE)
        clinical = category in ("Clinical Notes", "Referrals", "Outside Records")
        rid = document_id(doc)
        attachment: dict[str, Any] = {
            "contentType": doc.mimetype or "application/octet-stream",
            "url": f"{base}/Binary/{rid}", "size": len(data),
            "hash": base64.b64encode(hashlib.sha1(data).digest()).decode(),  # noqa: S324
            "title": doc.name}
        if doc.docdate:
            attachment["creation"] = fhir_datetime(dt.datetime.combine(doc.docdate, dt.time()))
        resource: dict[str, Any] = {
            "resourceType": "DocumentReference", "id": rid,
            "meta": {"profile": ["http://hl7.org/fhir/us/core/StructureDefinition/"
                                 "us-core-documentreference"]},
            "identifier": [{"system": "urn:openemr:document", "value": str(doc.id)}],
            "status": "current", "docStatus": "final",
            "type": {"coding": [{"system": LOINC, "code": code, "display": display}],
                     "text": category or display},
            "category": [{"coding": [{"system": DOCUMENT_CATEGORY, "code": "clinical-note",
                                      "display": "Clinical Note"}]}] if clinical else
            [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/v2-0074",
                          "code": "RAD" if category == "Imaging" else "LAB" if category in (
                              "Lab Report", "Diagnostic Tests") else "OTH"}],
              "text": category or "Other"}],
            "subject": {"reference": f"Patient/{patients[doc.foreign_id]}"},
            "date": fhir_datetime(doc.date),
            "content": [{"attachment": attachment, "format": {
                "system": "http://ihe.net/fhir/ihe.formatcode.fhir/CodeSystem/formatcode",
                "code": "urn:ihe:iti:xds:2017:mimeTypeSufficient",
                "display": "mimeType Sufficient"}}],
        }
        if doc.description:
            resource["description"] = doc.description
        context: dict[str, Any] = {}
        if doc.encounter_id in encounters:
            context["encounter"] = [{"reference": f"Encounter/{encounters[doc.encounter_id]}"}]
        if doc.docdate:
            context["period"] = {"start": doc.docdate.isoformat()}
        if context:
            resource["context"] = context
        category_code = resource["category"][0]["coding"][0]["code"]
        entries.append(Entry(
            resource, patients[doc.foreign_id], doc.docdate or doc.date.date(),
            coded((LOINC, code)), frozenset({category_code}),
            encounters.get(doc.encounter_id or -1), "current",
            tokens={"type": coded((LOINC, code))}))
    return entries


async def binary_read(request: Request) -> Response:
    """``GET Binary/<id>``: the document's bytes (or a Binary resource for FHIR JSON)."""
    auth = authorize(request, "Binary", "r")
    if isinstance(auth, Response):
        return auth
    rid = request.path_params["rid"]
    site = site_of(request)
    with site.reader() as db:
        doc = next((d for d in db.scalars(select(Document).where(Document.deleted == 0))
                    if document_id(d) == rid), None)
    if doc is None or doc.document_data is None:
        return outcome(404, "not-found", f"Binary/{rid[:80]} not found.")
    data = bytes(doc.document_data)
    accept = request.headers.get("accept", "")
    content_type = doc.mimetype or "application/octet-stream"
    if "application/fhir+json" in accept or "application/json" in accept and \
            content_type not in accept:
        return FhirResponse({"resourceType": "Binary", "id": rid, "contentType": content_type,
                             "data": base64.b64encode(data).decode("ascii")})
    safe_name = "".join(ch if ch.isalnum() or ch in " .-_()" else "_" for ch in doc.name)
    return Response(data, media_type=content_type, headers={
        "Content-Disposition": f'inline; filename="{safe_name}"',
        "ETag": f'"{hashlib.sha256(data).hexdigest()}"'})
