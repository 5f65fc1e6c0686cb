"""Real Chromium on the served sites: the app served by uvicorn on a free loopback port, and
a headless Chromium that resolves the sites' host names to it (so pages load as on a
workstation).

:func:`serve_app` / :func:`serve_sites`, :func:`headless_page` and :func:`browser_login`
serve every site's browser tests; :func:`serve`, :func:`chromium` and :func:`login` are the
web EHR's (``emr.clinic.test``, OpenEMR's log-in field names).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

from portal_web import create_app

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
VIEWPORT = {"width": 1280, "height": 800}
ORIGIN = "http://emr.clinic.test"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serve_app(app: ASGIApp, name: str = "portal") -> Iterator[int]:
    """Serve ``app`` on 127.0.0.1; yields the port; stops the server after."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name=f"{name}-uvicorn", daemon=True)
    thread.start()
    ready = threading.Event()
    while not server.started and thread.is_alive():
        ready.wait(0.02)
    if not server.started:
        raise RuntimeError("uvicorn did not start")
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextmanager
def serve_sites(run_dir: Path, sites: Sequence[str], episode_id: str = "ep-browser"
                ) -> Iterator[int]:
    """Serve the run's ``sites`` on one loopback port (hosts tell them apart)."""
    app = create_app({"run_dir": run_dir, "episode_id": episode_id, "sites": list(sites)})
    with serve_app(app, "-".join(sites)) as port:
        yield port


@contextmanager
def headless_page(port: int, hosts: Sequence[str], *, downloads: bool = True) -> Iterator:
    """A Playwright page in headless Chromium at 1280x800 with ``hosts`` mapped to the
    local server on ``port``."""
    from playwright.sync_api import sync_playwright

    rules = ", ".join(f"MAP {host} 127.0.0.1:{port}" for host in hosts)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            *CHROMIUM_ARGS, f"--host-resolver-rules={rules}"])
        try:
            context = browser.new_context(viewport=VIEWPORT, accept_downloads=downloads)
            yield context.new_page()
        finally:
            browser.close()


def browser_login(page, origin: str, username: str, password: str, *,  # noqa: ANN001
                  fields: tuple[str, str] = ("#username", "#password")) -> None:
    """Log in through the site's log-in page (``fields``: its user and password inputs)."""
    page.goto(f"{origin}/login")
    page.fill(fields[0], username)
    page.fill(fields[1], password)
    page.click("#login-button")
    page.wait_for_url(lambda url: "/login" not in url)


# -- the web EHR ---------------------------------------------------------------------------
def serve(run_dir: Path, episode_id: str = "ep-browser") -> AbstractContextManager[int]:
    """Serve the run's web EHR on 127.0.0.1; yields the port."""
    return serve_sites(run_dir, ["ehr"], episode_id)


def chromium(port: int) -> AbstractContextManager:
    """A Playwright page in headless Chromium, 1280x800, with emr.clinic.test mapped."""
    return headless_page(port, ["emr.clinic.test"])


def login(page, username: str, password: str) -> None:  # noqa: ANN001 - playwright Page
    browser_login(page, ORIGIN, username, password, fields=("#authUser", "#clearPass"))
