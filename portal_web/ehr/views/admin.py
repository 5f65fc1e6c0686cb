"""Administration: globals, users, the address book / provider directory, practice settings,
layouts, lists and the logs (the application log and the store's audit trail). Read-only."""

from __future__ import annotations

import json

from sqlalchemy import or_, select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.requests import login_required
from portal_web.ehr.chart import not_found
from portal_web.ehr.site import Tab, here, site_of
from sandbox.stores.ehr import (
    Base,
    Facility,
    Global,
    InsuranceCompany,
    LayoutGroupProperties,
    LayoutOption,
    ListOption,
    Log,
    PatientData,
    Pharmacy,
    User,
)

guard = login_required("/login")
PAGE = 200


@guard
async def globals_page(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        rows = list(db.scalars(select(Global).order_by(Global.gl_name, Global.gl_index)))
    return site.render(request, "admin_globals.html", {"rows": rows},
                       tab=Tab("adm", "Globals", "/admin/globals"))


@guard
async def users_page(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        rows = list(db.scalars(select(User).where(User.username.is_not(None),
                                                  User.username != "").order_by(User.lname)))
        facilities = {f.id: f.name for f in db.scalars(select(Facility))}
    return site.render(request, "admin_users.html", {"rows": rows, "facilities": facilities},
                       tab=Tab("adm", "Users", "/admin/users"))


@guard
async def directory(request: Request) -> Response:
    site = site_of(request)
    query = request.query_params.get("q", "").strip()[:80]
    kind = request.query_params.get("kind", "")
    with site.reader() as db:
        stmt = select(User).where(User.active == 1)
        if kind == "internal":
            stmt = stmt.where(User.username.is_not(None), User.username != "")
        elif kind == "external":
            stmt = stmt.where(or_(User.username.is_(None), User.username == ""))
        if query:
            like = f"%{query}%"
            stmt = stmt.where(or_(User.lname.ilike(like), User.fname.ilike(like),
                                  User.npi.like(like), User.specialty.ilike(like),
                                  User.organization.ilike(like), User.taxonomy.ilike(like)))
        rows = list(db.scalars(stmt.order_by(User.lname, User.fname)))
    return site.render(request, "directory.html", {"rows": rows, "query": query, "kind": kind},
                       tab=Tab("dir", "Provider Directory", here(request)))


@guard
async def directory_entry(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        user = db.get(User, int(request.path_params["uid"]))
        if user is None:
            raise not_found("That directory entry")
        facility = db.get(Facility, user.facility_id) if user.facility_id else None
    return site.render(request, "directory_entry.html", {"u": user, "facility": facility},
                       tab=Tab("dir", "Provider Directory", here(request)))


@guard
async def practice(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        ctx = {"pharmacies": list(db.scalars(select(Pharmacy).order_by(Pharmacy.name))),
               "payers": list(db.scalars(select(InsuranceCompany)
                                         .order_by(InsuranceCompany.name))),
               "facilities": list(db.scalars(select(Facility).order_by(Facility.id)))}
    return site.render(request, "admin_practice.html", ctx,
                       tab=Tab("adm", "Practice", "/admin/practice"))


@guard
async def layouts(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        forms = list(db.scalars(select(LayoutGroupProperties).where(
            LayoutGroupProperties.grp_group_id == "").order_by(LayoutGroupProperties.grp_form_id)))
        fields = {}
        for form in forms:
            fields[form.grp_form_id] = list(db.scalars(select(LayoutOption).where(
                LayoutOption.form_id == form.grp_form_id)
                .order_by(LayoutOption.group_id, LayoutOption.seq)))
    return site.render(request, "admin_layouts.html", {"forms": forms, "fields": fields},
                       tab=Tab("adm", "Layouts", "/admin/layouts"))


@guard
async def lists(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        rows = list(db.scalars(select(ListOption).order_by(
            ListOption.list_id, ListOption.seq, ListOption.title)))
    grouped: dict[str, list[ListOption]] = {}
    for row in rows:
        grouped.setdefault(row.list_id, []).append(row)
    return site.render(request, "admin_lists.html", {"grouped": grouped},
                       tab=Tab("adm", "Lists", "/admin/lists"))


def _changed(before: str | None, after: str | None) -> str:
    """Which columns an audit entry changed (for the trail view)."""
    if before is None or after is None:
        return ""
    try:
        a, b = json.loads(before), json.loads(after)
    except ValueError:
        return ""
    return ", ".join(f"{k}: {a.get(k)!s:.30} → {b.get(k)!s:.30}" for k in sorted(b)
                     if a.get(k) != b.get(k))


@guard
async def logs(request: Request) -> Response:
    site = site_of(request)
    view = request.query_params.get("view", "log")
    mrn = request.query_params.get("mrn", "").strip()[:20]
    audit = Base.metadata.tables["audit_log"]
    with site.reader() as db:
        patient = db.scalar(select(PatientData).where(PatientData.pubpid == mrn)) if mrn else None
        if view == "audit":
            stmt = select(audit).order_by(audit.c.id.desc()).limit(PAGE)
            if mrn and patient is None:
                rows = []
            else:
                rows = [dict(r) for r in db.execute(stmt).mappings()]
                if patient is not None:
                    pid = patient.pid
                    rows = [r for r in rows if _mentions(r, pid)]
            for r in rows:
                r["changes"] = _changed(r["before"], r["after"])
        else:
            stmt = select(Log).order_by(Log.id.desc()).limit(PAGE)
            if patient is not None:
                stmt = stmt.where(Log.patient_id == patient.pid)
            rows = list(db.scalars(stmt)) if not (mrn and patient is None) else []
    return site.render(request, "admin_logs.html", {"rows": rows, "view": view, "mrn": mrn,
                                                    "patient_row": patient},
                       tab=Tab("log", "Logs", here(request)))


def _mentions(entry: dict, pid: int) -> bool:
    for image in (entry.get("after"), entry.get("before")):
        if not image:
            continue
        try:
            data = json.loads(image)
        except ValueError:
            continue
        for key in ("pid", "patient_id", "foreign_id", "pc_pid"):
            if data.get(key) == pid:
                return True
    return False


routes = [
    Route("/admin/globals", globals_page),
    Route("/admin/users", users_page),
    Route("/admin/practice", practice),
    Route("/admin/layouts", layouts),
    Route("/admin/lists", lists),
    Route("/admin/logs", logs),
    Route("/directory", directory),
    Route("/directory/{uid:id}", directory_entry),
]
