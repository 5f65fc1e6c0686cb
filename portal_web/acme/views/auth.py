"""Log-in against ``portal_users`` (sha256 of the password), log-out, and the idle-session
endpoints the time-out warning uses."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from portal_web.acme.site import HOME_PATH, AcmeSite, PortalPrincipal, site_of
from portal_web.common.login import LoginPage, account_of, login_routes
from portal_web.common.requests import session_of
from sandbox.stores.acme import PortalUser

PAGE = LoginPage(
    home=HOME_PATH, username_max=60, notice_own_expiry=True,
    expired="Your session has expired because of inactivity. For your security you have "
            "been logged out. Log in again to continue; work saved as a draft is under "
            "Authorizations & Referrals > My drafts.",
    logged_out="You have logged out of the Acme Health provider portal.",
    missing="Enter your user ID and password.",
    refused="The user ID or password is incorrect. Check the log-in you were given "
            "(input/creds.txt) and try again.")


def enrolled(user: PortalUser, portal_key: str) -> bool:
    """Whether ``portal_users.sites`` (the Acme portals a log-in may use) lists the portal."""
    return portal_key in {s.strip() for s in user.sites.split(",")}


def portal_principal(user: PortalUser) -> PortalPrincipal:
    """The session principal of a portal user (their role decides the menu areas)."""
    return PortalPrincipal(username=user.username, user_id=user.id,
                           display_name=user.display_name, role=user.role,
                           organization=user.organization,
                           organization_tin=user.organization_tin,
                           organization_npi=user.organization_npi)


def active_user(site: AcmeSite, username: str, password: str) -> PortalUser | None:
    """The active portal user with this user ID and password, whatever portals they use."""
    return account_of(site, PortalUser, username, password)


def authenticate(site: AcmeSite, username: str, password: str) -> PortalPrincipal | None:
    """The user whose username and password match, active and allowed on this portal."""
    user = active_user(site, username, password)
    if user is None or not enrolled(user, site.portal_key):
        return None
    return portal_principal(user)


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
    *login_routes(authenticate, site_of=site_of, page=PAGE),
    Route("/session/keepalive", keepalive, methods=["POST"], name="keepalive"),
]
