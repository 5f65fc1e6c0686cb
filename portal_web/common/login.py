"""Log-in and log-out, the same on every site: ``GET/POST /login`` and ``POST /logout``.

A site says how its log-in page reads and answers in a :class:`LoginPage` (its field names,
its wording, where a user goes after logging in) and checks a user name and password with
its own ``authenticate(site, username, password)``. The views here do the rest the same way
everywhere: the CSRF check, trimmed input, a same-site ``next`` target, a new session id at
log-in (no fixation) and none of it written to a store (a task's footprint would count
signing in as a change; the audit trail records who wrote what).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from portal_web.common.forms import clean_text
from portal_web.common.requests import checked_form, safe_next, session_of
from portal_web.common.sessions import Principal

LOGGED_OUT = "/login?logged_out=1"

Authenticate = Callable[[Any, str, str], Principal | None]


def password_matches(stored_sha256: str, password: str) -> bool:
    """Whether ``password`` hashes to the account's stored sha256 (constant time)."""
    digest = hashlib.sha256(password.encode("utf-8", "surrogatepass")).hexdigest()
    return hmac.compare_digest(digest, stored_sha256 or "")


def account_of(site: Any, model: Any, username: str, password: str) -> Any:
    """The active row of ``model`` (an accounts table with ``username``,
    ``password_sha256`` and ``active``) whose password this is, else None."""
    with site.reader() as db:
        account = db.scalar(select(model).where(model.username == username))
    if account is None or not account.active or not password_matches(
            account.password_sha256, password):
        return None
    return account


def account_login(model: Any) -> Authenticate:
    """``authenticate`` of a site whose users are the rows of ``model`` (see
    :func:`account_of`) and log in under their ``display_name``."""

    def authenticate(site: Any, username: str, password: str) -> Principal | None:
        account = account_of(site, model, username, password)
        return None if account is None else Principal(
            username=account.username, user_id=account.id, display_name=account.display_name)

    return authenticate


@dataclass(frozen=True)
class LoginPage:
    """How one site's log-in page reads and answers."""

    home: str  # where a log-in goes when the page was not given a ``next``
    username_field: str = "username"
    password_field: str = "password"
    username_max: int = 64
    expired: str = "Your session expired. Log in again to continue."
    logged_out: str = "You have been logged out."
    missing: str = "Enter both your user name and password."
    refused: str = ("The user name or password is incorrect. Check the log-in you were given "
                    "(input/creds.txt) and try again.")
    # the notice of an expired session also shows when the browser's own session timed out
    # (not only when the page was sent here with ``?expired=1``)
    notice_own_expiry: bool = False
    template: str = "login.html"


Refusal = Callable[[Any, str, str], str]


def login_routes(authenticate: Authenticate, *, site_of: Callable[[Request], Any],
                 page: LoginPage, refusal: Refusal | None = None,
                 page_context: Callable[[Request], dict[str, Any]] | None = None
                 ) -> list[BaseRoute]:
    """``GET/POST /login`` and ``POST /logout`` of a site whose users
    ``authenticate(site, username, password)`` checks.

    ``refusal(site, username, password)`` words a refused log-in (default: ``page.refused``);
    ``page_context(request)`` adds to the log-in page's context.
    """

    async def login_page(request: Request) -> Response:
        site = site_of(request)
        if session_of(request).principal is not None:
            return RedirectResponse(safe_next(request.query_params.get("next"), page.home), 303)
        notice = None
        if request.query_params.get("expired") or (
                page.notice_own_expiry and getattr(request.state, "session_expired", False)):
            notice = page.expired
        elif request.query_params.get("logged_out"):
            notice = page.logged_out
        return site.render(request, page.template, {
            "next": safe_next(request.query_params.get("next"), page.home), "notice": notice,
            **(page_context(request) if page_context is not None else {}), "username": ""})

    async def login_submit(request: Request) -> Response:
        site = site_of(request)
        form = await checked_form(request)
        username = clean_text(str(form.get(page.username_field) or ""))[:page.username_max]
        password = str(form.get(page.password_field) or "")[:256]
        target = safe_next(str(form.get("next") or ""), page.home)
        principal = authenticate(site, username, password) if username and password else None
        if principal is None:
            if not (username and password):
                message = page.missing
            elif refusal is not None:
                message = refusal(site, username, password)
            else:
                message = page.refused
            return site.render(request, page.template, {
                "next": target, "notice": None, "login_error": message, "username": username})
        request.state.session = site.sessions.login(session_of(request), principal)
        return RedirectResponse(target, status_code=303)

    async def logout(request: Request) -> Response:
        site = site_of(request)
        await checked_form(request)
        request.state.session = site.sessions.logout(session_of(request))
        return RedirectResponse(LOGGED_OUT, status_code=303)

    return [
        Route("/login", login_page, methods=["GET"], name="login"),
        Route("/login", login_submit, methods=["POST"], name="login_submit"),
        Route("/logout", logout, methods=["POST"], name="logout"),
    ]
