"""Reports (patient list, prescriptions, referrals, immunizations, appointments, encounters)
and the patient's medication administration record (MAR)."""

from __future__ import annotations

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.params import parse_id
from portal_web.common.requests import login_required
from portal_web.ehr.chart import user_name
from portal_web.ehr.site import Tab, here, site_of
from sandbox.stores.ehr import (
    CalendarEvent,
    FormEncounter,
    Immunization,
    LbtData,
    MedicationAdministration,
    PatientData,
    Pharmacy,
    Prescription,
    Transaction,
    User,
)

guard = login_required("/login")
LIMIT = 500


def _report(request: Request, title: str, columns: list[str], rows: list[list],
            links: list[str | None] | None = None) -> Response:
    site = site_of(request)
    return site.render(request, "report.html", {"title": title, "columns": columns,
                                                "rows": rows, "links": links or []},
                       tab=Tab("rep", title, here(request)))


def _name(p: PatientData) -> str:
    return f"{p.lname}, {p.fname}"


@guard
async def patients(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        rows = list(db.scalars(select(PatientData).order_by(PatientData.lname).limit(LIMIT)))
    return _report(request, "Patient List", ["Patient", "MRN", "DOB", "Sex", "City", "Setting"],
                   [[_name(p), p.pubpid, p.DOB, p.sex, p.city or "", p.care_setting]
                    for p in rows], [f"/patient/{p.pid}" for p in rows])


@guard
async def prescriptions(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        rows = db.execute(select(Prescription, PatientData).join(
            PatientData, PatientData.pid == Prescription.patient_id)
            .order_by(Prescription.date_added.desc()).limit(LIMIT)).all()
        pharmacies = {ph.id: ph.name for ph in db.scalars(select(Pharmacy))}
    return _report(request, "Prescriptions", ["Date", "Patient", "Drug", "Sig", "Qty",
                                              "Refills", "Pharmacy", "Active", "eRx"],
                   [[rx.date_added.strftime("%Y-%m-%d"), _name(p), rx.drug,
                     rx.drug_dosage_instructions or "", rx.quantity or "", rx.refills,
                     pharmacies.get(rx.pharmacy_id, ""), "Yes" if rx.active else "No",
                     "Transmitted" if rx.erx_uploaded else (rx.erx_status or "Not sent")]
                    for rx, p in rows], [f"/patient/{p.pid}/rx" for _, p in rows])


@guard
async def referrals(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        rows = db.execute(select(Transaction, PatientData).join(
            PatientData, PatientData.pid == Transaction.pid).where(
            Transaction.title == "LBTref").order_by(Transaction.date.desc()).limit(LIMIT)).all()
        users = {u.id: u for u in db.scalars(select(User))}
        data = {t.id: {d.field_id: d.field_value for d in db.scalars(
            select(LbtData).where(LbtData.form_id == t.id))} for t, _ in rows}

    def who(value: str | None) -> str:
        number = parse_id(value)
        return user_name(users.get(number)) if number is not None else ""

    return _report(request, "Referrals", ["Date", "Patient", "Refer to", "Reason", "Urgency"],
                   [[t.date.strftime("%Y-%m-%d"), _name(p), who(data[t.id].get("refer_to")),
                     (data[t.id].get("body") or "")[:80], data[t.id].get("refer_urgency") or ""]
                    for t, p in rows], [f"/patient/{p.pid}/transactions/{t.id}"
                                        for t, p in rows])


@guard
async def immunizations(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        rows = db.execute(select(Immunization, PatientData).join(
            PatientData, PatientData.pid == Immunization.patient_id)
            .where(Immunization.added_erroneously == 0)
            .order_by(Immunization.administered_date.desc()).limit(LIMIT)).all()
    return _report(request, "Immunization Registry", ["Date", "Patient", "CVX", "Lot",
                                                      "Expires", "Site"],
                   [[i.administered_date.strftime("%Y-%m-%d") if i.administered_date else "",
                     _name(p), i.cvx_code or "", i.lot_number or "", i.expiration_date or "",
                     i.administration_site or ""] for i, p in rows],
                   [f"/patient/{p.pid}/immunizations" for _, p in rows])


@guard
async def appointments(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        rows = db.execute(select(CalendarEvent, PatientData, User).outerjoin(
            PatientData, PatientData.pid == CalendarEvent.pc_pid).outerjoin(
            User, User.id == CalendarEvent.pc_aid).where(
            CalendarEvent.pc_eventDate >= site.today())
            .order_by(CalendarEvent.pc_eventDate, CalendarEvent.pc_startTime).limit(LIMIT)).all()
    return _report(request, "Appointments", ["Date", "Time", "Provider", "Patient", "Title",
                                             "Comments"],
                   [[ev.pc_eventDate, ev.pc_startTime.strftime("%H:%M") if ev.pc_startTime
                     else "", user_name(u), _name(p) if p else "", ev.pc_title,
                     ev.pc_hometext or ""] for ev, p, u in rows],
                   [f"/calendar/event/{ev.pc_eid}" for ev, _, _ in rows])


@guard
async def encounters(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        rows = db.execute(select(FormEncounter, PatientData).join(
            PatientData, PatientData.pid == FormEncounter.pid)
            .order_by(FormEncounter.date.desc()).limit(LIMIT)).all()
    return _report(request, "Encounters", ["Date", "Patient", "Encounter", "Reason", "Facility"],
                   [[e.date.strftime("%Y-%m-%d %H:%M"), _name(p), e.encounter, e.reason or "",
                     e.facility or ""] for e, p in rows],
                   [f"/patient/{p.pid}/encounter/{e.encounter}" for e, p in rows])


@guard
async def mar(request: Request) -> Response:
    site = site_of(request)
    pid = int(request.path_params["pid"])
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        rows = list(db.scalars(select(MedicationAdministration).where(
            MedicationAdministration.pid == pid)
            .order_by(MedicationAdministration.administered_at.desc())))
        users = {u.id: u for u in db.scalars(select(User))}
    p = header.patient
    return site.render(request, "mar.html", {"patient": header, "rows": rows, "users": users},
                       tab=Tab("pat", f"{p.lname}, {p.fname}", here(request)))


routes = [
    Route("/reports/patients", patients),
    Route("/reports/prescriptions", prescriptions),
    Route("/reports/referrals", referrals),
    Route("/reports/immunizations", immunizations),
    Route("/reports/appointments", appointments),
    Route("/reports/encounters", encounters),
    Route("/patient/{pid:id}/mar", mar),
]
