"""Issues (``lists``): allergies, medical problems, medications, surgeries.

An issue is made inactive by giving it an end date (``activity`` stays 1). "Delete" is
OpenEMR's soft delete: it sets ``activity=0`` after a confirmation; no row is ever removed.
"""

from __future__ import annotations

import datetime as dt

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.requests import login_required, posted_form
from portal_web.ehr.chart import choices, issues_of, not_found, options
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import Lists

guard = login_required("/login")
TYPES = {"allergy": "Allergies", "medical_problem": "Medical Problems",
         "medication": "Medications", "surgery": "Surgeries"}
SINGULAR = {"allergy": "Allergy", "medical_problem": "Medical Problem",
            "medication": "Medication", "surgery": "Surgery"}
VERIFICATION = [("unconfirmed", "Unconfirmed"), ("confirmed", "Confirmed"),
                ("refuted", "Refuted"), ("entered-in-error", "Entered in Error")]
OUTCOMES = [("0", "Unassigned"), ("1", "Resolved"), ("2", "Improved"), ("3", "Status quo"),
            ("4", "Worse"), ("5", "Pending followup")]
COMMON_ALLERGIES = ["Penicillin", "Sulfa", "Codeine", "Aspirin", "Latex", "Iodine",
                    "Peanuts", "Shellfish", "Eggs", "Cephalosporins"]


def _pid(request: Request) -> int:
    return int(request.path_params["pid"])


@guard
async def issues_page(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    focus = request.query_params.get("type", "")
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        sections = [(kind, title, issues_of(db, pid, kind)) for kind, title in TYPES.items()]
        reactions = {o.option_id: o.title for o in options(db, "reaction")}
        severities = {o.option_id: o.title for o in options(db, "severity_ccda")}
    p = header.patient
    return site.render(request, "issues.html", {
        "patient": header, "sections": sections, "focus": focus, "reactions": reactions,
        "severities": severities, "outcomes": dict(OUTCOMES)},
        tab=Tab("pat", f"{p.lname}, {p.fname}", here(request)))


def _form_context(db, request: Request, pid: int, kind: str) -> dict:  # noqa: ANN001
    site = site_of(request)
    return {
        "patient": site.select_patient(request, db, pid), "kind": kind,
        "kind_title": SINGULAR[kind], "reactions": [(o.option_id, o.title)
                                                    for o in options(db, "reaction")],
        "severities": [(o.option_id, o.title) for o in options(db, "severity_ccda")],
        "verifications": choices(db, "allergyintolerance-verification", VERIFICATION),
        "outcomes": OUTCOMES, "issue": None,
        "common": COMMON_ALLERGIES if kind == "allergy" else [],
    }


def _issue(db, pid: int, issue_id: int) -> Lists:  # noqa: ANN001
    row = db.get(Lists, issue_id)
    if row is None or row.pid != pid or row.activity != 1:
        raise not_found(f"Issue {issue_id} of this patient")
    return row


def _kind(request: Request) -> str:
    kind = request.query_params.get("type", "allergy")
    return kind if kind in TYPES else "allergy"


def issue_values(row: Lists) -> dict[str, str]:
    return {"title": row.title, "begdate": row.begdate.isoformat() if row.begdate else "",
            "enddate": row.enddate.isoformat() if row.enddate else "",
            "reaction": row.reaction or "", "severity_al": row.severity_al or "",
            "verification": row.verification or "", "comments": row.comments or "",
            "diagnosis": (row.diagnosis or "").removeprefix("ICD10:"),
            "referredby": row.referredby or "", "outcome": str(row.outcome or 0)}


@guard
async def issue_form(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    raw = request.path_params.get("iid")
    with site.reader() as db:
        if raw is None:
            ctx = _form_context(db, request, pid, _kind(request))
            ctx["values"] = {"begdate": "", "outcome": "0",
                             "verification": "confirmed" if ctx["kind"] == "allergy" else ""}
        else:
            row = _issue(db, pid, int(raw))
            ctx = _form_context(db, request, pid, row.type if row.type in TYPES else "allergy")
            ctx["issue"] = row
            ctx["values"] = issue_values(row)
    return site.render(request, "issue_form.html", ctx)


def read_issue(f, kind: str, ctx: dict, today: dt.date) -> dict:  # noqa: ANN001
    values: dict = {"title": f.text("title", "Title", required=True, max_len=255)}
    values["begdate"] = f.date("begdate", "Begin date", earliest=dt.date(1900, 1, 1),
                               latest=today)
    values["enddate"] = f.date("enddate", "End date", earliest=dt.date(1900, 1, 1),
                               latest=today)
    if values["begdate"] and values["enddate"] and values["enddate"] < values["begdate"]:
        f.fail("enddate", "End date cannot be before the begin date.")
    values["comments"] = f.text("comments", "Comments", max_len=5000)
    values["referredby"] = f.text("referredby", "Referred by", max_len=255)
    outcome = f.choice("outcome", "Outcome", [k for k, _ in OUTCOMES])
    values["outcome"] = int(outcome or 0)
    values["verification"] = f.choice("verification", "Verification",
                                      [k for k, _ in ctx["verifications"]])
    if kind == "allergy":
        values["reaction"] = f.choice("reaction", "Reaction", [k for k, _ in ctx["reactions"]])
        values["severity_al"] = f.choice("severity_al", "Severity",
                                         [k for k, _ in ctx["severities"]])
    if kind == "medical_problem":
        code = f.icd10("diagnosis", "Diagnosis code", billable=False)
        values["diagnosis"] = f"ICD10:{code}" if code else None
    return values


@guard
async def issue_save(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    raw = request.path_params.get("iid")
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            row = _issue(db, pid, int(raw)) if raw is not None else None
            kind = row.type if row is not None else f.choice(
                "type", "Type", TYPES, required=True) or "allergy"
            if kind not in TYPES:
                kind = "allergy"
            ctx = _form_context(db, request, pid, kind)
            ctx["issue"] = row
        values = read_issue(f, kind, ctx, site.today())
        if not f.ok:
            ctx.update(values=f.raw, errors=f.errors)
            return site.render(request, "issue_form.html", ctx)
        now = site.now()
        with site.writer(request) as db:
            if row is None:
                db.add(Lists(date=now, type=kind, pid=pid, user=user.username,
                             groupname="Default", activity=1, modifydate=now, **values))
            else:
                target = db.get(Lists, row.id)
                for key, value in values.items():
                    setattr(target, key, value)
                target.modifydate = now
        site.flash(request, f"{SINGULAR[kind]} '{values['title']}' saved"
                            f"{' as inactive' if values['enddate'] else ''}.")
        return posted.redirect(f"/patient/{pid}/issues?type={kind}")


@guard
async def issue_delete_page(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    with site.reader() as db:
        row = _issue(db, pid, int(request.path_params["iid"]))
        header = site.select_patient(request, db, pid)
    return site.render(request, "issue_delete.html", {"patient": header, "issue": row,
                                                      "kind_title": SINGULAR.get(row.type, "")})


@guard
async def issue_delete(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        with site.writer(request) as db:
            row = _issue(db, pid, int(request.path_params["iid"]))
            row.activity = 0
            row.modifydate = site.now()
            kind, title = row.type, row.title
        site.flash(request, f"'{title}' was deleted from the {TYPES.get(kind, 'issue')} list.")
        return posted.redirect(f"/patient/{pid}/issues?type={kind}")


routes = [
    Route("/patient/{pid:id}/issues", issues_page),
    Route("/patient/{pid:id}/issue/new", issue_form, methods=["GET"]),
    Route("/patient/{pid:id}/issue/new", issue_save, methods=["POST"]),
    Route("/patient/{pid:id}/issue/{iid:id}", issue_form, methods=["GET"]),
    Route("/patient/{pid:id}/issue/{iid:id}", issue_save, methods=["POST"]),
    Route("/patient/{pid:id}/issue/{iid:id}/delete", issue_delete_page, methods=["GET"]),
    Route("/patient/{pid:id}/issue/{iid:id}/delete", issue_delete, methods=["POST"]),
]
