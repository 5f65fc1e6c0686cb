"""Log-in to the DME portal (the provider portal's user IDs, for users whose ``sites``
include ``dme``), the single sign-on hand-off from the provider portal, log-out and the idle
time-out endpoint (the provider portal's own)."""

from __future__ import annotations

from urllib.parse import quote

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.acme.site import HOME_PATH, AcmeSite, site_of
from portal_web.acme.views.auth import (
    active_user,
    authenticate,
    enrolled,
    keepalive,
    portal_principal,
    root,
)
from portal_web.common.login import LoginPage, login_routes
from portal_web.common.requests import safe_next, session_of
from portal_web.dme.sso import TicketError, read_ticket
from sandbox.stores.acme import PortalUser

PORTAL = "dme"
DENIED = ("This user ID is not enrolled for the DME portal. DME orders are submitted by "
          "users your organization enrolled for DME; ask your portal administrator.")
PAGE = LoginPage(
    home=HOME_PATH, username_max=60, notice_own_expiry=True,
    expired="Your session has expired because of inactivity. Log in again to continue; "
            "orders you saved are under Orders > Drafts.",
    logged_out="You have logged out of the Acme Health DME portal.",
    missing="Enter your user ID and password.")


def refusal(site: AcmeSite, username: str, password: str) -> str:
    """A right log-in without DME enrolment is told so; anything else is a wrong log-in."""
    if active_user(site, username, password) is not None:
        return DENIED
    return ("The user ID or password is incorrect. Use your Acme Health provider portal "
            "log-in (input/creds.txt) and try again.")


def sso_error(request: Request) -> dict[str, str | None]:
    """Why a single sign-on hand-off failed, shown on the log-in page."""
    return {"login_error": request.query_params.get("sso_error", "")[:200] or None}


async def single_sign_on(request: Request) -> Response:
    """Arrive from the provider portal's "DME Orders" link (or a draft's "Resume" there,
    with ``next``), already logged in."""
    site = site_of(request)
    try:
        username = read_ticket(site.settings.secret_key, request.query_params.get("ticket", ""),
                               site.now(), request.app.state.sso_nonces)
    except TicketError as exc:
        return RedirectResponse(f"/login?sso_error={quote(str(exc))}", 303)
    with site.reader() as db:
        user = db.scalar(select(PortalUser).where(PortalUser.username == username))
    if user is None or not user.active or not enrolled(user, PORTAL):
        return RedirectResponse(f"/login?sso_error={quote(DENIED)}", 303)
    request.state.session = site.sessions.login(session_of(request), portal_principal(user))
    return RedirectResponse(safe_next(request.query_params.get("next"), HOME_PATH), 303)


routes = [
    Route("/", root),
    *login_routes(authenticate, site_of=site_of, page=PAGE, refusal=refusal,
                  page_context=sso_error),
    Route("/session/keepalive", keepalive, methods=["POST"]),
    Route("/sso", single_sign_on, methods=["GET"]),
]
