"""The web EHR's per-app context: stores, templates, sessions, and page rendering.

Every page is rendered through :meth:`EhrSite.render`, which adds what the OpenEMR frame
shows around the content: the logged-in user, the selected patient's title bar, and the
row of open tabs (kept in the session; a tab is a page the user opened, not an iframe).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from portal_web.common.requests import here as here  # what a tab or a redirect goes back to
from portal_web.common.requests import session_of
from portal_web.common.requests import user_of as user_of  # the views' logged-in user
from portal_web.common.site import PortalSite
from portal_web.ehr.chart import PatientHeader, patient_header
from sandbox.stores.ehr import FormEncounter

TEMPLATES_DIR = Path(__file__).parent / "templates"
STATIC_DIR = Path(__file__).parent / "static"
MAX_TABS = 8
SYSTEM = "ehr"


@dataclass(frozen=True)
class Tab:
    """One open tab of the frame: a key (one tab per key), its title and its page."""

    key: str
    title: str
    url: str


@dataclass
class EhrSite(PortalSite):
    """Everything the views of one web-EHR app share."""

    system: str = SYSTEM

    def base_context(self, request: Request) -> dict[str, Any]:
        """What the page frame needs, for any request (also for error pages)."""
        context = self.frame_context(request)
        session = getattr(request.state, "session", None)
        data = session.data if session is not None else {}
        patient = None
        pid = data.get("pid")
        if pid is not None and session is not None and session.principal is not None:
            try:
                with self.reader() as db:
                    patient = patient_header(db, pid, self.today())
            except Exception:  # noqa: BLE001 - the frame must render even if the chart cannot
                data.pop("pid", None)
        context.update(tabs=[Tab(**t) for t in data.get("tabs", [])], active_tab=None,
                       patient=patient)
        return context

    def select_patient(self, request: Request, db, pid: int,  # noqa: ANN001
                       encounter: FormEncounter | None = None) -> PatientHeader:
        """Make ``pid`` the selected patient (title bar) and return its header."""
        header = patient_header(db, pid, self.today(), encounter)
        session_of(request).data["pid"] = pid
        return header

    def render(self, request: Request, template: str, context: dict[str, Any] | None = None,
               *, tab: Tab | None = None, status_code: int = 200) -> Response:
        session = session_of(request)
        if tab is not None and request.method == "GET" and status_code == 200:
            open_tab(session.data, tab)
        return self.respond(request, template, {
            **self.base_context(request), "active_tab": tab.key if tab else None,
            **(context or {})}, status_code=status_code)


def open_tab(data: dict[str, Any], tab: Tab) -> None:
    """Open ``tab`` (or point its key at the new page), keeping at most MAX_TABS tabs."""
    tabs: list[dict[str, str]] = data.setdefault("tabs", [])
    for existing in tabs:
        if existing["key"] == tab.key:
            existing.update(title=tab.title, url=tab.url)
            return
    tabs.append({"key": tab.key, "title": tab.title, "url": tab.url})
    while len(tabs) > MAX_TABS:
        tabs.pop(0)


def site_of(request: Request) -> EhrSite:
    return request.app.state.ehr
