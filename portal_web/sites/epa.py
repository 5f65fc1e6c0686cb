"""Site ``epa`` (host ``epa.covermymeds.test``): the CoverMyMeds-style pharmacy ePA portal."""

from __future__ import annotations

from starlette.types import ASGIApp

from portal_web.settings import PortalSettings


def create_site(settings: PortalSettings) -> ASGIApp:
    """The ePA portal of the episode whose run directory is ``settings.run_dir``."""
    from portal_web.epa.app import build_epa_app

    return build_epa_app(settings)
