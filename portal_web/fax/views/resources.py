"""The fax directory and Beta Care's payer resources.

The directory lists every number the service knows — Beta Care's real lines next to
numbers a careless sender could pick (its pharmacy line, member services, Acme's provider
services line with the same last digits) — with what each accepts; *Fax this number* opens
the compose page (or the open draft) with it. Payer resources is what Beta Care publishes
for providers: its bulletins (prior-authorization list, appeal deadline and where appeals
go), its fax numbers, and the claim denials on file for the practice.
"""

from __future__ import annotations

import functools

from markupsafe import Markup
from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.params import parse_id
from portal_web.common.requests import login_required
from portal_web.fax.site import site_of
from sandbox.stores.fax import BetaClaim, FaxNumber, Policy

guard = login_required("/login")
PURPOSES = {"pa_medical": "Medical / imaging prior authorization",
            "pa_pharmacy": "Pharmacy prior authorization", "appeals": "Provider appeals",
            "general": "General correspondence", "records": "Medical records"}


@functools.lru_cache(maxsize=1)
def _markdown():  # noqa: ANN202 - a MarkdownIt renderer
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False})


def bulletin_html(body: str) -> Markup:
    """A bulletin's text (Markdown, raw HTML disabled) as HTML."""
    return Markup(_markdown().render(body or ""))  # noqa: S704 - HTML input is disabled


@guard
async def directory_page(request: Request) -> Response:
    site = site_of(request)
    q = request.query_params.get("q", "").strip()[:60]
    draft = request.query_params.get("draft", "")
    with site.reader() as db:
        entries = list(db.scalars(select(FaxNumber).order_by(FaxNumber.owner,
                                                             FaxNumber.department)))
    if q:
        needle = q.lower()
        digits = "".join(ch for ch in q if ch.isdigit())
        entries = [e for e in entries if needle in f"{e.owner} {e.department} {e.notes} "
                   f"{e.number}".lower() or (len(digits) >= 3 and digits in e.digits)]
    compose = f"/compose/{draft}" if parse_id(draft) is not None and len(draft) < 9 \
        else "/compose"
    return site.render(request, "directory.html", {
        "nav": "directory", "entries": entries, "q": q, "purposes": PURPOSES,
        "compose": compose, "title": "Fax directory"})


@guard
async def resources_page(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        bulletins = list(db.scalars(select(Policy).where(Policy.payer_name == "Beta Care")
                                    .order_by(Policy.effective_from.desc(), Policy.id)))
        numbers = list(db.scalars(select(FaxNumber).where(FaxNumber.owner == "Beta Care")
                                  .order_by(FaxNumber.id)))
        claims = list(db.scalars(select(BetaClaim).order_by(BetaClaim.denial_date.desc(),
                                                            BetaClaim.claim_number)))
    return site.render(request, "resources.html", {
        "nav": "resources", "bulletins": bulletins, "numbers": numbers, "claims": claims,
        "purposes": PURPOSES, "bulletin_html": bulletin_html, "title": "Payer resources"})


@guard
async def bulletin_page(request: Request) -> Response:
    site = site_of(request)
    key = request.path_params["key"][:60]
    with site.reader() as db:
        bulletin = db.scalar(select(Policy).where(Policy.policy_key == key))
    if bulletin is None:
        return site.render(request, "missing.html", {"what": f"Bulletin {key}",
                                                     "nav": "resources"}, status_code=404)
    return site.render(request, "bulletin.html", {
        "nav": "resources", "bulletin": bulletin, "bulletin_html": bulletin_html,
        "title": bulletin.title})


routes = [
    Route("/directory", directory_page, methods=["GET"], name="directory"),
    Route("/resources", resources_page, methods=["GET"], name="resources"),
    Route("/resources/bulletins/{key}", bulletin_page, methods=["GET"], name="bulletin"),
]
