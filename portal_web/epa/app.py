"""Builds the ePA portal's Starlette app: routes of every view module, sessions, static files
and error pages."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.convertors import Convertor, register_url_convertor

from portal_web.common.app import import_views, site_app, view_routes
from portal_web.common.episode import EpisodeStores
from portal_web.common.site import episode_sessions
from portal_web.common.templating import make_templates
from portal_web.epa import formatting
from portal_web.epa.pa_request import KEY_PATTERN
from portal_web.epa.site import STATIC_DIR, TEMPLATES_DIR, EpaSite
from portal_web.settings import PortalSettings

VIEW_MODULES = ("auth", "dashboard", "request", "attachments", "send")
MAX_BODY = 16 * 1024 * 1024  # attachments are at most 12 MB
VIEW_PACKAGE = "portal_web.epa.views"


def warm() -> None:
    """Import what building the app imports: its views."""
    import_views(VIEW_PACKAGE, VIEW_MODULES)


class RequestKeyConvertor(Convertor[str]):
    """``{key:epakey}``: a CoverMyMeds Key such as ``BX7Q-4KTM`` (anything else is a 404)."""

    regex = KEY_PATTERN

    def convert(self, value: str) -> str:
        return value.upper()

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("epakey", RequestKeyConvertor())


def build_epa_app(settings: PortalSettings) -> Starlette:
    """The ePA portal of one episode (host ``epa.covermymeds.test``)."""
    stores = EpisodeStores(settings)
    templates = make_templates([TEMPLATES_DIR])
    formatting.register(templates.env)
    site = EpaSite(settings=settings, stores=stores, templates=templates,
                   sessions=episode_sessions(stores, "cmm_session", settings.session_ttl_s))
    return site_app(site, view_routes(VIEW_PACKAGE, VIEW_MODULES),
                    static_dir=STATIC_DIR, state_name="epa", max_body=MAX_BODY)
