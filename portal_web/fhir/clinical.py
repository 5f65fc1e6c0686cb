"""Problems, allergies, medications and prescriptions as FHIR R4 resources.

Mapped the way OpenEMR's own FHIR API maps them: ``lists`` rows of type
``medical_problem`` are Conditions (problem-list items), ``allergy`` AllergyIntolerances,
``medication`` MedicationStatements, ``surgery`` Procedures; ``prescriptions`` rows are
MedicationRequests. ``activity = 0`` means deleted (not served); an ``enddate`` on or
before today makes a problem resolved, an allergy inactive, a medication completed.
Coded values stored as ``ICD10:M51.16`` / ``RXCUI:617312`` become codings.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal_web.fhir.common import fhir_datetime
from portal_web.fhir.resources import row_uuid
from portal_web.fhir.search import Entry, coded
from sandbox.stores.ehr import FormEncounter, ListOption, Lists, PatientData, Prescription

SYSTEMS = {"ICD10": "http://hl7.org/fhir/sid/icd-10-cm",
           "ICD10-CM": "http://hl7.org/fhir/sid/icd-10-cm",
           "SNOMED-CT": "http://snomed.info/sct", "SNOMED": "http://snomed.info/sct",
           "RXCUI": "http://www.nlm.nih.gov/research/umls/rxnorm",
           "RXNORM": "http://www.nlm.nih.gov/research/umls/rxnorm",
           "CPT4": "http://www.ama-assn.org/go/cpt", "LOINC": "http://loinc.org"}
CLINICAL = "http://terminology.hl7.org/CodeSystem/condition-clinical"
VERIFICATION = "http://terminology.hl7.org/CodeSystem/condition-ver-status"
ALLERGY_CLINICAL = "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical"
ALLERGY_VERIFICATION = "http://terminology.hl7.org/CodeSystem/allergyintolerance-verification"
SEVERITY = {"mild": "mild", "mild_to_moderate": "mild", "moderate": "moderate",
            "moderate_to_severe": "moderate", "severe": "severe",
            "life_threatening_severity": "severe", "fatal": "severe"}


def patient_refs(db: Session) -> dict[int, str]:
    """pid → FHIR Patient id."""
    return {p.pid: row_uuid("patient_data", p.pid, p.uuid)
            for p in db.scalars(select(PatientData))}


def encounter_refs(db: Session) -> dict[int, str]:
    """encounter number → FHIR Encounter id."""
    return {e.encounter: row_uuid("form_encounter", e.encounter, e.uuid)
            for e in db.scalars(select(FormEncounter))}


def codings(value: str | None, display: str | None = None) -> list[dict[str, str]]:
    """``ICD10:M51.16;SNOMED-CT:123`` → codings with known systems."""
    found = []
    for part in (value or "").replace(",", ";").split(";"):
        scheme, _, code = part.strip().partition(":")
        system = SYSTEMS.get(scheme.strip().upper())
        if system and code.strip():
            coding = {"system": system, "code": code.strip()}
            if display:
                coding["display"] = display
            found.append(coding)
    return found


def _coded(codes: list[dict[str, str]]) -> frozenset[str]:
    return coded(*[(c["system"], c["code"]) for c in codes])


def _ended(row: Lists, today: dt.date) -> bool:
    return row.enddate is not None and row.enddate <= today


def _note(text: str | None) -> list[dict[str, str]]:
    return [{"text": text}] if text and text.strip() else []


def _lists(db: Session, kind: str) -> list[Lists]:
    return list(db.scalars(select(Lists).where(Lists.type == kind, Lists.activity == 1)
                           .order_by(Lists.pid, Lists.begdate, Lists.id)))


def conditions(db: Session, today: dt.date, base: str) -> list[Entry]:
    patients = patient_refs(db)
    entries = []
    for row in _lists(db, "medical_problem"):
        status = "resolved" if _ended(row, today) else "active"
        codes = codings(row.diagnosis, row.title)
        resource: dict[str, Any] = {
            "resourceType": "Condition", "id": row_uuid("lists", row.id, row.uuid),
            "meta": {"profile": ["http://hl7.org/fhir/us/core/StructureDefinition/"
                                 "us-core-condition-problems-health-concerns"]},
            "clinicalStatus": {"coding": [{"system": CLINICAL, "code": status}]},
            "verificationStatus": {"coding": [{"system": VERIFICATION, "code":
                                               "unconfirmed" if row.verification == "unconfirmed"
                                               else "confirmed"}]},
            "category": [{"coding": [{
                "system": "http://terminology.hl7.org/CodeSystem/condition-category",
                "code": "problem-list-item", "display": "Problem List Item"}]}],
            "code": {"coding": codes, "text": row.title} if codes else {"text": row.title},
            "subject": {"reference": f"Patient/{patients[row.pid]}"},
            "recordedDate": fhir_datetime(row.date),
        }
        if row.begdate:
            resource["onsetDateTime"] = row.begdate.isoformat()
        if row.enddate:
            resource["abatementDateTime"] = row.enddate.isoformat()
        if _note(row.comments):
            resource["note"] = _note(row.comments)
        entries.append(Entry(resource, patients[row.pid], row.begdate or row.date.date(),
                             _coded(codes), frozenset({"problem-list-item"}), None, status))
    return entries


def allergies(db: Session, today: dt.date, base: str) -> list[Entry]:
    patients = patient_refs(db)
    reactions = {o.option_id: o.title for o in db.scalars(select(ListOption).where(
        ListOption.list_id == "reaction"))}
    entries = []
    for row in _lists(db, "allergy"):
        status = "inactive" if _ended(row, today) else "active"
        codes = codings(row.diagnosis, row.title)
        resource: dict[str, Any] = {
            "resourceType": "AllergyIntolerance", "id": row_uuid("lists", row.id, row.uuid),
            "meta": {"profile": ["http://hl7.org/fhir/us/core/StructureDefinition/"
                                 "us-core-allergyintolerance"]},
            "clinicalStatus": {"coding": [{"system": ALLERGY_CLINICAL, "code": status}]},
            "verificationStatus": {"coding": [{"system": ALLERGY_VERIFICATION, "code":
                                               "unconfirmed" if row.verification == "unconfirmed"
                                               else "confirmed"}]},
            "code": {"coding": codes, "text": row.title} if codes else {"text": row.title},
            "patient": {"reference": f"Patient/{patients[row.pid]}"},
            "recordedDate": fhir_datetime(row.date),
        }
        if row.begdate:
            resource["onsetDateTime"] = row.begdate.isoformat()
        severity = SEVERITY.get(row.severity_al or "")
        if row.reaction:
            reaction: dict[str, Any] = {"manifestation": [{"text": reactions.get(
                row.reaction, row.reaction.replace("_", " "))}]}
            if severity:
                reaction["severity"] = severity
            resource["reaction"] = [reaction]
        if row.severity_al in ("severe", "life_threatening_severity", "fatal"):
            resource["criticality"] = "high"
        if _note(row.comments):
            resource["note"] = _note(row.comments)
        entries.append(Entry(resource, patients[row.pid], row.begdate or row.date.date(),
                             _coded(codes), frozenset(), None, status))
    return entries


def medication_statements(db: Session, today: dt.date, base: str) -> list[Entry]:
    patients = patient_refs(db)
    entries = []
    for row in _lists(db, "medication"):
        status = "completed" if _ended(row, today) else "active"
        codes = codings(row.diagnosis, row.title)
        resource: dict[str, Any] = {
            "resourceType": "MedicationStatement", "id": row_uuid("lists", row.id, row.uuid),
            "status": status,
            "medicationCodeableConcept": {"coding": codes, "text": row.title} if codes
            else {"text": row.title},
            "subject": {"reference": f"Patient/{patients[row.pid]}"},
            "dateAsserted": fhir_datetime(row.date),
        }
        period = {k: v.isoformat() for k, v in (("start", row.begdate), ("end", row.enddate))
                  if v is not None}
        if period:
            resource["effectivePeriod"] = period
        if _note(row.comments):
            resource["note"] = _note(row.comments)
        entries.append(Entry(resource, patients[row.pid], row.begdate or row.date.date(),
                             _coded(codes), frozenset(), None, status))
    return entries


def medication_requests(db: Session, today: dt.date, base: str) -> list[Entry]:
    patients = patient_refs(db)
    encounters = encounter_refs(db)
    entries = []
    for row in db.scalars(select(Prescription).order_by(Prescription.patient_id,
                                                        Prescription.date_added)):
        if row.erx_status == "draft":
            continue  # not yet an order
        ended = row.end_date is not None and row.end_date < today
        status = "active" if row.active and not ended else ("completed" if ended else "stopped")
        codes = [{"system": SYSTEMS["RXCUI"], "code": row.rxnorm_drugcode,
                  "display": row.drug}] if row.rxnorm_drugcode else []
        sig = row.drug_dosage_instructions or " ".join(
            p for p in (row.dosage, row.unit, row.route) if p)
        resource: dict[str, Any] = {
            "resourceType": "MedicationRequest",
            "id": row_uuid("prescriptions", row.id, row.uuid),
            "meta": {"profile": ["http://hl7.org/fhir/us/core/StructureDefinition/"
                                 "us-core-medicationrequest"]},
            "status": status, "intent": "order",
            "category": [{"coding": [{
                "system": "http://terminology.hl7.org/CodeSystem/medicationrequest-category",
                "code": "inpatient" if row.care_setting == "inpatient" else "community"}]}],
            "medicationCodeableConcept": {"coding": codes, "text": row.drug} if codes
            else {"text": row.drug},
            "subject": {"reference": f"Patient/{patients[row.patient_id]}"},
            "authoredOn": fhir_datetime(row.date_added),
            "dispenseRequest": {"numberOfRepeatsAllowed": int(row.refills or 0)},
        }
        if row.encounter in encounters:
            resource["encounter"] = {"reference": f"Encounter/{encounters[row.encounter]}"}
        if sig:
            resource["dosageInstruction"] = [{"text": sig}]
        quantity = (row.quantity or "").split()
        if quantity and numeric_value(quantity[0]) is not None:
            amount: dict[str, Any] = {"value": numeric_value(quantity[0])}
            if len(quantity) > 1:
                amount["unit"] = " ".join(quantity[1:])
            resource["dispenseRequest"]["quantity"] = amount
        if row.days_supply:
            resource["dispenseRequest"]["expectedSupplyDuration"] = {
                "value": row.days_supply, "unit": "days",
                "system": "http://unitsofmeasure.org", "code": "d"}
        reasons = codings(row.diagnosis)
        if reasons:
            resource["reasonCode"] = [{"coding": [c]} for c in reasons]
        if _note(row.note):
            resource["note"] = _note(row.note)
        entries.append(Entry(resource, patients[row.patient_id], row.date_added,
                             _coded(codes), frozenset({resource["category"][0]["coding"][0][
                                 "code"]}), encounters.get(row.encounter), status))
    return entries


def surgeries(db: Session, today: dt.date, base: str) -> list[Entry]:
    """Surgical history (``lists`` type ``surgery``) as completed Procedures."""
    patients = patient_refs(db)
    entries = []
    for row in _lists(db, "surgery"):
        codes = codings(row.diagnosis, row.title)
        resource: dict[str, Any] = {
            "resourceType": "Procedure", "id": row_uuid("lists", row.id, row.uuid),
            "status": "completed",
            "code": {"coding": codes, "text": row.title} if codes else {"text": row.title},
            "subject": {"reference": f"Patient/{patients[row.pid]}"},
        }
        if row.begdate:
            resource["performedDateTime"] = row.begdate.isoformat()
        if _note(row.comments):
            resource["note"] = _note(row.comments)
        entries.append(Entry(resource, patients[row.pid], row.begdate, _coded(codes),
                             frozenset(), None, "completed"))
    return entries


def numeric_value(text: str) -> float | int | None:
    """A Quantity's value from stored text: an int when whole, else a float; None for text
    that is not a number."""
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() else value
