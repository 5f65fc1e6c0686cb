"""Da Vinci PAS on the same payer: ``Claim/$submit``, ``Claim/$inquire``, Questionnaires.

A PAS request Bundle (``type`` collection; first entry a Claim with ``use``
preauthorization; Patient, Coverage, the requesting Organization or Practitioner, a
QuestionnaireResponse and DocumentReferences with the documents inline) is validated with
``fhir.resources`` (R4B), read into the same :class:`~portal_web.payer_api.cases.ReviewRequest`
the X12 path makes, and filed through the same checks and writer. The answer is a Bundle
whose first entry is the ClaimResponse: ``preAuthRef`` is the tracking reference and each
item's adjudication carries the PAS ``reviewAction`` extension (X12 306 action code,
the authorization number when certified). A refused request gets a ClaimResponse with
``outcome`` error and the X12 AAA reason in ``error``; a Bundle that is not valid FHIR gets
an OperationOutcome (400). Requests and responses are kept in ``x12_transactions`` with
transaction set ``PAS``.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import uuid
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from portal_web.fhir.conformance import negotiated
from portal_web.payer_api import cases
from portal_web.payer_api.access import api_of, authenticate, principal_for, read_body
from portal_web.payer_api.answers import questionnaire_id, questionnaire_url
from portal_web.payer_api.cases import IncomingDocument, Rejection, ReviewRequest
from portal_web.payer_api.exchange import next_control
from portal_web.payer_api.responses import decision_of
from sandbox.clock import SANDBOX_TZ
from sandbox.stores.acme import (
    ApiClient,
    Member,
    PaCase,
    PaQuestion,
    PaQuestionnaire,
    X12Transaction,
)

FHIR_JSON = "application/fhir+json"
NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"
CPT_SYSTEM = "http://www.ama-assn.org/go/cpt"
HCPCS_SYSTEM = "https://bluebutton.cms.gov/resources/codesystem/hcpcs"
ICD10_SYSTEM = "http://hl7.org/fhir/sid/icd-10-cm"
X12_306 = "https://codesystem.x12.org/005010/306"
X12_901 = "https://codesystem.x12.org/005010/901"
REVIEW_ACTION = "http://hl7.org/fhir/us/davinci-pas/StructureDefinition/extension-reviewAction"
REVIEW_ACTION_CODE = ("http://hl7.org/fhir/us/davinci-pas/StructureDefinition/"
                      "extension-reviewActionCode")
REFERENCE_SYSTEM = "http://api.acmehealth.test/fhir/sid/tracking-reference"
NAMESPACE = uuid.UUID("0c1f7a52-6e0d-4d0b-9c55-54d6ad9f1a77")
MAX_BUNDLE = 30 * 1024 * 1024


class FhirResponse(JSONResponse):
    media_type = FHIR_JSON


def outcome(status: int, code: str, message: str, expression: str | None = None) -> Response:
    issue: dict[str, Any] = {"severity": "error", "code": code, "diagnostics": message}
    if expression:
        issue["expression"] = [expression]
    return FhirResponse({"resourceType": "OperationOutcome", "issue": [issue]},
                        status_code=status)


def fhir_time(value: dt.datetime) -> str:
    return value.replace(tzinfo=SANDBOX_TZ).isoformat(timespec="seconds")


# -- read-only resources ------------------------------------------------------------------------
async def metadata(request: Request) -> Response:
    now = api_of(request).now()
    return FhirResponse({
        "resourceType": "CapabilityStatement", "status": "active", "kind": "instance",
        "date": now.date().isoformat(), "fhirVersion": "4.0.1", "format": ["json"],
        "software": {"name": "Acme Health prior authorization API"},
        "implementation": {"description": "Da Vinci PAS (Claim/$submit, Claim/$inquire) and "
                                          "DTR questionnaires",
                           "url": f"{request.url.scheme}://{request.url.netloc}/fhir"},
        "instantiates": ["http://hl7.org/fhir/us/davinci-pas/CapabilityStatement/"
                         "EHRCapabilityStatement"],
        "rest": [{"mode": "server",
                  "security": {"description": "HTTP Basic with the client_id and "
                                              "client_secret issued by Acme Health."},
                  "resource": [
                      {"type": "Claim", "operation": [
                          {"name": "submit", "definition": "http://hl7.org/fhir/us/davinci-pas/"
                                                          "OperationDefinition/Claim-submit"},
                          {"name": "inquire", "definition": "http://hl7.org/fhir/us/"
                                                           "davinci-pas/OperationDefinition/"
                                                           "Claim-inquiry"}]},
                      {"type": "Questionnaire", "interaction": [{"code": "read"},
                                                                {"code": "search-type"}]}]}]})


def questionnaire_resource(q: PaQuestionnaire, questions: list[PaQuestion]) -> dict[str, Any]:
    """An Acme questionnaire as a FHIR Questionnaire (DTR style, with enableWhen)."""
    by_key = {x.question_key: x for x in questions}
    items = []
    for question in sorted(questions, key=lambda x: x.position):
        item: dict[str, Any] = {"linkId": question.question_key, "text": question.text,
                                "required": bool(question.required)}
        kind = question.answer_type
        item["type"] = {"boolean": "boolean", "integer": "integer", "decimal": "decimal",
                        "date": "date", "text": "string"}.get(kind, "choice")
        if kind in ("choice", "multi_choice"):
            item["answerOption"] = [{"valueCoding": {
                "system": questionnaire_url(q) + "/" + question.question_key, "code": value,
                "display": label}} for value, label in _options(question).items()]
            if kind == "multi_choice":
                item["repeats"] = True
        if kind == "icd10":
            item["answerValueSet"] = "http://hl7.org/fhir/ValueSet/icd-10"
        if question.unit:
            item["prefix"] = None
            item.pop("prefix")
            item["code"] = [{"system": "http://unitsofmeasure.org", "code": "wk"
                             if question.unit == "weeks" else question.unit,
                             "display": question.unit}]
        if question.enable_question_key:
            source = by_key.get(question.enable_question_key)
            item["enableWhen"] = [_enable_when(question, source)]
        items.append(item)
    return {"resourceType": "Questionnaire", "id": questionnaire_id(q),
            "url": questionnaire_url(q), "version": q.version, "name": q.questionnaire_key,
            "title": q.title, "status": "active", "publisher": "Acme Health",
            "code": [{"system": CPT_SYSTEM if c[:1].isdigit() else HCPCS_SYSTEM, "code": c}
                     for c in q.codes.split(",") if c.strip()[:1].isdigit()],
            "item": items}


def _options(question: PaQuestion) -> dict[str, str]:
    from portal_web.payer_api.answers import options

    return options(question)


def _enable_when(question: PaQuestion, source: PaQuestion | None) -> dict[str, Any]:
    value = question.enable_value or ""
    operator = question.enable_operator or "="
    when: dict[str, Any] = {"question": question.enable_question_key, "operator": operator}
    if operator == "exists":
        when["answerBoolean"] = value.lower() != "false"
    elif source is not None and source.answer_type == "boolean":
        when["answerBoolean"] = value.lower() in ("yes", "true")
    elif source is not None and source.answer_type in ("integer", "decimal"):
        when["answerDecimal" if source.answer_type == "decimal" else "answerInteger"] = \
            float(value) if source.answer_type == "decimal" else int(float(value or 0))
    else:
        when["answerCoding"] = {"code": value}
    return when


async def questionnaire_read(request: Request) -> Response:
    client = authenticate(request, "278")
    if isinstance(client, Response):
        return outcome(client.status_code, "security", client.body.decode().strip())
    key = request.path_params["key"][:60].replace("-", "_")
    with api_of(request).stores.reader("acme") as db:
        q = db.scalar(select(PaQuestionnaire).where(PaQuestionnaire.questionnaire_key == key))
        if q is None:
            return outcome(404, "not-found", f"Questionnaire/{key} not found.")
        questions = list(db.scalars(select(PaQuestion).where(
            PaQuestion.questionnaire_id == q.id)))
    return FhirResponse(questionnaire_resource(q, questions))


async def questionnaire_search(request: Request) -> Response:
    """``Questionnaire?context=<CPT>`` (or ``?url=``): which questionnaire a code needs."""
    client = authenticate(request, "278")
    if isinstance(client, Response):
        return outcome(client.status_code, "security", client.body.decode().strip())
    code = request.query_params.get("context", "").split("|")[-1].strip().upper()
    url = request.query_params.get("url", "")
    entries = []
    with api_of(request).stores.reader("acme") as db:
        for q in db.scalars(select(PaQuestionnaire).order_by(PaQuestionnaire.id)):
            codes = [c.strip().upper() for c in q.codes.split(",")]
            if (code and code in codes) or (url and url == questionnaire_url(q)) or \
                    not (code or url):
                questions = list(db.scalars(select(PaQuestion).where(
                    PaQuestion.questionnaire_id == q.id)))
                entries.append(questionnaire_resource(q, questions))
    base = f"{request.url.scheme}://{request.url.netloc}/fhir"
    return FhirResponse({"resourceType": "Bundle", "type": "searchset", "total": len(entries),
                         "entry": [{"fullUrl": f"{base}/Questionnaire/{e['id']}", "resource": e}
                                   for e in entries]})


# -- $submit ----------------------------------------------------------------------------------
class BundleProblem(ValueError):
    def __init__(self, message: str, expression: str | None = None):
        super().__init__(message)
        self.expression = expression


def _validated_bundle(raw: bytes) -> dict[str, Any]:
    from fhir.resources.R4B.bundle import Bundle

    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise BundleProblem("The body is not JSON: send a PAS request Bundle as "
                            "application/fhir+json.") from exc
    if not isinstance(body, dict) or body.get("resourceType") != "Bundle":
        raise BundleProblem("The body must be a Bundle resource (resourceType 'Bundle').")
    try:
        Bundle.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BundleProblem(f"The Bundle is not valid FHIR R4: {where}: {first['msg']}"[:500],
                            where[:200]) from exc
    except (ValueError, TypeError) as exc:
        raise BundleProblem(f"The Bundle is not valid FHIR R4: {exc}"[:500]) from exc
    if body.get("type") != "collection":
        raise BundleProblem("A PAS request Bundle has type 'collection'.", "Bundle.type")
    entries = body.get("entry") or []
    if not entries or (entries[0].get("resource") or {}).get("resourceType") != "Claim":
        raise BundleProblem("The first entry of a PAS request Bundle must be the Claim.",
                            "Bundle.entry[0]")
    return body


class BundleIndex:
    """Resources of a request Bundle, resolvable by the references the Claim uses."""

    def __init__(self, bundle: dict[str, Any]):
        self.entries = [e for e in bundle.get("entry") or [] if isinstance(e, dict)]
        self.by_ref: dict[str, dict[str, Any]] = {}
        for entry in self.entries:
            resource = entry.get("resource") or {}
            if entry.get("fullUrl"):
                self.by_ref[entry["fullUrl"]] = resource
            if resource.get("id"):
                self.by_ref[f"{resource['resourceType']}/{resource['id']}"] = resource

    def resolve(self, reference: Any, where: str) -> dict[str, Any]:
        ref = (reference or {}).get("reference") if isinstance(reference, dict) else None
        if not ref or ref not in self.by_ref:
            raise BundleProblem(f"{where} must reference a resource in the Bundle "
                                f"(got {str(ref)[:80]}).", where)
        return self.by_ref[ref]

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [(e.get("resource") or {}) for e in self.entries
                if (e.get("resource") or {}).get("resourceType") == kind]


def _npi(resource: dict[str, Any]) -> str:
    return next((i.get("value", "") for i in resource.get("identifier") or []
                 if i.get("system") == NPI_SYSTEM), "")


def _name(resource: dict[str, Any]) -> str:
    if resource.get("resourceType") == "Organization":
        return str(resource.get("name") or "")
    name = (resource.get("name") or [{}])[0]
    return " ".join([*(name.get("given") or []), name.get("family") or ""]).strip()


def _date(text: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(text)[:10])
    except ValueError:
        return None


def read_pas(bundle: dict[str, Any]) -> ReviewRequest:
    index = BundleIndex(bundle)
    claim = index.entries[0]["resource"]
    if claim.get("use") != "preauthorization":
        raise BundleProblem("Claim.use must be 'preauthorization'.", "Claim.use")
    patient = index.resolve(claim.get("patient"), "Claim.patient")
    provider = index.resolve(claim.get("provider"), "Claim.provider")
    insurance = claim.get("insurance") or []
    if not insurance:
        raise BundleProblem("Claim.insurance with the member's Coverage is required.",
                            "Claim.insurance")
    coverage = index.resolve(insurance[0].get("coverage"), "Claim.insurance[0].coverage")
    member_number = str(coverage.get("subscriberId") or "") or next(
        (i.get("value", "") for i in coverage.get("identifier") or []), "")
    if not member_number:
        raise BundleProblem("Coverage.subscriberId (the Acme member ID) is required.",
                            "Coverage.subscriberId")
    name = (patient.get("name") or [{}])[0]
    items = claim.get("item") or []
    if len(items) != 1:
        raise BundleProblem("Send exactly one Claim.item (one service) per request.",
                            "Claim.item")
    item = items[0]
    coding = next((c for c in (item.get("productOrService") or {}).get("coding") or []
                   if c.get("system") in (CPT_SYSTEM, HCPCS_SYSTEM)), None)
    if coding is None:
        raise BundleProblem(f"Claim.item.productOrService needs a CPT ({CPT_SYSTEM}) or HCPCS "
                            f"({HCPCS_SYSTEM}) coding.", "Claim.item.productOrService")
    diagnoses = [d for d in sorted(claim.get("diagnosis") or [],
                                   key=lambda d: d.get("sequence", 0))]
    codes = []
    for d in diagnoses:
        code = next((c.get("code") for c in (d.get("diagnosisCodeableConcept") or {}).get(
            "coding") or [] if c.get("system") == ICD10_SYSTEM), None)
        if code:
            codes.append(code)
    period = item.get("servicedPeriod") or {}
    start = _date(item.get("servicedDate") or period.get("start"))
    end = _date(period.get("end")) if period.get("end") else start
    location = next((c.get("code") for c in (item.get("locationCodeableConcept") or {}).get(
        "coding") or []), None)
    priority = next((c.get("code") for c in (claim.get("priority") or {}).get("coding") or []),
                    "normal")
    rendering = None
    for member in claim.get("careTeam") or []:
        rendering = index.resolve(member.get("provider"), "Claim.careTeam.provider")
        break
    questionnaires = index.of_type("QuestionnaireResponse")
    if len(questionnaires) > 1:
        raise BundleProblem("Send one QuestionnaireResponse per request.")
    documents = []
    for position, doc in enumerate(index.of_type("DocumentReference")):
        for content in doc.get("content") or []:
            attachment = content.get("attachment") or {}
            documents.append(_document(attachment, doc, position))
    for info in claim.get("supportingInfo") or []:
        if isinstance(info.get("valueAttachment"), dict):
            documents.append(_document(info["valueAttachment"], {}, 0))
    modifiers = [c.get("code") for m in item.get("modifier") or [] for c in m.get("coding") or []]
    quantity = (item.get("quantity") or {}).get("value")
    return ReviewRequest(
        member_number=member_number, last_name=str(name.get("family") or ""),
        first_name=str((name.get("given") or [""])[0]),
        birth_date=_date(patient.get("birthDate")) if patient.get("birthDate") else None,
        requester_npi=_npi(provider), requester_name=_name(provider), category="HS",
        certification_type="I", urgency="expedited" if priority in ("stat", "urgent")
        else "standard", place_of_service=location, diagnoses=codes,
        service_code_type="CPT" if coding.get("system") == CPT_SYSTEM else "HCPCS",
        service_code=str(coding.get("code") or ""), modifier=modifiers[0] if modifiers else None,
        units=int(quantity) if isinstance(quantity, (int, float)) else 1, unit_type="units",
        service_from=start, service_to=end,
        rendering_npi=_npi(rendering) if rendering else None,
        rendering_name=_name(rendering) if rendering else None,
        questionnaire_response=questionnaires[0] if questionnaires else None,
        documents=documents, dx_without_dot=False)


def _document(attachment: dict[str, Any], doc: dict[str, Any], position: int
              ) -> IncomingDocument:
    data = attachment.get("data")
    if not isinstance(data, str):
        raise BundleProblem("Attachments must be sent inline (attachment.data, base64).",
                            "DocumentReference.content.attachment.data")
    try:
        content = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise BundleProblem("attachment.data is not valid base64.",
                            "DocumentReference.content.attachment.data") from exc
    title = str(attachment.get("title") or doc.get("description") or f"attachment-{position + 1}")
    content_type = str(attachment.get("contentType") or "application/octet-stream")
    return IncomingDocument(filename=title[:200], content_type=content_type[:80],
                            content=content, description=str(doc.get("description") or title),
                            document_type="clinical_note")


def claim_response(bundle: dict[str, Any], now: dt.datetime, case: PaCase | None,
                   rejection: Rejection | None) -> dict[str, Any]:
    claim = bundle["entry"][0]["resource"]
    claim_ref = bundle["entry"][0].get("fullUrl") or f"Claim/{claim.get('id', '')}"
    response: dict[str, Any] = {
        "resourceType": "ClaimResponse",
        "id": str(uuid.uuid5(NAMESPACE, f"{claim_ref}|{now.isoformat()}|"
                                        f"{case.reference_number if case else 'rejected'}")),
        "status": "active", "type": claim.get("type") or {"coding": [{
            "system": "http://terminology.hl7.org/CodeSystem/claim-type",
            "code": "professional"}]},
        "use": "preauthorization", "patient": claim.get("patient"),
        "created": fhir_time(now),
        "insurer": {"display": "Acme Health", "identifier": {"value": "ACME1"}},
        "request": {"reference": claim_ref},
        "outcome": "error" if case is None else "complete",
    }
    if case is None:
        assert rejection is not None
        response["disposition"] = rejection.message
        response["error"] = [{"code": {"coding": [{"system": X12_901,
                                                   "code": rejection.reason}],
                                       "text": rejection.message}}]
        return response
    decision = decision_of(case)
    response["identifier"] = [{"system": REFERENCE_SYSTEM, "value": case.reference_number}]
    response["preAuthRef"] = case.reference_number
    response["disposition"] = decision.message
    review: list[dict[str, Any]] = [{"url": "code", "valueCodeableConcept": {"coding": [{
        "system": X12_306, "code": decision.action}]}}]
    if decision.certification:
        review.append({"url": "number", "valueString": decision.certification})
    response["item"] = [{"itemSequence": (claim.get("item") or [{}])[0].get("sequence", 1),
                         "adjudication": [{"category": {"coding": [{
                             "system": "http://terminology.hl7.org/CodeSystem/adjudication",
                             "code": "submitted"}]},
                             "extension": [{"url": REVIEW_ACTION, "extension": review}]}]}]
    if case.approved_from and case.approved_to:
        response["preAuthPeriod"] = {"start": case.approved_from.isoformat(),
                                     "end": case.approved_to.isoformat()}
    return response


def response_bundle(bundle: dict[str, Any], now: dt.datetime, response: dict[str, Any]
                    ) -> dict[str, Any]:
    from fhir.resources.R4B.bundle import Bundle

    result = {"resourceType": "Bundle", "type": "collection", "timestamp": fhir_time(now),
              "identifier": {"system": REFERENCE_SYSTEM,
                             "value": response.get("preAuthRef") or response["id"]},
              "entry": [{"fullUrl": f"urn:uuid:{response['id']}", "resource": response}]}
    for entry in bundle.get("entry") or []:
        resource = entry.get("resource") or {}
        if resource.get("resourceType") in ("Patient", "Organization", "Practitioner",
                                            "Coverage") and entry.get("fullUrl"):
            result["entry"].append({"fullUrl": entry["fullUrl"], "resource": resource})
    Bundle.model_validate(result)  # what we send is valid FHIR R4
    return result


def _log(db, client: ApiClient, direction: str, raw: str, now: dt.datetime,  # noqa: ANN001
         case_id: int | None, status: str, error: str = "", control: str = "") -> None:
    db.add(X12Transaction(api_client_id=client.id, direction=direction, transaction_set="PAS",
                          control_number=control[:12] or "PAS", raw=raw, case_id=case_id,
                          status=status, error_text=error[:4000], at=now))


async def submit(request: Request) -> Response:
    """``POST /fhir/Claim/$submit``."""
    client = authenticate(request, "278")
    if isinstance(client, Response):
        return outcome(client.status_code, "security", client.body.decode().strip())
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type not in (FHIR_JSON, "application/json"):
        return outcome(415, "not-supported", "Content-Type must be application/fhir+json.")
    raw = await read_body(request, MAX_BUNDLE)
    site = api_of(request)
    now = site.now()
    try:
        bundle = _validated_bundle(raw)
        review = read_pas(bundle)
    except BundleProblem as exc:
        with site.stores.writer("acme", principal_for(client)) as db:
            _log(db, client, "inbound", raw.decode("utf-8", "replace"), now, None, "rejected",
                 str(exc))
        return outcome(400, "invalid", str(exc), exc.expression)
    with site.stores.writer("acme", principal_for(client)) as db:
        control = f"{next_control(db):09d}"
        client = db.get(ApiClient, client.id)
        case = rejection = None
        try:
            plan = cases.evaluate(db, client, review, now.date())
        except Rejection as exc:
            rejection = exc
        else:
            case = cases.file_case(db, client, plan, now)
            case.submitted_via = "pas"
            db.flush()
        response = claim_response(bundle, now, case, rejection)
        result = response_bundle(bundle, now, response)
        text = json.dumps(result, indent=1)
        case_id = case.id if case else None
        _log(db, client, "inbound", raw.decode("utf-8", "replace"), now, case_id,
             "accepted" if case else "rejected", str(rejection or ""), control)
        _log(db, client, "outbound", text, now, case_id, "accepted" if case else "rejected",
             str(rejection or ""), control)
    return FhirResponse(result)


async def inquire(request: Request) -> Response:
    """``POST /fhir/Claim/$inquire``: a Bundle whose Claim names the tracking reference."""
    client = authenticate(request, "status")
    if isinstance(client, Response):
        return outcome(client.status_code, "security", client.body.decode().strip())
    raw = await read_body(request, MAX_BUNDLE)
    try:
        bundle = _validated_bundle(raw)
    except BundleProblem as exc:
        return outcome(400, "invalid", str(exc), exc.expression)
    claim = bundle["entry"][0]["resource"]
    wanted = {i.get("value") for i in claim.get("identifier") or []}
    site = api_of(request)
    with site.stores.reader("acme") as db:
        case = next((c for c in db.scalars(select(PaCase).where(
            PaCase.reference_number.in_([w for w in wanted if w])))), None)
        if case is None or (case.requesting_tin or "").replace("-", "") != \
                client.organization_tin.replace("-", ""):
            return outcome(404, "not-found", "No case of this organization has the tracking "
                                             "reference in Claim.identifier.",
                           "Claim.identifier")
        member = db.get(Member, case.member_id)
        del member
        response = claim_response(bundle, site.now(), case, None)
    return FhirResponse(response_bundle(bundle, site.now(), response))


async def not_served(request: Request) -> Response:
    return outcome(404, "not-supported", f"{request.url.path[:80]} is not served here: this "
                                         "payer offers Claim/$submit, Claim/$inquire and "
                                         "Questionnaire (see /fhir/metadata).")


def routes() -> list[BaseRoute]:
    return [
        # every interaction behind FHIR's format rules: 406 for a format other than JSON,
        # 415 for a body that is not FHIR JSON (as the EHR's FHIR API)
        Route("/fhir/metadata", negotiated(metadata), methods=["GET"]),
        Route("/fhir/Claim/$submit", negotiated(submit), methods=["POST"]),
        Route("/fhir/Claim/$inquire", negotiated(inquire), methods=["POST"]),
        Route("/fhir/Questionnaire", negotiated(questionnaire_search), methods=["GET"]),
        Route("/fhir/Questionnaire/{key}", negotiated(questionnaire_read), methods=["GET"]),
        Route("/fhir/{path:path}", not_served, methods=["GET", "POST", "PUT", "DELETE"]),
    ]
