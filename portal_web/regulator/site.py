"""Where an external review view finds its site: kept on the app's state by
:func:`portal_web.regulator.app.build_regulator_app`."""

from __future__ import annotations

from starlette.requests import Request

from portal_web.common.account_site import AccountSite


def site_of(request: Request) -> AccountSite:
    return request.app.state.regulator
