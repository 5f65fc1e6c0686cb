"""Site ``acme`` (host ``portal.acmehealth.test``): Acme Health's provider portal."""

from __future__ import annotations

from starlette.types import ASGIApp

from portal_web.settings import PortalSettings


def create_site(settings: PortalSettings) -> ASGIApp:
    """The Acme provider portal of the episode whose run directory is ``settings.run_dir``."""
    from portal_web.acme.app import build_acme_app

    return build_acme_app(settings)
