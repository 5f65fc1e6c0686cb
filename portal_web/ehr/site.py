"""The web EHR's per-app context: stores, templates, sessions, and page rendering.

Every page is rendered through :meth:`EhrSite.render`, which adds what the OpenEMR frame
shows around the content: the logged-in user, the selected patient's title bar, and the
row of open tabs (kept in the session; a tab is a page the user opened, not an iframe).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from portal_web.common.episode import EpisodeStores
from portal_web.common.requests import principal_of, session_of
from portal_web.common.sessions import Principal, SessionStore
from portal_web.ehr.chart import PatientHeader, patient_header
from portal_web.settings import PortalSettings
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
class EhrSite:
    """Everything the views of one web-EHR app share."""

    settings: PortalSettings
    stores: EpisodeStores
    templates: Jinja2Templates
    sessions: SessionStore

    # -- time and data ----------------------------------------------------------------
    def now(self) -> datetime:
        """Naive sandbox-local now: the only clock the EHR uses."""
        return self.stores.now().replace(microsecond=0)

    def today(self) -> date:
        return self.now().date()

    def reader(self):  # noqa: ANN201 - a SQLAlchemy Session
        return self.stores.reader(SYSTEM)

    def writer(self, request: Request):  # noqa: ANN201 - context manager of a Session
        """An audited write transaction on behalf of the logged-in user (channel browser)."""
        principal = principal_of(request)
        if principal is None:
            raise PermissionError("write attempted without a logged-in user")
        return self.stores.writer(SYSTEM, principal)

    # -- rendering --------------------------------------------------------------------
    def base_context(self, request: Request) -> dict[str, Any]:
        """What the page frame needs, for any request (also for error pages)."""
        session = getattr(request.state, "session", None)
        data = session.data if session is not None else {}
        try:
            now = self.now()
        except Exception:  # noqa: BLE001 - an error page must render even without a clock
            now = None
        patient = None
        pid = data.get("pid")
        if pid is not None and session is not None and session.principal is not None:
            try:
                with self.reader() as db:
                    patient = patient_header(db, pid, self.today())
            except Exception:  # noqa: BLE001 - the frame must render even if the chart cannot
                data.pop("pid", None)
        return {
            "user": session.principal if session is not None else None,
            "now": now,
            "tabs": [Tab(**t) for t in data.get("tabs", [])],
            "active_tab": None,
            "flash": data.pop("flash", None),
            "errors": {},
            "values": {},
            "patient": patient,
        }

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
        ctx = self.base_context(request)
        ctx["active_tab"] = tab.key if tab else None
        ctx.update(context or {})
        return self.templates.TemplateResponse(request, template, ctx,
                                               status_code=status_code)

    def flash(self, request: Request, message: str) -> None:
        """A one-line confirmation shown on the next page (e.g. "Vitals saved")."""
        session_of(request).data["flash"] = message


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


def here(request: Request) -> str:
    """The request's path and query (what a tab or a redirect goes back to)."""
    return request.url.path + (f"?{request.url.query}" if request.url.query else "")


def site_of(request: Request) -> EhrSite:
    return request.app.state.ehr


def user_of(request: Request) -> Principal:
    principal = principal_of(request)
    assert principal is not None, "view not guarded by login_required"
    return principal
