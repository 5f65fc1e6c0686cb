"""Creating vital-sign Observations: validation and filing into ``form_vitals``.

A posted Observation is validated against ``fhir.resources`` R4B, then against what the EHR
stores (LOINC vital-sign code, UCUM unit, plausible range, patient, encounter, effective
time), and filed as the browser's Vitals form files it: imperial units, BMI computed, one
``form_vitals`` row per client, encounter and effective hour (later Observations of the same
set fill its empty columns), audited with channel ``api``.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response

from portal_web.ehr import units
from portal_web.fhir import resources as fr
from portal_web.fhir.common import BASE, MAX_BODY, FhirResponse, authorize, outcome, site_of
from portal_web.fhir.oauth import AccessToken
from portal_web.fhir.types import encounters_with_patients, find_patient
from sandbox.clock import SANDBOX_TZ
from sandbox.stores.ehr import Form, FormEncounter, FormVitals, PatientData

GROUP_WINDOW = dt.timedelta(hours=1)


class Rejected(Exception):
    """A posted Observation the EHR cannot file; the message says what to fix."""

    def __init__(self, status: int, message: str, code: str = "invalid"):
        super().__init__(message)
        self.status = status
        self.code = code


def _codes(concept: Any) -> list[tuple[str, str]]:
    if not isinstance(concept, dict):
        return []
    return [(c.get("system", ""), c.get("code", "")) for c in concept.get("coding", [])
            if isinstance(c, dict)]


def _value(quantity: Any, sign: fr.VitalSign, where: str) -> float:
    if not isinstance(quantity, dict) or quantity.get("value") is None:
        raise Rejected(422, f"{where}: valueQuantity with a value is required.")
    unit = quantity.get("code") or quantity.get("unit") or ""
    system = quantity.get("system")
    if system not in (None, fr.UCUM):
        raise Rejected(422, f"{where}: valueQuantity.system must be {fr.UCUM}.")
    convert = fr.CONVERSIONS[sign.unit].get(unit)
    if convert is None:
        allowed = ", ".join(fr.CONVERSIONS[sign.unit])
        raise Rejected(422, f"{where}: unit '{unit[:20]}' is not accepted for {sign.display}; "
                            f"use one of: {allowed}.")
    try:
        value = float(convert(float(quantity["value"])))
    except (TypeError, ValueError, OverflowError) as exc:
        raise Rejected(422, f"{where}: the value is not a number.") from exc
    if not sign.low <= value <= sign.high:
        raise Rejected(422, f"{where}: {quantity['value']} {unit} is outside the plausible "
                            f"range for {sign.display}.")
    return value


def parse_vitals(body: dict[str, Any]) -> tuple[dict[str, float], str, str, dt.datetime]:
    """(column values in stored units, patient id, encounter id, effective time)."""
    if body.get("status") not in ("final", "amended", "corrected", "preliminary"):
        raise Rejected(422, "status must be final, amended, corrected or preliminary.")
    categories = [code for cat in body.get("category") or [] for _, code in _codes(cat)]
    if "vital-signs" not in categories:
        raise Rejected(422, "category must include vital-signs (system "
                            f"{fr.CATEGORY_SYSTEM}).")
    loinc = [code for system, code in _codes(body.get("code")) if system == fr.LOINC]
    sign = next((fr.BY_CODE[c] for c in loinc if c in fr.BY_CODE), None)
    if sign is None:
        supported = ", ".join(v.code for v in fr.VITALS)
        raise Rejected(422, f"code must carry a LOINC vital-sign code ({fr.LOINC}); supported: "
                            f"{supported}.")
    values: dict[str, float] = {}
    if sign.column is None:
        for component in body.get("component") or []:
            codes = [c for s, c in _codes(component.get("code")) if s == fr.LOINC]
            part = next((fr.BY_CODE[c] for c in codes if c in ("8480-6", "8462-4")), None)
            if part is not None:
                values[part.column] = _value(component.get("valueQuantity"), part,
                                             f"component {part.code}")
        if set(values) != {"bps", "bpd"}:
            raise Rejected(422, "A blood pressure panel (85354-9) needs components 8480-6 "
                                "(systolic) and 8462-4 (diastolic), each with a valueQuantity.")
        if values["bpd"] >= values["bps"]:
            raise Rejected(422, "Diastolic pressure must be lower than systolic.")
    else:
        values[sign.column] = _value(body.get("valueQuantity"), sign, sign.code)
    subject = (body.get("subject") or {}).get("reference", "")
    if not subject.startswith("Patient/"):
        raise Rejected(422, "subject.reference must be 'Patient/<id>'.")
    encounter = (body.get("encounter") or {}).get("reference", "")
    if not encounter.startswith("Encounter/"):
        raise Rejected(422, "encounter.reference ('Encounter/<id>') is required: vitals are "
                            "filed in an encounter.")
    raw = body.get("effectiveDateTime")
    if not isinstance(raw, str) or "T" not in raw:
        raise Rejected(422, "effectiveDateTime with a time and a time zone is required.")
    try:
        moment = dt.datetime.fromisoformat(raw.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            raise Rejected(422, "effectiveDateTime needs a time zone offset.")
        local = moment.astimezone(SANDBOX_TZ).replace(tzinfo=None, microsecond=0)
    except (ValueError, OverflowError) as exc:
        raise Rejected(422, f"effectiveDateTime '{raw[:40]}' is not a valid date-time.") from exc
    return values, subject[len("Patient/"):], encounter[len("Encounter/"):], local


async def observation_create(request: Request) -> Response:
    auth = authorize(request, "Observation", "c")
    if isinstance(auth, Response):
        return auth
    from fhir.resources.R4B.observation import Observation

    raw = await request.body()
    if len(raw) > MAX_BODY:
        return outcome(413, "too-costly", "The request body is larger than 256 KB.")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return outcome(400, "structure", "The body is not JSON; send one Observation resource "
                                         "as application/fhir+json.")
    if not isinstance(body, dict) or body.get("resourceType") != "Observation":
        return outcome(400, "structure", "The body must be a FHIR Observation resource "
                                         "(resourceType 'Observation').")
    try:
        Observation.model_validate(body)
    except ValidationError as exc:
        issues = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
                  for err in exc.errors()[:20]]
        return outcome(400, "invalid", "The Observation is not valid FHIR R4.", issues)
    except (ValueError, TypeError) as exc:
        return outcome(400, "invalid", f"The Observation is not valid FHIR R4: {exc}"[:500])
    site = site_of(request)
    try:
        values, patient_ref, encounter_ref, effective = parse_vitals(body)
        with site.reader() as db:
            patient = find_patient(db, patient_ref)
            if patient is None:
                raise Rejected(422, f"subject Patient/{patient_ref[:64]} does not exist.")
            enc = next((e for e, p in encounters_with_patients(db) if fr.encounter_id(e) == encounter_ref),
                       None)
            if enc is None or enc.pid != patient.pid:
                raise Rejected(422, f"encounter Encounter/{encounter_ref[:64]} does not exist "
                                    "or belongs to another patient.")
        now = site.now()
        if effective > now + dt.timedelta(minutes=10):
            raise Rejected(422, f"effectiveDateTime {effective:%Y-%m-%dT%H:%M} is in the future "
                                f"(server time is {fr.fhir_datetime(now)}).")
        if effective < enc.date - dt.timedelta(days=1):
            raise Rejected(422, "effectiveDateTime is before the encounter began.")
    except Rejected as exc:
        return outcome(exc.status, exc.code, str(exc))
    vitals_id, code = _file(site, auth, patient, enc, effective, values, now)
    with site.reader() as db:
        v = db.get(FormVitals, vitals_id)
        resource = fr.vitals_observation(v, patient, enc, code)
    location = f"{request.url.scheme}://{request.url.netloc}{BASE}/Observation/{resource['id']}"
    return FhirResponse(resource, status_code=201, headers={"Location": location})


def _file(site, token: AccessToken, patient: PatientData, enc: FormEncounter,  # noqa: ANN001
          effective: dt.datetime, values: dict[str, float], now: dt.datetime) -> tuple[int, str]:
    """Fill an open vitals set of this client in the encounter, or start a new one."""
    code = next(s.code for s in fr.VITALS if s.column in values) if len(values) == 1 else \
        "85354-9"
    with site.stores.writer("ehr", token.principal) as db:
        candidates = db.execute(select(FormVitals).join(
            Form, (Form.form_id == FormVitals.id) & (Form.formdir == "vitals"))
            .where(Form.encounter == enc.encounter, Form.deleted == 0,
                   FormVitals.user == token.client_id, FormVitals.activity == 1)
            .order_by(FormVitals.id.desc())).scalars().all()
        target = next((v for v in candidates if abs(v.date - effective) <= GROUP_WINDOW
                       and all(not _filled(getattr(v, col)) for col in values)), None)
        if target is None:
            target = FormVitals(date=effective, pid=patient.pid, user=token.client_id,
                                groupname="Default", authorized=1, activity=1)
            db.add(target)
            db.flush()
            db.add(Form(date=now, encounter=enc.encounter, form_name="Vitals",
                        form_id=target.id, pid=patient.pid, user=token.client_id,
                        formdir="vitals", provider_id=enc.provider_id))
        for column, value in values.items():
            setattr(target, column, str(int(round(value))) if column in ("bps", "bpd")
                    else units._round(value, 2))
        weight, height = target.weight or 0, target.height or 0
        if weight and height:
            target.BMI = units.bmi(weight, height)
        target.BMI_status = units.bmi_status(target.BMI or 0)
        db.flush()
        return target.id, code


def _filled(value: Any) -> bool:
    try:
        return float(value or 0) != 0
    except (TypeError, ValueError):
        return bool(value)


