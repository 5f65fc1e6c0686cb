"""DME home: recent orders and drafts of the organization, and where to start."""

from __future__ import annotations

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.acme.site import guard, site_of, user_of
from sandbox.stores.acme import STATUS_LABELS, Member, PaCase


@guard
async def home(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    with site.reader() as db:
        rows = list(db.execute(
            select(PaCase, Member).join(Member, Member.id == PaCase.member_id)
            .where(PaCase.case_type == "dme")
            .order_by(PaCase.updated_at.desc().nulls_last(), PaCase.id.desc()).limit(12)))
    return site.render(request, "home.html", {
        "page_title": f"Welcome, {user.display_name}", "rows": rows, "labels": STATUS_LABELS},
        area="home")


routes = [Route("/home", home, methods=["GET"])]
