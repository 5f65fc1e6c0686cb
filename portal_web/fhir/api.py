"""The FHIR R4 API at ``/apis/default/fhir``: Patient, Encounter and vital-sign Observations.

Reads need a ``.read`` (or v2 ``r``/``s``) scope, creating an Observation a ``.write`` (v2
``c``) scope, from a bearer token of ``/oauth2/default/token``. Without a token: 401.
Creating Observations is :mod:`portal_web.fhir.vitals`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from portal_web.fhir import resources as fr
from portal_web.fhir.oauth import AccessToken, api_enabled, bearer, scope_allows, token_endpoint
from sandbox.clock import SANDBOX_TZ
from sandbox.stores.ehr import Form, FormEncounter, FormVitals, PatientData

BASE = "/apis/default/fhir"
FHIR_JSON = "application/fhir+json"
MAX_BODY = 256 * 1024


class FhirResponse(JSONResponse):
    media_type = FHIR_JSON


def outcome(status: int, code: str, message: str, issues: list[str] | None = None,
            headers: dict[str, str] | None = None) -> FhirResponse:
    details = issues or [message]
    return FhirResponse({"resourceType": "OperationOutcome", "issue": [
        {"severity": "error", "code": code, "diagnostics": text} for text in details]},
        status_code=status, headers=headers)


def site_of(request: Request):  # noqa: ANN202
    return request.app.state.ehr


def authorize(request: Request, resource: str, action: str) -> AccessToken | Response:
    site = site_of(request)
    with site.reader() as db:
        enabled = api_enabled(db)
    if not enabled:
        return outcome(403, "forbidden", "The FHIR REST API is turned off in Administration > "
                                         "Globals > Connectors.")
    token = bearer(request)
    if token is None:
        return outcome(401, "login", "Missing or expired access token: request one at "
                                     "/oauth2/default/token and send it as 'Authorization: "
                                     "Bearer <token>'.",
                       headers={"WWW-Authenticate": 'Bearer realm="OpenEMR"'})
    if not scope_allows(token.scopes, resource, action):
        verb = "write" if action in "cud" else "read"
        return outcome(403, "forbidden", f"The token's scopes do not allow {verb} access to "
                                         f"{resource} (need system/{resource}.{verb}).")
    return token


def _bundle(request: Request, resources: list[dict[str, Any]]) -> FhirResponse:
    base = f"{request.url.scheme}://{request.url.netloc}{BASE}"
    return FhirResponse({
        "resourceType": "Bundle", "type": "searchset", "total": len(resources),
        "link": [{"relation": "self", "url": str(request.url)}],
        "entry": [{"fullUrl": f"{base}/{r['resourceType']}/{r['id']}", "resource": r,
                   "search": {"mode": "match"}} for r in resources]})


def _ref_id(value: str, kind: str) -> str:
    value = value.strip()
    if "/" in value:
        prefix, _, rest = value.rpartition("/")
        if prefix.split("/")[-1] == kind:
            return rest
    return value


# -- metadata ---------------------------------------------------------------------------
async def metadata(request: Request) -> Response:
    site = site_of(request)
    return FhirResponse({
        "resourceType": "CapabilityStatement", "status": "active", "kind": "instance",
        "date": site.today().isoformat(), "fhirVersion": "4.0.1",
        "format": ["application/fhir+json"],
        "software": {"name": "OpenEMR (sandbox)", "version": "7.0.2"},
        "implementation": {"description": "Sandbox OpenEMR FHIR R4 API",
                           "url": f"{request.url.scheme}://{request.url.netloc}{BASE}"},
        "rest": [{"mode": "server", "security": {
            "service": [{"coding": [{
                "system": "http://terminology.hl7.org/CodeSystem/restful-security-service",
                "code": "SMART-on-FHIR"}]}],
            "extension": [{"url": "http://fhir-registry.smarthealthit.org/StructureDefinition/"
                                  "oauth-uris", "extension": [{
                                      "url": "token", "valueUri": f"{request.url.scheme}://"
                                      f"{request.url.netloc}/oauth2/default/token"}]}]},
            "resource": [
                {"type": "Patient", "interaction": [{"code": "read"}, {"code": "search-type"}],
                 "searchParam": [{"name": n, "type": t} for n, t in (
                     ("_id", "token"), ("identifier", "token"), ("name", "string"),
                     ("family", "string"), ("given", "string"), ("birthdate", "date"))]},
                {"type": "Encounter", "interaction": [{"code": "read"},
                                                      {"code": "search-type"}],
                 "searchParam": [{"name": n, "type": t} for n, t in (
                     ("_id", "token"), ("patient", "reference"), ("date", "date"))]},
                {"type": "Observation", "interaction": [
                    {"code": "read"}, {"code": "search-type"}, {"code": "create"}],
                 "searchParam": [{"name": n, "type": t} for n, t in (
                     ("patient", "reference"), ("category", "token"), ("code", "token"),
                     ("date", "date"), ("encounter", "reference"))]}]}]})


async def smart_configuration(request: Request) -> Response:
    origin = f"{request.url.scheme}://{request.url.netloc}"
    return JSONResponse({
        "token_endpoint": f"{origin}/oauth2/default/token",
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
        "scopes_supported": ["system/Patient.read", "system/Encounter.read",
                             "system/Observation.read", "system/Observation.write"],
        "capabilities": ["client-confidential-symmetric"]})


# -- Patient ----------------------------------------------------------------------------
def _patients(db) -> list[PatientData]:  # noqa: ANN001
    return list(db.scalars(select(PatientData).order_by(PatientData.pid)))


def find_patient(db, fhir_id: str) -> PatientData | None:  # noqa: ANN001
    return next((p for p in _patients(db) if fr.patient_id(p) == fhir_id), None)


async def patient_search(request: Request) -> Response:
    auth = authorize(request, "Patient", "s")
    if isinstance(auth, Response):
        return auth
    q = request.query_params
    with site_of(request).reader() as db:
        rows = _patients(db)
    if q.get("_id"):
        rows = [p for p in rows if fr.patient_id(p) in q["_id"].split(",")]
    if q.get("identifier"):
        value = q["identifier"].split("|")[-1]
        rows = [p for p in rows if p.pubpid == value]
    if q.get("family"):
        rows = [p for p in rows if p.lname.lower().startswith(q["family"].lower())]
    if q.get("given"):
        rows = [p for p in rows if p.fname.lower().startswith(q["given"].lower())]
    if q.get("name"):
        needle = q["name"].lower()
        rows = [p for p in rows if p.lname.lower().startswith(needle)
                or p.fname.lower().startswith(needle)]
    if q.get("birthdate"):
        rows = [p for p in rows if p.DOB.isoformat() == q["birthdate"].removeprefix("eq")]
    return _bundle(request, [fr.patient_resource(p) for p in rows])


async def patient_read(request: Request) -> Response:
    auth = authorize(request, "Patient", "r")
    if isinstance(auth, Response):
        return auth
    with site_of(request).reader() as db:
        patient = find_patient(db, request.path_params["rid"])
    if patient is None:
        return outcome(404, "not-found", f"Patient/{request.path_params['rid'][:64]} not found.")
    return FhirResponse(fr.patient_resource(patient))


# -- Encounter --------------------------------------------------------------------------
def encounters_with_patients(db) -> list[tuple[FormEncounter, PatientData]]:  # noqa: ANN001
    return list(db.execute(select(FormEncounter, PatientData).join(
        PatientData, PatientData.pid == FormEncounter.pid).order_by(FormEncounter.date)).all())


DATE_PARAM_HELP = ("date must be YYYY-MM-DD or an ISO dateTime with offset, optionally "
                   "prefixed with eq, ge, le, gt or lt.")


def parse_date_params(values: list[str]) -> list[tuple[str, dt.date | dt.datetime]] | None:
    """FHIR date search parameters as (prefix, day or naive local instant); None if bad."""
    parsed: list[tuple[str, dt.date | dt.datetime]] = []
    for raw in values:
        prefix = raw[:2] if raw[:2] in ("eq", "ge", "le", "gt", "lt") else "eq"
        text = raw[2:] if raw[:2] == prefix else raw
        try:
            if len(text) == 10:
                parsed.append((prefix, dt.date.fromisoformat(text)))
                continue
            moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
            if moment.tzinfo is not None:
                moment = moment.astimezone(SANDBOX_TZ).replace(tzinfo=None)
            parsed.append((prefix, moment))
        except (ValueError, OverflowError):
            return None
    return parsed


def _date_filter(params: list[tuple[str, dt.date | dt.datetime]], when: dt.datetime) -> bool:
    for prefix, value in params:
        left = when if isinstance(value, dt.datetime) else when.date()
        ok = {"eq": left == value, "ge": left >= value, "le": left <= value,
              "gt": left > value, "lt": left < value}[prefix]
        if not ok:
            return False
    return True


async def encounter_search(request: Request) -> Response:
    auth = authorize(request, "Encounter", "s")
    if isinstance(auth, Response):
        return auth
    site = site_of(request)
    q = request.query_params
    with site.reader() as db:
        rows = encounters_with_patients(db)
    patient = q.get("patient") or q.get("subject")
    if patient:
        pid = _ref_id(patient, "Patient")
        rows = [(e, p) for e, p in rows if fr.patient_id(p) == pid]
    if q.get("_id"):
        rows = [(e, p) for e, p in rows if fr.encounter_id(e) in q["_id"].split(",")]
    dates = parse_date_params(q.getlist("date"))
    if dates is None:
        return outcome(400, "invalid", DATE_PARAM_HELP)
    rows = [(e, p) for e, p in rows if _date_filter(dates, e.date)]
    today = site.today()
    return _bundle(request, [fr.encounter_resource(e, p, today) for e, p in rows])


async def encounter_read(request: Request) -> Response:
    auth = authorize(request, "Encounter", "r")
    if isinstance(auth, Response):
        return auth
    site = site_of(request)
    with site.reader() as db:
        found = next(((e, p) for e, p in encounters_with_patients(db)
                      if fr.encounter_id(e) == request.path_params["rid"]), None)
    if found is None:
        return outcome(404, "not-found",
                       f"Encounter/{request.path_params['rid'][:64]} not found.")
    return FhirResponse(fr.encounter_resource(found[0], found[1], site.today()))


# -- Observation ------------------------------------------------------------------------
def _vitals_rows(db) -> list[tuple[FormVitals, PatientData, FormEncounter | None]]:  # noqa: ANN001
    rows = db.execute(select(FormVitals, PatientData).join(
        PatientData, PatientData.pid == FormVitals.pid).where(FormVitals.activity == 1)
        .order_by(FormVitals.date, FormVitals.id)).all()
    links = {f.form_id: f.encounter for f in db.scalars(select(Form).where(
        Form.formdir == "vitals", Form.deleted == 0))}
    encounters = {e.encounter: e for e in db.scalars(select(FormEncounter))}
    return [(v, p, encounters.get(links.get(v.id))) for v, p in rows]


async def observation_search(request: Request) -> Response:
    auth = authorize(request, "Observation", "s")
    if isinstance(auth, Response):
        return auth
    q = request.query_params
    category = q.get("category")
    if category and category.split("|")[-1] != "vital-signs":
        return _bundle(request, [])  # this server keeps vital signs only
    with site_of(request).reader() as db:
        rows = _vitals_rows(db)
    patient = q.get("patient") or q.get("subject")
    if patient:
        pid = _ref_id(patient, "Patient")
        rows = [r for r in rows if fr.patient_id(r[1]) == pid]
    if q.get("encounter"):
        eid = _ref_id(q["encounter"], "Encounter")
        rows = [r for r in rows if r[2] is not None and fr.encounter_id(r[2]) == eid]
    dates = parse_date_params(q.getlist("date"))
    if dates is None:
        return outcome(400, "invalid", DATE_PARAM_HELP)
    rows = [r for r in rows if _date_filter(dates, r[0].date)]
    codes = {c.split("|")[-1] for c in q.get("code", "").split(",") if c} or None
    found = []
    for v, p, e in rows:
        for resource in fr.vitals_observations(v, p, e):
            code = resource["code"]["coding"][0]["code"]
            if codes is None or code in codes or ("59408-5" == code and "2708-6" in codes) \
                    or (code == "85354-9" and codes & {"8480-6", "8462-4"}):
                found.append(resource)
    return _bundle(request, found)


async def observation_read(request: Request) -> Response:
    auth = authorize(request, "Observation", "r")
    if isinstance(auth, Response):
        return auth
    rid = request.path_params["rid"]
    vid, _, code = rid[:36], rid[36:37], rid[37:]
    with site_of(request).reader() as db:
        for v, p, e in _vitals_rows(db):
            if fr.vitals_id(v) == vid:
                resource = fr.vitals_observation(v, p, e, code)
                if resource is not None:
                    return FhirResponse(resource)
    return outcome(404, "not-found", f"Observation/{rid[:80]} not found.")


async def unsupported(request: Request) -> Response:
    return outcome(404, "not-supported",
                   f"{request.path_params['rtype'][:40]} is not supported by this server; "
                   "see /apis/default/fhir/metadata.")


def fhir_routes() -> list[BaseRoute]:
    from portal_web.fhir.vitals import observation_create

    return [
        Route("/oauth2/default/token", token_endpoint, methods=["POST"]),
        Route(f"{BASE}/metadata", metadata, methods=["GET"]),
        Route(f"{BASE}/.well-known/smart-configuration", smart_configuration, methods=["GET"]),
        Route(f"{BASE}/Patient", patient_search, methods=["GET"]),
        Route(f"{BASE}/Patient/{{rid:str}}", patient_read, methods=["GET"]),
        Route(f"{BASE}/Encounter", encounter_search, methods=["GET"]),
        Route(f"{BASE}/Encounter/{{rid:str}}", encounter_read, methods=["GET"]),
        Route(f"{BASE}/Observation", observation_search, methods=["GET"]),
        Route(f"{BASE}/Observation", observation_create, methods=["POST"]),
        Route(f"{BASE}/Observation/{{rid:str}}", observation_read, methods=["GET"]),
        Route(f"{BASE}/{{rtype:str}}", unsupported, methods=["GET", "POST"]),
    ]
