"""FHIR R4 views of the EHR's rows: Patient, Encounter, and vital-sign Observations.

Resource ids are the rows' ``uuid`` when set, else a UUID derived from the table and key
(so ids are stable and seeding stays deterministic). One ``form_vitals`` row holds several
vital signs, so it is several Observations: ``<vitals id>-<LOINC code>``.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

from portal_web.ehr import units
from sandbox.clock import SANDBOX_TZ
from sandbox.stores.ehr import FormEncounter, FormVitals, PatientData

NAMESPACE = uuid.UUID("5b7f8a0e-2b1e-4c59-9a43-6b2f5f0a9c11")
LOINC = "http://loinc.org"
UCUM = "http://unitsofmeasure.org"
MRN_SYSTEM = "urn:oid:2.16.840.1.113883.3.8675309.1"  # the sandbox clinic's MRN namespace
CATEGORY_SYSTEM = "http://terminology.hl7.org/CodeSystem/observation-category"
VITAL_SIGNS_PROFILE = "http://hl7.org/fhir/StructureDefinition/vitalsigns"


def row_uuid(table: str, key: int, stored: str | None = None) -> str:
    return stored or str(uuid.uuid5(NAMESPACE, f"{table}/{key}"))


def patient_id(p: PatientData) -> str:
    return row_uuid("patient_data", p.pid, p.uuid)


def encounter_id(e: FormEncounter) -> str:
    return row_uuid("form_encounter", e.encounter, e.uuid)


def vitals_id(v: FormVitals) -> str:
    return row_uuid("form_vitals", v.id, v.uuid)


def fhir_datetime(value: dt.datetime) -> str:
    """A naive sandbox-local time as an ISO dateTime with its offset."""
    return value.replace(tzinfo=SANDBOX_TZ).isoformat(timespec="seconds")


# -- Patient / Encounter --------------------------------------------------------------------
def patient_resource(p: PatientData) -> dict[str, Any]:
    resource: dict[str, Any] = {
        "resourceType": "Patient", "id": patient_id(p),
        "meta": {"profile": ["http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient"]},
        "identifier": [{"use": "usual", "type": {"coding": [{
            "system": "http://terminology.hl7.org/CodeSystem/v2-0203", "code": "MR",
            "display": "Medical Record Number"}]}, "system": MRN_SYSTEM, "value": p.pubpid}],
        "active": True,
        "name": [{"use": "official", "family": p.lname,
                  "given": [g for g in (p.fname, p.mname) if g]}],
        "gender": {"Male": "male", "Female": "female"}.get(p.sex, "unknown"),
        "birthDate": p.DOB.isoformat(),
    }
    if p.street or p.city:
        resource["address"] = [{"line": [p.street] if p.street else [], "city": p.city,
                                "state": p.state, "postalCode": p.postal_code}]
        resource["address"][0] = {k: v for k, v in resource["address"][0].items() if v}
    phones = [{"system": "phone", "value": v, "use": use} for v, use in
              ((p.phone_home, "home"), (p.phone_cell, "mobile")) if v]
    if phones:
        resource["telecom"] = phones
    return resource


CLASS = {"AMB": "ambulatory", "IMP": "inpatient encounter", "EMER": "emergency"}


def encounter_resource(e: FormEncounter, p: PatientData, today: dt.date) -> dict[str, Any]:
    finished = e.date_end is not None or e.date.date() < today
    period: dict[str, str] = {"start": fhir_datetime(e.date)}
    if e.date_end is not None:
        period["end"] = fhir_datetime(e.date_end)
    resource: dict[str, Any] = {
        "resourceType": "Encounter", "id": encounter_id(e),
        "identifier": [{"system": "urn:openemr:encounter", "value": str(e.encounter)}],
        "status": "finished" if finished else "in-progress",
        "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode",
                  "code": e.class_code, "display": CLASS.get(e.class_code, e.class_code)},
        "subject": {"reference": f"Patient/{patient_id(p)}",
                    "display": f"{p.fname} {p.lname}"},
        "period": period,
    }
    if e.reason:
        resource["reasonCode"] = [{"text": e.reason}]
    if e.facility:
        resource["serviceProvider"] = {"display": e.facility}
    return resource


# -- vital signs --------------------------------------------------------------------------
@dataclass(frozen=True)
class VitalSign:
    """One LOINC-coded vital sign and the ``form_vitals`` column behind it."""

    code: str
    display: str
    column: str | None  # None for the BP panel (two columns)
    unit: str  # UCUM code as stored (imperial where OpenEMR keeps imperial)
    low: float = 0
    high: float = 0


VITALS = [
    VitalSign("85354-9", "Blood pressure panel with all children optional", None, "mm[Hg]"),
    VitalSign("8480-6", "Systolic blood pressure", "bps", "mm[Hg]", 40, 300),
    VitalSign("8462-4", "Diastolic blood pressure", "bpd", "mm[Hg]", 20, 200),
    VitalSign("8867-4", "Heart rate", "pulse", "/min", 10, 300),
    VitalSign("9279-1", "Respiratory rate", "respiration", "/min", 2, 80),
    VitalSign("8310-5", "Body temperature", "temperature", "[degF]", 80, 115),
    VitalSign("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry",
              "oxygen_saturation", "%", 40, 100),
    VitalSign("2708-6", "Oxygen saturation in Arterial blood", "oxygen_saturation", "%", 40,
              100),
    VitalSign("29463-7", "Body weight", "weight", "[lb_av]", 0.5, 1000),
    VitalSign("8302-2", "Body height", "height", "[in_i]", 5, 108),
    VitalSign("39156-5", "Body mass index (BMI) [Ratio]", "BMI", "kg/m2", 5, 150),
    VitalSign("8280-0", "Waist Circumference at umbilicus by Tape measure", "waist_circ",
              "[in_i]", 5, 100),
    VitalSign("9843-4", "Head Occipital-frontal circumference", "head_circ", "[in_i]", 5, 40),
]
BY_CODE = {v.code: v for v in VITALS}
UNIT_DISPLAY = {"mm[Hg]": "mmHg", "/min": "/min", "[degF]": "degF", "%": "%",
                "[lb_av]": "lb", "[in_i]": "in", "kg/m2": "kg/m2"}
# accepted input units per stored unit: UCUM code -> function to the stored unit
CONVERSIONS = {
    "[lb_av]": {"[lb_av]": float, "kg": units.kg_to_lb, "g": lambda g: units.kg_to_lb(g / 1000)},
    "[in_i]": {"[in_i]": float, "cm": units.cm_to_in, "m": lambda m: units.cm_to_in(m * 100)},
    "[degF]": {"[degF]": float, "Cel": units.c_to_f},
    "mm[Hg]": {"mm[Hg]": float},
    "/min": {"/min": float, "{beats}/min": float, "{breaths}/min": float},
    "%": {"%": float},
    "kg/m2": {"kg/m2": float},
}


def _quantity(value: float, unit: str) -> dict[str, Any]:
    return {"value": round(value, 2), "unit": UNIT_DISPLAY.get(unit, unit), "system": UCUM,
            "code": unit}


def _observation(v: FormVitals, p: PatientData, encounter: FormEncounter | None,
                 sign: VitalSign) -> dict[str, Any]:
    resource: dict[str, Any] = {
        "resourceType": "Observation", "id": f"{vitals_id(v)}-{sign.code}",
        "meta": {"profile": [VITAL_SIGNS_PROFILE]},
        "status": "final",
        "category": [{"coding": [{"system": CATEGORY_SYSTEM, "code": "vital-signs",
                                  "display": "Vital Signs"}]}],
        "code": {"coding": [{"system": LOINC, "code": sign.code, "display": sign.display}],
                 "text": sign.display},
        "subject": {"reference": f"Patient/{patient_id(p)}"},
        "effectiveDateTime": fhir_datetime(v.date),
    }
    if encounter is not None:
        resource["encounter"] = {"reference": f"Encounter/{encounter_id(encounter)}"}
    if sign.column is None:
        resource["component"] = [
            {"code": {"coding": [{"system": LOINC, "code": c.code, "display": c.display}]},
             "valueQuantity": _quantity(float(getattr(v, c.column)), c.unit)}
            for c in (BY_CODE["8480-6"], BY_CODE["8462-4"]) if getattr(v, c.column)]
    else:
        resource["valueQuantity"] = _quantity(float(getattr(v, sign.column)), sign.unit)
    return resource


def present_signs(v: FormVitals) -> list[VitalSign]:
    """The vital signs a row holds (BP as the panel; SpO2 under 59408-5)."""
    signs = []
    for sign in VITALS:
        if sign.code in ("8480-6", "8462-4", "2708-6"):
            continue
        if sign.column is None:
            if v.bps or v.bpd:
                signs.append(sign)
        elif _number(getattr(v, sign.column)):
            signs.append(sign)
    return signs


def _number(value: Any) -> float:
    try:
        return float(value or 0)
    except (TypeError, ValueError):
        return 0.0


def vitals_observations(v: FormVitals, p: PatientData,
                        encounter: FormEncounter | None) -> list[dict[str, Any]]:
    return [_observation(v, p, encounter, sign) for sign in present_signs(v)]


def vitals_observation(v: FormVitals, p: PatientData, encounter: FormEncounter | None,
                       code: str) -> dict[str, Any] | None:
    sign = BY_CODE.get(code)
    if sign is None:
        return None
    if sign.column is None and not (v.bps or v.bpd):
        return None
    if sign.column is not None and not _number(getattr(v, sign.column)):
        return None
    return _observation(v, p, encounter, sign)
