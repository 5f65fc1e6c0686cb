"""The ePA portal's per-app context: stores, templates, sessions and page rendering."""

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
from portal_web.settings import PortalSettings

TEMPLATES_DIR = Path(__file__).parent / "templates"
STATIC_DIR = Path(__file__).parent / "static"
SYSTEM = "epa"
LOGIN_PATH = "/login"
HOME = "/dashboard"


@dataclass
class EpaSite:
    """Everything the views of one ePA portal app share."""

    settings: PortalSettings
    stores: EpisodeStores
    templates: Jinja2Templates
    sessions: SessionStore

    # -- time and data ----------------------------------------------------------------
    def now(self) -> datetime:
        """Naive sandbox-local now: the only clock the portal uses."""
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
        return {
            "user": session.principal if session is not None else None,
            "organization": data.get("organization", ""),
            "now": now,
            "flash": data.pop("flash", None),
            "errors": {},
            "values": {},
            "nav": None,
        }

    def render(self, request: Request, template: str, context: dict[str, Any] | None = None,
               *, status_code: int = 200) -> Response:
        ctx = self.base_context(request)
        ctx.update(context or {})
        response = self.templates.TemplateResponse(request, template, ctx,
                                                   status_code=status_code)
        response.headers["Cache-Control"] = "no-store"  # back never shows a stale form
        return response

    def flash(self, request: Request, message: str) -> None:
        """A one-line confirmation shown on the next page (e.g. "Answers saved")."""
        session_of(request).data["flash"] = message


def site_of(request: Request) -> EpaSite:
    return request.app.state.epa


def user_of(request: Request) -> Principal:
    principal = principal_of(request)
    assert principal is not None, "view not guarded by login_required"
    return principal
