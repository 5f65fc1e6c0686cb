"""The calendar (``openemr_postcalendar_events``): a day view by provider and event editing.

Saving an event that overlaps another event of the same provider is refused unless the
user ticks "save anyway", as OpenEMR warns about conflicts before saving.
"""

from __future__ import annotations

import calendar as pycal
import datetime as dt
from typing import Any

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.forms import FieldReader
from portal_web.common.params import query_int
from portal_web.common.requests import login_required, posted_form
from portal_web.ehr.chart import choices, not_found, user_name
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import CalendarCategory, CalendarEvent, Facility, PatientData, User

guard = login_required("/login")
APPT_STATUS = [("-", "- None"), ("*", "* Reminder done"), ("+", "+ Chart pulled"),
               ("@", "@ Arrived"), ("<", "< In exam room"), (">", "> Checked out"),
               ("x", "x Canceled"), ("?", "? No show")]
DAY_START, DAY_END, SLOT = 7, 18, 15


def _calendar_users(db) -> list[User]:  # noqa: ANN001
    """Providers shown as calendar columns (``users.calendar=1``; else every provider)."""
    users = list(db.scalars(select(User).where(
        User.active == 1, User.calendar == 1, User.username.is_not(None))
        .order_by(User.lname, User.fname)))
    return users or list(db.scalars(select(User).where(
        User.active == 1, User.authorized == 1, User.username.is_not(None))
        .order_by(User.lname, User.fname)))


def _day(request: Request, today: dt.date) -> dt.date:
    raw = request.query_params.get("date", "")[:10]
    try:
        day = dt.date.fromisoformat(raw) if raw else today
    except ValueError:
        return today
    return day if dt.date(1900, 1, 2) <= day <= dt.date(2199, 12, 30) else today


def _month(day: dt.date) -> list[list[dt.date | None]]:
    weeks = pycal.Calendar(firstweekday=6).monthdatescalendar(day.year, day.month)
    return [[d if d.month == day.month else None for d in week] for week in weeks]


@guard
async def day_view(request: Request) -> Response:
    site = site_of(request)
    day = _day(request, site.today())
    chosen = request.query_params.get("provider", "")
    with site.reader() as db:
        all_users = _calendar_users(db)
        users = [u for u in all_users if str(u.id) == chosen] or all_users
        events = db.execute(select(CalendarEvent, PatientData, CalendarCategory).outerjoin(
            PatientData, PatientData.pid == CalendarEvent.pc_pid).outerjoin(
            CalendarCategory, CalendarCategory.pc_catid == CalendarEvent.pc_catid)
            .where(CalendarEvent.pc_eventDate == day)
            .order_by(CalendarEvent.pc_startTime)).all()
    slots = [dt.time(h, m) for h in range(DAY_START, DAY_END) for m in range(0, 60, SLOT)]
    grid: dict[tuple[int, str], list] = {}
    other: list = []
    for ev, patient, cat in events:
        if ev.pc_startTime is None or ev.pc_aid not in {u.id for u in users}:
            other.append((ev, patient, cat))
            continue
        start = ev.pc_startTime
        slot = dt.time(start.hour, start.minute - start.minute % SLOT)
        grid.setdefault((ev.pc_aid, slot.strftime("%H:%M")), []).append((ev, patient, cat))
    return site.render(request, "calendar.html", {
        "day": day, "users": users, "all_users": all_users, "chosen": chosen,
        "slots": slots, "grid": grid, "other": other,
        "month": _month(day), "prev": day - dt.timedelta(days=1),
        "next": day + dt.timedelta(days=1), "today": site.today()},
        tab=Tab("cal", "Calendar", here(request)))


def _event_context(db) -> dict[str, Any]:  # noqa: ANN001
    return {
        "categories": [(str(c.pc_catid), c.pc_catname) for c in db.scalars(
            select(CalendarCategory).where(CalendarCategory.pc_active == 1)
            .order_by(CalendarCategory.pc_seq, CalendarCategory.pc_catname))],
        "providers": [(str(u.id), user_name(u)) for u in _calendar_users(db)],
        "facilities": [(str(f.id), f.name) for f in db.scalars(select(Facility))],
        "statuses": choices(db, "apptstat", APPT_STATUS), "event": None,
    }


def read_event(db, f: FieldReader, ctx: dict, event_id: int | None) -> dict[str, Any]:  # noqa: ANN001
    v: dict[str, Any] = {}
    cat = f.choice("pc_catid", "Category", [k for k, _ in ctx["categories"]], required=True)
    v["pc_catid"] = int(cat) if cat else None
    provider = f.choice("pc_aid", "Provider", [k for k, _ in ctx["providers"]], required=True)
    v["pc_aid"] = int(provider) if provider else None
    mrn = f.text("mrn", "Patient (MRN)", max_len=20)
    v["pc_pid"] = None
    if mrn:
        patient = db.scalar(select(PatientData).where(PatientData.pubpid == mrn))
        if patient is None:
            f.fail("mrn", f"No patient has MRN {mrn}; check it in Finder.")
        else:
            v["pc_pid"] = patient.pid
    title = f.text("pc_title", "Title", max_len=150)
    v["pc_eventDate"] = f.date("pc_eventDate", "Date", required=True,
                               earliest=dt.date(2000, 1, 1), latest=dt.date(2100, 1, 1))
    start = f.time("pc_startTime", "Start time", required=True)
    minutes = f.integer("duration", "Duration", low=5, high=720, required=True,
                        unit="minutes")
    v["pc_startTime"] = start
    v["pc_duration"] = (minutes or 0) * 60
    if start and minutes:
        end = dt.datetime.combine(dt.date(2000, 1, 1), start) + dt.timedelta(minutes=minutes)
        if end.date() != dt.date(2000, 1, 1):
            f.fail("duration", "The event must end on the same day.")
        v["pc_endTime"] = end.time()
    v["pc_apptstatus"] = f.choice("pc_apptstatus", "Status",
                                  [k for k, _ in ctx["statuses"]]) or "-"
    facility = f.choice("pc_facility", "Facility", [k for k, _ in ctx["facilities"]])
    v["pc_facility"] = int(facility) if facility else None
    v["pc_hometext"] = f.text("pc_hometext", "Comments", max_len=2000)
    v["pc_room"] = f.text("pc_room", "Room", max_len=40)
    if title is None and v["pc_catid"]:
        title = dict(ctx["categories"]).get(str(v["pc_catid"]))
    v["pc_title"] = title or "Event"
    if f.ok and not f.checkbox("allow_overlap"):
        clash = _overlap(db, v, event_id)
        if clash is not None:
            f.fail("pc_startTime", f"This overlaps '{clash.pc_title}' "
                                   f"{clash.pc_startTime:%H:%M}-{clash.pc_endTime:%H:%M} for "
                                   "the same provider. Choose another time, or tick 'Save "
                                   "anyway' to double-book.")
    return v


def _overlap(db, v: dict, event_id: int | None) -> CalendarEvent | None:  # noqa: ANN001
    start, end = v["pc_startTime"], v.get("pc_endTime")
    for ev in db.scalars(select(CalendarEvent).where(
            CalendarEvent.pc_aid == v["pc_aid"], CalendarEvent.pc_eventDate == v["pc_eventDate"],
            CalendarEvent.pc_apptstatus != "x")):
        if ev.pc_eid == event_id or ev.pc_startTime is None or ev.pc_endTime is None:
            continue
        if start < ev.pc_endTime and ev.pc_startTime < end:
            return ev
    return None


def event_values(db, ev: CalendarEvent) -> dict[str, str]:  # noqa: ANN001
    patient = db.scalar(select(PatientData).where(PatientData.pid == ev.pc_pid)) \
        if ev.pc_pid else None
    return {
        "pc_catid": str(ev.pc_catid), "pc_aid": str(ev.pc_aid or ""),
        "mrn": patient.pubpid if patient else "", "pc_title": ev.pc_title,
        "pc_eventDate": ev.pc_eventDate.isoformat(),
        "pc_startTime": ev.pc_startTime.strftime("%H:%M") if ev.pc_startTime else "",
        "duration": str((ev.pc_duration or 0) // 60), "pc_apptstatus": ev.pc_apptstatus,
        "pc_facility": str(ev.pc_facility or ""), "pc_hometext": ev.pc_hometext or "",
        "pc_room": ev.pc_room or ""}


@guard
async def event_form(request: Request) -> Response:
    site = site_of(request)
    raw = request.path_params.get("eid")
    user = user_of(request)
    with site.reader() as db:
        ctx = _event_context(db)
        if raw is None:
            mrn = ""
            pid = query_int(request, "pid")
            if pid is not None:
                patient = db.scalar(select(PatientData).where(PatientData.pid == pid))
                mrn = patient.pubpid if patient else ""
            provider = request.query_params.get("provider", "")
            if not any(k == provider for k, _ in ctx["providers"]):
                provider = str(user.user_id) if any(
                    k == str(user.user_id) for k, _ in ctx["providers"]) else ""
            ctx["values"] = {
                "pc_eventDate": _day(request, site.today()).isoformat(),
                "pc_startTime": request.query_params.get("time", "")[:5],
                "duration": "15", "pc_apptstatus": "-", "pc_aid": provider, "mrn": mrn,
                "pc_facility": ctx["facilities"][0][0] if ctx["facilities"] else ""}
        else:
            ev = db.get(CalendarEvent, int(raw))
            if ev is None:
                raise not_found(f"Event {raw}")
            ctx["event"] = ev
            ctx["values"] = event_values(db, ev)
    return site.render(request, "event_form.html", ctx,
                       tab=Tab("cal", "Calendar", here(request)))


@guard
async def event_save(request: Request) -> Response:
    site = site_of(request)
    raw = request.path_params.get("eid")
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            ctx = _event_context(db)
            ev = None
            if raw is not None:
                ev = db.get(CalendarEvent, int(raw))
                if ev is None:
                    raise not_found(f"Event {raw}")
                ctx["event"] = ev
            values = read_event(db, f, ctx, ev.pc_eid if ev else None)
        if not f.ok:
            ctx.update(values=f.raw, errors=f.errors)
            return site.render(request, "event_form.html", ctx)
        with site.writer(request) as db:
            if ev is None:
                row = CalendarEvent(pc_time=site.now(), pc_informant=str(user.user_id),
                                    pc_eventstatus=1, pc_sharing=1, **values)
                db.add(row)
            else:
                row = db.get(CalendarEvent, ev.pc_eid)
                for key, value in values.items():
                    setattr(row, key, value)
        site.flash(request, f"Event '{values['pc_title']}' saved for "
                            f"{values['pc_eventDate']} {values['pc_startTime']:%H:%M}.")
        return posted.redirect(f"/main/calendar?date={values['pc_eventDate'].isoformat()}")


routes = [
    Route("/main/calendar", day_view),
    Route("/calendar/event/new", event_form, methods=["GET"]),
    Route("/calendar/event/new", event_save, methods=["POST"]),
    Route("/calendar/event/{eid:id}", event_form, methods=["GET"]),
    Route("/calendar/event/{eid:id}", event_save, methods=["POST"]),
]
