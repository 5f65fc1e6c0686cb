"""A web system whose users log in with a row of its own accounts table (payer and agency
sites: the Beta Care fax service, the state's external-review portal).

:class:`AccountSite` holds what every view of such a site shares — the episode's stores,
the templates, the browser sessions — and renders pages with the frame's context.
:func:`login_routes` gives the log-in and log-out views, and :func:`build_account_app`
wires a site into a Starlette app with sessions, static files and error pages, the same
way the web EHR is wired.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

import portal_web.common.convertors  # noqa: F401 - registers {x:id}
from portal_web.common.episode import EpisodeStores
from portal_web.common.errors import error_handlers
from portal_web.common.forms import clean_text
from portal_web.common.middleware import BrowserSessionMiddleware
from portal_web.common.requests import (
    CsrfRejected,
    principal_of,
    read_form,
    safe_next,
    session_of,
)
from portal_web.common.sessions import Principal, SessionStore, csrf_matches
from portal_web.common.templating import make_templates
from portal_web.settings import PortalSettings

MAX_BODY = 64 * 1024 * 1024  # a request may carry several attachments of up to 12 MB


def password_matches(stored_sha256: str, password: str) -> bool:
    """Whether ``password`` hashes to the account's stored sha256 (constant time)."""
    digest = hashlib.sha256(password.encode("utf-8", "surrogatepass")).hexdigest()
    return hmac.compare_digest(digest, stored_sha256 or "")


@dataclass
class AccountSite:
    """What the views of one account-based site share."""

    settings: PortalSettings
    system: str
    stores: EpisodeStores
    templates: Jinja2Templates
    sessions: SessionStore
    home: str = "/"
    frame: dict[str, Any] = field(default_factory=dict)  # constant context of every page

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
    def base_context(self, request: Request) -> dict[str, Any]:
        """What the page frame needs, for any request (error pages included)."""
        session = getattr(request.state, "session", None)
        data = session.data if session is not None else {}
        try:
            now = self.now()
        except Exception:  # noqa: BLE001 - an error page must render without a clock
            now = None
        return {**self.frame, "user": session.principal if session is not None else None,
                "now": now, "flash": data.pop("flash", None), "errors": {}, "values": {},
                "nav": None}

    def render(self, request: Request, template: str, context: dict[str, Any] | None = None,
               *, status_code: int = 200) -> Response:
        ctx = self.base_context(request)
        ctx.update(context or {})
        return self.templates.TemplateResponse(request, template, ctx, status_code=status_code)

    def flash(self, request: Request, message: str) -> None:
        """A one-line confirmation shown on the next page."""
        session_of(request).data["flash"] = message


Authenticate = Callable[[Any, str, str], Principal | None]


def login_routes(authenticate: Authenticate, *, site_of: Callable[[Request], AccountSite],
                 template: str = "login.html") -> list[BaseRoute]:
    """``GET/POST /login`` and ``POST /logout`` for a site whose accounts
    ``authenticate(site, username, password)`` checks."""

    async def login_page(request: Request) -> Response:
        site = site_of(request)
        if session_of(request).principal is not None:
            return RedirectResponse(safe_next(request.query_params.get("next"), site.home), 303)
        notice = None
        if request.query_params.get("expired"):
            notice = "Your session expired. Log in again to continue."
        elif request.query_params.get("logged_out"):
            notice = "You have been logged out."
        return site.render(request, template, {
            "next": safe_next(request.query_params.get("next"), site.home), "notice": notice,
            "username": ""})

    async def login_submit(request: Request) -> Response:
        site = site_of(request)
        form = await read_form(request)
        session = session_of(request)
        if not csrf_matches(session, form.get("csrf_token")):  # type: ignore[arg-type]
            raise CsrfRejected()
        username = clean_text(str(form.get("username") or ""))[:64]
        password = str(form.get("password") or "")[:256]
        target = safe_next(str(form.get("next") or ""), site.home)
        principal = authenticate(site, username, password) if username and password else None
        if principal is None:
            message = ("Enter both your user name and password." if not (username and password)
                       else "The user name or password is incorrect. Check the log-in you "
                            "were given (input/creds.txt) and try again.")
            return site.render(request, template, {
                "next": target, "notice": None, "login_error": message, "username": username})
        request.state.session = site.sessions.login(session, principal)
        return RedirectResponse(target, status_code=303)

    async def logout(request: Request) -> Response:
        site = site_of(request)
        form = await read_form(request)
        session = session_of(request)
        if not csrf_matches(session, form.get("csrf_token")):  # type: ignore[arg-type]
            raise CsrfRejected()
        request.state.session = site.sessions.logout(session)
        return RedirectResponse("/login?logged_out=1", status_code=303)

    return [
        Route("/login", login_page, methods=["GET"], name="login"),
        Route("/login", login_submit, methods=["POST"], name="login_submit"),
        Route("/logout", logout, methods=["POST"], name="logout"),
    ]


def new_site(settings: PortalSettings, system: str, templates_dir: Path, *, cookie: str,
             home: str, frame: dict[str, Any] | None = None) -> AccountSite:
    """An :class:`AccountSite` with its own stores, templates and session store."""
    stores = EpisodeStores(settings)
    return AccountSite(settings=settings, system=system, stores=stores,
                       templates=make_templates([templates_dir]),
                       sessions=SessionStore(cookie, settings.session_ttl_s,
                                             now=lambda: stores.clock.now_local()),
                       home=home, frame=dict(frame or {}))


def build_account_app(site: AccountSite, routes: Sequence[BaseRoute], static_dir: Path,
                      state_name: str) -> Starlette:
    """The site's Starlette app: its routes, ``/static``, sessions and error pages; the site
    is kept in ``app.state.<state_name>``."""
    app = Starlette(
        routes=[Mount("/static", app=StaticFiles(directory=static_dir), name="static"),
                *routes],
        middleware=[Middleware(BrowserSessionMiddleware, store=site.sessions)],
        exception_handlers=error_handlers(site.templates, base_context=site.base_context),
        max_body_size=MAX_BODY,
    )
    setattr(app.state, state_name, site)
    return app
