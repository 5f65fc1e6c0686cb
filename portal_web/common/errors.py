"""Error pages that tell the user what happened and what to do next.

Bad input never reaches these: views validate and answer with inline messages. These pages
cover wrong addresses, stale forms, an episode without this system, a busy database, and —
as a last resort — a bug, which is logged with its traceback and still shows a page saying
that nothing was saved and how to continue.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.templating import Jinja2Templates

from portal_web.common.episode import StoreUnavailable

log = logging.getLogger("portal_web")

TITLES = {
    400: "The request could not be read",
    403: "Not allowed",
    404: "Page not found",
    405: "That action is not available here",
    413: "The upload is too large",
    503: "Temporarily unavailable",
    500: "Something went wrong",
}
ADVICE = {
    400: "Go back, reload the page and try again.",
    403: "Go back, reload the page and try again. If you were logged out, log in again.",
    404: "Check the address, or use the menu to find what you were looking for.",
    405: "Use the buttons and links of the page rather than typing the address.",
    413: "Attach a smaller file (at most 12 MB).",
    503: "Wait a moment and try again.",
    500: ("Nothing was saved by the last action. Go back, reload the page and try again; "
          "if it happens again, note what you entered and tell the administrator."),
}

OUTCOME_CODES = {401: "login", 403: "forbidden", 404: "not-found", 405: "not-supported",
                 406: "not-supported", 413: "too-costly", 415: "not-supported",
                 500: "exception", 503: "transient"}
API_TEXT = {404: "No such endpoint: see /apis/default/fhir/metadata for what this server "
                 "serves.",
            405: "That method is not supported on this endpoint."}


def error_handlers(templates: Jinja2Templates, template: str = "error.html",
                   api_prefixes: tuple[str, ...] = (),
                   base_context: Callable[[Request], dict] | None = None) -> dict:
    """Exception handlers for a site's Starlette app.

    ``base_context`` supplies what the site's page frame needs (user, tabs ...);
    requests under ``api_prefixes`` get a FHIR OperationOutcome instead of a page.
    """

    def render(request: Request, status: int, detail: str | None) -> Response:
        if api_prefixes and request.url.path.startswith(api_prefixes):
            return JSONResponse({"resourceType": "OperationOutcome", "issue": [{
                "severity": "error", "code": OUTCOME_CODES.get(status, "invalid"),
                "diagnostics": detail or API_TEXT.get(status, TITLES.get(status, "Error"))}]},
                status_code=status, media_type="application/fhir+json")
        context = {"status": status, "title": TITLES.get(status, "Error"),
                   "detail": detail, "advice": ADVICE.get(status, ADVICE[400])}
        try:
            if base_context is not None:
                context = {**base_context(request), **context}
            return templates.TemplateResponse(request, template, context, status_code=status)
        except Exception:  # the error page itself must not fail
            log.exception("error page could not be rendered")
            return Response(f"{context['title']}. {context['advice']}", status_code=status,
                            media_type="text/plain")

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        detail = exc.detail if exc.detail and exc.detail != TITLES.get(exc.status_code) else None
        response = render(request, exc.status_code, detail)
        for key, value in (exc.headers or {}).items():
            response.headers[key] = value
        return response

    async def unavailable(request: Request, exc: Exception) -> Response:
        return render(request, 503, str(exc))

    async def database_busy(request: Request, exc: Exception) -> Response:
        log.warning("database error on %s: %s", request.url.path, exc)
        return render(request, 503, "The database was busy, so nothing was saved.")

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path,
                      exc_info=exc)
        return render(request, 500, None)

    handlers: dict[object, Callable] = {
        HTTPException: http_error,
        StoreUnavailable: unavailable,
        OperationalError: database_busy,
        Exception: server_error,
    }
    return handlers
