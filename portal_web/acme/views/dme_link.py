"""The provider portal's way into the DME portal: "DME Orders" signs a one-time ticket
(:mod:`portal_web.dme.sso`) and sends the browser to the DME portal, logged in as the same
user, at ``next`` when given (a DME draft's "Resume" in My drafts). Users not enrolled for
DME (``portal_users.sites``) are told so instead."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.acme.site import area_view, site_of, user_of
from portal_web.common.requests import safe_next
from portal_web.dme.sso import make_ticket
from sandbox.stores.acme import PortalUser

DME_SITE = "dme"


@area_view("authorizations")
async def to_dme(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    with site.reader() as db:
        row = db.scalar(select(PortalUser).where(PortalUser.id == user.user_id))
    if row is None or DME_SITE not in {s.strip() for s in row.sites.split(",")}:
        raise HTTPException(403, "Your user ID is not enrolled for the Acme DME portal. Ask "
                                 "your organization's portal administrator to add DME access.")
    host = next((h for h, name in site.settings.hosts.items() if name == DME_SITE),
                "dme.acmehealth.test")
    ticket = make_ticket(site.settings.secret_key, user.username, site.now())
    query = {"ticket": ticket}
    target = safe_next(request.query_params.get("next"), "")
    if target:
        query["next"] = target
    return RedirectResponse(f"http://{host}/sso?{urlencode(query, quote_via=quote)}", 303)


routes = [Route("/dme", to_dme, methods=["GET"], name="dme")]
