"""Real Chromium on the Acme portal: the app served by uvicorn on a loopback port and a
headless Chromium resolving ``portal.acmehealth.test`` to it, 1280x800 (the shared pieces
are :mod:`tests.portal_web.browser`'s)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from tests.portal_web.browser import browser_login, headless_page, serve_sites

ORIGIN = "http://portal.acmehealth.test"


def serve(run_dir: Path, episode_id: str = "ep-browser") -> AbstractContextManager[int]:
    """Serve the run's Acme portal on 127.0.0.1; yields the port."""
    return serve_sites(run_dir, ["acme"], episode_id)


def chromium(port: int) -> AbstractContextManager:
    """A Playwright page in headless Chromium with portal.acmehealth.test mapped."""
    return headless_page(port, ["portal.acmehealth.test"])


def login(page, username: str = "riverside.pa",  # noqa: ANN001 - playwright Page
          password: str = "AcmePortal#2026") -> None:
    browser_login(page, ORIGIN, username, password)
