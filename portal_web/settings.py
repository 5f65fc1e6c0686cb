"""Typed settings of one portal_web server (one per episode); unknown keys are refused."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

# host name -> site module under portal_web.sites (each exposes create_site(settings))
DEFAULT_HOSTS: dict[str, str] = {
    "emr.clinic.test": "ehr",
    "workspace.local": "workspace",
    "portal.acmehealth.test": "acme",
    "dme.acmehealth.test": "dme",
    "api.acmehealth.test": "acme_api",
    "epa.covermymeds.test": "epa",
    "fax.betacare.test": "fax",
    "review.insurance.state.test": "regulator",
}


class PortalSettings(BaseModel):
    """Everything a portal_web server needs to know about its episode."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_dir: Path
    episode_id: str = "local"
    secret_key: str = Field(min_length=16, default="ehr-sandbox-development-key")
    session_ttl_s: int = Field(default=8 * 3600, ge=60)
    hosts: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_HOSTS))
    sites: list[str] | None = None  # restrict to these site names (None = every available)

    @property
    def stores_dir(self) -> Path:
        return self.run_dir / "stores"

    @property
    def clock_path(self) -> Path:
        return self.run_dir / "clock.json"
