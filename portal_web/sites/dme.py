"""Site ``dme`` (host ``dme.acmehealth.test``): Acme Health's DME supplier portal."""

from __future__ import annotations

from starlette.types import ASGIApp

from portal_web.settings import PortalSettings


def create_site(settings: PortalSettings) -> ASGIApp:
    """The DME portal of the episode whose run directory is ``settings.run_dir``."""
    from portal_web.dme.app import build_dme_app

    return build_dme_app(settings)
