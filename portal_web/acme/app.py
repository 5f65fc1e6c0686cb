"""Builds the Acme portal's Starlette app: the routes of every view module, sessions with
the portal's idle time-out, static files and error pages.

A view module is ``portal_web.acme.views.<name>`` exposing ``routes`` (a list of Starlette
routes); listing its name in ``VIEW_MODULES`` is all it takes to serve it.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

import portal_web.common.convertors  # noqa: F401 - registers {x:id}
from portal_web.acme.site import STATIC_DIR, TEMPLATES_DIR, AcmeSite, filesize
from portal_web.common.episode import EpisodeStores
from portal_web.common.errors import error_handlers
from portal_web.common.middleware import BrowserSessionMiddleware
from portal_web.common.sessions import SessionStore
from portal_web.common.templating import make_templates
from portal_web.settings import PortalSettings

VIEW_MODULES: tuple[str, ...] = (
    "auth", "home", "eligibility", "lookup", "codes", "requests", "steps", "cases", "policies",
    "appeals", "p2p", "claims", "corrections", "dme_link",  # post-decision side
)
VIEW_PACKAGE = "portal_web.acme.views"
COOKIE_NAME = "ACMEPORTALSESSION"
# Bodies above this get a bare 413; below it an oversized file is named on the page
# (uploads: 10 MB each, checked from the spooled file's size before it is read).
MAX_BODY = 200 * 1024 * 1024


def view_routes(modules: Sequence[str] = VIEW_MODULES,
                package: str = VIEW_PACKAGE) -> list[BaseRoute]:
    routes: list[BaseRoute] = []
    for name in modules:
        module = importlib.import_module(f"{package}.{name}")
        routes.extend(module.routes)
    return routes


def build_acme_app(settings: PortalSettings, *,
                   view_modules: Sequence[str] = VIEW_MODULES,
                   view_package: str = VIEW_PACKAGE,
                   template_dirs: Sequence[Path] = (),
                   static_dir: Path = STATIC_DIR,
                   cookie_name: str = COOKIE_NAME,
                   portal_key: str = "provider") -> Starlette:
    """The Acme provider portal of one episode (host ``portal.acmehealth.test``).

    The keyword arguments let a sibling Acme site (the DME portal) reuse the frame, log-in
    and sessions with its own views and templates searched before these; ``portal_key`` is
    the ``portal_users.sites`` entry a log-in needs.
    """
    stores = EpisodeStores(settings)
    templates = make_templates([*template_dirs, TEMPLATES_DIR])
    templates.env.filters["filesize"] = filesize
    holder: list[AcmeSite] = []
    sessions = SessionStore(cookie_name, lambda: holder[0].idle_timeout_s(),
                            now=lambda: stores.clock.now_local())
    site = AcmeSite(settings=settings, stores=stores, templates=templates, sessions=sessions,
                    portal_key=portal_key)
    holder.append(site)
    routes = [
        Mount("/static", app=StaticFiles(directory=static_dir), name="static"),
        *view_routes(view_modules, view_package),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(BrowserSessionMiddleware, store=sessions,
                               skip_prefixes=("/static/",))],
        exception_handlers=error_handlers(templates, base_context=site.base_context),
        max_body_size=MAX_BODY,
    )
    app.state.acme = site
    return app
