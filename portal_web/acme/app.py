"""Builds the Acme portal's Starlette app: the routes of every view module, sessions with
the portal's idle time-out, static files and error pages.

A view module is ``portal_web.acme.views.<name>`` exposing ``routes`` (a list of Starlette
routes); listing its name in ``VIEW_MODULES`` is all it takes to serve it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from starlette.applications import Starlette

from portal_web.acme.site import STATIC_DIR, TEMPLATES_DIR, AcmeSite, filesize
from portal_web.common.app import import_views, site_app, view_routes
from portal_web.common.episode import EpisodeStores
from portal_web.common.site import episode_sessions
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


def warm() -> None:
    """Import what building the app imports: its views."""
    import_views(VIEW_PACKAGE, VIEW_MODULES)


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
    sessions = episode_sessions(stores, cookie_name, lambda: holder[0].idle_timeout_s())
    site = AcmeSite(settings=settings, stores=stores, templates=templates, sessions=sessions,
                    portal_key=portal_key)
    holder.append(site)
    return site_app(site, view_routes(view_package, view_modules), static_dir=static_dir,
                    state_name="acme", max_body=MAX_BODY)
