"""A web system whose users log in with a row of its own accounts table (payer and agency
sites: the Beta Care fax service, the state's external-review portal).

:class:`AccountSite` is a :class:`~portal_web.common.site.PortalSite` whose page frame
carries a constant context (the product or agency name); :func:`new_site` gives it its own stores, templates and sessions, and
:func:`build_account_app` wires it into a Starlette app the way every site is wired.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import BaseRoute

from portal_web.common.app import site_app
from portal_web.common.episode import EpisodeStores
from portal_web.common.site import PortalSite, episode_sessions
from portal_web.common.templating import make_templates
from portal_web.settings import PortalSettings

MAX_BODY = 64 * 1024 * 1024  # a request may carry several attachments of up to 12 MB


@dataclass
class AccountSite(PortalSite):
    """What the views of one account-based site share."""

    frame: dict[str, Any] = field(default_factory=dict)  # constant context of every page

    def base_context(self, request: Request) -> dict[str, Any]:
        """What the page frame needs, for any request (error pages included)."""
        return {**self.frame, **self.frame_context(request), "nav": None}


def new_site(settings: PortalSettings, system: str, templates_dir: Path, *, cookie: str,
             frame: dict[str, Any] | None = None) -> AccountSite:
    """An :class:`AccountSite` with its own stores, templates and session store."""
    stores = EpisodeStores(settings)
    return AccountSite(settings=settings, system=system, stores=stores,
                       templates=make_templates([templates_dir]),
                       sessions=episode_sessions(stores, cookie, settings.session_ttl_s),
                       frame=dict(frame or {}))


def build_account_app(site: AccountSite, routes: Sequence[BaseRoute], static_dir: Path,
                      state_name: str) -> Starlette:
    """The site's Starlette app: its routes, ``/static``, sessions and error pages; the site
    is kept in ``app.state.<state_name>``."""
    return site_app(site, routes, static_dir=static_dir, state_name=state_name,
                    max_body=MAX_BODY)
