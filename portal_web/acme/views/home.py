"""Home: the dashboard a user lands on after log-in (shortcuts, recent requests, messages)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.acme.site import area_view, site_of, user_of


@area_view("home")
async def home(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    return site.render(request, "home.html", {
        "page_title": f"Welcome, {user.display_name}",
        "recent_cases": [], "messages": []}, area="home")


routes = [
    Route("/home", home, name="home"),
]
