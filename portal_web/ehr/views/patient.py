"""The patient's dashboard (cards), demographics, visit history and new visits."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func, select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.requests import login_required, posted_form
from portal_web.ehr.chart import (
    encounters_of,
    issues_of,
    latest_vitals,
    option_titles,
    providers,
)
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import (
    CalendarEvent,
    Category,
    CategoryToDocument,
    Code,
    Document,
    Facility,
    Form,
    FormEncounter,
    Immunization,
    InsuranceCompany,
    InsuranceData,
    Pharmacy,
    Prescription,
    PriorAuthorization,
    ProcedureOrder,
    ProcedureReport,
    ProcedureResult,
    User,
)

guard = login_required("/login")


def pid_of(request: Request) -> int:
    return int(request.path_params["pid"])


@guard
async def dashboard(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        p = header.patient
        ctx = {
            "patient": header,
            "allergies": issues_of(db, pid, "allergy"),
            "problems": issues_of(db, pid, "medical_problem"),
            "medications": issues_of(db, pid, "medication"),
            "prescriptions": list(db.scalars(select(Prescription).where(
                Prescription.patient_id == pid, Prescription.active == 1)
                .order_by(Prescription.date_added.desc()))),
            "immunizations": list(db.scalars(select(Immunization).where(
                Immunization.patient_id == pid, Immunization.added_erroneously == 0)
                .order_by(Immunization.administered_date.desc()))),
            "vitals": latest_vitals(db, pid),
            "encounters": encounters_of(db, pid)[:6],
            "documents": db.execute(select(Document, Category.name).outerjoin(
                CategoryToDocument, CategoryToDocument.document_id == Document.id)
                .outerjoin(Category, Category.id == CategoryToDocument.category_id)
                .where(Document.foreign_id == pid, Document.deleted == 0)
                .order_by(Document.docdate.desc(), Document.id.desc()).limit(8)).all(),
            "insurance": db.execute(select(InsuranceData, InsuranceCompany.name).join(
                InsuranceCompany, InsuranceCompany.id == InsuranceData.provider)
                .where(InsuranceData.pid == pid).order_by(InsuranceData.type)).all(),
            "pcp": db.get(User, p.providerID) if p.providerID else None,
            "pharmacy": db.get(Pharmacy, p.pharmacy_id) if p.pharmacy_id else None,
            "labs": db.execute(select(ProcedureResult).join(
                ProcedureReport, ProcedureReport.procedure_report_id
                == ProcedureResult.procedure_report_id).join(
                ProcedureOrder, ProcedureOrder.procedure_order_id
                == ProcedureReport.procedure_order_id)
                .where(ProcedureOrder.patient_id == pid)
                .order_by(ProcedureResult.date.desc()).limit(6)).scalars().all(),
            "appointments": list(db.scalars(select(CalendarEvent).where(
                CalendarEvent.pc_pid == pid, CalendarEvent.pc_eventDate >= site.today())
                .order_by(CalendarEvent.pc_eventDate, CalendarEvent.pc_startTime).limit(5))),
            "authorizations": list(db.scalars(select(PriorAuthorization).where(
                PriorAuthorization.pid == pid).order_by(PriorAuthorization.date.desc()))),
            "cvx": {c.code: c.code_text_short or c.code_text for c in db.scalars(
                select(Code).where(Code.code_type == "CVX"))},
            "reactions": option_titles(db, "reaction"),
            "severities": option_titles(db, "severity_ccda"),
            "intervals": option_titles(db, "drug_interval"),
        }
    return site.render(request, "dashboard.html", ctx,
                       tab=Tab("pat", f"{p.lname}, {p.fname}", f"/patient/{pid}"))


@guard
async def demographics(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        p = header.patient
        ctx = {"patient": header,
               "pcp": db.get(User, p.providerID) if p.providerID else None,
               "referrer": db.get(User, p.ref_providerID) if p.ref_providerID else None,
               "pharmacy": db.get(Pharmacy, p.pharmacy_id) if p.pharmacy_id else None,
               "insurance": db.execute(select(InsuranceData, InsuranceCompany.name).join(
                   InsuranceCompany, InsuranceCompany.id == InsuranceData.provider)
                   .where(InsuranceData.pid == pid)).all()}
    return site.render(request, "demographics.html", ctx,
                       tab=Tab("pat", f"{p.lname}, {p.fname}", here(request)))


@guard
async def visit_history(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        encounters = encounters_of(db, pid)
        counts = dict(db.execute(select(Form.encounter, func.count()).where(
            Form.pid == pid, Form.deleted == 0, Form.formdir != "newpatient")
            .group_by(Form.encounter)).all())
        users = {u.id: u for u in db.scalars(select(User))}
    p = header.patient
    return site.render(request, "encounters.html", {
        "patient": header, "encounters": encounters, "counts": counts, "users": users},
        tab=Tab("pat", f"{p.lname}, {p.fname}", here(request)))


CLASS_CODES = {"AMB": "Ambulatory", "IMP": "Inpatient", "EMER": "Emergency"}


def _new_encounter_context(db, request: Request, pid: int) -> dict:  # noqa: ANN001
    site = site_of(request)
    return {
        "patient": site.select_patient(request, db, pid),
        "facilities": [(str(f.id), f.name) for f in db.scalars(
            select(Facility).where(Facility.inactive == 0).order_by(Facility.id))],
        "providers": [(str(u.id), f"{u.lname}, {u.fname}") for u in providers(db)],
        "classes": list(CLASS_CODES.items()),
    }


@guard
async def new_encounter(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    with site.reader() as db:
        ctx = _new_encounter_context(db, request, pid)
    user = user_of(request)
    ctx["values"] = {"date": site.now().strftime("%Y-%m-%d"), "class_code": "AMB",
                     "facility_id": "1", "provider_id": str(user.user_id)}
    return site.render(request, "encounter_new.html", ctx)


@guard
async def create_encounter(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            ctx = _new_encounter_context(db, request, pid)
            day = f.date("date", "Date of service", required=True,
                         earliest=dt.date(1900, 1, 1), latest=site.today())
            reason = f.text("reason", "Reason for visit", required=True, max_len=1000)
            facility = f.choice("facility_id", "Facility", [k for k, _ in ctx["facilities"]],
                                required=True)
            provider = f.choice("provider_id", "Provider", [k for k, _ in ctx["providers"]])
            klass = f.choice("class_code", "Visit category", CLASS_CODES, required=True)
            facility_row = db.get(Facility, int(facility)) if facility else None
        if not f.ok:
            ctx.update(values=f.raw, errors=f.errors)
            return site.render(request, "encounter_new.html", ctx)
        now = site.now()
        when = now if day == now.date() else dt.datetime.combine(day, dt.time(9, 0))
        with site.writer(request) as db:
            number = (db.scalar(select(func.max(FormEncounter.encounter))) or 0) + 1
            enc = FormEncounter(encounter=number, pid=pid, date=when, reason=reason,
                                facility_id=int(facility), billing_facility=int(facility),
                                facility=facility_row.name if facility_row else None,
                                provider_id=int(provider) if provider else None,
                                class_code=klass, pos_code=facility_row.pos_code
                                if facility_row else None)
            db.add(enc)
            db.flush()
            db.add(Form(date=now, encounter=number, form_name="New Patient Encounter",
                        form_id=enc.id, pid=pid, user=user_of(request).username,
                        formdir="newpatient",
                        provider_id=int(provider) if provider else None))
        site.flash(request, f"Encounter {number} created.")
        return posted.redirect(f"/patient/{pid}/encounter/{number}")


routes = [
    Route("/patient/{pid:id}", dashboard, name="dashboard"),
    Route("/patient/{pid:id}/demographics", demographics, name="demographics"),
    Route("/patient/{pid:id}/encounters", visit_history, name="visit_history"),
    Route("/patient/{pid:id}/encounter/new", new_encounter, methods=["GET"]),
    Route("/patient/{pid:id}/encounter/new", create_encounter, methods=["POST"]),
]
