"""Log-in and log-out against ``epa_users`` (password kept as its sha256)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.common.login import LoginPage, account_of, login_routes
from portal_web.epa.site import HOME, EpaPrincipal, EpaSite, site_of
from sandbox.stores.epa import EpaUser

PAGE = LoginPage(
    home=HOME, expired="Your session timed out. Log in again to continue where you left off.",
    missing="Enter your username and your password.",
    refused="The username or password is incorrect. Check the log-in you were given "
            "(input/creds.txt) and try again.")


async def home(request: Request) -> Response:
    return RedirectResponse(HOME, 303)


def authenticate(site: EpaSite, username: str, password: str) -> EpaPrincipal | None:
    """An active user with this password (and the organization they work for), or None."""
    user = account_of(site, EpaUser, username, password)
    return None if user is None else EpaPrincipal(
        username=user.username, user_id=user.id, display_name=user.display_name,
        organization=user.organization)


routes = [
    Route("/", home, methods=["GET"], name="home"),
    *login_routes(authenticate, site_of=site_of, page=PAGE),
]
