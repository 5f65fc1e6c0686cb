"""The data steps of the request wizard: what each shows, checks and saves.

A step is a :class:`Step`: ``values`` gives the form its saved values (text), ``read``
checks a posted form (inline messages on the reader; ``strict`` False for "Save draft and
exit", which lets required fields stay empty), ``write`` stores what changed inside the
caller's write transaction.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal_web.acme import questionnaire as qn
from portal_web.acme import wizard
from portal_web.acme.casefacts import (
    ADMISSION_SOURCES,
    ADMISSION_TYPES,
    CLINICAL_URGENCIES,
    NDC_PATTERN,
    OUTCOME_MEASURES,
    PLACES_OF_SERVICE,
    UNIT_TYPES,
    URGENCIES,
    code_type_of,
    read_code,
    read_diagnoses,
    read_npi,
    read_taxonomy,
    read_tin,
)
from portal_web.common.forms import FieldReader
from sandbox.clock import business_days_after
from sandbox.stores.acme import (
    AdmissionNotification,
    AuthExtension,
    NetworkException,
    PaAnswer,
    PaCase,
    PaRule,
    Provider,
)

Values = dict[str, Any]
DATE_SPAN = dt.timedelta(days=366)


def _s(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _diag_text(codes: str | None) -> str:
    return "\n".join(c for c in (codes or "").split(",") if c)


def _date_range(r: FieldReader, today: dt.date, strict: bool, *, start: str = "service_from",
                end: str = "service_to", label: str = "Service",
                past_days: int = 365) -> tuple[dt.date | None, dt.date | None]:
    begin = r.date(start, f"{label} start date", required=strict,
                   earliest=today - dt.timedelta(days=past_days), latest=today + DATE_SPAN)
    finish = r.date(end, f"{label} end date", required=strict,
                    earliest=today - dt.timedelta(days=past_days), latest=today + 2 * DATE_SPAN)
    if begin and finish:
        if finish < begin:
            r.fail(end, f"{label} end date cannot be before the start date "
                        f"({begin.isoformat()}).")
        elif finish - begin > DATE_SPAN:
            r.fail(end, f"{label} dates may span at most one year; request the rest later.")
    return begin, finish


class Step:
    name = ""
    template = "step_data.html"  # includes the step's fields from _fields_<name>.html

    def values(self, db: Session, case: PaCase) -> Values:
        return {}

    def context(self, db: Session, case: PaCase) -> Values:
        return {}

    def read(self, r: FieldReader, db: Session, case: PaCase, today: dt.date,
             strict: bool) -> Values:
        return {}

    def write(self, db: Session, case: PaCase, values: Values, now: dt.datetime) -> None:
        wizard.set_changed(case, values)


# -- providers -----------------------------------------------------------------------------
ROLES = ("requesting", "rendering", "facility")


def provider_labels(case_type: str) -> dict[str, str]:
    return {
        "inpatient_notification": {"requesting": "Requesting provider (submitting office)",
                                   "rendering": "Attending physician",
                                   "facility": "Admitting facility"},
        "pharmacy": {"requesting": "Prescriber", "rendering": "", "facility": ""},
        "network_exception": {"requesting": "Requesting (referring) provider",
                              "rendering": "Requested out-of-network provider",
                              "facility": "Facility (if any)"},
    }.get(case_type, {"requesting": "Requesting (ordering) provider",
                      "rendering": "Rendering (servicing) provider",
                      "facility": "Facility (if any)"})


def directory_entry(db: Session, npi: str | None) -> Provider | None:
    return db.scalar(select(Provider).where(Provider.npi == npi)) if npi else None


def provider_name(entry: Provider) -> str:
    if entry.first_name or entry.last_name:
        name = " ".join(p for p in (entry.first_name, entry.last_name) if p)
        return f"Dr. {name}" if entry.credential in ("MD", "DO") else \
            f"{name}, {entry.credential}" if entry.credential else name
    return entry.organization


class ProviderStep(Step):
    name = "provider"

    def values(self, db: Session, case: PaCase) -> Values:
        out = {}
        for role in ("requesting", "rendering"):
            for part in ("npi", "name", "tin", "taxonomy"):
                out[f"{role}_{part}"] = _s(getattr(case, f"{role}_{part}"))
        out["facility_npi"] = _s(case.facility_npi)
        out["facility_name"] = _s(case.facility_name)
        return out

    def context(self, db: Session, case: PaCase) -> Values:
        labels = provider_labels(case.case_type)
        network = {}
        for role in ("requesting", "rendering", "facility"):
            entry = directory_entry(db, getattr(case, f"{role}_npi"))
            network[role] = entry.network_status if entry else None
        return {"labels": labels, "network": network}

    def read(self, r: FieldReader, db: Session, case: PaCase, today: dt.date,
             strict: bool) -> Values:
        labels = provider_labels(case.case_type)
        values: Values = {}
        for role in ("requesting", "rendering"):
            if not labels[role]:
                continue
            needed = strict and (role == "requesting" or case.case_type != "pharmacy")
            label = labels[role].split(" (")[0]
            values[f"{role}_npi"] = read_npi(r, f"{role}_npi", f"{label} NPI", required=needed)
            values[f"{role}_name"] = r.text(f"{role}_name", f"{label} name", max_len=120,
                                            required=needed)
            tin_needed = needed and case.case_type == "network_exception" \
                and role == "rendering"
            values[f"{role}_tin"] = read_tin(r, f"{role}_tin", f"{label} TIN",
                                             required=tin_needed)
            values[f"{role}_taxonomy"] = read_taxonomy(r, f"{role}_taxonomy",
                                                       f"{label} taxonomy", required=needed)
        if labels["facility"]:
            needed = strict and case.case_type == "inpatient_notification"
            values["facility_npi"] = read_npi(r, "facility_npi", "Facility NPI",
                                              required=needed)
            values["facility_name"] = r.text("facility_name", "Facility name", max_len=120,
                                             required=needed)
        return values

    def write(self, db: Session, case: PaCase, values: Values, now: dt.datetime) -> None:
        wizard.set_changed(case, values)
        if case.case_type == "inpatient_notification":
            detail = wizard.detail_of(db, case)
            if detail is not None:
                wizard.set_changed(detail, {"attending_npi": case.rendering_npi,
                                            "attending_name": case.rendering_name})


def fill_from_directory(r: FieldReader, db: Session, role: str) -> str | None:
    """The provider-directory entry of the NPI typed for ``role`` copied into the form
    (name, TIN, taxonomy): what "Find" does. Returns a message when nothing was found."""
    npi = r.raw.get(f"{role}_npi", "").strip()
    entry = directory_entry(db, npi)
    if entry is None:
        return (f"No provider with NPI {npi[:12]} is in the Acme directory; enter the name, "
                "TIN and taxonomy yourself.") if npi else "Enter an NPI to find."
    r.raw[f"{role}_name"] = provider_name(entry)
    if role != "facility":
        r.raw[f"{role}_tin"] = entry.tin
        r.raw[f"{role}_taxonomy"] = entry.taxonomy
    return None


# -- service -------------------------------------------------------------------------------
def catalog_description(db: Session, code: str) -> str:
    return db.scalar(select(PaRule.description).where(PaRule.code == code).limit(1)) or ""


def refresh_questionnaire(db: Session, case: PaCase) -> None:
    """Choose the questionnaire for the service or drug; answers of another one go."""
    chosen = qn.for_case(db, code=case.service_code, drug_name=case.drug_name)
    new_id = chosen.id if chosen is not None else None
    if case.questionnaire_id != new_id:
        for answer in db.scalars(select(PaAnswer).where(PaAnswer.case_id == case.id)):
            db.delete(answer)
        case.questionnaire_id = new_id


class ServiceStep(Step):
    name = "service"

    def values(self, db: Session, case: PaCase) -> Values:
        return {"service_code": _s(case.service_code),
                "service_description": _s(case.service_description),
                "service_modifier": _s(case.service_modifier), "units": _s(case.units),
                "unit_type": case.unit_type or "units", "service_from": _s(case.service_from),
                "service_to": _s(case.service_to),
                "place_of_service": _s(case.place_of_service),
                "icd10_codes": _diag_text(case.icd10_codes), "urgency": case.urgency,
                "clinical_summary": case.clinical_summary or ""}

    def context(self, db: Session, case: PaCase) -> Values:
        from portal_web.acme.views.lookup import code_catalog

        return {"catalog": code_catalog(db), "places": list(PLACES_OF_SERVICE.items()),
                "unit_types": list(UNIT_TYPES.items()), "urgencies": list(URGENCIES.items())}

    def read(self, r: FieldReader, db: Session, case: PaCase, today: dt.date,
             strict: bool) -> Values:
        code = read_code(r, "service_code", "Procedure code", required=strict)
        description = r.text("service_description", "Description", max_len=200)
        modifier = r.text("service_modifier", "Modifier", max_len=8)
        if modifier and not modifier.replace(",", "").isalnum():
            r.fail("service_modifier", "Modifier: two letters or digits, e.g. RT or 59.")
        begin, finish = _date_range(r, today, strict)
        values = {
            "service_code": code,
            "service_code_type": code_type_of(code) if code else None,
            "service_description": description or (catalog_description(db, code)
                                                   if code else None),
            "service_modifier": modifier.upper() if modifier else None,
            "units": r.integer("units", "Units", low=1, high=999, required=strict),
            "unit_type": r.choice("unit_type", "Unit type", UNIT_TYPES, required=strict),
            "service_from": begin, "service_to": finish,
            "place_of_service": r.choice("place_of_service", "Place of service",
                                         PLACES_OF_SERVICE, required=strict),
            "icd10_codes": read_diagnoses(r, "icd10_codes", required=strict),
            "urgency": r.choice("urgency", "Urgency", URGENCIES) or "standard",
            "clinical_summary": r.text("clinical_summary", "Clinical summary",
                                       max_len=4000) or "",
        }
        return values

    def write(self, db: Session, case: PaCase, values: Values, now: dt.datetime) -> None:
        wizard.set_changed(case, values)
        if case.case_type == "outpatient":
            refresh_questionnaire(db, case)


# -- medication ----------------------------------------------------------------------------
DRUGS = ("adalimumab", "etanercept", "infliximab", "tocilizumab", "secukinumab",
         "ustekinumab", "dupilumab", "omalizumab", "semaglutide", "denosumab")


class DrugStep(Step):
    name = "drug"

    def values(self, db: Session, case: PaCase) -> Values:
        return {"drug_name": _s(case.drug_name), "drug_strength": _s(case.drug_strength),
                "drug_ndc": _s(case.drug_ndc), "drug_quantity": _s(case.drug_quantity),
                "days_supply": _s(case.days_supply), "drug_sig": _s(case.drug_sig),
                "service_code": _s(case.service_code), "service_from": _s(case.service_from),
                "service_to": _s(case.service_to),
                "icd10_codes": _diag_text(case.icd10_codes), "urgency": case.urgency,
                "clinical_summary": case.clinical_summary or ""}

    def context(self, db: Session, case: PaCase) -> Values:
        return {"drugs": DRUGS, "urgencies": list(URGENCIES.items())}

    def read(self, r: FieldReader, db: Session, case: PaCase, today: dt.date,
             strict: bool) -> Values:
        ndc = r.raw.get("drug_ndc", "").strip()
        if ndc and not NDC_PATTERN.fullmatch(ndc):
            r.fail("drug_ndc", "NDC: 11 digits, or the 10-digit form with dashes "
                               "(e.g. 0074-0554-02).")
        code = read_code(r, "service_code", "HCPCS code")
        begin, finish = _date_range(r, today, False, label="Therapy")
        return {
            "drug_name": r.text("drug_name", "Drug name", required=strict, max_len=120),
            "drug_strength": r.text("drug_strength", "Strength", required=strict, max_len=60),
            "drug_ndc": ndc or None,
            "drug_quantity": r.text("drug_quantity", "Quantity", required=strict, max_len=30),
            "days_supply": r.integer("days_supply", "Days supply", low=1, high=365,
                                     required=strict),
            "drug_sig": r.text("drug_sig", "Directions (sig)", required=strict, max_len=200),
            "service_code": code, "service_code_type": code_type_of(code) if code else None,
            "service_from": begin, "service_to": finish,
            "icd10_codes": read_diagnoses(r, "icd10_codes", required=strict),
            "urgency": r.choice("urgency", "Urgency", URGENCIES) or "standard",
            "clinical_summary": r.text("clinical_summary", "Clinical summary",
                                       max_len=4000) or "",
        }

    def write(self, db: Session, case: PaCase, values: Values, now: dt.datetime) -> None:
        wizard.set_changed(case, values)
        refresh_questionnaire(db, case)


# -- admission -----------------------------------------------------------------------------
class AdmissionStep(Step):
    name = "admission"

    def values(self, db: Session, case: PaCase) -> Values:
        detail = wizard.detail_of(db, case)
        admit = detail.admit_at if detail else None
        discharge = detail.discharge_at if detail else None
        return {"admit_date": _s(admit.date() if admit else None),
                "admit_time": admit.strftime("%H:%M") if admit else "",
                "admission_type": _s(detail.admission_type if detail else None),
                "admission_source": _s(detail.admission_source if detail else None),
                "expected_los_days": _s(detail.expected_los_days if detail else None),
                "discharge_date": _s(discharge.date() if discharge else None),
                "discharge_time": discharge.strftime("%H:%M") if discharge else "",
                "icd10_codes": _diag_text(case.icd10_codes),
                "clinical_summary": case.clinical_summary or ""}

    def context(self, db: Session, case: PaCase) -> Values:
        return {"admission_types": list(ADMISSION_TYPES.items()),
                "admission_sources": list(ADMISSION_SOURCES.items())}

    def read(self, r: FieldReader, db: Session, case: PaCase, today: dt.date,
             strict: bool) -> Values:
        day = r.date("admit_date", "Admission date", required=strict,
                     earliest=today - dt.timedelta(days=90), latest=today)
        time = r.time("admit_time", "Admission time", required=strict)
        out_day = r.date("discharge_date", "Discharge date", latest=today)
        out_time = r.time("discharge_time", "Discharge time")
        admit = dt.datetime.combine(day, time) if day and time else None
        discharge = dt.datetime.combine(out_day, out_time or dt.time()) if out_day else None
        if admit and discharge and discharge < admit:
            r.fail("discharge_date", "Discharge cannot be before the admission.")
        return {
            "admit_at": admit, "discharge_at": discharge,
            "admission_type": r.choice("admission_type", "Admission type", ADMISSION_TYPES,
                                       required=strict),
            "admission_source": r.choice("admission_source", "Admission source",
                                         ADMISSION_SOURCES),
            "expected_los_days": r.integer("expected_los_days", "Expected length of stay",
                                           low=1, high=365, unit="days"),
            "icd10_codes": read_diagnoses(r, "icd10_codes", "Admitting diagnoses",
                                          required=strict),
            "clinical_summary": r.text("clinical_summary", "Clinical summary",
                                       max_len=4000) or "",
        }

    def write(self, db: Session, case: PaCase, values: Values, now: dt.datetime) -> None:
        detail = wizard.detail_of(db, case)
        if detail is None:
            detail = AdmissionNotification(case_id=case.id)
            db.add(detail)
        admit = values["admit_at"]
        wizard.set_changed(detail, {
            "admit_at": admit, "discharge_at": values["discharge_at"],
            "admission_type": values["admission_type"],
            "admission_source": values["admission_source"],
            "expected_los_days": values["expected_los_days"],
            "attending_npi": case.rendering_npi, "attending_name": case.rendering_name,
            "notification_due": business_days_after(admit.date(), 2) if admit else None})
        wizard.set_changed(case, {
            "icd10_codes": values["icd10_codes"], "clinical_summary": values["clinical_summary"],
            "place_of_service": "21", "unit_type": "days",
            "units": values["expected_los_days"],
            "service_from": admit.date() if admit else None})


# -- extension -----------------------------------------------------------------------------
class ExtensionStep(Step):
    name = "extension"

    def values(self, db: Session, case: PaCase) -> Values:
        d = wizard.detail_of(db, case)
        return {"units": _s(case.units), "unit_type": case.unit_type or "visits",
                "service_from": _s(case.service_from), "service_to": _s(case.service_to),
                "visits_used": _s(d.visits_used if d else None),
                "outcome_measure": _s(d.outcome_measure if d else None),
                "baseline_score": _s(d.baseline_score if d else None),
                "current_score": _s(d.current_score if d else None),
                "goal_score": _s(d.goal_score if d else None),
                "pain_score": _s(d.pain_score if d else None),
                "goals": d.goals if d else "", "progress_summary": d.progress_summary if d else ""}

    def context(self, db: Session, case: PaCase) -> Values:
        return {"parent": db.get(PaCase, case.parent_case_id) if case.parent_case_id else None,
                "unit_types": list(UNIT_TYPES.items()),
                "measures": list(OUTCOME_MEASURES.items())}

    def read(self, r: FieldReader, db: Session, case: PaCase, today: dt.date,
             strict: bool) -> Values:
        begin, finish = _date_range(r, today, strict)
        return {
            "units": r.integer("units", "Additional units", low=1, high=999, required=strict),
            "unit_type": r.choice("unit_type", "Unit type", UNIT_TYPES, required=strict),
            "service_from": begin, "service_to": finish,
            "visits_used": r.integer("visits_used", "Units used so far", low=0, high=999),
            "outcome_measure": r.choice("outcome_measure", "Outcome measure", OUTCOME_MEASURES,
                                        required=strict),
            "baseline_score": r.number("baseline_score", "Baseline score", low=0, high=100,
                                       required=strict, decimals=1),
            "current_score": r.number("current_score", "Current score", low=0, high=100,
                                      required=strict, decimals=1),
            "goal_score": r.number("goal_score", "Goal score", low=0, high=100,
                                   required=strict, decimals=1),
            "pain_score": r.number("pain_score", "Current pain", low=0, high=10, decimals=1,
                                   unit="of 10"),
            "goals": r.text("goals", "Treatment goals", required=strict, max_len=4000) or "",
            "progress_summary": r.text("progress_summary", "Progress summary",
                                       max_len=4000) or "",
        }

    def write(self, db: Session, case: PaCase, values: Values, now: dt.datetime) -> None:
        detail = wizard.detail_of(db, case)
        if detail is None:
            detail = AuthExtension(case_id=case.id, base_case_id=case.parent_case_id)
            db.add(detail)
        case_fields = ("units", "unit_type", "service_from", "service_to")
        wizard.set_changed(case, {k: values[k] for k in case_fields})
        wizard.set_changed(detail, {k: v for k, v in values.items() if k not in case_fields})


# -- network gap ---------------------------------------------------------------------------
class ExceptionStep(Step):
    name = "exception"

    def values(self, db: Session, case: PaCase) -> Values:
        d = wizard.detail_of(db, case)
        return {"specialty_needed": _s(d.specialty_needed if d else None),
                "nearest_in_network_miles": _s(d.nearest_in_network_miles if d else None),
                "nearest_in_network_provider": _s(d.nearest_in_network_provider if d else None),
                "requested_provider_miles": _s(d.requested_provider_miles if d else None),
                "clinical_urgency": _s(d.clinical_urgency if d else None),
                "urgency_rationale": d.urgency_rationale if d else ""}

    def context(self, db: Session, case: PaCase) -> Values:
        return {"urgencies": list(CLINICAL_URGENCIES.items()),
                "rendering": directory_entry(db, case.rendering_npi)}

    def read(self, r: FieldReader, db: Session, case: PaCase, today: dt.date,
             strict: bool) -> Values:
        return {
            "specialty_needed": r.text("specialty_needed", "Specialty needed",
                                       required=strict, max_len=80),
            "nearest_in_network_miles": r.number(
                "nearest_in_network_miles", "Distance to the nearest in-network provider",
                low=0, high=5000, unit="miles", required=strict, decimals=1),
            "nearest_in_network_provider": r.text("nearest_in_network_provider",
                                                  "Nearest in-network provider", max_len=160),
            "requested_provider_miles": r.number(
                "requested_provider_miles", "Distance to the requested provider", low=0,
                high=5000, unit="miles", decimals=1),
            "clinical_urgency": r.choice("clinical_urgency", "Clinical urgency",
                                         CLINICAL_URGENCIES, required=strict),
            "urgency_rationale": r.text("urgency_rationale", "Reason for the urgency",
                                        required=strict, max_len=4000) or "",
        }

    def write(self, db: Session, case: PaCase, values: Values, now: dt.datetime) -> None:
        detail = wizard.detail_of(db, case)
        if detail is None:
            detail = NetworkException(case_id=case.id)
            db.add(detail)
        wizard.set_changed(detail, values)


STEPS: dict[str, Step] = {s.name: s for s in (
    ProviderStep(), ServiceStep(), DrugStep(), AdmissionStep(), ExtensionStep(),
    ExceptionStep())}
