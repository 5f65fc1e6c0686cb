"""Log-in and log-out against ``users``/``users_secure`` (OpenEMR's password table)."""

from __future__ import annotations

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.common.forms import clean_text
from portal_web.common.requests import CsrfRejected, read_form, safe_next, session_of
from portal_web.common.sessions import Principal, csrf_matches
from portal_web.ehr.site import site_of
from sandbox.stores.ehr import User, UserSecure, check_password

HOME = "/main/calendar"


async def login_page(request: Request) -> Response:
    site = site_of(request)
    if session_of(request).principal is not None:
        return RedirectResponse(safe_next(request.query_params.get("next"), HOME), 303)
    notice = None
    if request.query_params.get("expired"):
        notice = "Your session expired. Log in again to continue."
    elif request.query_params.get("logged_out"):
        notice = "You have been logged out."
    return site.render(request, "login.html", {
        "next": safe_next(request.query_params.get("next"), HOME), "notice": notice,
        "username": ""})


def authenticate(site, username: str, password: str) -> Principal | None:  # noqa: ANN001
    with site.reader() as db:
        secure = db.scalar(select(UserSecure).where(UserSecure.username == username))
        if secure is None or not check_password(secure.password, password):
            return None
        user = db.get(User, secure.id)
        if user is None or not user.active:
            return None
        name = " ".join(p for p in (user.fname, user.lname) if p) or username
        return Principal(username=username, user_id=user.id, display_name=name)


async def login_submit(request: Request) -> Response:
    site = site_of(request)
    form = await read_form(request)
    session = session_of(request)
    if not csrf_matches(session, form.get("csrf_token")):  # type: ignore[arg-type]
        raise CsrfRejected()
    username = clean_text(str(form.get("authUser") or ""))[:64]
    password = str(form.get("clearPass") or "")[:256]
    target = safe_next(str(form.get("next") or ""), HOME)
    principal = authenticate(site, username, password) if username and password else None
    if principal is None:
        message = ("Enter both your username and password." if not (username and password)
                   else "Invalid username or password. Check the credentials you were given "
                        "(input/creds.txt) and try again.")
        return site.render(request, "login.html", {
            "next": target, "notice": None, "login_error": message, "username": username},
            status_code=200)
    # Log-ins are not written to the `log` table: a task's footprint would count them as
    # stray writes. The store's audit trail records who wrote what.
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


routes = [
    Route("/login", login_page, methods=["GET"], name="login"),
    Route("/login", login_submit, methods=["POST"], name="login_submit"),
    Route("/logout", logout, methods=["POST"], name="logout"),
]
