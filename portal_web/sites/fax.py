"""Site ``fax`` (host ``fax.betacare.test``): the Beta Care web fax service and its sink."""

from __future__ import annotations

from starlette.types import ASGIApp

from portal_web.settings import PortalSettings


def create_site(settings: PortalSettings) -> ASGIApp:
    """The fax service of the episode whose run directory is ``settings.run_dir``."""
    from portal_web.fax.app import build_fax_app

    return build_fax_app(settings)
