"""Where a fax service view finds its site and its transmitter: both are kept on the app's
state by :func:`portal_web.fax.app.build_fax_app`."""

from __future__ import annotations

from starlette.requests import Request

from portal_web.common.account_site import AccountSite
from portal_web.fax.transmitter import FaxTransmitter


def site_of(request: Request) -> AccountSite:
    return request.app.state.fax


def transmitter_of(request: Request) -> FaxTransmitter:
    return request.app.state.transmitter
