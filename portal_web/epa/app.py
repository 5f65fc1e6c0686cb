"""Builds the ePA portal's Starlette app: routes of every view module, sessions, static files
and error pages."""

from __future__ import annotations

import importlib

from starlette.applications import Starlette
from starlette.convertors import Convertor, register_url_convertor
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

import portal_web.common.convertors  # noqa: F401 - registers {x:id}
from portal_web.common.episode import EpisodeStores
from portal_web.common.errors import error_handlers
from portal_web.common.middleware import BrowserSessionMiddleware
from portal_web.common.sessions import SessionStore
from portal_web.common.templating import make_templates
from portal_web.epa import formatting
from portal_web.epa.pa_request import KEY_PATTERN
from portal_web.epa.site import STATIC_DIR, TEMPLATES_DIR, EpaSite
from portal_web.settings import PortalSettings

VIEW_MODULES = ("auth", "dashboard", "request", "attachments", "send")
MAX_BODY = 16 * 1024 * 1024  # attachments are at most 12 MB


class RequestKeyConvertor(Convertor[str]):
    """``{key:epakey}``: a CoverMyMeds Key such as ``BX7Q-4KTM`` (anything else is a 404)."""

    regex = KEY_PATTERN

    def convert(self, value: str) -> str:
        return value.upper()

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("epakey", RequestKeyConvertor())


def view_routes() -> list[BaseRoute]:
    routes: list[BaseRoute] = []
    for name in VIEW_MODULES:
        module = importlib.import_module(f"portal_web.epa.views.{name}")
        routes.extend(module.routes)
    return routes


def build_epa_app(settings: PortalSettings) -> Starlette:
    """The ePA portal of one episode (host ``epa.covermymeds.test``)."""
    stores = EpisodeStores(settings)
    templates = make_templates([TEMPLATES_DIR])
    formatting.register(templates.env)
    sessions = SessionStore("cmm_session", settings.session_ttl_s,
                            now=lambda: stores.clock.now_local())
    site = EpaSite(settings=settings, stores=stores, templates=templates, sessions=sessions)
    routes = [Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
              *view_routes()]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(BrowserSessionMiddleware, store=sessions)],
        exception_handlers=error_handlers(templates, base_context=site.base_context),
        max_body_size=MAX_BODY,
    )
    app.state.epa = site
    return app
