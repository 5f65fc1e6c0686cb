"""The Acme Health portal's per-app context: stores, templates, sessions, roles, rendering.

Every page goes through :meth:`AcmeSite.render`, which adds what the portal frame shows
around the content (the logged-in user and organisation, the menu entries the user's role
may open, the idle time-out for the warning script, a one-time flash message). Every write
goes through :meth:`AcmeSite.writer`: one audited transaction on the ``acme`` store whose
channel is the session principal's (``browser``), never anything the form says.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

import portal_web.common.convertors  # noqa: F401 - registers {x:id} for every view module
from portal_web.common.params import parse_int
from portal_web.common.requests import login_required, principal_of
from portal_web.common.sessions import Principal
from portal_web.common.site import PortalSite
from sandbox.stores.acme import PORTAL_SETTING_DEFAULTS, PortalSetting

TEMPLATES_DIR = Path(__file__).parent / "templates"
STATIC_DIR = Path(__file__).parent / "static"
SYSTEM = "acme"
LOGIN_PATH = "/login"
HOME_PATH = "/home"
IDLE_WARNING_S = 120  # the warning shows this long before the idle time-out

Endpoint = Callable[[Request], Awaitable[Response]]

# Menu areas and the roles that may open them (portal_users.role). A PA coordinator works
# requests, appeals and peer-to-peer; the billing office works claims and claim appeals.
AREA_TITLES = {
    "home": "Home",
    "eligibility": "Eligibility & Benefits",
    "authorizations": "Authorizations & Referrals",
    "claims": "Claims & Payments",
    "appeals": "Appeals",
    "resources": "Resources/Policies",
}
ROLE_LABELS = {
    "prior_auth_coordinator": "Prior authorization coordinator",
    "billing": "Billing office",
    "office_staff": "Office staff",
}
ROLE_AREAS = {
    "prior_auth_coordinator": frozenset(
        {"home", "eligibility", "authorizations", "appeals", "resources"}),
    "billing": frozenset({"home", "eligibility", "claims", "appeals", "resources"}),
    "office_staff": frozenset({"home", "eligibility", "authorizations", "resources"}),
}


@dataclass
class PortalPrincipal(Principal):
    """A provider-office user logged in to the portal (role decides the menu areas)."""

    role: str = "office_staff"
    organization: str = ""
    organization_tin: str = ""
    organization_npi: str = ""

    def may_open(self, area: str) -> bool:
        return area in ROLE_AREAS.get(self.role, frozenset({"home", "resources"}))

    @property
    def role_label(self) -> str:
        return ROLE_LABELS.get(self.role, self.role.replace("_", " ").capitalize())


@dataclass
class AcmeSite(PortalSite):
    """Everything the views of one Acme portal app share."""

    system: str = SYSTEM
    # which Acme portal this is, as portal_users.sites names it ("provider", "dme")
    portal_key: str = "provider"
    # members whose forced session expiry (pa-19) already happened in this episode
    expired_members: set[str] = field(default_factory=set)
    no_store = True

    # -- data ---------------------------------------------------------------------------
    def setting(self, key: str) -> str:
        """A ``portal_settings`` value, else its default (``PORTAL_SETTING_DEFAULTS``)."""
        default = PORTAL_SETTING_DEFAULTS.get(key, "")
        try:
            with self.reader() as db:
                value = db.scalar(select(PortalSetting.value).where(PortalSetting.key == key))
        except Exception:  # noqa: BLE001 - no store (yet): the default applies
            return default
        return default if value is None else value

    def idle_timeout_s(self) -> int:
        """Idle seconds before log-out (``session.idle_timeout_minutes``, at least 1)."""
        raw = self.setting("session.idle_timeout_minutes").strip()
        minutes = parse_int(raw, low=1, high=7 * 24 * 60) or 30
        return minutes * 60

    # -- rendering --------------------------------------------------------------------
    def base_context(self, request: Request) -> dict[str, Any]:
        """What the page frame needs, for any request (also for error pages)."""
        context = self.frame_context(request)
        user = context["user"]
        try:
            timeout_s = self.idle_timeout_s()
        except Exception:  # noqa: BLE001
            timeout_s = 1800
        context.update({
            "area": None,
            "area_titles": AREA_TITLES,
            "menu_areas": [a for a in AREA_TITLES if user is not None and user.may_open(a)]
            if isinstance(user, PortalPrincipal) else [],
            "idle_timeout_s": timeout_s,
            "idle_warning_s": IDLE_WARNING_S,
            "breadcrumbs": [],
        })
        return context

    def render(self, request: Request, template: str, context: dict[str, Any] | None = None,
               *, area: str | None = None, status_code: int = 200) -> Response:
        return self.respond(request, template, {
            **self.base_context(request), "area": area, **(context or {})},
            status_code=status_code)


def filesize(size: int | None) -> str:
    """A file size as portals show it: 812 bytes, 45.3 KB, 2.1 MB."""
    if size is None:
        return ""
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1048576:.1f} MB"


def site_of(request: Request) -> AcmeSite:
    return request.app.state.acme


def user_of(request: Request) -> PortalPrincipal:
    principal = principal_of(request)
    assert isinstance(principal, PortalPrincipal), "view not guarded by area_view"
    return principal


guard = login_required(LOGIN_PATH)


def area_view(area: str) -> Callable[[Endpoint], Endpoint]:
    """Decorator: log-in required, and the user's role must open ``area`` (else a 403 page
    naming the area and what to do)."""
    if area not in AREA_TITLES:
        raise ValueError(f"unknown portal area {area!r}; known: {', '.join(AREA_TITLES)}")

    def wrap(view: Endpoint) -> Endpoint:
        @functools.wraps(view)
        async def checked(request: Request) -> Response:
            user = principal_of(request)
            if isinstance(user, PortalPrincipal) and not user.may_open(area):
                raise HTTPException(status_code=403, detail=(
                    f"Your account ({user.role_label}) does not have access to "
                    f"{AREA_TITLES[area]}. Log in with an account that has this role, or ask "
                    "your organization's portal administrator for access."))
            return await view(request)

        return guard(checked)

    return wrap
