"""Site ``ehr`` (host ``emr.clinic.test``): the OpenEMR-style web EHR and its FHIR R4 API."""

from __future__ import annotations

from starlette.types import ASGIApp

from portal_web.settings import PortalSettings


def create_site(settings: PortalSettings) -> ASGIApp:
    """The web EHR of the episode whose run directory is ``settings.run_dir``."""
    from portal_web.ehr.app import build_ehr_app

    return build_ehr_app(settings)
