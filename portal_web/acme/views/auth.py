"""Log-in against ``portal_users`` (sha256 of the password), log-out, and the idle-session
endpoints the time-out warning uses."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from portal_web.acme.site import HOME_PATH, AcmeSite, PortalPrincipal, site_of
from portal_web.common.forms import clean_text
from portal_web.common.requests import CsrfRejected, read_form, safe_next, session_of
from portal_web.common.sessions import csrf_matches
from sandbox.stores.acme import PortalUser


def password_digest(password: str) -> str:
    return hashlib.sha256(password.encode("utf-8")).hexdigest()


def authenticate(site: AcmeSite, username: str, password: str) -> PortalPrincipal | None:
    """The user whose username and password match, active and allowed on this portal
    (``portal_users.sites`` lists the Acme portals a log-in may use)."""
    with site.reader() as db:
        user = db.scalar(select(PortalUser).where(PortalUser.username == username))
    if user is None or not secrets.compare_digest(user.password_sha256,
                                                  password_digest(password)):
        return None
    if not user.active or site.portal_key not in {s.strip() for s in user.sites.split(",")}:
        return None
    return PortalPrincipal(username=user.username, user_id=user.id,
                           display_name=user.display_name, role=user.role,
                           organization=user.organization,
                           organization_tin=user.organization_tin,
                           organization_npi=user.organization_npi)


async def login_page(request: Request) -> Response:
    site = site_of(request)
    if session_of(request).principal is not None:
        return RedirectResponse(safe_next(request.query_params.get("next"), HOME_PATH), 303)
    notice = None
    if request.query_params.get("expired") or getattr(request.state, "session_expired", False):
        notice = ("Your session has expired because of inactivity. For your security you "
                  "have been logged out. Log in again to continue; work saved as a draft is "
                  "under Authorizations & Referrals > My drafts.")
    elif request.query_params.get("logged_out"):
        notice = "You have logged out of the Acme Health provider portal."
    return site.render(request, "login.html", {
        "next": safe_next(request.query_params.get("next"), HOME_PATH), "notice": notice,
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
        message = ("Enter your user ID and password." if not (username and password) else
                   "The user ID or password is incorrect. Check the log-in you were given "
                   "(input/creds.txt) and try again.")
        return site.render(request, "login.html", {
            "next": target, "notice": None, "login_error": message, "username": username})
    # Log-ins write nothing: the audit trail records who wrote what, and a task's footprint
    # must not count signing in as a change.
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


async def keepalive(request: Request) -> Response:
    """"Stay logged in" on the time-out warning: any request resets the idle timer; this
    one says whether the session is still logged in and how long it now has."""
    site = site_of(request)
    logged_in = session_of(request).principal is not None
    return JSONResponse({"logged_in": logged_in,
                         "remaining_s": site.idle_timeout_s() if logged_in else 0},
                        headers={"Cache-Control": "no-store"})


async def root(request: Request) -> Response:
    target = HOME_PATH if session_of(request).principal is not None else "/login"
    return RedirectResponse(target, status_code=303)


routes = [
    Route("/", root, name="root"),
    Route("/login", login_page, methods=["GET"], name="login"),
    Route("/login", login_submit, methods=["POST"], name="login_submit"),
    Route("/logout", logout, methods=["POST"], name="logout"),
    Route("/session/keepalive", keepalive, methods=["POST"], name="keepalive"),
]
