"""Real Chromium on the Acme portal: the app served by uvicorn on a loopback port and a
headless Chromium resolving ``portal.acmehealth.test`` to it, 1280x800."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from portal_web import create_app
from tests.portal_web.browser import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, free_port

ORIGIN = "http://portal.acmehealth.test"


@contextmanager
def serve(run_dir: Path, episode_id: str = "ep-browser") -> Iterator[int]:
    """Serve the run's Acme portal on 127.0.0.1; yields the port."""
    app = create_app({"run_dir": run_dir, "episode_id": episode_id, "sites": ["acme"]})
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name="acme-uvicorn", daemon=True)
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
def chromium(port: int) -> Iterator:
    """A Playwright page in headless Chromium with portal.acmehealth.test mapped."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            *CHROMIUM_ARGS,
            f"--host-resolver-rules=MAP portal.acmehealth.test 127.0.0.1:{port}"])
        try:
            context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
            yield context.new_page()
        finally:
            browser.close()


def login(page, username: str = "riverside.pa",  # noqa: ANN001 - playwright Page
          password: str = "AcmePortal#2026") -> None:
    page.goto(f"{ORIGIN}/login")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#login-button")
    page.wait_for_url(lambda url: "/login" not in url)
