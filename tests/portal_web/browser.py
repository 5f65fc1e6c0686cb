"""Real Chromium on the web EHR: the app served by uvicorn on a free loopback port, and a
headless Chromium that resolves ``emr.clinic.test`` to it (so pages load as on a workstation).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn

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
def serve(run_dir: Path, episode_id: str = "ep-browser") -> Iterator[int]:
    """Serve the run's web systems on 127.0.0.1; yields the port; stops the server after."""
    app = create_app({"run_dir": run_dir, "episode_id": episode_id, "sites": ["ehr"]})
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name="ehr-uvicorn", daemon=True)
    thread.start()
    started = threading.Event()

    def wait_started() -> None:
        while not server.started and thread.is_alive():
            started.wait(0.02)

    wait_started()
    if not server.started:
        raise RuntimeError("uvicorn did not start")
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextmanager
def chromium(port: int) -> Iterator:
    """A Playwright page in headless Chromium, 1280x800, with emr.clinic.test mapped."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            *CHROMIUM_ARGS, f"--host-resolver-rules=MAP emr.clinic.test 127.0.0.1:{port}"])
        try:
            context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
            yield context.new_page()
        finally:
            browser.close()


def login(page, username: str, password: str) -> None:  # noqa: ANN001 - playwright Page
    page.goto(f"{ORIGIN}/login")
    page.fill("#authUser", username)
    page.fill("#clearPass", password)
    page.click("#login-button")
    page.wait_for_url(lambda url: "/login" not in url)
