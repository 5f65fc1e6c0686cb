"""Real Chromium on the ePA portal: the app served by uvicorn on a free loopback port, and a
headless Chromium that resolves ``epa.covermymeds.test`` to it (as on a workstation)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from portal_web import create_app
from tests.portal_web.browser import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, free_port
from tests.portal_web.epa.support import PASSWORD, USER

ORIGIN = "http://epa.covermymeds.test"


@contextmanager
def serve_epa(run_dir: Path) -> Iterator[int]:
    """Serve the run's ePA portal on 127.0.0.1 with the run's episode id; yields the port."""
    episode = json.loads((run_dir / "run.json").read_text())["episode_id"]
    app = create_app({"run_dir": run_dir, "episode_id": episode, "sites": ["epa"]})
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name="epa-uvicorn", daemon=True)
    thread.start()
    waiting = threading.Event()
    while not server.started and thread.is_alive():
        waiting.wait(0.02)
    if not server.started:
        raise RuntimeError("uvicorn did not start")
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextmanager
def chromium_epa(port: int) -> Iterator:
    """A Playwright page in headless Chromium, 1280x800, with epa.covermymeds.test mapped."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            *CHROMIUM_ARGS, f"--host-resolver-rules=MAP epa.covermymeds.test 127.0.0.1:{port}"])
        try:
            context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
            yield context.new_page()
        finally:
            browser.close()


def login_epa(page, username: str = USER, password: str = PASSWORD) -> None:  # noqa: ANN001
    page.goto(f"{ORIGIN}/login")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#login-button")
    page.wait_for_url(lambda url: "/login" not in url)
