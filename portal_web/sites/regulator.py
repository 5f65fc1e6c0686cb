"""Site ``regulator`` (host ``review.insurance.state.test``): external review requests."""

from __future__ import annotations

from starlette.types import ASGIApp

from portal_web.settings import PortalSettings


def create_site(settings: PortalSettings) -> ASGIApp:
    """The external review portal of the episode whose run directory is
    ``settings.run_dir``."""
    from portal_web.regulator.app import build_regulator_app

    return build_regulator_app(settings)
