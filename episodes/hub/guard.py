"""The hub's door: allowed Host names, signed-in users, CSRF (Origin check plus token).

Every page and API route of the hub is wrapped by :meth:`Guard.page` or
:meth:`Guard.action`; only ``/signin`` and ``/static`` are open. A page asked for without a
session redirects to the sign-in form, an API call gets 401. A state-changing request must
carry an ``Origin`` (or ``Referer``) naming the host it was sent to and the session's CSRF
token (form field ``csrf`` or header ``X-CSRF-Token``); a request with neither header is
refused, as a request from another site is.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import quote, urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from episodes.hub.auth import SESSION_COOKIE, SESSION_DAYS, Accounts, User
from episodes.hub.state import HubError

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")
PRE_COOKIE = "hub_signin"  # double-submit token of the sign-in form (before any session)

Handler = Callable[[Request, User], Awaitable[Response]]


def allowed_hosts(host: str, public_hosts: list[str]) -> list[str]:
    """Loopback names, the address the hub listens on (unless a wildcard), public names."""
    names = list(LOOPBACK_NAMES)
    if host not in ("0.0.0.0", "::", ""):
        names.append(host)
    names.extend(h for h in public_hosts if h)
    return names


class Guard:
    def __init__(self, accounts: Accounts, tls: bool,
                 problem: Callable[[Request, Exception, int], Response]):
        self.accounts = accounts
        self.tls = tls
        self.problem = problem

    def user(self, request: Request) -> User | None:
        return self.accounts.session_user(request.cookies.get(SESSION_COOKIE))

    # -- wrappers -------------------------------------------------------------------------
    def page(self, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            user = self.user(request)
            if user is None:
                if request.url.path.startswith("/api/"):
                    return JSONResponse({"error": "sign in to the hub first"},
                                        status_code=401)
                target = request.url.path + (f"?{request.url.query}" if request.url.query
                                             else "")
                return RedirectResponse(f"/signin?next={quote(target, safe='')}", 303)
            request.state.user = user
            return await handler(request, user)
        return endpoint

    def action(self, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            user = self.user(request)
            if user is None:
                return JSONResponse({"error": "sign in to the hub first"}, status_code=401)
            request.state.user = user
            try:
                self.check_origin(request)
                supplied = request.headers.get("x-csrf-token")
                if supplied is None and _is_form(request):
                    supplied = str((await request.form()).get("csrf", ""))
                if not supplied or not hmac.compare_digest(supplied, user.csrf):
                    raise HubError("this action needs the page's CSRF token; reload the page",
                                   403)
            except HubError as exc:
                return self.problem(request, exc, exc.status)
            return await handler(request, user)
        return endpoint

    def check_origin(self, request: Request) -> None:
        """The request names, as its Origin or Referer, the very host it was sent to."""
        origin = request.headers.get("origin") or request.headers.get("referer")
        if not origin or origin == "null":
            raise HubError("this action must come from the hub's own page (no Origin)", 403)
        parts = urlsplit(origin)
        scheme = "https" if self.tls else request.url.scheme
        if parts.scheme != scheme or parts.netloc != request.headers.get("host", ""):
            raise HubError("this action must come from the hub's own page", 403)

    # -- cookies --------------------------------------------------------------------------
    def set_session(self, response: Response, user: User) -> None:
        response.set_cookie(SESSION_COOKIE, user.session, max_age=SESSION_DAYS * 86400,
                            httponly=True, samesite="strict", secure=self.tls, path="/")

    @staticmethod
    def new_form_token() -> str:
        return secrets.token_urlsafe(24)

    def set_form_token(self, response: Response, token: str) -> None:
        response.set_cookie(PRE_COOKIE, token, max_age=3600, httponly=True,
                            samesite="strict", secure=self.tls, path="/signin")

    def check_form_token(self, request: Request, supplied: str) -> None:
        expected = request.cookies.get(PRE_COOKIE, "")
        if not expected or not hmac.compare_digest(expected, supplied):
            raise HubError("the sign-in form expired; reload it and try again", 403)


def _is_form(request: Request) -> bool:
    kind = request.headers.get("content-type", "")
    return kind.startswith(("application/x-www-form-urlencoded", "multipart/form-data"))


def safe_next(target: str) -> str:
    """A same-site path to go to after sign-in (never another site)."""
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target
