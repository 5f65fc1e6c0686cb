"""Site ``acme_api`` (host ``api.acmehealth.test``): Acme Health's X12 278 and PAS API."""

from __future__ import annotations

from starlette.types import ASGIApp

from portal_web.settings import PortalSettings


def create_site(settings: PortalSettings) -> ASGIApp:
    """The payer API of the episode whose run directory is ``settings.run_dir``."""
    from portal_web.payer_api.app import build_payer_api

    return build_payer_api(settings)
