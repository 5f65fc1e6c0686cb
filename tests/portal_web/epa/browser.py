"""Real Chromium on the ePA portal: the app served by uvicorn on a free loopback port, and a
headless Chromium that resolves ``epa.covermymeds.test`` to it (as on a workstation); the
shared pieces are :mod:`tests.portal_web.browser`'s."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from pathlib import Path

from tests.portal_web.browser import browser_login, headless_page, serve_sites
from tests.portal_web.epa.support import PASSWORD, USER

ORIGIN = "http://epa.covermymeds.test"


def serve_epa(run_dir: Path) -> AbstractContextManager[int]:
    """Serve the run's ePA portal on 127.0.0.1 with the run's episode id; yields the port."""
    episode = json.loads((run_dir / "run.json").read_text())["episode_id"]
    return serve_sites(run_dir, ["epa"], episode)


def chromium_epa(port: int) -> AbstractContextManager:
    """A Playwright page in headless Chromium, 1280x800, with epa.covermymeds.test mapped."""
    return headless_page(port, ["epa.covermymeds.test"])


def login_epa(page, username: str = USER, password: str = PASSWORD) -> None:  # noqa: ANN001
    browser_login(page, ORIGIN, username, password)
