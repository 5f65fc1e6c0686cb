"""Builds the external review portal's Starlette app."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette

from portal_web.common.account_site import build_account_app, new_site
from portal_web.common.login import LoginPage, account_login, login_routes
from portal_web.regulator.site import site_of
from portal_web.regulator.views import requests
from portal_web.settings import PortalSettings
from sandbox.stores.regulator import RegulatorUser

PACKAGE = Path(__file__).parent
TEMPLATES_DIR = PACKAGE / "templates"
STATIC_DIR = PACKAGE / "static"
HOME = "/"
AGENCY = "State Department of Insurance"


def build_regulator_app(settings: PortalSettings) -> Starlette:
    """The external review portal of one episode (host ``review.insurance.state.test``)."""
    site = new_site(settings, "regulator", TEMPLATES_DIR, cookie="DOIREVIEW",
                    frame={"agency": AGENCY})
    routes = [*login_routes(account_login(RegulatorUser), site_of=site_of,
                           page=LoginPage(home=HOME)),
              *requests.routes]
    return build_account_app(site, routes, STATIC_DIR, "regulator")
