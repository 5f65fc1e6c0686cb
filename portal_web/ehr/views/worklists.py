"""The PA desk: worklists with per-item outcome/reference, and authorization records."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from sqlalchemy import func, select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.forms import FieldReader
from portal_web.common.requests import login_required, posted_form
from portal_web.ehr.chart import choices, not_found, providers, user_name
from portal_web.ehr.site import Tab, here, site_of, user_of
from portal_web.ehr.views.procedures import parse_diagnoses
from sandbox.stores.ehr import (
    InsuranceCompany,
    PatientData,
    PaWorklist,
    PaWorklistItem,
    PriorAuthorization,
    User,
)

guard = login_required("/login")
ITEM_STATUSES = [(s, s) for s in ("New", "In progress", "Pending info", "Done")]
OUTCOMES = [("submitted", "Submitted to payer"), ("no_pa_required", "No PA required"),
            ("held", "Held - task sent to provider"), ("approved", "Approved"),
            ("denied", "Denied"), ("pended", "Pended")]
AUTH_STATUSES = [(s, s) for s in ("Not submitted", "Submitted", "Pended", "Approved",
                                  "Partially approved", "Denied", "Cancelled")]


def _lists(db) -> dict[str, list[tuple[str, str]]]:  # noqa: ANN001
    """The PA desk's coded lists (seeded as list_options; defaults otherwise)."""
    return {"statuses": choices(db, "pa_item_status", ITEM_STATUSES),
            "outcomes": choices(db, "pa_outcome", OUTCOMES),
            "auth_statuses": choices(db, "pa_auth_status", AUTH_STATUSES)}
CODE = re.compile(r"^([0-9]{4}[0-9AFMTU]|[A-Z][0-9]{4})$")
REFERENCE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._/#:-]{0,59}$")


# -- worklists ------------------------------------------------------------------------------
@guard
async def worklists(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        lists = list(db.scalars(select(PaWorklist).order_by(PaWorklist.id)))
        counts = {(wl, st): n for wl, st, n in db.execute(
            select(PaWorklistItem.worklist_id, PaWorklistItem.status, func.count())
            .group_by(PaWorklistItem.worklist_id, PaWorklistItem.status))}
        statuses = _lists(db)["statuses"]
    return site.render(request, "worklists.html", {"lists": lists, "counts": counts,
                                                   "statuses": statuses},
                       tab=Tab("pwl", "PA Worklists", "/pa/worklists"))


def _worklist_context(db, wl_id: int) -> dict[str, Any]:  # noqa: ANN001
    worklist = db.get(PaWorklist, wl_id)
    if worklist is None:
        raise not_found(f"Worklist {wl_id}")
    rows = db.execute(select(PaWorklistItem, PatientData).join(
        PatientData, PatientData.pid == PaWorklistItem.pid)
        .where(PaWorklistItem.worklist_id == wl_id).order_by(PaWorklistItem.seq)).all()
    return {"worklist": worklist, "rows": rows,
            "payers": {p.id: p for p in db.scalars(select(InsuranceCompany))},
            "users": {u.id: u for u in db.scalars(select(User))},
            "auths": {a.id: a for a in db.scalars(select(PriorAuthorization))},
            **_lists(db), "errors_for": None}


@guard
async def worklist_page(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        ctx = _worklist_context(db, int(request.path_params["wid"]))
    return site.render(request, "worklist.html", ctx,
                       tab=Tab("pwl", ctx["worklist"].name, here(request)))


@guard
async def worklist_item_save(request: Request) -> Response:
    site = site_of(request)
    item_id = int(request.path_params["item"])
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            item = db.get(PaWorklistItem, item_id)
            if item is None:
                raise not_found(f"Worklist item {item_id}")
            ctx = _worklist_context(db, item.worklist_id)
        values = {
            "status": f.choice("status", "Status", [k for k, _ in ctx["statuses"]],
                               required=True),
            "outcome": f.choice("outcome", "Outcome", [k for k, _ in ctx["outcomes"]]),
            "reference": f.text("reference", "Reference", max_len=60),
            "note": f.text("note", "Note", max_len=2000),
        }
        if values["reference"] and not REFERENCE.match(values["reference"]):
            f.fail("reference", "Reference: use letters, digits and - . / # : only.")
        if not f.ok:
            ctx.update(errors=f.errors, errors_for=item_id, values=f.raw)
            return site.render(request, "worklist.html", ctx)
        with site.writer(request) as db:
            row = db.get(PaWorklistItem, item_id)
            for key, value in values.items():
                setattr(row, key, value)
            row.updated = site.now()
            row.updated_by = user.user_id
            wl_id = row.worklist_id
        site.flash(request, f"Worklist item {item.seq} updated ({values['status']}).")
        return posted.redirect(f"/pa/worklist/{wl_id}#item-{item_id}")


# -- authorization records ------------------------------------------------------------------
def _auth_context(db) -> dict[str, Any]:  # noqa: ANN001
    return {"payers": [(str(p.id), p.name) for p in db.scalars(
        select(InsuranceCompany).where(InsuranceCompany.inactive == 0))],
        "providers": [(str(u.id), user_name(u)) for u in providers(db)],
        "statuses": _lists(db)["auth_statuses"], "auth": None}


@guard
async def all_authorizations(request: Request) -> Response:
    site = site_of(request)
    status = request.query_params.get("status", "")
    with site.reader() as db:
        stmt = select(PriorAuthorization, PatientData).join(
            PatientData, PatientData.pid == PriorAuthorization.pid)
        statuses = _lists(db)["auth_statuses"]
        if status in dict(statuses):
            stmt = stmt.where(PriorAuthorization.status == status)
        rows = db.execute(stmt.order_by(PriorAuthorization.date.desc())).all()
        payers = {p.id: p.name for p in db.scalars(select(InsuranceCompany))}
    return site.render(request, "authorizations.html", {
        "rows": rows, "payers": payers, "status": status, "statuses": statuses,
        "patient": None}, tab=Tab("pau", "Authorizations", here(request)))


@guard
async def patient_authorizations(request: Request) -> Response:
    site = site_of(request)
    pid = int(request.path_params["pid"])
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        rows = [(a, header.patient) for a in db.scalars(select(PriorAuthorization).where(
            PriorAuthorization.pid == pid).order_by(PriorAuthorization.date.desc()))]
        payers = {p.id: p.name for p in db.scalars(select(InsuranceCompany))}
        statuses = _lists(db)["auth_statuses"]
    p = header.patient
    return site.render(request, "authorizations.html", {
        "rows": rows, "payers": payers, "status": "", "statuses": statuses,
        "patient": header}, tab=Tab("pat", f"{p.lname}, {p.fname}", here(request)))


def read_authorization(f: FieldReader, ctx: dict, today: dt.date) -> dict[str, Any]:
    v: dict[str, Any] = {}
    payer = f.choice("payer_id", "Payer", [k for k, _ in ctx["payers"]], required=True)
    v["payer_id"] = int(payer) if payer else None
    v["service"] = f.text("service", "Service", required=True, max_len=255)
    cpt = f.text("cpt", "CPT/HCPCS", max_len=10)
    if cpt is not None and not CODE.match(cpt.upper()):
        f.fail("cpt", "CPT/HCPCS must be 5 characters, e.g. 72148 or K0823.")
    v["cpt"] = cpt.upper() if cpt else None
    v["diagnosis"] = parse_diagnoses(f, "diagnosis", "Diagnosis", required=False)
    provider = f.choice("provider_id", "Ordering provider", [k for k, _ in ctx["providers"]])
    v["provider_id"] = int(provider) if provider else None
    v["status"] = f.choice("status", "Status", [k for k, _ in ctx["statuses"]], required=True)
    reference = f.text("portal_reference", "Payer reference", max_len=60)
    if reference and not REFERENCE.match(reference):
        f.fail("portal_reference", "Payer reference: use letters, digits and - . / # : only.")
    v["portal_reference"] = reference
    auth_num = f.text("auth_num", "Auth number", max_len=40)
    if auth_num and not REFERENCE.match(auth_num):
        f.fail("auth_num", "Auth number: use letters, digits and - . / # : only.")
    v["auth_num"] = auth_num
    limit = today + dt.timedelta(days=3 * 365)
    v["submitted_date"] = f.date("submitted_date", "Submitted", earliest=dt.date(2000, 1, 1),
                                 latest=today)
    v["decision_date"] = f.date("decision_date", "Decision date",
                                earliest=dt.date(2000, 1, 1), latest=today)
    v["start_date"] = f.date("start_date", "Start date", earliest=dt.date(2000, 1, 1),
                             latest=limit)
    v["end_date"] = f.date("end_date", "End date", earliest=dt.date(2000, 1, 1), latest=limit)
    if v["start_date"] and v["end_date"] and v["end_date"] < v["start_date"]:
        f.fail("end_date", "End date cannot be before the start date.")
    v["init_units"] = f.integer("init_units", "Units requested", low=0, high=9999)
    v["units_approved"] = f.integer("units_approved", "Units approved", low=0, high=9999)
    v["remaining_units"] = f.integer("remaining_units", "Units remaining", low=0, high=9999)
    if (v["units_approved"] is not None and v["remaining_units"] is not None
            and v["remaining_units"] > v["units_approved"]):
        f.fail("remaining_units", "Units remaining cannot exceed the units approved.")
    if v["status"] in ("Approved", "Partially approved") and f.ok and not v["auth_num"]:
        f.fail("auth_num", "An approved authorization needs its auth number.")
    v["notes"] = f.text("notes", "Notes", max_len=5000)
    return v


def auth_values(a: PriorAuthorization) -> dict[str, str]:
    def d(value: Any) -> str:
        return value.isoformat() if value else ""

    def n(value: Any) -> str:
        return "" if value is None else str(value)

    return {"payer_id": n(a.payer_id), "service": a.service or "", "cpt": a.cpt or "",
            "diagnosis": (a.diagnosis or "").replace("ICD10:", "").replace(";", ", "),
            "provider_id": n(a.provider_id), "status": a.status,
            "portal_reference": a.portal_reference or "", "auth_num": a.auth_num or "",
            "submitted_date": d(a.submitted_date), "decision_date": d(a.decision_date),
            "start_date": d(a.start_date), "end_date": d(a.end_date),
            "init_units": n(a.init_units), "units_approved": n(a.units_approved),
            "remaining_units": n(a.remaining_units), "notes": a.notes or ""}


def _auth(db, pid: int, auth_id: int) -> PriorAuthorization:  # noqa: ANN001
    row = db.get(PriorAuthorization, auth_id)
    if row is None or row.pid != pid:
        raise not_found(f"Authorization {auth_id} of this patient")
    return row


@guard
async def authorization_form(request: Request) -> Response:
    site = site_of(request)
    pid = int(request.path_params["pid"])
    raw = request.path_params.get("aid")
    with site.reader() as db:
        ctx = _auth_context(db)
        ctx["patient"] = site.select_patient(request, db, pid)
        if raw is None:
            ctx["values"] = {"status": "Not submitted"}
        else:
            auth = _auth(db, pid, int(raw))
            ctx["auth"] = auth
            ctx["values"] = auth_values(auth)
            ctx["updated_by"] = db.get(User, auth.updated_by) if auth.updated_by else None
    return site.render(request, "authorization_form.html", ctx,
                       tab=Tab("pat", "Authorization", here(request)))


@guard
async def authorization_save(request: Request) -> Response:
    site = site_of(request)
    pid = int(request.path_params["pid"])
    raw = request.path_params.get("aid")
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            ctx = _auth_context(db)
            ctx["patient"] = site.select_patient(request, db, pid)
            auth = _auth(db, pid, int(raw)) if raw is not None else None
            ctx["auth"] = auth
        values = read_authorization(f, ctx, site.today())
        if not f.ok:
            ctx.update(values=f.raw, errors=f.errors)
            return site.render(request, "authorization_form.html", ctx)
        now = site.now()
        with site.writer(request) as db:
            if auth is None:
                row = PriorAuthorization(pid=pid, date=now, updated=now,
                                         updated_by=user.user_id, **values)
                db.add(row)
                db.flush()
            else:
                row = db.get(PriorAuthorization, auth.id)
                for key, value in values.items():
                    setattr(row, key, value)
                row.updated = now
                row.updated_by = user.user_id
            aid = row.id
        site.flash(request, f"Authorization saved ({values['status']}).")
        return posted.redirect(f"/patient/{pid}/authorizations/{aid}")


routes = [
    Route("/pa/worklists", worklists),
    Route("/pa/worklist/{wid:id}", worklist_page),
    Route("/pa/worklist/item/{item:id}", worklist_item_save, methods=["POST"]),
    Route("/pa/authorizations", all_authorizations),
    Route("/patient/{pid:id}/authorizations", patient_authorizations),
    Route("/patient/{pid:id}/authorizations/new", authorization_form, methods=["GET"]),
    Route("/patient/{pid:id}/authorizations/new", authorization_save, methods=["POST"]),
    Route("/patient/{pid:id}/authorizations/{aid:id}", authorization_form, methods=["GET"]),
    Route("/patient/{pid:id}/authorizations/{aid:id}", authorization_save, methods=["POST"]),
]
