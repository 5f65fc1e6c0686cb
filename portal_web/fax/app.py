"""Builds the fax service's Starlette app: log-in, compose, sent log, directory, payer
resources, and the transmitter that moves sent jobs along."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.common.account_site import build_account_app, new_site
from portal_web.common.login import LoginPage, account_login, login_routes
from portal_web.fax.site import site_of
from portal_web.fax.transmitter import FaxTransmitter
from portal_web.fax.views import compose, resources, sent
from portal_web.settings import PortalSettings
from sandbox.stores.fax import FaxAccount

PACKAGE = Path(__file__).parent
TEMPLATES_DIR = PACKAGE / "templates"
STATIC_DIR = PACKAGE / "static"
HOME = "/sent"
PRODUCT = "Beta Care FaxLink"


async def home(request: Request) -> Response:
    return RedirectResponse(HOME, status_code=303)


def build_fax_app(settings: PortalSettings) -> Starlette:
    """The fax service of one episode (host ``fax.betacare.test``)."""
    site = new_site(settings, "fax", TEMPLATES_DIR, cookie="FAXLINK",
                    frame={"product": PRODUCT})
    routes = [Route("/", home, methods=["GET"], name="home"),
              *login_routes(account_login(FaxAccount), site_of=site_of,
                           page=LoginPage(home=HOME)),
              *compose.routes, *sent.routes, *resources.routes]
    app = build_account_app(site, routes, STATIC_DIR, "fax")
    app.state.transmitter = FaxTransmitter(site.stores, settings.run_dir)
    return app
