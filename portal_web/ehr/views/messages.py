"""Messages between users (``pnotes``, the Message Center) and provider tasks (``ehr_tasks``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import or_, select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.forms import FieldReader
from portal_web.common.params import bad_parameter, parse_id
from portal_web.common.requests import login_required, posted_form
from portal_web.ehr.chart import choices, login_users, not_found, options, user_name
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import EhrTask, PatientData, Pnote, User

guard = login_required("/login")
MESSAGE_STATUSES = [(s, s) for s in ("New", "Read", "Forwarded", "Done")]
TASK_STATUSES = [(s, s) for s in ("Open", "In progress", "Pending info", "Done")]
PRIORITIES = ["Normal", "High"]
DEFAULT_NOTE_TYPES = ["Unassigned", "Chart Note", "Insurance", "Prior Auth", "Lab Results",
                      "Patient Reminders", "Other"]


def _note_types(db) -> list[str]:  # noqa: ANN001
    return [o.title for o in options(db, "note_type")] or DEFAULT_NOTE_TYPES


def _patient_by_mrn(db, f: FieldReader, name: str, required: bool) -> PatientData | None:  # noqa: ANN001
    mrn = f.text(name, "Patient MRN", required=required, max_len=20)
    if mrn is None:
        return None
    patient = db.scalar(select(PatientData).where(PatientData.pubpid == mrn))
    if patient is None:
        f.fail(name, f"No patient has MRN {mrn}; check it in Finder.")
    return patient


def _mrn_of(db, pid: str | int | None) -> str:  # noqa: ANN001
    if pid in (None, ""):
        return ""
    number = parse_id(pid)
    if number is None:
        raise bad_parameter("pid", str(pid))
    patient = db.scalar(select(PatientData).where(PatientData.pid == number))
    return patient.pubpid if patient else ""


# -- messages ---------------------------------------------------------------------------
@guard
async def inbox(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    show = request.query_params.get("show", "mine")
    with site.reader() as db:
        stmt = select(Pnote, PatientData).outerjoin(PatientData, PatientData.pid == Pnote.pid) \
            .where(Pnote.deleted == 0, Pnote.activity == 1)
        if show == "mine":
            stmt = stmt.where(or_(Pnote.assigned_to == user.username,
                                  Pnote.user == user.username))
        if show != "done":
            stmt = stmt.where(Pnote.message_status != "Done")
        rows = db.execute(stmt.order_by(Pnote.date.desc(), Pnote.id.desc())).all()
        tasks = list(db.scalars(select(EhrTask).where(EhrTask.assigned_to == user.user_id,
                                                      EhrTask.status != "Done")))
    return site.render(request, "messages.html", {"rows": rows, "show": show,
                                                  "open_tasks": tasks},
                       tab=Tab("msg", "Message Inbox", here(request)))


@guard
async def patient_messages(request: Request) -> Response:
    site = site_of(request)
    pid = int(request.path_params["pid"])
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        rows = list(db.scalars(select(Pnote).where(Pnote.pid == pid, Pnote.deleted == 0)
                               .order_by(Pnote.date.desc())))
        tasks = list(db.scalars(select(EhrTask).where(EhrTask.pid == pid)
                                .order_by(EhrTask.created.desc())))
        users = {u.id: u for u in db.scalars(select(User))}
    p = header.patient
    return site.render(request, "patient_messages.html", {
        "patient": header, "rows": rows, "tasks": tasks, "users": users},
        tab=Tab("pat", f"{p.lname}, {p.fname}", here(request)))


def _message_context(db) -> dict[str, Any]:  # noqa: ANN001
    return {"types": [(t, t) for t in _note_types(db)],
            "users": [(u.username, user_name(u)) for u in login_users(db)],
            "statuses": choices(db, "message_status", MESSAGE_STATUSES), "note": None,
            "patient_row": None}


@guard
async def message_form(request: Request) -> Response:
    site = site_of(request)
    raw = request.path_params.get("mid")
    with site.reader() as db:
        ctx = _message_context(db)
        if raw is None:
            ctx["values"] = {"title": "Unassigned", "message_status": "New",
                             "mrn": _mrn_of(db, request.query_params.get("pid"))}
        else:
            note = db.get(Pnote, int(raw))
            if note is None or note.deleted:
                raise not_found(f"Message {raw}")
            ctx["note"] = note
            ctx["patient_row"] = db.scalar(select(PatientData).where(
                PatientData.pid == note.pid)) if note.pid else None
            ctx["values"] = {"message_status": note.message_status,
                             "assigned_to": note.assigned_to or ""}
    return site.render(request, "message_form.html", ctx,
                       tab=Tab("msg", "Message", here(request)))


@guard
async def message_save(request: Request) -> Response:
    site = site_of(request)
    raw = request.path_params.get("mid")
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            ctx = _message_context(db)
            note = None
            if raw is not None:
                note = db.get(Pnote, int(raw))
                if note is None or note.deleted:
                    raise not_found(f"Message {raw}")
                ctx["note"] = note
                ctx["patient_row"] = db.scalar(select(PatientData).where(
                    PatientData.pid == note.pid)) if note.pid else None
            recipient = f.choice("assigned_to", "To", [k for k, _ in ctx["users"]],
                                 required=True)
            status = f.choice("message_status", "Status", [k for k, _ in ctx["statuses"]],
                              required=True)
            if note is None:
                title = f.choice("title", "Type", [k for k, _ in ctx["types"]], required=True)
                patient = _patient_by_mrn(db, f, "mrn", required=False)
                body = f.text("body", "Message", required=True, max_len=10_000)
            else:
                reply = f.text("reply", "Reply / note", max_len=10_000)
        if not f.ok:
            ctx.update(values=f.raw, errors=f.errors)
            return site.render(request, "message_form.html", ctx)
        now = site.now()
        stamp = f"{now.strftime('%Y-%m-%d %H:%M')} ({user.username} to {recipient})"
        with site.writer(request) as db:
            if note is None:
                row = Pnote(date=now, body=f"{stamp} {body}", pid=patient.pid if patient
                            else None, user=user.username, groupname="Default", activity=1,
                            authorized=0, title=title, assigned_to=recipient, deleted=0,
                            message_status=status, update_by=user.user_id, update_date=now)
                db.add(row)
                db.flush()
                mid = row.id
            else:
                row = db.get(Pnote, note.id)
                if reply:
                    row.body = f"{row.body}\n{stamp} {reply}"
                if recipient != row.assigned_to and status == "New":
                    status = "Forwarded"
                row.assigned_to = recipient
                row.message_status = status
                row.update_by = user.user_id
                row.update_date = now
                mid = row.id
        site.flash(request, f"Message to {recipient} saved ({status}).")
        return posted.redirect(f"/messages/{mid}")


# -- tasks ------------------------------------------------------------------------------
def _task_context(db) -> dict[str, Any]:  # noqa: ANN001
    return {"users": [(str(u.id), user_name(u)) for u in login_users(db)],
            "statuses": choices(db, "task_status", TASK_STATUSES),
            "priorities": [(s, s) for s in PRIORITIES], "task": None}


@guard
async def task_list(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    show = request.query_params.get("show", "all")
    with site.reader() as db:
        stmt = select(EhrTask, PatientData).outerjoin(PatientData, PatientData.pid == EhrTask.pid)
        if show == "mine":
            stmt = stmt.where(EhrTask.assigned_to == user.user_id)
        rows = db.execute(stmt.order_by(EhrTask.status == "Done", EhrTask.created.desc())).all()
        users = {u.id: u for u in db.scalars(select(User))}
    return site.render(request, "tasks.html", {"rows": rows, "users": users, "show": show},
                       tab=Tab("tsk", "Tasks", here(request)))


def read_task(db, f: FieldReader, ctx: dict, today: dt.date) -> dict[str, Any]:  # noqa: ANN001
    assigned = f.choice("assigned_to", "Assigned to", [k for k, _ in ctx["users"]],
                        required=True)
    patient = _patient_by_mrn(db, f, "mrn", required=False)
    return {
        "assigned_to": int(assigned) if assigned else None,
        "pid": patient.pid if patient else None,
        "subject": f.text("subject", "Subject", required=True, max_len=255),
        "body": f.text("body", "Details", max_len=10_000),
        "status": f.choice("status", "Status", [k for k, _ in ctx["statuses"]], required=True),
        "priority": f.choice("priority", "Priority", PRIORITIES, required=True),
        "reference": f.text("reference", "Reference", max_len=100),
        "due_date": f.date("due_date", "Due date", earliest=today - dt.timedelta(days=365),
                           latest=today + dt.timedelta(days=730)),
    }


@guard
async def task_form(request: Request) -> Response:
    site = site_of(request)
    raw = request.path_params.get("tid")
    with site.reader() as db:
        ctx = _task_context(db)
        if raw is None:
            ctx["values"] = {"status": "Open", "priority": "Normal",
                             "mrn": _mrn_of(db, request.query_params.get("pid"))}
        else:
            task = db.get(EhrTask, int(raw))
            if task is None:
                raise not_found(f"Task {raw}")
            ctx["task"] = task
            ctx["values"] = {
                "assigned_to": str(task.assigned_to), "mrn": _mrn_of(db, task.pid),
                "subject": task.subject, "body": task.body or "", "status": task.status,
                "priority": task.priority, "reference": task.reference or "",
                "due_date": task.due_date.isoformat() if task.due_date else ""}
    return site.render(request, "task_form.html", ctx, tab=Tab("tsk", "Task", here(request)))


@guard
async def task_save(request: Request) -> Response:
    site = site_of(request)
    raw = request.path_params.get("tid")
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            ctx = _task_context(db)
            task = None
            if raw is not None:
                task = db.get(EhrTask, int(raw))
                if task is None:
                    raise not_found(f"Task {raw}")
                ctx["task"] = task
            values = read_task(db, f, ctx, site.today())
        if not f.ok:
            ctx.update(values=f.raw, errors=f.errors)
            return site.render(request, "task_form.html", ctx)
        now = site.now()
        with site.writer(request) as db:
            if task is None:
                row = EhrTask(created=now, updated=now, created_by=user.user_id, **values)
                db.add(row)
                db.flush()
            else:
                row = db.get(EhrTask, task.id)
                for key, value in values.items():
                    setattr(row, key, value)
                row.updated = now
            tid = row.id
        site.flash(request, f"Task '{values['subject']}' saved ({values['status']}).")
        return posted.redirect(f"/tasks/{tid}")


routes = [
    Route("/messages", inbox),
    Route("/messages/new", message_form, methods=["GET"]),
    Route("/messages/new", message_save, methods=["POST"]),
    Route("/messages/{mid:id}", message_form, methods=["GET"]),
    Route("/messages/{mid:id}", message_save, methods=["POST"]),
    Route("/patient/{pid:id}/messages", patient_messages),
    Route("/tasks", task_list),
    Route("/tasks/new", task_form, methods=["GET"]),
    Route("/tasks/new", task_save, methods=["POST"]),
    Route("/tasks/{tid:id}", task_form, methods=["GET"]),
    Route("/tasks/{tid:id}", task_save, methods=["POST"]),
]
