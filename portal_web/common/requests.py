"""Per-request helpers: who is logged in, guarded views, and posted forms.

``login_required`` sends anonymous visitors to the site's log-in page (remembering where
they were going); ``posted_form`` checks the CSRF token, reads the form and claims its
one-time token, so a view only has to validate, write once, and redirect. A view decorated
with ``form_post`` is handed that form, and is not called at all for a form that was
already submitted (the browser goes where the first submit went).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from portal_web.common.forms import FORM_ERROR, FieldReader
from portal_web.common.sessions import BrowserSession, Principal, TokenState, csrf_matches

Endpoint = Callable[[Request], Awaitable[Response]]

MAX_FORM_FIELDS = 2000
MAX_FORM_FILES = 5
MAX_PART_SIZE = 12 * 1024 * 1024
STALE_FORM = ("This form was opened before your current log-in, so it was not saved. "
              "Check the values below and save again.")


class CsrfRejected(HTTPException):
    """A POST without this session's CSRF token (stale page, other site, or expired log-in)."""

    def __init__(self) -> None:
        super().__init__(status_code=403, detail=(
            "This page was out of date, so nothing was saved. Go back, reload the page "
            "and submit it again."))


def session_of(request: Request) -> BrowserSession:
    return request.state.session


def principal_of(request: Request) -> Principal | None:
    session = getattr(request.state, "session", None)
    return None if session is None else session.principal


def user_of(request: Request) -> Principal:
    """The logged-in user of a view that ``login_required`` guards."""
    principal = principal_of(request)
    assert principal is not None, "view not guarded by login_required"
    return principal


def here(request: Request) -> str:
    """The request's path and query (what a tab or a redirect goes back to)."""
    return request.url.path + (f"?{request.url.query}" if request.url.query else "")


def safe_next(target: str | None, default: str) -> str:
    """Only same-site relative paths are followed after log-in."""
    if not target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//") \
            or "\\" in target or any(ord(c) < 32 for c in target):  # a browser reads "/\\x" as "//x"
        return default
    return target


def login_required(login_path: str) -> Callable[[Endpoint], Endpoint]:
    """Decorator: anonymous (or timed-out) visitors are redirected to ``login_path``."""

    def wrap(view: Endpoint) -> Endpoint:
        @functools.wraps(view)
        async def guarded(request: Request) -> Response:
            if principal_of(request) is None:
                target = request.url.path
                if request.url.query:
                    target += "?" + request.url.query
                if request.method != "GET":
                    target = request.headers.get("referer", "") or "/"
                    target = urlsplit(target).path or "/"
                query = f"?next={quote(target)}"
                if getattr(request.state, "session_expired", False):
                    query += "&expired=1"
                return RedirectResponse(login_path + query, status_code=303)
            return await view(request)

        return guarded

    return wrap


@dataclass
class PostedForm:
    """A posted form whose CSRF token checked out, with its one-time token claimed."""

    request: Request
    data: FormData
    token: str
    state: TokenState
    target: str | None
    completed: bool = False
    reader: FieldReader = field(init=False)

    def __post_init__(self) -> None:
        errors = {FORM_ERROR: STALE_FORM} if self.state is TokenState.UNKNOWN else {}
        self.reader = FieldReader(self.data, errors)

    @property
    def replay(self) -> Response | None:
        """For a form already submitted: where the first submit went (no second write)."""
        if self.state is TokenState.DONE and self.target:
            return RedirectResponse(self.target, status_code=303)
        if self.state is TokenState.PENDING:
            return RedirectResponse(self.request.headers.get("referer") or "/",
                                    status_code=303)
        return None

    def redirect(self, url: str) -> RedirectResponse:
        """The write committed: remember where it went, and go there (POST-redirect-GET)."""
        session_of(self.request).complete_form_token(self.token, url)
        self.completed = True
        return RedirectResponse(url, status_code=303)


async def checked_form(request: Request) -> FormData:
    """The posted form, refused (403) unless it carries this session's CSRF token."""
    data = await read_form(request)
    if not csrf_matches(session_of(request), data.get("csrf_token")):  # type: ignore[arg-type]
        raise CsrfRejected()
    return data


async def read_form(request: Request) -> FormData:
    """The posted form, with limits on its size; malformed bodies are a 400."""
    try:
        return await request.form(max_files=MAX_FORM_FILES, max_fields=MAX_FORM_FIELDS,
                                  max_part_size=MAX_PART_SIZE)
    except HTTPException:
        raise
    except Exception as exc:  # malformed multipart or urlencoded body
        raise HTTPException(status_code=400, detail=(
            "The form data could not be read. Reload the page and submit it again.")) from exc


@asynccontextmanager
async def posted_form(request: Request) -> AsyncIterator[PostedForm]:
    """Check CSRF, read the form and claim its one-time ``form_token``.

    Leaving the block without :meth:`PostedForm.redirect` (validation failed, or an error)
    releases the token so the user can correct the form and submit it again.
    """
    data = await checked_form(request)
    session = session_of(request)
    token = data.get("form_token")
    token = token if isinstance(token, str) else ""
    state, target = session.claim_form_token(token)
    posted = PostedForm(request=request, data=data, token=token, state=state, target=target)
    try:
        yield posted
    finally:
        if state is TokenState.FRESH and not posted.completed:
            session.release_form_token(token)


FormView = Callable[[Request, PostedForm], Awaitable[Response]]


def form_post(view: FormView) -> Endpoint:
    """Decorator: the view is called with its :func:`posted_form`, inside it; a form that
    was already submitted (double click, Back and submit again) is answered with its
    :attr:`PostedForm.replay` and the view is not called."""

    @functools.wraps(view)
    async def posted(request: Request) -> Response:
        async with posted_form(request) as form:
            if form.replay:
                return form.replay
            return await view(request, form)

    return posted
