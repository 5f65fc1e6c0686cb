"""What the views of every site share: the episode's store of the site's system, the
templates, the browser sessions, the sandbox clock and how a page is answered.

Each site subclasses :class:`PortalSite` with its own frame (``base_context``) and its own
``render`` signature (the EHR's tabs, the Acme portal's menu areas); the pieces here are the
ones that must behave the same on every site: one clock, one audited write per request on
behalf of the logged-in user, a flash message for the next page, and the context every page
frame starts from (error pages included).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, ClassVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from portal_web.common.episode import EpisodeStores
from portal_web.common.requests import principal_of, session_of
from portal_web.common.sessions import SessionStore
from portal_web.settings import PortalSettings


def episode_sessions(stores: EpisodeStores, cookie: str, ttl_s: Any) -> SessionStore:
    """The site's browser sessions, aged on the episode's sandbox clock (``ttl_s`` as
    :class:`SessionStore` takes it: seconds, or a callable read when first needed)."""
    return SessionStore(cookie, ttl_s, now=lambda: stores.clock.now_local())


@dataclass
class PortalSite:
    """What the views of one site's app share."""

    settings: PortalSettings
    stores: EpisodeStores
    templates: Jinja2Templates
    sessions: SessionStore
    system: str  # the store the site reads and writes ("ehr", "acme", "fax" ...)

    # pages answer with ``Cache-Control: no-store``, so Back never shows a stale form
    no_store: ClassVar[bool] = False

    # -- time and data ------------------------------------------------------------------
    def now(self) -> datetime:
        """Naive sandbox-local now, to the second: the only clock the site uses."""
        return self.stores.now().replace(microsecond=0)

    def today(self) -> date:
        return self.now().date()

    def reader(self):  # noqa: ANN201 - a SQLAlchemy Session
        return self.stores.reader(self.system)

    def writer(self, request: Request):  # noqa: ANN201 - context manager of a Session
        """One audited transaction on behalf of the logged-in user (channel ``browser``)."""
        principal = principal_of(request)
        if principal is None:
            raise PermissionError("write attempted without a logged-in user")
        return self.stores.writer(self.system, principal)

    # -- rendering ----------------------------------------------------------------------
    def frame_context(self, request: Request) -> dict[str, Any]:
        """What every page frame starts from, for any request (error pages included): the
        user, the sandbox time, the flash message (shown once) and empty form state."""
        session = getattr(request.state, "session", None)
        data = session.data if session is not None else {}
        try:
            now = self.now()
        except Exception:  # noqa: BLE001 - an error page must render without a clock
            now = None
        return {"user": session.principal if session is not None else None, "now": now,
                "flash": data.pop("flash", None), "errors": {}, "values": {}}

    def base_context(self, request: Request) -> dict[str, Any]:
        """What the site's page frame needs (sites add their own)."""
        return self.frame_context(request)

    def respond(self, request: Request, template: str, context: dict[str, Any], *,
                status_code: int = 200) -> Response:
        """``template`` rendered with ``context`` (the frame's context already in it)."""
        response = self.templates.TemplateResponse(request, template, context,
                                                   status_code=status_code)
        if self.no_store:
            response.headers["Cache-Control"] = "no-store"
        return response

    def render(self, request: Request, template: str, context: dict[str, Any] | None = None,
               *, status_code: int = 200) -> Response:
        return self.respond(request, template, {**self.base_context(request), **(context or {})},
                            status_code=status_code)

    def flash(self, request: Request, message: str) -> None:
        """A one-line confirmation shown on the next page ("Draft saved")."""
        session_of(request).data["flash"] = message
