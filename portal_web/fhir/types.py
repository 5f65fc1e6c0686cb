"""The resource types this FHIR server serves, registered with their search parameters.

Patient, Encounter and Observation (vital signs from ``form_vitals``, laboratory results
from ``procedure_result``) plus the types of :mod:`portal_web.fhir.clinical`,
:mod:`portal_web.fhir.labs` and :mod:`portal_web.fhir.documents`.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal_web.fhir import clinical, documents, labs
from portal_web.fhir import resources as fr
from portal_web.fhir.search import Entry, ResourceType, coded, register
from sandbox.stores.ehr import Form, FormEncounter, FormVitals, PatientData

US_CORE = "http://hl7.org/fhir/us/core/StructureDefinition/"


# -- Patient / Encounter ----------------------------------------------------------------------------
def patients(db: Session) -> list[PatientData]:
    return list(db.scalars(select(PatientData).order_by(PatientData.pid)))


def find_patient(db: Session, fhir_id: str) -> PatientData | None:
    return next((p for p in patients(db) if fr.patient_id(p) == fhir_id), None)


def encounters_with_patients(db: Session) -> list[tuple[FormEncounter, PatientData]]:
    return list(db.execute(select(FormEncounter, PatientData).join(
        PatientData, PatientData.pid == FormEncounter.pid).order_by(FormEncounter.date)).all())


def _patients(db: Session, today: dt.date, base: str) -> list[Entry]:
    entries = []
    for p in patients(db):
        resource = fr.patient_resource(p)
        names = tuple(n for n in (p.fname, p.mname, p.lname) if n)
        entries.append(Entry(
            resource, fr.patient_id(p), p.DOB, strings={
                "name": names, "family": (p.lname,), "given": tuple(
                    n for n in (p.fname, p.mname) if n)},
            tokens={"identifier": coded((fr.MRN_SYSTEM, p.pubpid)),
                    "gender": frozenset({resource["gender"]})}))
    return entries


def _encounters(db: Session, today: dt.date, base: str) -> list[Entry]:
    entries = []
    for e, p in encounters_with_patients(db):
        resource = fr.encounter_resource(e, p, today)
        entries.append(Entry(resource, fr.patient_id(p), e.date, status=resource["status"],
                             tokens={"class": coded((None, e.class_code))}))
    return entries


# -- Observation ----------------------------------------------------------------------------------------
def vitals_rows(db: Session) -> list[tuple[FormVitals, PatientData, FormEncounter | None]]:
    rows = db.execute(select(FormVitals, PatientData).join(
        PatientData, PatientData.pid == FormVitals.pid).where(FormVitals.activity == 1)
        .order_by(FormVitals.date, FormVitals.id)).all()
    links = {f.form_id: f.encounter for f in db.scalars(select(Form).where(
        Form.formdir == "vitals", Form.deleted == 0))}
    encounters = {e.encounter: e for e in db.scalars(select(FormEncounter))}
    return [(v, p, encounters.get(links.get(v.id))) for v, p in rows]


SEARCH_ALIASES = {"85354-9": ("8480-6", "8462-4"), "59408-5": ("2708-6",)}


def _observations(db: Session, today: dt.date, base: str) -> list[Entry]:
    entries = []
    for v, p, e in vitals_rows(db):
        for resource in fr.vitals_observations(v, p, e):
            code = resource["code"]["coding"][0]["code"]
            codes = [code, *SEARCH_ALIASES.get(code, ())]
            entries.append(Entry(
                resource, fr.patient_id(p), v.date,
                coded(*[(fr.LOINC, c) for c in codes]),
                frozenset({"vital-signs", f"{fr.CATEGORY_SYSTEM}|vital-signs"}),
                fr.encounter_id(e) if e is not None else None, "final"))
    entries.extend(labs.lab_observations(db, today, base))
    return entries


def _procedures(db: Session, today: dt.date, base: str) -> list[Entry]:
    return labs.procedures(db, today, base) + clinical.surgeries(db, today, base)


CLINICAL_STATUS = ("clinical-status",)
TYPES = [
    ResourceType("Patient", _patients, (
        ("identifier", "token"), ("name", "string"), ("family", "string"), ("given", "string"),
        ("gender", "token"), ("birthdate", "date")), date_params=("birthdate",),
        profile=US_CORE + "us-core-patient"),
    ResourceType("Encounter", _encounters, (("patient", "reference"), ("subject", "reference"),
                                            ("date", "date"), ("status", "token"),
                                            ("class", "token")),
                 status_params=("status",), includes=("patient", "subject"),
                 profile=US_CORE + "us-core-encounter"),
    ResourceType("Observation", _observations, (
        ("patient", "reference"), ("subject", "reference"), ("category", "token"),
        ("code", "token"), ("date", "date"), ("encounter", "reference"), ("status", "token")),
        status_params=("status",), includes=("patient", "subject", "encounter")),
    ResourceType("Condition", clinical.conditions, (
        ("patient", "reference"), ("subject", "reference"), ("category", "token"),
        ("code", "token"), ("clinical-status", "token"), ("onset-date", "date")),
        date_params=("onset-date",), status_params=CLINICAL_STATUS,
        includes=("patient", "subject"),
        profile=US_CORE + "us-core-condition-problems-health-concerns"),
    ResourceType("AllergyIntolerance", clinical.allergies, (
        ("patient", "reference"), ("clinical-status", "token"), ("code", "token")),
        date_params=(), status_params=CLINICAL_STATUS, includes=("patient",),
        profile=US_CORE + "us-core-allergyintolerance"),
    ResourceType("MedicationStatement", clinical.medication_statements, (
        ("patient", "reference"), ("subject", "reference"), ("status", "token"),
        ("code", "token"), ("effective", "date")), date_params=("effective",),
        status_params=("status",), includes=("patient", "subject")),
    ResourceType("MedicationRequest", clinical.medication_requests, (
        ("patient", "reference"), ("subject", "reference"), ("status", "token"),
        ("intent", "token"), ("category", "token"), ("code", "token"),
        ("authoredon", "date"), ("encounter", "reference")),
        date_params=("authoredon",), status_params=("status",),
        includes=("patient", "subject", "encounter"),
        profile=US_CORE + "us-core-medicationrequest"),
    ResourceType("Procedure", _procedures, (
        ("patient", "reference"), ("subject", "reference"), ("code", "token"),
        ("date", "date"), ("status", "token"), ("encounter", "reference")),
        status_params=("status",), includes=("patient", "subject"),
        profile=US_CORE + "us-core-procedure"),
    ResourceType("ServiceRequest", labs.service_requests, (
        ("patient", "reference"), ("subject", "reference"), ("code", "token"),
        ("category", "token"), ("authored", "date"), ("status", "token"),
        ("encounter", "reference")), date_params=("authored",), status_params=("status",),
        includes=("patient", "subject", "encounter"), profile=US_CORE + "us-core-servicerequest"),
    ResourceType("DocumentReference", documents.document_references, (
        ("patient", "reference"), ("subject", "reference"), ("category", "token"),
        ("type", "token"), ("date", "date"), ("status", "token"), ("encounter", "reference")),
        status_params=("status",), includes=("patient", "subject", "encounter"),
        profile=US_CORE + "us-core-documentreference"),
]
for _kind in TYPES:
    register(_kind)
