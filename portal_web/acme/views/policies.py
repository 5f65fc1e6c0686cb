"""Resources/Policies: the policy pages, rendered from the ``policies`` table."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markupsafe import Markup
from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.acme.site import area_view, site_of
from sandbox.stores.acme import Policy

CATEGORY_TITLES = {"appeals": "Appeals", "prior_auth": "Prior authorization",
                   "notification": "Notification", "network": "Network",
                   "claims": "Claims"}
_MARKDOWN = MarkdownIt("commonmark", {"html": False})  # policy text may not inject HTML
DEADLINE_UNITS = {"calendar_days": "calendar days", "business_days": "business days"}


def render_markdown(text: str) -> Markup:
    return Markup(_MARKDOWN.render(text or ""))  # noqa: S704 - html disabled above


@area_view("resources")
async def policy_list(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        policies = list(db.scalars(select(Policy).order_by(Policy.category, Policy.id)))
    groups: dict[str, list[Policy]] = {}
    for policy in policies:
        groups.setdefault(policy.category, []).append(policy)
    return site.render(request, "policies.html", {
        "page_title": "Policies & Guidelines", "groups": groups,
        "category_titles": CATEGORY_TITLES, "units": DEADLINE_UNITS,
        "breadcrumbs": [("Resources", None)]}, area="resources")


@area_view("resources")
async def policy_page(request: Request) -> Response:
    site = site_of(request)
    key = request.path_params["key"]
    with site.reader() as db:
        policy = db.scalar(select(Policy).where(Policy.policy_key == key))
        others = list(db.scalars(select(Policy).order_by(Policy.category, Policy.id)))
    if policy is None:
        raise HTTPException(404, "There is no policy page at this address; choose one from "
                                 "Policies & Guidelines.")
    return site.render(request, "policy.html", {
        "page_title": policy.title, "policy": policy, "body": render_markdown(policy.body),
        "others": others, "units": DEADLINE_UNITS,
        "category_titles": CATEGORY_TITLES,
        "breadcrumbs": [("Resources", "/resources"), (policy.title, None)]}, area="resources")


routes = [
    Route("/resources", policy_list, name="policies"),
    Route("/resources/{key:str}", policy_page, name="policy"),
]
