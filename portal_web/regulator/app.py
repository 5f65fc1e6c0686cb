"""Builds the external review portal's Starlette app."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from starlette.applications import Starlette
from starlette.requests import Request

from portal_web.common.account_site import (
    AccountSite,
    build_account_app,
    login_routes,
    new_site,
    password_matches,
)
from portal_web.common.sessions import Principal
from portal_web.settings import PortalSettings
from sandbox.stores.regulator import RegulatorUser

PACKAGE = Path(__file__).parent
TEMPLATES_DIR = PACKAGE / "templates"
STATIC_DIR = PACKAGE / "static"
HOME = "/"
AGENCY = "State Department of Insurance"


def site_of(request: Request) -> AccountSite:
    return request.app.state.regulator


def authenticate(site: AccountSite, username: str, password: str) -> Principal | None:
    with site.reader() as db:
        user = db.scalar(select(RegulatorUser).where(RegulatorUser.username == username))
    if user is None or not user.active or not password_matches(user.password_sha256,
                                                               password):
        return None
    return Principal(username=user.username, user_id=user.id, display_name=user.display_name)


def build_regulator_app(settings: PortalSettings) -> Starlette:
    """The external review portal of one episode (host ``review.insurance.state.test``)."""
    from portal_web.regulator.views import requests

    site = new_site(settings, "regulator", TEMPLATES_DIR, cookie="DOIREVIEW", home=HOME,
                    frame={"agency": AGENCY})
    routes = [*login_routes(authenticate, site_of=site_of), *requests.routes]
    return build_account_app(site, routes, STATIC_DIR, "regulator")
