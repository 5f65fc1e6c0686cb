"""portal_web: one ASGI application serving every web system of an episode by host name.

``create_app(settings)`` builds the app from a factory (no module globals): each host name
maps to a site module ``portal_web.sites.<name>`` exposing ``create_site(settings)``.
Requests for an unknown host get a plain page listing the hosts this server knows.
"""

from __future__ import annotations

import importlib
from typing import Any

from starlette.responses import HTMLResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from portal_web.settings import PortalSettings


class HostDispatcher:
    """Routes each request to the site registered for its Host header."""

    def __init__(self, sites: dict[str, ASGIApp]):
        self.sites = sites

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        host = _host_of(scope)
        app = self.sites.get(host)
        if app is None:
            known = "".join(f"<li>{h}</li>" for h in sorted(self.sites))
            response = HTMLResponse(
                f"<h1>Unknown site</h1><p>No sandbox system answers at <b>{host or '?'}</b>."
                f"</p><p>Systems on this workstation:</p><ul>{known}</ul>", status_code=404)
            await response(scope, receive, send)
            return
        await app(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


def _host_of(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"host":
            return value.decode("latin-1").split(":")[0].lower()
    return ""


class SiteError(RuntimeError):
    """A host maps to a site that does not exist: the server refuses to start."""


def create_app(settings: PortalSettings | dict[str, Any]) -> HostDispatcher:
    """Every site of ``settings.hosts`` (or of ``settings.sites``), each built once; a host
    whose site module is missing is an error, never a silent gap in the episode."""
    if not isinstance(settings, PortalSettings):
        settings = PortalSettings.model_validate(settings)
    known = sorted(set(settings.hosts.values()))
    unknown = sorted(set(settings.sites or ()) - set(known))
    if unknown:
        raise SiteError(f"no host serves the site(s) {', '.join(unknown)}; known sites: "
                        f"{', '.join(known)}")
    sites: dict[str, ASGIApp] = {}
    built: dict[str, ASGIApp] = {}
    for host, site_name in settings.hosts.items():
        if settings.sites is not None and site_name not in settings.sites:
            continue
        if site_name not in built:
            try:
                module = importlib.import_module(f"portal_web.sites.{site_name}")
            except ModuleNotFoundError as exc:
                if exc.name == f"portal_web.sites.{site_name}":
                    raise SiteError(f"host {host} maps to site {site_name!r}, which has no "
                                    f"module portal_web/sites/{site_name}.py") from exc
                raise
            built[site_name] = module.create_site(settings)
        sites[host] = built[site_name]
    return HostDispatcher(sites)


__all__ = ["HostDispatcher", "PortalSettings", "SiteError", "create_app"]
