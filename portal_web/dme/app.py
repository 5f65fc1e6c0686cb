"""Builds the DME portal: the Acme portal's frame, sessions and error pages
(:func:`portal_web.acme.app.build_acme_app`) with the DME's own views, templates (searched
first, so its ``layout.html`` and ``login.html`` replace the provider portal's), session
cookie and stylesheet. Its users are ``portal_users`` whose ``sites`` include ``dme``.
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from portal_web.acme.app import build_acme_app
from portal_web.common.app import import_views
from portal_web.settings import PortalSettings

TEMPLATES_DIR = Path(__file__).parent / "templates"
STATIC_DIR = Path(__file__).parent / "static"
VIEW_MODULES = ("auth", "home", "members", "orders")
COOKIE_NAME = "ACMEDMESESSION"
VIEW_PACKAGE = "portal_web.dme.views"


def warm() -> None:
    """Import what building the app imports: its views."""
    import_views(VIEW_PACKAGE, VIEW_MODULES)


def build_dme_app(settings: PortalSettings) -> Starlette:
    """The DME portal of one episode (host ``dme.acmehealth.test``)."""
    app = build_acme_app(settings, view_modules=VIEW_MODULES,
                         view_package=VIEW_PACKAGE,
                         template_dirs=[TEMPLATES_DIR], cookie_name=COOKIE_NAME,
                         portal_key="dme")
    # before the provider portal's /static mount, so /static/dme/* comes from here
    app.router.routes.insert(0, Mount("/static/dme", app=StaticFiles(directory=STATIC_DIR),
                                      name="dme_static"))
    app.state.sso_nonces = set()
    return app
