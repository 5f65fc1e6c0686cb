"""A web system whose users log in with a row of its own accounts table (payer and agency
sites: the Beta Care fax service, the state's external-review portal).

:class:`AccountSite` is a :class:`~portal_web.common.site.PortalSite` whose page frame
carries a constant context (the product or agency name) and a home page to go to after
log-in.
:func:`login_routes` gives the log-in and log-out views, and :func:`build_account_app`
wires a site into a Starlette app the way every site is wired.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from portal_web.common.app import site_app
from portal_web.common.episode import EpisodeStores
from portal_web.common.forms import clean_text
from portal_web.common.requests import CsrfRejected, read_form, safe_next, session_of
from portal_web.common.sessions import Principal, csrf_matches
from portal_web.common.site import PortalSite, episode_sessions
from portal_web.common.templating import make_templates
from portal_web.settings import PortalSettings

MAX_BODY = 64 * 1024 * 1024  # a request may carry several attachments of up to 12 MB


def password_matches(stored_sha256: str, password: str) -> bool:
    """Whether ``password`` hashes to the account's stored sha256 (constant time)."""
    digest = hashlib.sha256(password.encode("utf-8", "surrogatepass")).hexdigest()
    return hmac.compare_digest(digest, stored_sha256 or "")


@dataclass
class AccountSite(PortalSite):
    """What the views of one account-based site share."""

    home: str = "/"
    frame: dict[str, Any] = field(default_factory=dict)  # constant context of every page

    def base_context(self, request: Request) -> dict[str, Any]:
        """What the page frame needs, for any request (error pages included)."""
        return {**self.frame, **self.frame_context(request), "nav": None}


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
                       sessions=episode_sessions(stores, cookie, settings.session_ttl_s),
                       home=home, frame=dict(frame or {}))


def build_account_app(site: AccountSite, routes: Sequence[BaseRoute], static_dir: Path,
                      state_name: str) -> Starlette:
    """The site's Starlette app: its routes, ``/static``, sessions and error pages; the site
    is kept in ``app.state.<state_name>``."""
    return site_app(site, routes, static_dir=static_dir, state_name=state_name,
                    max_body=MAX_BODY)
