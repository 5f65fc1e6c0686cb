"""The Starlette app of ``api.acmehealth.test``: X12 278 endpoint, PAS operation, no pages.

Clients authenticate with HTTP Basic (``client_id`` / ``client_secret`` of ``api_clients``,
stored as sha256); every write is made on the client's behalf with channel ``api``. A
browser that opens the host gets a plain-text "API only" answer.
"""

from __future__ import annotations

import logging

from sqlalchemy.exc import OperationalError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from portal_web.common.episode import EpisodeStores, StoreUnavailable
from portal_web.payer_api import pas
from portal_web.payer_api.access import (
    SYSTEM,
    PayerApi,
    api_of,
    authenticate,
    principal_for,
    read_body,
)
from portal_web.payer_api.edi import InterchangeUnreadable, Problem, read_interchange
from portal_web.payer_api.exchange import Exchange, next_control
from portal_web.payer_api.outbound import interchange, ta1
from portal_web.settings import PortalSettings
from sandbox.stores.acme import ApiClient, X12Transaction

log = logging.getLogger("portal_web.payer_api")
X12_TYPE = "application/edi-x12"
API_ONLY = ("Acme Health - X12 278 and Da Vinci PAS API (api.acmehealth.test)\n\n"
            "API only: this host has no web pages. Registered trading partners POST X12\n"
            "interchanges to /x12/278 (Content-Type: application/EDI-X12) or PAS Bundles to\n"
            "/fhir/Claim/$submit, with HTTP Basic credentials issued by Acme Health.\n"
            "Companion guide (what to send, attachments, questionnaire answers):\n"
            "http://api.acmehealth.test/companion-guide\n"
            "Providers without an API agreement use the provider portal:\n"
            "http://portal.acmehealth.test\n")


# -- routes -----------------------------------------------------------------------------------
async def api_only(request: Request) -> Response:
    """What a browser sees: the host's purpose, as plain text (404 off the root)."""
    return PlainTextResponse(API_ONLY, status_code=200 if request.url.path == "/" else 404)


async def companion_guide(request: Request) -> Response:
    from portal_web.payer_api.companion import GUIDE

    return PlainTextResponse(GUIDE)


async def x12_get(request: Request) -> Response:
    return PlainTextResponse("POST an X12 interchange here (Content-Type: application/EDI-X12)"
                             "; see the API guide.\n" + API_ONLY, status_code=405,
                             headers={"Allow": "POST"})


async def x12_submit(request: Request) -> Response:
    """``POST /x12/278``: one interchange in, one interchange out."""
    client = authenticate(request, "278")
    if isinstance(client, Response):
        return client
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != X12_TYPE:
        return PlainTextResponse(f"Content-Type must be application/EDI-X12 (got "
                                 f"'{content_type[:60] or 'none'}').\n", status_code=415)
    body = await read_body(request)
    site = api_of(request)
    now = site.now()
    with site.stores.writer(SYSTEM, principal_for(client)) as db:
        client = db.get(ApiClient, client.id)
        assert client is not None
        try:
            ic = read_interchange(body)
        except InterchangeUnreadable as exc:
            return _unreadable(db, client, body, exc, now)
        if any(g.code == "PI" for g in ic.groups) and "275" not in client.scopes.split():
            return PlainTextResponse("This client is not enabled for 275 attachments; ask Acme "
                                     "Health to add the 275 scope.\n", status_code=403)
        outcome = Exchange(db, client, ic, body, now).run()
    headers = {"X-Acme-Result": _header_text(outcome.summary)} if outcome.summary else {}
    return Response(outcome.body, media_type="application/EDI-X12", headers=headers)


def _unreadable(db, client: ApiClient, body: bytes, exc: InterchangeUnreadable,  # noqa: ANN001
                now) -> Response:  # noqa: ANN001

    control = next_control(db)
    problem = Problem(exc.note, str(exc))
    text_isa = exc.isa or body[:106].decode("latin-1")
    receiver = ("ZZ", "UNKNOWN")
    if exc.isa and len(exc.isa) > 60:
        parts = exc.isa.split(exc.isa[3])
        if len(parts) > 7:
            receiver = (parts[5][:2], parts[6].strip())
    text = interchange(receiver, control, now, ta1=ta1(None, text_isa, problem))
    for direction, kind, raw in (("inbound", "ISA", body.decode("latin-1")),
                                 ("outbound", "TA1", text)):
        db.add(X12Transaction(api_client_id=client.id, direction=direction,
                              transaction_set=kind, control_number=f"{control:09d}", raw=raw,
                              status="rejected", error_text=str(exc)[:4000], at=now))
    return Response(text, media_type="application/EDI-X12",
                    headers={"X-Acme-Result": _header_text(f"TA1 {exc.note}: {exc}")})


def _header_text(text: str) -> str:
    return "".join(ch if 32 <= ord(ch) < 127 else " " for ch in text)[:900]


# -- errors -----------------------------------------------------------------------------------
async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith("/fhir"):
        return pas.outcome(exc.status_code, "invalid", str(exc.detail))
    return PlainTextResponse(f"{exc.detail}\n", status_code=exc.status_code,
                             headers=exc.headers)


async def unavailable(request: Request, exc: Exception) -> Response:
    return PlainTextResponse(f"Temporarily unavailable: {exc}\n", status_code=503)


async def busy(request: Request, exc: Exception) -> Response:
    log.warning("database error on %s: %s", request.url.path, exc)
    return PlainTextResponse("The payer's database was busy; nothing was saved. Retry.\n",
                             status_code=503, headers={"Retry-After": "5"})


def build_payer_api(settings: PortalSettings) -> Starlette:
    """The app of ``api.acmehealth.test`` for one episode."""

    app = Starlette(
        routes=[
            Route("/x12/278", x12_submit, methods=["POST"]),
            Route("/x12/278", x12_get, methods=["GET"]),
            *pas.routes(),
            Route("/companion-guide", companion_guide, methods=["GET", "HEAD"]),
            Route("/", api_only, methods=["GET", "HEAD"]),
            Route("/{path:path}", api_only, methods=["GET", "HEAD"]),
        ],
        exception_handlers={HTTPException: http_error, StoreUnavailable: unavailable,
                            OperationalError: busy},
    )
    app.state.payer_api = PayerApi(settings=settings, stores=EpisodeStores(settings))
    return app
