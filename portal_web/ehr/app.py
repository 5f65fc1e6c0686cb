"""Builds the web EHR's Starlette app: routes of every view module, the FHIR API, sessions,
static files and error pages."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

import portal_web.common.convertors  # noqa: F401 - registers {x:id}
from portal_web.common.episode import EpisodeStores
from portal_web.common.errors import error_handlers
from portal_web.common.middleware import BrowserSessionMiddleware
from portal_web.common.sessions import SessionStore
from portal_web.common.templating import make_templates
from portal_web.ehr.site import STATIC_DIR, TEMPLATES_DIR, EhrSite
from portal_web.settings import PortalSettings
from sandbox.stores.ehr import Global

VIEW_MODULES = (
    "auth", "main", "patient", "encounters", "vitals", "soap", "lbf", "issues", "rx", "erx",
    "procedures", "immunizations", "transactions", "documents", "messages", "calendar",
    "worklists", "admin", "reports",
)
API_PREFIXES = ("/apis/", "/oauth2/")
MAX_BODY = 16 * 1024 * 1024  # uploads are at most 12 MB


def view_routes() -> list[BaseRoute]:
    routes: list[BaseRoute] = []
    for name in VIEW_MODULES:
        module = importlib.import_module(f"portal_web.ehr.views.{name}")
        routes.extend(module.routes)
    return routes


def idle_timeout(stores: EpisodeStores, default_s: int) -> Callable[[], int]:
    """OpenEMR's ``timeout`` global (idle seconds before log-out), read once; else default."""
    cached: list[int] = []

    def ttl() -> int:
        if not cached:
            value = default_s
            try:
                with stores.reader("ehr") as db:
                    row = db.get(Global, ("timeout", 0))
                if row is not None and row.gl_value.strip().isdigit():
                    value = max(60, int(row.gl_value))
            except Exception:  # noqa: BLE001 - no store yet: keep the default, retry later
                return default_s
            cached.append(value)
        return cached[0]

    return ttl


def build_ehr_app(settings: PortalSettings) -> Starlette:
    """The web EHR of one episode (host ``emr.clinic.test``)."""
    from portal_web.fhir.api import fhir_routes
    from portal_web.fhir.oauth import TokenStore

    stores = EpisodeStores(settings)
    templates = make_templates([TEMPLATES_DIR])
    sessions = SessionStore("OpenEMR", idle_timeout(stores, settings.session_ttl_s),
                            now=lambda: stores.clock.now_local())
    site = EhrSite(settings=settings, stores=stores, templates=templates, sessions=sessions)
    routes = [
        *fhir_routes(),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
        *view_routes(),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(BrowserSessionMiddleware, store=sessions,
                               skip_prefixes=("/static/", *API_PREFIXES))],
        exception_handlers=error_handlers(templates, api_prefixes=API_PREFIXES,
                                          base_context=site.base_context),
        max_body_size=MAX_BODY,
    )
    app.state.ehr = site
    app.state.fhir_tokens = TokenStore()
    return app
