"""A site's Starlette app, wired the same way for every site: its static files under
``/static``, its routes, browser sessions, error pages and a request size limit.

:func:`view_routes` collects the ``routes`` of a site's view modules, so listing a module's
name is all it takes to serve it.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

import portal_web.common.convertors  # noqa: F401 - registers {x:id}
from portal_web.common.errors import error_handlers
from portal_web.common.middleware import BrowserSessionMiddleware
from portal_web.common.site import PortalSite


def import_views(package: str, modules: Sequence[str]) -> list[ModuleType]:
    """Each module ``<package>.<name>``, imported, in order. A site's ``warm()`` calls it
    so a prestarted portal has its views before it is asked to serve
    (``episodes.prestart``)."""
    return [importlib.import_module(f"{package}.{name}") for name in modules]


def view_routes(package: str, modules: Sequence[str]) -> list[BaseRoute]:
    """The ``routes`` of each module ``<package>.<name>``, in order."""
    return [route for module in import_views(package, modules) for route in module.routes]


def site_app(site: PortalSite, routes: Sequence[BaseRoute], *, static_dir: Path,
             state_name: str, max_body: int, api_prefixes: tuple[str, ...] = ()
             ) -> Starlette:
    """The site's app: ``/static`` from ``static_dir``, then ``routes``; browser sessions
    (none for static files and the ``api_prefixes``, which answer errors as JSON); the
    site's error pages; bodies up to ``max_body`` bytes. The site is kept in
    ``app.state.<state_name>``."""
    app = Starlette(
        routes=[Mount("/static", app=StaticFiles(directory=static_dir), name="static"),
                *routes],
        middleware=[Middleware(BrowserSessionMiddleware, store=site.sessions,
                               skip_prefixes=("/static/", *api_prefixes))],
        exception_handlers=error_handlers(site.templates, api_prefixes=api_prefixes,
                                          base_context=site.base_context),
        max_body_size=max_body,
    )
    setattr(app.state, state_name, site)
    return app
