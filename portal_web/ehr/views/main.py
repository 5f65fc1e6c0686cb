"""The frame's own pages: home, patient finder, flow board, tabs, About."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.common.requests import login_required, session_of
from portal_web.ehr.chart import age_text, find_patients
from portal_web.ehr.site import Tab, here, site_of
from sandbox.stores.ehr import CalendarEvent, FormEncounter, PatientData, User

guard = login_required("/login")


async def home(request: Request) -> Response:
    return RedirectResponse("/main/calendar", status_code=303)


@guard
async def finder(request: Request) -> Response:
    site = site_of(request)
    session = session_of(request)
    if request.query_params.get("clear"):
        session.data.pop("pid", None)
    query = request.query_params.get("q", "")[:100]
    with site.reader() as db:
        rows = find_patients(db, query)
    today = site.today()
    patients = [{"p": p, "age": age_text(p.DOB, today)} for p in rows]
    return site.render(request, "finder.html", {"query": query, "patients": patients},
                       tab=Tab("fin", "Patient Finder", here(request)))


@guard
async def flow_board(request: Request) -> Response:
    """Today's appointments with arrival status (OpenEMR's Flow Board)."""
    site = site_of(request)
    today = site.today()
    with site.reader() as db:
        events = db.execute(
            select(CalendarEvent, PatientData, User)
            .join(PatientData, PatientData.pid == CalendarEvent.pc_pid)
            .outerjoin(User, User.id == CalendarEvent.pc_aid)
            .where(CalendarEvent.pc_eventDate == today)
            .order_by(CalendarEvent.pc_startTime)).all()
        start = dt.datetime.combine(today, dt.time())
        encounters = {e.pid: e for e in db.scalars(select(FormEncounter).where(
            FormEncounter.date >= start, FormEncounter.date < start + dt.timedelta(days=1)))}
    return site.render(request, "flow.html", {"events": events, "encounters": encounters,
                                              "today": today},
                       tab=Tab("flb", "Flow Board", "/main/flow"))


@guard
async def close_tab(request: Request) -> Response:
    session = session_of(request)
    key = request.path_params["key"]
    tabs = [t for t in session.data.get("tabs", []) if t["key"] != key]
    session.data["tabs"] = tabs
    target = tabs[-1]["url"] if tabs else "/main/calendar"
    return RedirectResponse(target, status_code=303)


@guard
async def about(request: Request) -> Response:
    site = site_of(request)
    return site.render(request, "about.html", {"episode_id": site.settings.episode_id},
                       tab=Tab("abt", "About", "/about"))


routes = [
    Route("/", home, name="home"),
    Route("/main/finder", finder, name="finder"),
    Route("/main/flow", flow_board, name="flow"),
    Route("/tabs/close/{key:str}", close_tab, name="close_tab"),
    Route("/about", about, name="about"),
]
