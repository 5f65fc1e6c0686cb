"""The ePA portal's per-app context: stores, templates, sessions and page rendering.

Pages are never cached (Back never shows a stale form); the frame names the logged-in
user's organization.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.requests import Request

from portal_web.common.requests import user_of as user_of  # the views' logged-in user
from portal_web.common.sessions import Principal
from portal_web.common.site import PortalSite

TEMPLATES_DIR = Path(__file__).parent / "templates"
STATIC_DIR = Path(__file__).parent / "static"
SYSTEM = "epa"
LOGIN_PATH = "/login"
HOME = "/dashboard"


@dataclass
class EpaPrincipal(Principal):
    """A prescriber-office user of the ePA portal, with the organization they work for."""

    organization: str = ""


@dataclass
class EpaSite(PortalSite):
    """Everything the views of one ePA portal app share."""

    system: str = SYSTEM
    no_store = True

    def base_context(self, request: Request) -> dict[str, Any]:
        """What the page frame needs, for any request (also for error pages)."""
        context = self.frame_context(request)
        user = context["user"]
        context.update(organization=user.organization if isinstance(user, EpaPrincipal)
                       else "", nav=None)
        return context


def site_of(request: Request) -> EpaSite:
    return request.app.state.epa
