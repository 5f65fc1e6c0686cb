"""Log-in to the DME portal (the provider portal's user IDs, for users whose ``sites``
include ``dme``), the single sign-on hand-off from the provider portal, log-out and the idle
time-out endpoint (the provider portal's own)."""

from __future__ import annotations

import secrets
from urllib.parse import quote

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.acme.site import HOME_PATH, PortalPrincipal, site_of
from portal_web.acme.views.auth import authenticate, keepalive, logout, password_digest
from portal_web.common.forms import clean_text
from portal_web.common.requests import CsrfRejected, read_form, safe_next, session_of
from portal_web.common.sessions import csrf_matches
from portal_web.dme.sso import TicketError, read_ticket
from sandbox.stores.acme import PortalUser

PORTAL = "dme"
DENIED = ("This user ID is not enrolled for the DME portal. DME orders are submitted by "
          "users your organization enrolled for DME; ask your portal administrator.")


async def login_page(request: Request) -> Response:
    site = site_of(request)
    if session_of(request).principal is not None:
        return RedirectResponse(safe_next(request.query_params.get("next"), HOME_PATH), 303)
    notice = None
    if request.query_params.get("expired") or getattr(request.state, "session_expired", False):
        notice = ("Your session has expired because of inactivity. Log in again to continue; "
                  "orders you saved are under Orders > Drafts.")
    elif request.query_params.get("logged_out"):
        notice = "You have logged out of the Acme Health DME portal."
    return site.render(request, "login.html", {
        "next": safe_next(request.query_params.get("next"), HOME_PATH), "notice": notice,
        "login_error": request.query_params.get("sso_error", "")[:200] or None,
        "username": ""})


async def login_submit(request: Request) -> Response:
    site = site_of(request)
    form = await read_form(request)
    session = session_of(request)
    if not csrf_matches(session, form.get("csrf_token")):  # type: ignore[arg-type]
        raise CsrfRejected()
    username = clean_text(str(form.get("username") or ""))[:60]
    password = str(form.get("password") or "")[:256]
    target = safe_next(str(form.get("next") or ""), HOME_PATH)
    principal = authenticate(site, username, password) if username and password else None
    if principal is None:
        if not (username and password):
            message = "Enter your user ID and password."
        elif _password_matches(site, username, password):
            message = DENIED
        else:
            message = ("The user ID or password is incorrect. Use your Acme Health provider "
                       "portal log-in (input/creds.txt) and try again.")
        return site.render(request, "login.html", {
            "next": target, "notice": None, "login_error": message, "username": username})
    request.state.session = site.sessions.login(session, principal)
    return RedirectResponse(target, status_code=303)


def _password_matches(site, username: str, password: str) -> bool:  # noqa: ANN001
    """Whether the log-in is right (only its DME enrolment is missing)."""
    with site.reader() as db:
        user = db.scalar(select(PortalUser).where(PortalUser.username == username))
    return user is not None and user.active and secrets.compare_digest(
        user.password_sha256, password_digest(password))


async def single_sign_on(request: Request) -> Response:
    """Arrive from the provider portal's "DME Orders" link, already logged in."""
    site = site_of(request)
    try:
        username = read_ticket(site.settings.secret_key, request.query_params.get("ticket", ""),
                               site.now(), request.app.state.sso_nonces)
    except TicketError as exc:
        return RedirectResponse(f"/login?sso_error={quote(str(exc))}", 303)
    with site.reader() as db:
        user = db.scalar(select(PortalUser).where(PortalUser.username == username))
    if user is None or not user.active or PORTAL not in {
            s.strip() for s in user.sites.split(",")}:
        return RedirectResponse(f"/login?sso_error={quote(DENIED)}", 303)
    principal = PortalPrincipal(username=user.username, user_id=user.id,
                                display_name=user.display_name, role=user.role,
                                organization=user.organization,
                                organization_tin=user.organization_tin,
                                organization_npi=user.organization_npi)
    request.state.session = site.sessions.login(session_of(request), principal)
    return RedirectResponse(HOME_PATH, 303)


async def root(request: Request) -> Response:
    target = HOME_PATH if session_of(request).principal is not None else "/login"
    return RedirectResponse(target, status_code=303)


routes = [
    Route("/", root),
    Route("/login", login_page, methods=["GET"]),
    Route("/login", login_submit, methods=["POST"]),
    Route("/logout", logout, methods=["POST"]),
    Route("/session/keepalive", keepalive, methods=["POST"]),
    Route("/sso", single_sign_on, methods=["GET"]),
]
