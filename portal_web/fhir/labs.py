"""Orders and results as FHIR R4: ServiceRequest, Procedure, laboratory Observation.

Each test of a ``procedure_order`` (``procedure_order_code`` row) is a ServiceRequest; an
order whose status is complete is also a completed Procedure; each ``procedure_result`` of a
report is a laboratory Observation (LOINC ``result_code``, the value with its units and
reference range, ``abnormal`` as the interpretation).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal_web.fhir.clinical import codings, encounter_refs, numeric_value, patient_refs
from portal_web.fhir.common import fhir_datetime
from portal_web.fhir.resources import CATEGORY_SYSTEM, LOINC, row_uuid
from portal_web.fhir.search import Entry, coded
from sandbox.stores.ehr import ProcedureOrder, ProcedureOrderCode, ProcedureReport, ProcedureResult

CPT = "http://www.ama-assn.org/go/cpt"
SNOMED = "http://snomed.info/sct"
STATUS = {"pending": "active", "routed": "active", "scheduled": "active",
          "complete": "completed", "completed": "completed", "canceled": "revoked",
          "cancelled": "revoked"}
PRIORITY = {"normal": "routine", "high": "urgent", "stat": "stat"}
ORDER_CATEGORY = {"laboratory_test": ("108252007", "Laboratory procedure"),
                  "imaging": ("363679005", "Imaging"),
                  "procedure": ("387713003", "Surgical procedure")}
INTERPRETATION = {"no": "N", "low": "L", "high": "H", "vlow": "LL", "vhigh": "HH",
                  "yes": "A"}


def order_code(code: str) -> dict[str, str]:
    """A test code's coding: LOINC (``2345-7``) or CPT (five characters)."""
    if re.fullmatch(r"\d{1,7}-\d", code):
        return {"system": LOINC, "code": code}
    return {"system": CPT, "code": code}


def _orders(db: Session) -> list[tuple[ProcedureOrder, ProcedureOrderCode]]:
    return list(db.execute(select(ProcedureOrder, ProcedureOrderCode).join(
        ProcedureOrderCode, ProcedureOrderCode.procedure_order_id ==
        ProcedureOrder.procedure_order_id).where(ProcedureOrder.activity == 1).order_by(
        ProcedureOrder.patient_id, ProcedureOrder.date_ordered,
        ProcedureOrderCode.procedure_order_seq)).all())


def service_requests(db: Session, today: dt.date, base: str) -> list[Entry]:
    patients, encounters = patient_refs(db), encounter_refs(db)
    entries = []
    for order, test in _orders(db):
        status = STATUS.get(order.order_status, "active")
        coding = {**order_code(test.procedure_code), "display": test.procedure_name}
        category = ORDER_CATEGORY.get(order.procedure_order_type, ORDER_CATEGORY["procedure"])
        resource: dict[str, Any] = {
            "resourceType": "ServiceRequest",
            "id": row_uuid("procedure_order_code",
                           f"{order.procedure_order_id}-{test.procedure_order_seq}"),  # type: ignore[arg-type]
            "identifier": [{"system": "urn:openemr:procedure_order",
                            "value": f"{order.procedure_order_id}-{test.procedure_order_seq}"}],
            "status": status, "intent": "order",
            "category": [{"coding": [{"system": SNOMED, "code": category[0],
                                      "display": category[1]}]}],
            "priority": PRIORITY.get(order.order_priority, "routine"),
            "code": {"coding": [coding], "text": test.procedure_name},
            "subject": {"reference": f"Patient/{patients[order.patient_id]}"},
            "authoredOn": fhir_datetime(order.date_ordered),
        }
        if order.encounter_id in encounters:
            resource["encounter"] = {"reference": f"Encounter/{encounters[order.encounter_id]}"}
        when = order.date_collected or order.scheduled_date
        if when is not None:
            resource["occurrenceDateTime"] = fhir_datetime(when)
        reasons = codings(test.diagnoses or order.order_diagnosis or "")
        if reasons:
            resource["reasonCode"] = [{"coding": [c]} for c in reasons]
        if order.patient_instructions:
            resource["patientInstruction"] = order.patient_instructions
        if order.clinical_hx:
            resource["note"] = [{"text": order.clinical_hx}]
        entries.append(Entry(resource, patients[order.patient_id], order.date_ordered,
                             coded((coding["system"], coding["code"])),
                             frozenset({category[0], f"{SNOMED}|{category[0]}"}),
                             encounters.get(order.encounter_id or -1), status))
    return entries


def procedures(db: Session, today: dt.date, base: str) -> list[Entry]:
    """Completed orders as Procedures (performed when collected, else when ordered)."""
    patients, encounters = patient_refs(db), encounter_refs(db)
    entries = []
    for order, test in _orders(db):
        if STATUS.get(order.order_status) != "completed":
            continue
        coding = {**order_code(test.procedure_code), "display": test.procedure_name}
        performed = order.date_collected or order.date_ordered
        resource: dict[str, Any] = {
            "resourceType": "Procedure",
            "id": row_uuid("procedure", f"{order.procedure_order_id}-"  # type: ignore[arg-type]
                                        f"{test.procedure_order_seq}"),
            "status": "completed",
            "code": {"coding": [coding], "text": test.procedure_name},
            "subject": {"reference": f"Patient/{patients[order.patient_id]}"},
            "performedDateTime": fhir_datetime(performed),
        }
        if order.encounter_id in encounters:
            resource["encounter"] = {"reference": f"Encounter/{encounters[order.encounter_id]}"}
        entries.append(Entry(resource, patients[order.patient_id], performed,
                             coded((coding["system"], coding["code"])), frozenset(),
                             encounters.get(order.encounter_id or -1), "completed"))
    return entries


def lab_observations(db: Session, today: dt.date, base: str) -> list[Entry]:
    patients, encounters = patient_refs(db), encounter_refs(db)
    rows = db.execute(select(ProcedureResult, ProcedureReport, ProcedureOrder).join(
        ProcedureReport, ProcedureReport.procedure_report_id ==
        ProcedureResult.procedure_report_id).join(
        ProcedureOrder, ProcedureOrder.procedure_order_id ==
        ProcedureReport.procedure_order_id).order_by(
        ProcedureOrder.patient_id, ProcedureResult.procedure_result_id)).all()
    entries = []
    for result, report, order in rows:
        code = result.result_code or ""
        when = report.date_collected or result.date or report.date_report or order.date_ordered
        status = {"final": "final", "prelim": "preliminary", "preliminary": "preliminary",
                  "corrected": "corrected", "cancel": "cancelled"}.get(
            result.result_status or report.report_status, "final")
        coding = {"system": LOINC, "code": code, "display": result.result_text or code}
        resource: dict[str, Any] = {
            "resourceType": "Observation",
            "id": row_uuid("procedure_result", result.procedure_result_id, result.uuid),
            "meta": {"profile": ["http://hl7.org/fhir/us/core/StructureDefinition/"
                                 "us-core-observation-lab"]},
            "status": status,
            "category": [{"coding": [{"system": CATEGORY_SYSTEM, "code": "laboratory",
                                      "display": "Laboratory"}]}],
            "code": {"coding": [coding] if code else [], "text": result.result_text or code},
            "subject": {"reference": f"Patient/{patients[order.patient_id]}"},
            "effectiveDateTime": fhir_datetime(when),
        }
        if not code:
            resource["code"].pop("coding")
        if report.date_report:
            resource["issued"] = fhir_datetime(report.date_report)
        if order.encounter_id in encounters:
            resource["encounter"] = {"reference": f"Encounter/{encounters[order.encounter_id]}"}
        value = (result.result or "").strip()
        number = numeric_value(value)
        if result.result_data_type != "S" and number is not None:
            quantity: dict[str, Any] = {"value": number}
            if result.units:
                quantity["unit"] = result.units
            resource["valueQuantity"] = quantity
        elif value:
            resource["valueString"] = value
        else:
            resource["dataAbsentReason"] = {"coding": [{
                "system": "http://terminology.hl7.org/CodeSystem/data-absent-reason",
                "code": "unknown"}]}
        if result.range:
            resource["referenceRange"] = [{"text": result.range}]
        flag = INTERPRETATION.get((result.abnormal or "").lower())
        if flag:
            resource["interpretation"] = [{"coding": [{
                "system": "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation",
                "code": flag}]}]
        if result.comments:
            resource["note"] = [{"text": result.comments}]
        entries.append(Entry(resource, patients[order.patient_id], when,
                             coded((LOINC, code)),
                             frozenset({"laboratory", f"{CATEGORY_SYSTEM}|laboratory"}),
                             encounters.get(order.encounter_id or -1), status))
    return entries
