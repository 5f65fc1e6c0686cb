"""Builds the web EHR's Starlette app: routes of every view module, the FHIR API, sessions,
static files and error pages."""

from __future__ import annotations

from collections.abc import Callable

from starlette.applications import Starlette

from portal_web.common.app import import_views, site_app, view_routes
from portal_web.common.episode import EpisodeStores
from portal_web.common.site import episode_sessions
from portal_web.common.templating import make_templates
from portal_web.ehr.site import STATIC_DIR, TEMPLATES_DIR, EhrSite
from portal_web.settings import PortalSettings
from sandbox.stores.ehr import Global

VIEW_MODULES = (
    "auth", "main", "patient", "encounters", "vitals", "soap", "lbf", "issues", "rx", "erx",
    "procedures", "immunizations", "transactions", "documents", "messages", "calendar",
    "worklists", "admin", "reports",
)
VIEW_PACKAGE = "portal_web.ehr.views"
API_PREFIXES = ("/apis/", "/oauth2/")
MAX_BODY = 16 * 1024 * 1024  # uploads are at most 12 MB


def warm() -> None:
    """Import what building the app imports: its views and the FHIR API."""
    import portal_web.fhir.api
    import portal_web.fhir.oauth  # noqa: F401

    import_views(VIEW_PACKAGE, VIEW_MODULES)


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
    sessions = episode_sessions(stores, "OpenEMR", idle_timeout(stores, settings.session_ttl_s))
    site = EhrSite(settings=settings, stores=stores, templates=make_templates([TEMPLATES_DIR]),
                   sessions=sessions)
    app = site_app(site, [*fhir_routes(), *view_routes(VIEW_PACKAGE, VIEW_MODULES)],
                   static_dir=STATIC_DIR, state_name="ehr", max_body=MAX_BODY,
                   api_prefixes=API_PREFIXES)
    app.state.fhir_tokens = TokenStore()
    return app
