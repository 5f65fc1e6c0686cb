"""Log-in and log-out against ``epa_users`` (password kept as its sha256)."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.common.forms import clean_text
from portal_web.common.requests import CsrfRejected, read_form, safe_next, session_of
from portal_web.common.sessions import Principal, csrf_matches
from portal_web.epa.site import HOME, EpaSite, site_of
from sandbox.stores.epa import EpaUser


async def home(request: Request) -> Response:
    return RedirectResponse(HOME, 303)


async def login_page(request: Request) -> Response:
    site = site_of(request)
    if session_of(request).principal is not None:
        return RedirectResponse(safe_next(request.query_params.get("next"), HOME), 303)
    notice = None
    if request.query_params.get("expired"):
        notice = "Your session timed out. Log in again to continue where you left off."
    elif request.query_params.get("logged_out"):
        notice = "You have been logged out."
    return site.render(request, "login.html", {
        "next": safe_next(request.query_params.get("next"), HOME), "notice": notice,
        "username": ""})


def authenticate(site: EpaSite, username: str, password: str) -> tuple[Principal, str] | None:
    """The principal and organization of an active user with this password, or None."""
    digest = hashlib.sha256(password.encode("utf-8", "replace")).hexdigest()
    with site.reader() as db:
        user = db.scalar(select(EpaUser).where(EpaUser.username == username))
        if user is None or not user.active or not secrets.compare_digest(
                user.password_sha256, digest):
            return None
        return (Principal(username=user.username, user_id=user.id,
                          display_name=user.display_name), user.organization)


async def login_submit(request: Request) -> Response:
    site = site_of(request)
    form = await read_form(request)
    session = session_of(request)
    if not csrf_matches(session, form.get("csrf_token")):  # type: ignore[arg-type]
        raise CsrfRejected()
    username = clean_text(str(form.get("username") or ""))[:64]
    password = str(form.get("password") or "")[:256]
    target = safe_next(str(form.get("next") or ""), HOME)
    found = authenticate(site, username, password) if username and password else None
    if found is None:
        message = ("Enter your username and your password." if not (username and password)
                   else "The username or password is incorrect. Check the log-in you were "
                        "given (input/creds.txt) and try again.")
        return site.render(request, "login.html", {
            "next": target, "notice": None, "login_error": message, "username": username})
    principal, organization = found
    # Log-ins write nothing: a task's footprint would count them as stray writes.
    new_session = site.sessions.login(session, principal)
    new_session.data["organization"] = organization
    request.state.session = new_session
    return RedirectResponse(target, status_code=303)


async def logout(request: Request) -> Response:
    site = site_of(request)
    form = await read_form(request)
    session = session_of(request)
    if not csrf_matches(session, form.get("csrf_token")):  # type: ignore[arg-type]
        raise CsrfRejected()
    request.state.session = site.sessions.logout(session)
    return RedirectResponse("/login?logged_out=1", status_code=303)


routes = [
    Route("/", home, methods=["GET"], name="home"),
    Route("/login", login_page, methods=["GET"], name="login"),
    Route("/login", login_submit, methods=["POST"], name="login_submit"),
    Route("/logout", logout, methods=["POST"], name="logout"),
]
